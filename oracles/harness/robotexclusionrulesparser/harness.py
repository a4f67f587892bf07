#!/usr/bin/env python3
"""repdiff oracle harness (protocol v2, docs/protocol.md) for PyPI
`robotexclusionrulesparser` 1.7.1 (Philip Semanchuk's pure-Python parser, one
module of the same name), run by the python of a venv that has it
(`.cache/venv-robotexclusionrulesparser`).

Fed exactly as Scrapy feeds it when a project sets
ROBOTSTXT_PARSER = "scrapy.robotstxt.RerpRobotParser" (Scrapy 2.19.0,
scrapy/robotstxt.py; RobotsTxtMiddleware hands it `response.body`, the raw
bytes, and asks `allowed(request.url, useragent)`):

- body: `decode_robotstxt(body, spider)` with to_native_str_type=False, that
  is `body.decode("utf-8-sig", errors="ignore")`: one leading UTF-8 BOM is
  dropped, every byte that is not valid UTF-8 is silently dropped (so it can
  never fail, and Scrapy's "treat it as empty" branch is never reached);
  then `RobotExclusionRulesParser().parse(text)`. The library's own line
  splitting (\\r\\n, \\r, \\n) applies; parse() is called once per request.
- can_fetch: `rp.is_allowed(to_unicode(user_agent), to_unicode(url))`; the
  query's agent and URL are already str, which to_unicode returns as-is, so
  they go in verbatim (Scrapy's own Request URL escaping happens before the
  middleware and is not reproduced: the protocol passes URLs verbatim).
- crawl_delay: `RerpRobotParser.crawl_delay` (Scrapy >= 2.18), that is
  `rp.get_crawl_delay(agent)`, None or `float(...)`; the library itself
  stores `float(value)` (seconds, as written), or None when absent/invalid.
  A non-finite delay ("inf", "nan", "1e999": Python's float() takes them)
  cannot travel as JSON and is an error of kind repdiff.Unrepresentable.
- request_rate: the library has none (no Request-rate directive): unsupported.
- sitemaps: the library's `rp.sitemaps` property, a (possibly empty) list.
  Scrapy itself reads sitemaps from robots.txt with its own
  `sitemap_urls_from_robots`, not through the parser; this is the library's
  answer.

Any exception the library raises (in 1.7.1 on Python 3: urllib.parse's
ValueError for URLs such as "http://[::1/x") is an `error` outcome with the
exception class as `kind`. A rule with several non-adjacent `*` becomes
the regex ".*a.*a..." (is_url_allowed, re.match on every query), which
backtracks exponentially on a non-matching URL (8 wildcards against 60
characters: about a minute), so such cases are real library timeouts,
not harness hangs.
"""

import importlib.metadata
import json
import math
import platform
import sys

NAME = "robotexclusionrulesparser"
# The pin setup installs (PyPI serves only this sdist for 1.7.1; no wheel).
# Announced only when the installed version is the pinned one.
PINNED_VERSION = "1.7.1"
PINNED_ARTIFACT = "robotexclusionrulesparser-1.7.1.tar.gz"
PINNED_SHA256 = "d23aa14ae8145c13c95612d696736bad52a4bd0819ce8c9437ee745098fb8388"

FEEDING = (
    "as Scrapy 2.19.0 RerpRobotParser: RobotExclusionRulesParser().parse("
    "body.decode('utf-8-sig', errors='ignore')); is_allowed(agent, url); "
    "get_crawl_delay(agent) as float; .sitemaps"
)
NO_RATE = "robotexclusionrulesparser has no Request-rate support (no API for it)"


def send(message):
    """One protocol message: a JSON line on stdout (ASCII-only JSON)."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text(s):
    """s as valid UTF-8 (a lone surrogate becomes a \\udcxx escape)."""
    return s.encode("utf-8", "backslashreplace").decode("utf-8")


def error(kind, message):
    return {"outcome": "error", "kind": kind, "message": text(message)}


def raised(e):
    return error(type(e).__name__, str(e))


def answer(rp, query):
    ask = query["ask"]
    if ask == "can_fetch":
        verdict = rp.is_allowed(query["agent"], query["url"])
        if not isinstance(verdict, bool):
            return error(type(verdict).__name__, f"is_allowed returned {verdict!r}")
        return {"outcome": "allowed" if verdict else "disallowed"}
    if ask == "crawl_delay":
        delay = rp.get_crawl_delay(query["agent"])
        if delay is None:
            return {"outcome": "value", "value": {"type": "none"}}
        delay = float(delay)  # what Scrapy's RerpRobotParser.crawl_delay returns
        if not math.isfinite(delay):
            return error("repdiff.Unrepresentable", f"crawl delay {delay!r} is not a JSON number")
        return {"outcome": "value", "value": {"type": "float", "value": delay}}
    if ask == "sitemaps":
        return {"outcome": "value",
                "value": {"type": "list", "value": [text(u) for u in rp.sitemaps]}}
    if ask == "request_rate":
        return {"outcome": "unsupported", "reason": NO_RATE}
    return {"outcome": "unsupported", "reason": f"unknown ask {ask}"}


def run(rerp, body, queries):
    """Parse once, answer every query; an exception is that query's error
    (or, from decoding/parsing, every query's)."""
    try:
        rp = rerp.RobotExclusionRulesParser()
        rp.parse(body.decode("utf-8-sig", errors="ignore"))
    except Exception as e:
        return [raised(e)] * len(queries)
    answers = []
    for query in queries:
        try:
            answers.append(answer(rp, query))
        except Exception as e:
            answers.append(raised(e))
    return answers


def hello():
    """The greeting, or None after sending `unavailable`."""
    try:
        import robotexclusionrulesparser as rerp

        version = importlib.metadata.version(NAME)
    except Exception as e:
        send({"v": 2, "unavailable": {
            "oracle": NAME, "reason": text(f"{type(e).__name__}: {e}"),
            "fix": "cargo xtask setup"}})
        return None
    provenance = {"registry": "pypi", "package": NAME, "version": version}
    if version == PINNED_VERSION:
        provenance.update(artifact=PINNED_ARTIFACT, sha256=PINNED_SHA256)
    else:
        print(f"{NAME}: installed {version}, pinned {PINNED_VERSION}: no sha256",
              file=sys.stderr)
    send({"v": 2, "hello": {
        "name": NAME,
        "library": NAME,
        "version": version,
        "language": "python",
        "runtime": {"name": platform.python_implementation(),
                    "version": platform.python_version()},
        "provenance": provenance,
        "capabilities": {"can_fetch": True, "crawl_delay": True, "request_rate": False,
                         "sitemaps": True, "http_fetch": False},
        "feeding": FEEDING,
    }})
    return rerp


def main():
    rerp = hello()
    if rerp is None:
        return
    stdin = sys.stdin.buffer
    while True:
        line = stdin.readline()
        if not line:
            return  # the parent closed stdin
        request = json.loads(line)
        queries = request["queries"]
        if request["op"] == "run":
            body = stdin.read(request["body_len"])
            if len(body) != request["body_len"]:
                sys.exit(f"{NAME}: stdin ended inside a body")
            send({"answers": run(rerp, body, queries)})
        elif request["op"] == "fetch":
            # Not announced: the harness never runs the library's fetch().
            send({"answers": [{"outcome": "unsupported", "reason": "no fetch in this harness"}
                              for _ in queries]})
        else:
            sys.exit(f"{NAME}: unknown op {request['op']!r}")


if __name__ == "__main__":
    main()
