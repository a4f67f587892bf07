#!/usr/bin/env node
/**
 * repdiff oracle harness (protocol v2, docs/protocol.md) for npm
 * `robots-parser` (samclarke/robots-parser), run by node.
 *
 * The library is found through NODE_PATH (`cargo xtask setup` installs it
 * into `.cache/npm/node_modules`). It is fed the way its users feed it:
 *
 *     robotsParser(robotsUrl, text).isAllowed(url, agent)
 *
 * - `text` is the body as `fetch(...).text()` returns it: WHATWG UTF-8
 *   decode (`new TextDecoder('utf-8')`), so every invalid sequence becomes
 *   one U+FFFD and one leading BOM is dropped. (`Buffer#toString('utf8')`
 *   replaces the same way but keeps the BOM; robots-parser trims every key
 *   and value with `String#trim`, which removes U+FEFF, so the two feedings
 *   give the same answers.)
 * - `robotsUrl` is the query URL's origin plus `/robots.txt`, what a
 *   crawler fetching that URL would have fetched. robots-parser resolves
 *   every URL against its own base (`LIBRARY_BASE`), so a relative query URL
 *   is given that base's robots.txt. So is a URL with no origin (one that
 *   does not parse even then, or whose origin is opaque, like `mailto:`):
 *   like any user's, the parser then has a valid robots URL, and the library
 *   answers such a URL as it documents (`undefined`).
 * - The body is parsed once per distinct robots URL per request.
 *
 * Answers: `isAllowed` true/false are verdicts; anything else (its
 * `undefined` for a URL on another origin) is an `error` whose kind is the
 * JavaScript type (`undefined`). An exception is an `error` whose kind is
 * the exception's name. `getCrawlDelay` gives `undefined` (none) or a
 * Number: an int when it is a safe integer, else a float. robots-parser has
 * no request-rate API.
 */
'use strict';

const fs = require('fs');
const path = require('path');

const NAME = 'robots-parser';
const FIX = 'cargo xtask setup';

/** The base robots-parser's own `parseUrl` (Robots.js) resolves URLs against. */
const LIBRARY_BASE = 'http://robots-relative.samclarke.com/';

const FEEDING =
  "robotsParser(origin of the query URL + '/robots.txt', " +
  "new TextDecoder('utf-8').decode(body)) as fetch().text() decodes " +
  '(U+FFFD for invalid bytes, one leading BOM dropped); ' +
  'one parser per distinct robots URL per request';

/** One protocol message: a single JSON line on stdout (synchronous on pipes). */
function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

/**
 * The npm lockfile entry of the installed package (its `integrity` pins the
 * tarball): npm's hidden lockfile in the same node_modules, else the
 * project's package-lock.json beside that node_modules.
 */
function lockEntry(packageDir) {
  const modules = path.dirname(packageDir);
  const lockfiles = [
    path.join(modules, '.package-lock.json'),
    path.join(path.dirname(modules), 'package-lock.json'),
  ];
  for (const file of lockfiles) {
    try {
      const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
      const entry = lock.packages && lock.packages[`node_modules/${NAME}`];
      if (entry) return entry;
    } catch (e) {
      // Missing or unreadable: try the next one.
    }
  }
  return null;
}

/** Load the library and describe it; null after sending `unavailable`. */
function load() {
  let robotsParser, manifestPath;
  try {
    robotsParser = require(NAME);
    manifestPath = require.resolve(`${NAME}/package.json`);
  } catch (e) {
    send({
      v: 2,
      unavailable: {
        oracle: NAME,
        // The first line: node appends a require stack of local paths.
        reason: `cannot require ${NAME}: ${e.message.split('\n')[0]}`,
        fix: FIX,
      },
    });
    return null;
  }
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  const provenance = {
    registry: 'npm',
    package: NAME,
    version: manifest.version,
    artifact: `${NAME}-${manifest.version}.tgz`,
  };
  const entry = lockEntry(path.dirname(manifestPath));
  if (entry && entry.version === manifest.version && entry.integrity) {
    provenance.integrity = entry.integrity;
  } else {
    process.stderr.write(`${NAME}: no lockfile integrity for ${NAME}@${manifest.version}\n`);
  }
  const hello = {
    name: NAME,
    library: NAME,
    version: manifest.version,
    language: 'javascript',
    runtime: { name: 'node', version: process.versions.node },
    provenance,
    capabilities: {
      can_fetch: true,
      crawl_delay: true,
      request_rate: false,
      sitemaps: true,
      http_fetch: false,
    },
    feeding: FEEDING,
  };
  return { robotsParser, hello };
}

/** The robots.txt URL a crawler fetching `url` would have used (see the header). */
function robotsUrlFor(url) {
  let origin = 'null';
  try {
    origin = new URL(url, LIBRARY_BASE).origin;
  } catch (e) {
    // No origin at all: as an opaque one.
  }
  return origin === 'null' ? new URL('/robots.txt', LIBRARY_BASE).href : `${origin}/robots.txt`;
}

