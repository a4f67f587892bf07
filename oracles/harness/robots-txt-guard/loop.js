#!/usr/bin/env node
/**
 * The parser's own speed: a direct loop of npm `robots-txt-guard` with
 * `robots-txt-parse` over a census's exact files and questions
 * (`repdiff census queries`), for `cargo xtask bench`'s direct row. Every
 * file is read and decoded first; then only the library's calls are timed
 * with the process's CPU clock, fed as harness.js feeds them (as
 * broken-link-checker does: guard(await parse(stream)) once per file, the
 * body as a byte stream; isAllowed(agent, new URL(url).pathname) per
 * question, the agent verbatim).
 *
 *     node loop.js QUERIES.jsonl      (NODE_PATH reaching robots-txt-guard)
 *
 * Prints {"cpu_seconds": S, "verdicts": "ad..."}, one letter per question in
 * file order: a allowed, d disallowed, e anything else.
 */
'use strict';

const fs = require('fs');
const { PassThrough } = require('stream');
const guard = require('robots-txt-guard');
const parse = require('robots-txt-parse');

const files = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter((l) => l).map((line) => {
  const rec = JSON.parse(line);
  return { body: Buffer.from(rec.body_hex, 'hex'), queries: rec.queries };
});

const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };

async function main() {
  const start = cpu();
  let verdicts = '';
  for (const { body, queries } of files) {
    let robots = null;
    try {
      const stream = new PassThrough();
      stream.end(body);
      robots = guard(await parse(stream));
    } catch (e) {
      robots = null;
    }
    for (const q of queries) {
      if (robots === null) {
        verdicts += 'e';
        continue;
      }
      try {
        const v = robots.isAllowed(q.agent, new URL(q.url).pathname);
        verdicts += v === true ? 'a' : v === false ? 'd' : 'e';
      } catch (e) {
        verdicts += 'e';
      }
    }
  }
  const seconds = cpu() - start;
  process.stdout.write(JSON.stringify({ cpu_seconds: seconds, verdicts }) + '\n');
}

main();
