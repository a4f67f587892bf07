#!/usr/bin/env python3
"""repdiff oracle harness (protocol v2, docs/protocol.md) for PyPI `reppy`
0.3.4, Moz's pure-Python robots.txt parser (the 0.4 line is a C++ rewrite
with another API), run by the python of the venv `cargo xtask setup` makes
(`.cache/venv-reppy`: the sdist built with a pinned setuptools, and its
declared dependencies, python-dateutil, url<0.2.0 and requests, at the
versions brozzler's uv.lock resolves, each pinned by sha256).

Who runs it: the Internet Archive's brozzler pins `reppy==0.3.4`
(pyproject.toml) and calls it from brozzler/robots.py. The harness feeds it
exactly as that module does:

- brozzler's two monkey-patches, applied at import as brozzler applies
  them: `reppy.Utility.short_user_agent = lambda strng: strng` (the agent
  is not cut at its first `/`) and `reppy.parser.Rules.__getitem__`
  replaced by `_reppy_rules_getitem` (copied below): the FIRST group of the
  file, in the order reppy stored them, whose lower-cased name is a
  substring of the lower-cased agent, else the `*` group.
- robots.txt reaches reppy through its own fetcher, as in a crawl:
  `reppy.cache.RobotsCache(session=..., disallow_forbidden=False)
  .allowed(url, agent)`, where RobotsCache.fetch asks the session for
  `Utility.roboturl(url)` (scheme://netloc/robots.txt), then builds
  `parser.Rules(robots_url, status, response.content, expires)`. The
  session is a plain requests.Session with one transport adapter mounted
  for http:// and https:// (`BodyAdapter`) that answers every request with
  `200 OK`, `Content-Type: text/plain` and the request's body bytes: every
  line of requests (URL preparation, which raises MissingSchema /
  InvalidURL, the Response, `.content`) and of reppy runs; only the socket
  is replaced. A URL requests refuses never reaches the parser.
  (direct.py does the same over a real local HTTP server, for the fidelity
  test.) Rules.parse then decodes the bytes itself: a UTF-8 BOM, a strict
  UTF-8 decode (failing: an empty `*` group, allow all); a UTF-16 BOM
  (FF FE), a UTF-16 decode; anything else `decode('utf-8', 'ignore')`.
- The agent is `site.user_agent or "brozzler"`: an empty agent is
  "brozzler".
- brozzler's `is_permitted_by_robots` returns True after ANY exception
  from reppy or requests (other than its warcprox 420 and proxy errors,
  which cannot happen here), logging "returning true (permitted) after
  problem fetching robots.txt". So can_fetch answers `allowed` then, and
  the exception is in `explain`. The one reppy raises on parsed files is
  TypeError from `max(allowed)` in Agent.allowed: two rules of the same
  length that both match compare their compiled patterns.
- crawl_delay and sitemaps (brozzler asks neither; reppy answers both):
  `RobotsCache.delay(url, agent)` (a float or None) and
  `RobotsCache.sitemaps(url)`, through the same cache, patches and fetcher,
  with http://example.test/ when the query has no URL; an exception is an
  `error`. Request-rate is not read by reppy: unsupported.

reppy 0.3.4 runs on CPython 3.11 (pure Python; its `'\\*'` escapes only
warn). Its declared dependencies python-dateutil and url are never
imported by it; they are installed because pip would install them.

No suite capture: the 0.3.4 sdist ships no tests (only reppy/, setup.py,
setup.cfg and its egg-info).
"""

import importlib.metadata
import json
import math
import platform
import sys

NAME = "reppy"
PINNED_VERSION = "0.3.4"
PINNED_SDIST = "reppy-0.3.4.tar.gz"
PINNED_SDIST_SHA256 = "829625924743228c68285fca7f5c539d50ebbf70e07666ee006869754a89a0a9"
DEFAULT_URL = "http://example.test/"

FEEDING = (
    "as brozzler 1.x (brozzler/robots.py) calls reppy 0.3.4: its two patches (no product-token cut, "
    "first group whose name is a substring of the agent, else *); RobotsCache(session, "
    "disallow_forbidden=False).allowed(url, agent or 'brozzler'), the body served by requests through "
    "an in-process adapter (200, text/plain); any exception -> allowed, as is_permitted_by_robots"
)
NO_RATE = "reppy 0.3.4 ignores Request-rate (an unknown key)"