function error(kind, message) {
  return { outcome: 'error', kind, message };
}

function thrown(e) {
  if (e instanceof Error) return error(e.name, e.message);
  return error(typeof e, String(e));
}

/** A crawl delay as a protocol value (or an error when JSON cannot hold it). */
function delayAnswer(delay) {
  if (delay === undefined) return { outcome: 'value', value: { type: 'none' } };
  if (typeof delay !== 'number') {
    return error(typeof delay, `getCrawlDelay returned ${String(delay)}`);
  }
  // Beyond 2^53 a Number is no longer an exact integer (and past i64 the
  // parent could not read it as one): such values travel as floats.
  if (Number.isSafeInteger(delay)) return { outcome: 'value', value: { type: 'int', value: delay } };
  if (Number.isFinite(delay)) return { outcome: 'value', value: { type: 'float', value: delay } };
  return error('repdiff.Unrepresentable', `crawl delay ${delay} is not a JSON number`);
}

/** Answer the queries of one `run` request. */
function run(robotsParser, body, queries, explain) {
  const text = new TextDecoder('utf-8').decode(body);
  // robots URL -> {robots} or {failure}: parse once per distinct robots URL.
  const parsed = new Map();
  function robotsFor(url) {
    const robotsUrl = robotsUrlFor(url);
    if (!parsed.has(robotsUrl)) {
      try {
        parsed.set(robotsUrl, { robotsUrl, robots: robotsParser(robotsUrl, text) });
      } catch (e) {
        parsed.set(robotsUrl, { robotsUrl, failure: thrown(e) });
      }
    }
    return parsed.get(robotsUrl);
  }
  return queries.map((query) => {
    if (query.ask === 'request_rate') {
      return { outcome: 'unsupported', reason: 'robots-parser has no request-rate API' };
    }
    const { robotsUrl, robots, failure } = robotsFor(query.url);
    if (failure) return failure;
    try {
      switch (query.ask) {
        case 'can_fetch': {
          const verdict = robots.isAllowed(query.url, query.agent);
          if (typeof verdict !== 'boolean') {
            return error(
              typeof verdict,
              `isAllowed returned ${String(verdict)} (robots URL ${robotsUrl})`,
            );
          }
          const answer = { outcome: verdict ? 'allowed' : 'disallowed' };
          // The library's own account: the line of the deciding rule, if any
          // (a second search of the rules: skipped when the parent says
          // `explain: false`, as the census does).
          if (explain) {
            const line = robots.getMatchingLineNumber(query.url, query.agent);
            if (typeof line === 'number' && line > 0) answer.explain = `line ${line}`;
            // The protocol's `line`: -1 (no rule matched) is sent as 0.
            if (typeof line === 'number') answer.line = Math.max(line, 0);
          }
          return answer;
        }
        case 'crawl_delay':
          return delayAnswer(robots.getCrawlDelay(query.agent));
        case 'sitemaps':
          return { outcome: 'value', value: { type: 'list', value: robots.getSitemaps() } };
        default:
          return { outcome: 'unsupported', reason: `unknown ask ${query.ask}` };
      }
    } catch (e) {
      return thrown(e);
    }
  });
}

/**
 * Read requests from stdin: a JSON header line, then for `run` exactly
 * `body_len` raw bytes. Chunks are only joined once a whole header or body
 * is there, so a large body is copied once.
 */
function serve(robotsParser) {
  let chunks = [];
  let buffered = 0;
  let header = null; // a parsed `run` header waiting for its body

  function joined() {
    if (chunks.length !== 1) chunks = [Buffer.concat(chunks, buffered)];
    return chunks[0];
  }
  function consume(n) {
    const all = joined();
    const taken = all.subarray(0, n);
    chunks = [all.subarray(n)];
    buffered -= n;
    return taken;
  }

  process.stdin.on('data', (chunk) => {
    chunks.push(chunk);
    buffered += chunk.length;
    for (;;) {
      if (header === null) {
        const newline = joined().indexOf(0x0a);
        if (newline < 0) return;
        const line = consume(newline + 1).toString('utf8');
        const request = JSON.parse(line);
        if (request.op === 'run') {
          header = request;
        } else if (request.op === 'fetch') {
          // Not announced (no fetcher of its own); answer anyway.
          send({
            answers: request.queries.map(() => ({
              outcome: 'unsupported',
              reason: 'robots-parser has no HTTP fetcher',
            })),
          });
        } else {
          throw new Error(`unknown op ${JSON.stringify(request.op)}`);
        }
      } else {
        if (buffered < header.body_len) return;
        const body = consume(header.body_len);
        send({ answers: run(robotsParser, body, header.queries, header.explain !== false) });
        header = null;
      }
    }
  });
}

const loaded = load();
if (loaded !== null) {
  send({ v: 2, hello: loaded.hello });
  serve(loaded.robotsParser);
}
