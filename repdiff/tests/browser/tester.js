// Drives `repdiff serve`'s tester as a person would, through Playwright's
// core over the DevTools protocol: clears the robots.txt box and pastes a
// file into it, types the agents and URLs, presses Check and waits for the
// table, then presses Lint and waits for the findings. Prints one JSON
// object: every result row (agent, URL, whether it is split, each oracle's
// cell class) and the findings' text. The Rust test decides what is right.
//
// usage: node tester.js URL CHROMIUM ROBOTS_FILE AGENTS URLS [FLAG...]
const { chromium } = require('playwright-core');
const fs = require('fs');

async function main() {
  const [url, executable, robotsFile, agents, urls, ...flags] = process.argv.slice(2);
  const robots = fs.readFileSync(robotsFile, 'utf8');
  const browser = await chromium.launch({ executablePath: executable, args: flags, headless: true });
  try {
    const page = await browser.newPage();
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
    })));
    await page.click('#lint');
    await page.waitForFunction(() => document.querySelector('#findings').textContent.trim().length > 0);
    const findings = await page.$eval('#findings', e => e.textContent);
    process.stdout.write(JSON.stringify({ rows, findings }) + '\n');
  } finally {
    await browser.close();
  }
}

main().catch(e => { console.error(e && e.stack || String(e)); process.exit(1); });
