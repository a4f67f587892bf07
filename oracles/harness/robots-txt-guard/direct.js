#!/usr/bin/env node
/**
 * Direct run of npm robots-txt-guard 1.0.2 + robots-txt-parse 2.0.1 for
 * repdiff's fidelity test: the reference that harness.js (the protocol
 * harness) is compared against. It shares no code with the harness and
 * calls the libraries as broken-link-checker does, with a real HTTP
 * response stream:
 *
 *     const robots = guard(await parse(responseStream));   // getRobotsTxt.js
 *     robots.isAllowed(userAgent, rebasedURL.pathname);    // SiteChecker.js
 *
 * Each body is served as `200 OK`, `Content-Type: text/plain` by a local
 * HTTP server and fetched with node's http.get; the IncomingMessage is the
 * stream robots-txt-parse reads. A URL the WHATWG parser refuses is an
 * error (blc never asks about it); other asks are unsupported.
 *
 * stdin: one JSON object per line, {"body_b64": "...", "queries": [...]}.
 * stdout: one line per input, {"answers": [...]}, as in protocol v2, without
 * `explain`.
 */
'use strict';

const http = require('http');
const readline = require('readline');
const guard = require('robots-txt-guard');
const parse = require('robots-txt-parse');

let current = Buffer.alloc(0);

const server = http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': current.length });
  res.end(current);
});

function fetchStream(port) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/robots.txt', agent: false }, resolve).on('error', reject);
  });
}

async function answerCase(port, input) {
  current = Buffer.from(input.body_b64, 'base64');
  const robots = guard(await parse(await fetchStream(port)));
  return input.queries.map((q) => {
    if (q.ask !== 'can_fetch') return { outcome: 'unsupported', reason: 'no such API' };
    let url;
    try {
      url = new URL(q.url);
    } catch (e) {
      return { outcome: 'error', kind: e.name, message: e.message };
    }
    try {
      return { outcome: robots.isAllowed(q.agent, url.pathname) ? 'allowed' : 'disallowed' };
    } catch (e) {
      return { outcome: 'error', kind: e.name, message: e.message };
    }
  });
}

server.listen(0, '127.0.0.1', async () => {
  const port = server.address().port;
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const answers = await answerCase(port, JSON.parse(line));
    process.stdout.write(JSON.stringify({ answers }) + '\n');
  }
  server.close();
});
