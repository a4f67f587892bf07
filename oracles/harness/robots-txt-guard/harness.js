#!/usr/bin/env node
/**
 * repdiff oracle harness (protocol v2, docs/protocol.md) for npm
 * `robots-txt-guard` 1.0.2 with `robots-txt-parse` 2.0.1 (Woorank), run by
 * node. Both come from `.cache/npm/node_modules` (NODE_PATH), installed by
 * `cargo xtask setup` with every package of their tree pinned (split2 3.2.2,
 * readable-stream 3.6.2 and its three dependencies).
 *
 * Who calls them this way: broken-link-checker (stevenvachon/
 * broken-link-checker, branch main, package.json 0.8.0, which depends on
 * robots-txt-guard ^1.0.2 and robots-txt-parse ^2.0.1; the 0.7.8 on npm still
 * pins ~0.1.0 and ~0.0.4). The harness follows it:
 *
 * - lib/internal/http-protocol/getRobotsTxt.js: `guard(await parse(stream))`,
 *   where `stream` is got's response stream for the site's /robots.txt
 *   (a GET with a 2xx status: request.js resolves `{response, stream}`).
 *   The harness hands robots-txt-parse a byte stream with the body (a
 *   PassThrough ended with the raw bytes): robots-txt-parse pipes it
 *   through split2 (a StringDecoder('utf8'), so invalid bytes become U+FFFD
 *   and a BOM stays as U+FEFF; lines split at /\r?\n/ only), and how the
 *   bytes are cut into chunks does not change what split2 emits. direct.js
 *   feeds a real HTTP response stream instead, for the fidelity test.
 * - lib/public/SiteChecker.js `#isAllowed(link)`:
 *   `this.#currentRobotsTxt.isAllowed(this.#options.userAgent,
 *   link.get(REBASED_URL)?.pathname)`: the agent is blc's whole User-Agent
 *   option (here the query's agent, verbatim), the path is the WHATWG URL's
 *   `pathname`, percent-encoded by the URL parser and WITHOUT the query.
 *   A URL the WHATWG parser refuses is never checked by blc (it is no
 *   internal link): an `error` of the parser's kind (TypeError), explained.
 * - crawl_delay, sitemaps, request_rate: unsupported. robots-txt-guard's API
 *   is isAllowed / isDisallowAll / isIndexable; robots-txt-parse keeps
 *   Sitemap and Crawl-delay lines only as `extensions`, and blc reads none.
 *
 * The body is parsed once per request (blc fetches robots.txt once per site).
 *
 * No suite capture: both tarballs ship mocha tests, but robots-txt-guard's
 * (test/guard.spec.js, patterns.spec.js) call guard() with hand-built
 * {groups: [...]} objects and the pattern helpers, never with a robots.txt
 * body, and robots-txt-parse's (test/parse.spec.js) assert the parse tree of
 * its fixtures, never a verdict: neither records a (body, agent, URL,
 * verdict) call the scoreboard could ask the other oracles.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const { PassThrough } = require('stream');

const NAME = 'robots-txt-guard';
const PACKAGES = ['robots-txt-guard', 'robots-txt-parse'];
const FIX = 'cargo xtask setup';

const FEEDING =
  "as broken-link-checker 0.8 calls them: guard(await parse(stream)) with the body as a byte " +
  "stream (split2: UTF-8 StringDecoder, lines at \\r?\\n); " +
  "isAllowed(agent, new URL(url).pathname) (the WHATWG pathname: no query); " +
  "a URL the WHATWG parser refuses is never asked (error)";
const UNSUPPORTED = {
  crawl_delay: 'robots-txt-guard has no crawl-delay API (robots-txt-parse keeps the line as an extension); ' +
    'broken-link-checker reads none',
  sitemaps: 'robots-txt-guard has no sitemap API (robots-txt-parse keeps the lines as extensions); ' +
    'broken-link-checker reads none',
  request_rate: 'robots-txt-guard has no request-rate API',
};

/** One protocol message: a single JSON line on stdout. */
function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

/** The npm lockfile entry of an installed package (its integrity pins the tarball). */
function lockEntry(packageDir, name) {
  const modules = path.dirname(packageDir);
  for (const file of [path.join(modules, '.package-lock.json'),
    path.join(path.dirname(modules), 'package-lock.json')]) {
    try {
      const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
      const entry = lock.packages && lock.packages[`node_modules/${name}`];
      if (entry) return entry;
    } catch (e) {
      // no lockfile there
    }
  }
  return null;
}

