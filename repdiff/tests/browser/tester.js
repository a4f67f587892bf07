// Drives `repdiff serve`'s tester as a person would, through Playwright's
// core over the DevTools protocol: clears the robots.txt box and pastes a
// file into it, types the agents and URLs, presses Check and waits for the
// table, then presses Lint and waits for the findings. Prints one JSON
// object: every result row (agent, URL, whether it is split, each oracle's
// cell class, each collapsed group's), the page's width at a 1280-px
// window and the findings' text. The Rust test decides what is right.
// With TESTER_SCREENSHOTS=PREFIX it saves PREFIX-check.png and
// PREFIX-lint.png (and PREFIX-review.png with TESTER_BEFORE).
//
// usage: node tester.js URL CHROMIUM ROBOTS_FILE AGENTS URLS [FLAG...]
const { chromium } = require('playwright-core');
const fs = require('fs');

async function main() {
  const [url, executable, robotsFile, agents, urls, ...flags] = process.argv.slice(2);
  const robots = fs.readFileSync(robotsFile, 'utf8');
  const browser = await chromium.launch({ executablePath: executable, args: flags, headless: true });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const shots = process.env.TESTER_SCREENSHOTS;
    page.setDefaultTimeout(60000);
    await page.goto(url);
    for (const [box, text, how] of [['#robots', robots, 'paste'], ['#agents', agents, 'type'], ['#urls', urls, 'type']]) {
      await page.click(box);
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Delete');
      // A paste arrives as one input event; typing as one per key.
      if (how === 'paste') await page.keyboard.insertText(text);
      else await page.keyboard.type(text);
    }
    await page.click('#check');
    await page.waitForSelector('#results tr[data-agent]');
    const rows = await page.$$eval('#results tr[data-agent]', trs => trs.map(tr => ({
      agent: tr.dataset.agent,
      url: tr.dataset.url || null,
      split: tr.classList.contains('split'),
      cells: Object.fromEntries([...tr.querySelectorAll('td[data-oracle]')].map(td => [td.dataset.oracle, td.className])),
      groups: Object.fromEntries([...tr.querySelectorAll('td[data-group]')].map(td => [td.dataset.group, td.dataset.oracles])),
      lines: Object.fromEntries([...tr.querySelectorAll('td[data-oracle]')].map(td => [td.dataset.oracle, (td.querySelector('small.line') || {}).textContent || null])),
    })));
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    if (shots) await page.screenshot({ path: `${shots}-check.png`, fullPage: true });
    await page.click('#lint');
    await page.waitForFunction(() => document.querySelector('#findings').textContent.trim().length > 0);
    const findings = await page.$eval('#findings', e => e.textContent);
    if (shots) await page.screenshot({ path: `${shots}-lint.png`, fullPage: true });
    // With TESTER_BEFORE=FILE: open the change review, paste the earlier
    // version and press Compare.
    let review = null;
    if (process.env.TESTER_BEFORE) {
      await page.click('#compare-box summary');
      await page.click('#before');
      await page.keyboard.insertText(fs.readFileSync(process.env.TESTER_BEFORE, 'utf8'));
      await page.click('#compare');
      await page.waitForSelector('#review-diff');
      review = await page.$eval('#findings', e => e.textContent);
      if (shots) await page.screenshot({ path: `${shots}-review.png`, fullPage: true });
    }
    process.stdout.write(JSON.stringify({ rows, width, findings, review }) + '\n');
  } finally {
    await browser.close();
  }
}

main().catch(e => { console.error(e && e.stack || String(e)); process.exit(1); });
