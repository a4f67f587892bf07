#!/usr/bin/env python3
"""Direct run of PyPI `reppy` 0.3.4 for repdiff's fidelity test: the
reference that harness.py (the protocol harness) is compared against. It
shares no code with the harness and calls reppy the way brozzler's
brozzler/robots.py does, over real HTTP:

    reppy.Utility.short_user_agent = lambda strng: strng
    reppy.parser.Rules.__getitem__ = _reppy_rules_getitem     (brozzler's patches)
    cache = reppy.cache.RobotsCache(session=req_sesh, disallow_forbidden=False)
    try: cache.allowed(url, user_agent or "brozzler")
    except Exception: True                                     (is_permitted_by_robots)

The session's http:// and https:// adapters are requests' own HTTPAdapter,
whose connection pool is pointed at a local HTTP server (urllib3 over a real
socket, plain HTTP whatever the scheme) that serves each body as `200 OK`,
`Content-Type: text/plain`. crawl_delay and sitemaps: cache.delay(url, agent)
and cache.sitemaps(url) (http://example.test/ when the query has no URL).

stdin: one JSON object per line, {"body_b64": "...", "queries": [...]}.
stdout: one line per input, {"answers": [...]}, answers encoded as in
protocol v2 (docs/protocol.md), without `explain`.
"""

import base64
import http.server
import json
import logging
import math
import sys
import threading
import warnings

warnings.simplefilter("ignore")

import requests  # noqa: E402
import urllib3  # noqa: E402
import reppy  # noqa: E402
import reppy.cache  # noqa: E402
import reppy.parser  # noqa: E402

logging.getLogger("reppy").setLevel(logging.CRITICAL)

# brozzler/robots.py, verbatim
reppy.Utility.short_user_agent = lambda strng: strng


def _reppy_rules_getitem(self, agent):
    lc_agent = agent.lower()
    for s in self.agents:
        if s in lc_agent:
            return self.agents[s]
    return self.agents.get("*")


reppy.parser.Rules.__getitem__ = _reppy_rules_getitem

current = {"body": b""}


class Serve(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(current["body"])))
        self.end_headers()
        self.wfile.write(current["body"])

    def log_message(self, *args):
        pass


def local_adapter(port):
    """requests' HTTPAdapter, its pool pointed at 127.0.0.1:port."""
    pool = urllib3.HTTPConnectionPool("127.0.0.1", port, maxsize=1)

    class LocalAdapter(requests.adapters.HTTPAdapter):
        def get_connection_with_tls_context(self, request, verify, proxies=None, cert=None):
            return pool

    return LocalAdapter()


def answer(cache, query):
    agent = query["agent"] or "brozzler"
    url = query["url"]
    ask = query["ask"]
    if ask == "can_fetch":
        try:
            allowed = cache.allowed(url, agent)
        except Exception:
            allowed = True
        return {"outcome": "allowed" if allowed else "disallowed"}
    try:
        if ask == "crawl_delay":
            delay = cache.delay(url or "http://example.test/", agent)
            if delay is None:
                return {"outcome": "value", "value": {"type": "none"}}
            if not math.isfinite(delay):
                return {"outcome": "error", "kind": "repdiff.Unrepresentable",
                        "message": f"crawl delay {delay!r} is not a JSON number"}
            return {"outcome": "value", "value": {"type": "float", "value": delay}}
        if ask == "sitemaps":
            return {"outcome": "value",
                    "value": {"type": "list", "value": list(cache.sitemaps(url or "http://example.test/"))}}
    except Exception as e:
        return {"outcome": "error", "kind": type(e).__name__, "message": str(e)}
    return {"outcome": "unsupported", "reason": "reppy 0.3.4 has no request-rate"}


def main():
    server = http.server.HTTPServer(("127.0.0.1", 0), Serve)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    session = requests.Session()
    session.trust_env = False  # no proxy from the environment between requests and 127.0.0.1
    adapter = local_adapter(server.server_port)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        current["body"] = base64.b64decode(case["body_b64"])
        cache = reppy.cache.RobotsCache(session=session, disallow_forbidden=False)
        print(json.dumps({"answers": [answer(cache, q) for q in case["queries"]]}), flush=True)
    server.shutdown()


if __name__ == "__main__":
    main()
