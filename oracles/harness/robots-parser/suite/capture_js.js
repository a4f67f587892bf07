#!/usr/bin/env node
/**
 * Runs npm `robots-parser`'s own test file (test/Robots.js, shipped in its
 * tarball) against a recording wrapper of the library, and writes every
 * isAllowed/isDisallowed call with the test it came from and whether that
 * test passed.
 *
 * The suite is written for mocha + chai; neither is installed (they are not
 * the parser, and pinning their trees would dwarf it), so this file provides
 * the few pieces the suite uses: describe/it, and chai's expect with
 * to.equal, to.eql and to.be.lessThan. An assertion style the shim does not
 * know throws, which fails that test, so nothing is counted by mistake.
 *
 * Usage: node capture_js.js PACKAGE_DIR OUT.json
 */
'use strict';

const fs = require('fs');
const path = require('path');
const Module = require('module');
const assert = require('assert');

const [pkgDir, out] = process.argv.slice(2).map((p) => path.resolve(p));
const state = { test: null, calls: [], skipped: [], tests: {} };

function expect(actual) {
  const to = {
    equal(expected) { assert.strictEqual(actual, expected); },
    eql(expected) { assert.deepStrictEqual(actual, expected); },
    be: { lessThan(n) { assert.ok(actual < n, `${actual} < ${n}`); } },
  };
  return { to };
}

/** The library's factory, wrapped so each instance records its calls. */
function wrapFactory(real) {
  return function (robotsUrl, contents) {
    const robots = real(robotsUrl, contents);
    const isAllowed = robots.isAllowed.bind(robots);
    robots.isAllowed = function (url, ua) {
      const verdict = isAllowed(url, ua);
      if (![contents, url, ua].every((s) => s === undefined || String(s).isWellFormed())) {
        // A lone surrogate has no UTF-8 form: the protocol cannot carry this call.
        state.skipped.push({ test: state.test, what: 'body, URL or agent with a lone surrogate' });
      } else if (typeof verdict === 'boolean') {
        state.calls.push({
          test: state.test,
          body_hex: Buffer.from(String(contents), 'utf8').toString('hex'),
          agent: ua === undefined ? '*' : String(ua),
          url: String(url),
          robots_url: String(robotsUrl),
          allowed: verdict,
        });
      } else {
        state.skipped.push({ test: state.test, what: 'isAllowed returned ' + typeof verdict + ' (URL not on the robots.txt origin)' });
      }
      return verdict;
    };
    for (const name of ['getCrawlDelay', 'getSitemaps', 'getPreferredHost', 'getMatchingLineNumber']) {
      const original = robots[name].bind(robots);
      robots[name] = function (...args) {
        state.skipped.push({ test: state.test, what: name });
        return original(...args);
      };
    }
    return robots;
  };
}

const indexFile = require.resolve(path.join(pkgDir, 'index.js'));
const wrapped = wrapFactory(require(indexFile));
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === 'chai') return { expect };
  if (Module._resolveFilename(request, parent, isMain) === indexFile) return wrapped;
  return load.apply(this, arguments);
};

const tests = [];
const prefix = [];
global.describe = function (name, fn) { prefix.push(name); fn(); prefix.pop(); };
global.it = function (name, fn) { tests.push({ name: prefix.concat([name]).join(' > '), fn }); };

require(path.join(pkgDir, 'test', 'Robots.js'));

(async () => {
  for (const t of tests) {
    state.test = t.name.toWellFormed();
    try {
      if (t.fn.length > 0) await new Promise((ok, fail) => t.fn((e) => (e ? fail(e) : ok())));
      else await t.fn();
      state.tests[state.test] = 'passed';
    } catch (e) {
      state.tests[state.test] = 'failed: ' + String(e && e.message).split('\n')[0].toWellFormed();
    }
  }
  fs.writeFileSync(out, JSON.stringify(state));
})();