/** Load both libraries and describe them; null after sending `unavailable`. */
function load() {
  const libs = {};
  const manifests = {};
  try {
    for (const name of PACKAGES) {
      libs[name] = require(name);
      const manifestPath = require.resolve(`${name}/package.json`);
      manifests[name] = {
        manifest: JSON.parse(fs.readFileSync(manifestPath, 'utf8')),
        entry: lockEntry(path.dirname(manifestPath), name),
      };
    }
  } catch (e) {
    send({ v: 2, unavailable: { oracle: NAME, reason: `cannot load: ${e.message.split('\n')[0]}`, fix: FIX } });
    return null;
  }
  const guard = manifests['robots-txt-guard'];
  const parse = manifests['robots-txt-parse'];
  const provenance = {
    registry: 'npm',
    package: NAME,
    version: guard.manifest.version,
    artifact: `${NAME}-${guard.manifest.version}.tgz`,
    build: `with robots-txt-parse@${parse.manifest.version}` +
      (parse.entry && parse.entry.integrity ? ` (${parse.entry.integrity})` : ''),
  };
  if (guard.entry && guard.entry.version === guard.manifest.version && guard.entry.integrity) {
    provenance.integrity = guard.entry.integrity;
  } else {
    process.stderr.write(`${NAME}: no lockfile integrity for ${NAME}@${guard.manifest.version}\n`);
  }
  const hello = {
    name: NAME,
    library: 'robots-txt-guard + robots-txt-parse',
    version: `${guard.manifest.version} + ${parse.manifest.version}`,
    language: 'javascript',
    runtime: { name: 'node', version: process.versions.node },
    provenance,
    capabilities: { can_fetch: true, crawl_delay: false, request_rate: false, sitemaps: false, http_fetch: false },
    feeding: FEEDING,
  };
  return { guard: libs['robots-txt-guard'], parse: libs['robots-txt-parse'], hello };
}

function thrown(e) {
  if (e instanceof Error) return { outcome: 'error', kind: e.name, message: e.message };
  return { outcome: 'error', kind: typeof e, message: String(e) };
}

/**
 * Answer the queries of one `run` request; `explain` false (the census)
 * when the parent will not read the accounts, so none is built.
 */
async function run(lib, body, queries, explain) {
  let robots;
  let failure = null;
  try {
    const stream = new PassThrough();
    stream.end(body);
    robots = lib.guard(await lib.parse(stream));
  } catch (e) {
    failure = thrown(e);
  }
  return queries.map((query) => {
    if (query.ask !== 'can_fetch') {
      return { outcome: 'unsupported', reason: UNSUPPORTED[query.ask] || `unknown ask ${query.ask}` };
    }
    if (failure) return failure;
    let pathname;
    try {
      pathname = new URL(query.url).pathname;
    } catch (e) {
      const answer = thrown(e);
      answer.explain = 'the WHATWG URL parser refuses it: broken-link-checker never asks robots.txt about it';
      return answer;
    }
    try {
      const verdict = robots.isAllowed(query.agent, pathname);
      if (typeof verdict !== 'boolean') {
        return { outcome: 'error', kind: typeof verdict, message: `isAllowed returned ${String(verdict)}` };
      }
      const answer = { outcome: verdict ? 'allowed' : 'disallowed' };
      if (explain) answer.explain = `isAllowed(agent, ${JSON.stringify(pathname)})`;
      return answer;
    } catch (e) {
      return thrown(e);
    }
  });
}

/**
 * Read requests from stdin (a JSON header line, then for `run` exactly
 * `body_len` raw bytes) and answer them one at a time, in order.
 */
function serve(lib) {
  let chunks = [];
  let buffered = 0;
  let header = null;
  let busy = Promise.resolve();

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
        const request = JSON.parse(consume(newline + 1).toString('utf8'));
        if (request.op === 'run') {
          header = request;
        } else if (request.op === 'fetch') {
          busy = busy.then(() => send({
            answers: request.queries.map(() => ({ outcome: 'unsupported', reason: 'no HTTP fetcher in this harness' })),
          }));
        } else {
          throw new Error(`unknown op ${JSON.stringify(request.op)}`);
        }
      } else {
        if (buffered < header.body_len) return;
        const body = Buffer.from(consume(header.body_len));
        const queries = header.queries;
        const explain = header.explain !== false;
        header = null;
        busy = busy.then(async () => send({ answers: await run(lib, body, queries, explain) }));
      }
    }
  });
}

const loaded = load();
if (loaded !== null) {
  send({ v: 2, hello: loaded.hello });
  serve(loaded);
}
