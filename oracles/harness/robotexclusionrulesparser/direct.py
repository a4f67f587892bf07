#!/usr/bin/env python3
"""Direct run of PyPI `robotexclusionrulesparser` for repdiff's fidelity
test: the reference that ./harness.py (the protocol harness) is compared
against. It shares no code with the harness and makes the calls Scrapy's
RerpRobotParser (scrapy/robotstxt.py, Scrapy 2.19.0) makes, written out
plainly (importing Scrapy itself would pull in Twisted, lxml, protego, ...):

    rp = RobotExclusionRulesParser()
    rp.parse(robotstxt_body.decode("utf-8-sig", errors="ignore"))
    rp.is_allowed(user_agent, url)        # RerpRobotParser.allowed
    rp.get_crawl_delay(user_agent)        # RerpRobotParser.crawl_delay, as float
    rp.sitemaps                           # the library's own list

A fresh parser is made for every query (the harness parses once per case).

stdin: one JSON object per line, {"body_b64": "...", "queries": [...]}.
stdout: one line per input, {"answers": [...]}, answers encoded as in
protocol v2 (docs/protocol.md), without `explain`. Run it with the python of
the venv that has the library.
"""

import base64
import json
import math
import sys

from robotexclusionrulesparser import RobotExclusionRulesParser


def clean(s):
    # JSON for the parent must be valid UTF-8: no lone surrogates.
    return s.encode("utf-8", "backslashreplace").decode("utf-8")


def one(body, query):
    try:
        rp = RobotExclusionRulesParser()
        rp.parse(body.decode("utf-8-sig", errors="ignore"))
        if query["ask"] == "can_fetch":
            if rp.is_allowed(query["agent"], query["url"]):
                return {"outcome": "allowed"}
            return {"outcome": "disallowed"}
        if query["ask"] == "crawl_delay":
            delay = rp.get_crawl_delay(query["agent"])
            if delay is None:
                return {"outcome": "value", "value": {"type": "none"}}
            delay = float(delay)
            if math.isnan(delay) or math.isinf(delay):
                return {"outcome": "error", "kind": "repdiff.Unrepresentable",
                        "message": "crawl delay %r is not a JSON number" % delay}
            return {"outcome": "value", "value": {"type": "float", "value": delay}}
        if query["ask"] == "sitemaps":
            return {"outcome": "value",
                    "value": {"type": "list", "value": [clean(u) for u in rp.sitemaps]}}
        return {"outcome": "unsupported",
                "reason": "the library has no request-rate API"}
    except Exception as e:
        return {"outcome": "error", "kind": type(e).__name__, "message": clean(str(e))}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        body = base64.b64decode(case["body_b64"])
        answers = [one(body, q) for q in case["queries"]]
        sys.stdout.write(json.dumps({"answers": answers}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
