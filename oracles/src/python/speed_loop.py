"""The parser's own speed: a direct loop of one Python robots.txt library
over a census's exact files and questions (`repdiff census queries`), for
`cargo xtask bench`'s direct row. No protocol, no JSON per call: every file
is read and decoded first, then only the library's calls are timed with
the process's CPU clock, each file parsed once as its users parse it, fed
as the oracle's adapter feeds it (oracles/src/python/glue.py for cpython
and protego, the harnesses for robotspy, robotexclusionrulesparser and
reppy).

    python speed_loop.py LIBRARY QUERIES.jsonl

LIBRARY: cpython | protego | robotspy | robotexclusionrulesparser | reppy, imported
from the interpreter's own path (run it with the venv's python).
Prints one JSON line: {"cpu_seconds": S, "verdicts": "ad..."}, one letter
per question in file order: a allowed, d disallowed, e anything else.
"""

import io
import json
import os
import sys
import time


def verdict(v):
    return "a" if v is True else "d" if v is False else "e"


def cpython(body, queries):
    import urllib.robotparser

    rp = urllib.robotparser.RobotFileParser()
    rp.parse(body.decode("utf-8").splitlines())  # as 3.11's read() decodes
    return [rp.can_fetch(agent, url) for agent, url in queries]


def protego(body, queries):
    from protego import Protego

    rp = Protego.parse(body.decode("utf-8-sig", "ignore"))  # as Scrapy decodes
    return [rp.can_fetch(url, agent) for agent, url in queries]


def robotspy(body, queries):
    import robots

    lines, allow_all = [], False
    for line in io.BytesIO(body):
        try:
            lines.append(line.decode("utf-8-sig"))
        except UnicodeDecodeError:
            allow_all = True
            break
    rp = robots.RobotsParser.from_string("".join(lines))
    if allow_all:
        rp.allow_all = True  # as the harness does (what from_uri's gen_uri does)
    return [rp.can_fetch(agent, url) for agent, url in queries]


def robotexclusionrulesparser(body, queries):
    from robotexclusionrulesparser import RobotExclusionRulesParser

    rp = RobotExclusionRulesParser()
    rp.parse(body.decode("utf-8-sig", errors="ignore"))
    return [rp.is_allowed(agent, url) for agent, url in queries]


_REPPY = {}


def _reppy_setup():
    """What oracles/harness/reppy/harness.py does once, at hello: the
    imports, brozzler's two patches and the requests session whose adapter
    serves the current body (its helpers, imported from the harness)."""
    if not _REPPY:
        import logging
        import warnings

        warnings.simplefilter("ignore")
        import requests
        import reppy
        import reppy.cache
        import reppy.parser

        logging.getLogger("reppy").setLevel(logging.CRITICAL)
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                        "..", "..", "harness", "reppy"))
        import harness

        harness.brozzler_patches(reppy)
        session, adapter = harness.make_session(requests)
        _REPPY.update(cache=reppy.cache, session=session, adapter=adapter)
    return _REPPY


def reppy(body, queries):
    """As brozzler: a fresh RobotsCache per file fetching this body through
    requests, allowed(url, agent or "brozzler"), any exception allowed."""
    r = _reppy_setup()
    r["adapter"].body = body
    cache = r["cache"].RobotsCache(session=r["session"], disallow_forbidden=False)
    out = []
    for agent, url in queries:
        try:
            out.append(cache.allowed(url, agent or "brozzler"))
        except Exception:  # is_permitted_by_robots: "returning true (permitted)"
            out.append(True)
    return out


LIBRARIES = {f.__name__: f for f in (cpython, protego, robotspy, robotexclusionrulesparser, reppy)}


def one_file(run, body, queries):
    """Verdicts for one file; an exception costs the query (or, from
    parsing, the file) an `e`, as it costs the adapter an error answer."""
    try:
        return "".join(verdict(v) for v in run(body, queries))
    except Exception:
        # Retry per query so one raising question does not mark the rest.
        out = []
        for q in queries:
            try:
                out.append(verdict(run(body, [q])[0]))
            except Exception:
                out.append("e")
        return "".join(out)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in LIBRARIES:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(LIBRARIES)} QUERIES.jsonl")
    if sys.argv[1] == "robotspy" and os.environ.get("PYTHONHASHSEED") != "0":
        # robotspy's rule merging follows set order, so its answers depend
        # on string hashing; its harness runs under PYTHONHASHSEED=0, and so
        # must this loop to answer the same.
        os.execve(sys.executable, [sys.executable, *sys.argv], dict(os.environ, PYTHONHASHSEED="0"))
    run = LIBRARIES[sys.argv[1]]
    files = []
    with open(sys.argv[2], encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            qs = [(q["agent"], q["url"]) for q in rec["queries"]]
            files.append((bytes.fromhex(rec["body_hex"]), qs))
    run(b"", [])  # the import, outside the timing
    start = time.process_time()
    verdicts = "".join(one_file(run, body, qs) for body, qs in files)
    cpu = time.process_time() - start
    print(json.dumps({"cpu_seconds": cpu, "verdicts": verdicts}))


if __name__ == "__main__":
    main()