def send(message):
    """One protocol message: a JSON line on stdout (ASCII, so any text is safe)."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text(s):
    """s as valid UTF-8 (a lone surrogate becomes a \\udcxx escape)."""
    return str(s).encode("utf-8", "backslashreplace").decode("utf-8")


def error(e):
    return {"outcome": "error", "kind": type(e).__name__, "message": text(e)}


def brozzler_patches(reppy):
    """brozzler/robots.py's monkey-patches, verbatim in effect."""
    reppy.Utility.short_user_agent = lambda strng: strng

    def _reppy_rules_getitem(self, agent):
        """
        Find the user-agent token matching the supplied full user-agent, using
        a case-insensitive substring search.
        """
        lc_agent = agent.lower()
        for s in self.agents:
            if s in lc_agent:
                return self.agents[s]
        return self.agents.get("*")

    reppy.parser.Rules.__getitem__ = _reppy_rules_getitem


def make_session(requests):
    """A requests.Session whose transport answers with the current body."""
    from requests.adapters import BaseAdapter
    from requests.structures import CaseInsensitiveDict

    class BodyAdapter(BaseAdapter):
        body = b""

        def send(self, request, **kwargs):
            response = requests.Response()
            response.status_code = 200
            response.reason = "OK"
            response.headers = CaseInsensitiveDict({
                "Content-Type": "text/plain",
                "Content-Length": str(len(self.body)),
            })
            response._content = self.body
            response.url = request.url
            response.request = request
            response.encoding = None
            return response

        def close(self):
            pass

    adapter = BodyAdapter()
    session = requests.Session()
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session, adapter


class Oracle:
    def __init__(self, reppy, cache_module, requests):
        self.reppy = reppy
        self.cache_module = cache_module
        self.session, self.adapter = make_session(requests)

    def answer(self, cache, query):
        ask = query["ask"]
        agent = query["agent"] or "brozzler"  # site.user_agent or "brozzler"
        url = query["url"]
        if ask == "can_fetch":
            try:
                verdict = cache.allowed(url, agent)
            except Exception as e:  # is_permitted_by_robots: "returning true (permitted)"
                return {"outcome": "allowed", "explain": text(
                    f"reppy raised {type(e).__name__}: {e}; brozzler returns True (permitted)")}
            if not isinstance(verdict, bool):
                return {"outcome": "error", "kind": type(verdict).__name__,
                        "message": text(f"allowed returned {verdict!r}")}
            return {"outcome": "allowed" if verdict else "disallowed"}
        if ask == "crawl_delay":
            try:
                delay = cache.delay(url or DEFAULT_URL, agent)
            except Exception as e:
                return error(e)
            if delay is None:
                return {"outcome": "value", "value": {"type": "none"}}
            if not math.isfinite(delay):
                return {"outcome": "error", "kind": "repdiff.Unrepresentable",
                        "message": f"crawl delay {delay!r} is not a JSON number"}
            return {"outcome": "value", "value": {"type": "float", "value": delay}}
        if ask == "sitemaps":
            try:
                sitemaps = cache.sitemaps(url or DEFAULT_URL)
            except Exception as e:
                return error(e)
            return {"outcome": "value", "value": {"type": "list", "value": [text(s) for s in sitemaps]}}
        if ask == "request_rate":
            return {"outcome": "unsupported", "reason": NO_RATE}
        return {"outcome": "unsupported", "reason": f"unknown ask {ask}"}

    def run(self, body, queries):
        """A fresh cache per request (each request stands alone); the
        fetcher serves this body for every robots.txt URL."""
        self.adapter.body = body
        cache = self.cache_module.RobotsCache(session=self.session, disallow_forbidden=False)
        return [self.answer(cache, q) for q in queries]


def hello():
    """The oracle, or None after sending `unavailable`."""
    try:
        import logging
        import warnings

        warnings.simplefilter("ignore")
        import requests
        import reppy
        import reppy.cache
        import reppy.parser

        logging.getLogger("reppy").setLevel(logging.CRITICAL)
        version = importlib.metadata.version(NAME)
    except Exception as e:
        send({"v": 2, "unavailable": {
            "oracle": NAME, "reason": f"{type(e).__name__}: {e}", "fix": "cargo xtask setup"}})
        return None
    brozzler_patches(reppy)
    provenance = {"registry": "pypi", "package": NAME, "version": version}
    if version == PINNED_VERSION:
        provenance.update(artifact=PINNED_SDIST, sha256=PINNED_SDIST_SHA256)
    else:
        print(f"{NAME}: installed {version}, pinned {PINNED_VERSION}: no sha256", file=sys.stderr)
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
    return Oracle(reppy, reppy.cache, requests)


def main():
    oracle = hello()
    if oracle is None:
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
            send({"answers": oracle.run(body, queries)})
        elif request["op"] == "fetch":
            send({"answers": [{"outcome": "unsupported", "reason": "no fetch in this harness"}
                              for _ in queries]})
        else:
            sys.exit(f"{NAME}: unknown op {request['op']!r}")


if __name__ == "__main__":
    main()
