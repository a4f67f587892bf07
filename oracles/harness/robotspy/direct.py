#!/usr/bin/env python3
"""Direct run of PyPI `robotspy` for repdiff's fidelity test: the reference
that harness.py (the protocol harness) is compared against. It shares no
code with the harness and calls the library the one way its README shows,

    robots.RobotsParser.from_uri(url).can_fetch(useragent, url)

with each body served as a 200 response by a local HTTP server, so robotspy's
own fetcher does the decoding that the harness reproduces on bytes.

stdin: one JSON object per line, {"body_b64": "...", "queries": [...]}.
stdout: one line per input, {"answers": [...]}, answers encoded as in
protocol v2 (docs/protocol.md), without `explain`. Run it with a python that
has robotspy. It runs under PYTHONHASHSEED=0 (re-executing itself if need be),
as the harness does: robotspy merges rules in set order, so its answers
depend on the hash seed.
"""

import base64
import http.server
import json
import os
import sys
import threading

import robots

# The body the local server is serving now.
current = {"body": b""}


class Serve(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(current["body"])))
        self.end_headers()
        self.wfile.write(current["body"])

    def log_message(self, *args):
        pass  # keep stderr quiet


def answer(parser, query):
    try:
        if query["ask"] == "can_fetch":
            allowed = parser.can_fetch(query["agent"], query["url"])
            return {"outcome": "allowed" if allowed else "disallowed"}
        if query["ask"] == "sitemaps":
            if parser.sitemaps is None:
                return {"outcome": "value", "value": {"type": "none"}}
            return {"outcome": "value", "value": {"type": "list", "value": parser.sitemaps}}
        return {"outcome": "unsupported", "reason": (
            "robotspy ignores Crawl-delay and Request-rate "
            "(RobotsParser has no API; the RobotFileParser facade always returns None)")}
    except Exception as e:
        return {"outcome": "error", "kind": type(e).__name__, "message": str(e)}


def main():
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable] + sys.argv,
                  dict(os.environ, PYTHONHASHSEED="0"))
    # A proxy from the environment must not stand between urllib and 127.0.0.1.
    os.environ["no_proxy"] = os.environ["NO_PROXY"] = "127.0.0.1"
    server = http.server.HTTPServer(("127.0.0.1", 0), Serve)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/robots.txt"
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        current["body"] = base64.b64decode(case["body_b64"])
        parser = robots.RobotsParser.from_uri(url)
        if parser.errors and not parser.allow_all:
            sys.exit(f"fetching the body failed: {parser.errors}")
        answers = [answer(parser, q) for q in case["queries"]]
        print(json.dumps({"answers": answers}), flush=True)
    server.shutdown()


if __name__ == "__main__":
    main()
