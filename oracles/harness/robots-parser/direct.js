#!/usr/bin/env node
/**
 * Direct run of npm `robots-parser` for repdiff's fidelity test: the
 * reference that `harness.js` (the protocol harness) is compared
 * against. It shares no code with the harness and calls the library the
 * simplest way its README does, a fresh parser for every query:
 *
 *     robotsParser(robotsTxtUrl, body.toString('utf8')).isAllowed(url, ua)
 *
 * (`Buffer#toString` keeps a leading BOM where the harness's TextDecoder
 * drops it: the comparison also checks that this makes no difference.)
 *
 * stdin: one JSON object per line, {"body_b64": "...", "queries": [...]}.
 * stdout: one line per input, {"answers": [...]}, answers encoded as in
 * protocol v2 (docs/protocol.md) with the same kinds and texts as the
 * harness. Needs NODE_PATH to reach robots-parser.
 */
'use strict';

const readline = require('readline');
const robotsParser = require('robots-parser');

/** Where robots-parser itself resolves relative URLs (Robots.js, parseUrl). */
const BASE = 'http://robots-relative.samclarke.com/';

/** The protocol's robots.txt URL: the query URL's origin + /robots.txt, or
 * the library's base one when the URL has no (or an opaque) origin. */
function robotsTxtUrl(url) {
  let origin;
  try {
    origin = new URL(url, BASE).origin;
  } catch (e) {
    origin = 'null';
  }
  return (origin === 'null' ? 'http://robots-relative.samclarke.com' : origin) + '/robots.txt';
}

function answer(text, query) {
  try {
    if (query.ask === 'can_fetch') {
      const robotsUrl = robotsTxtUrl(query.url);
      const robots = robotsParser(robotsUrl, text);
      const allowed = robots.isAllowed(query.url, query.agent);
      if (allowed === true || allowed === false) {
        const out = { outcome: allowed ? 'allowed' : 'disallowed' };
        const line = robots.getMatchingLineNumber(query.url, query.agent);
        if (line > 0) out.explain = 'line ' + line;
        return out;
      }
      return {
        outcome: 'error',
        kind: typeof allowed,
        message: `isAllowed returned ${allowed} (robots URL ${robotsUrl})`,
      };
    }
    if (query.ask === 'crawl_delay') {
      const delay = robotsParser(robotsTxtUrl(query.url), text).getCrawlDelay(query.agent);
      if (delay === undefined) return { outcome: 'value', value: { type: 'none' } };
      if (Number.isSafeInteger(delay)) return { outcome: 'value', value: { type: 'int', value: delay } };
      if (isFinite(delay)) return { outcome: 'value', value: { type: 'float', value: delay } };
      return {
        outcome: 'error',
        kind: 'repdiff.Unrepresentable',
        message: `crawl delay ${delay} is not a JSON number`,
      };
    }
    if (query.ask === 'sitemaps') {
      const sitemaps = robotsParser(robotsTxtUrl(query.url), text).getSitemaps();
      return { outcome: 'value', value: { type: 'list', value: sitemaps } };
    }
    return { outcome: 'unsupported', reason: 'robots-parser has no request-rate API' };
  } catch (e) {
    return { outcome: 'error', kind: e.name, message: e.message };
  }
}

readline.createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  if (!line.trim()) return;
  const input = JSON.parse(line);
  const text = Buffer.from(input.body_b64, 'base64').toString('utf8');
  const answers = input.queries.map((query) => answer(text, query));
  process.stdout.write(JSON.stringify({ answers }) + '\n');
});
