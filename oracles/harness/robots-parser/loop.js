#!/usr/bin/env node
/**
 * The parser's own speed: a direct loop of npm `robots-parser` over a
 * census's exact files and questions (`repdiff census queries`), for
 * `cargo xtask bench`'s direct row. Every file is read and decoded first;
 * then only the library's calls are timed with the process's CPU clock,
 * fed as harness.js feeds it (as Lighthouse and Crawlee do: the body as
 * fetch().text() decodes it, one robotsParser(robotsUrl, text) per robots
 * URL of a file, isAllowed(url, agent)).
 *
 *     node loop.js QUERIES.jsonl      (NODE_PATH reaching robots-parser)
 *
 * Prints {"cpu_seconds": S, "verdicts": "ad..."}, one letter per question in
 * file order: a allowed, d disallowed, e anything else.
 */
'use strict';

const fs = require('fs');
const robotsParser = require('robots-parser');

/** Where robots-parser itself resolves relative URLs (Robots.js, parseUrl). */
const LIBRARY_BASE = 'http://robots-relative.samclarke.com/';

function robotsUrlFor(url) {
  let origin = 'null';
  try {
    origin = new URL(url, LIBRARY_BASE).origin;
  } catch (e) {
    // No origin at all: as an opaque one.
  }
  return origin === 'null' ? new URL('/robots.txt', LIBRARY_BASE).href : `${origin}/robots.txt`;
}

const files = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter((l) => l).map((line) => {
  const rec = JSON.parse(line);
  return {
    text: new TextDecoder('utf-8').decode(Buffer.from(rec.body_hex, 'hex')),
    queries: rec.queries,
  };
});

const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const start = cpu();
let verdicts = '';
for (const { text, queries } of files) {
  const parsed = new Map();
  for (const q of queries) {
    try {
      const robotsUrl = robotsUrlFor(q.url);
      if (!parsed.has(robotsUrl)) parsed.set(robotsUrl, robotsParser(robotsUrl, text));
      const v = parsed.get(robotsUrl).isAllowed(q.url, q.agent);
      verdicts += v === true ? 'a' : v === false ? 'd' : 'e';
    } catch (e) {
      verdicts += 'e';
    }
  }
}
const seconds = cpu() - start;
process.stdout.write(JSON.stringify({ cpu_seconds: seconds, verdicts }) + '\n');
