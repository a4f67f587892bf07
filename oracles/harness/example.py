#!/usr/bin/env python3
"""A complete repdiff oracle in standard-library Python, speaking protocol v2
(docs/protocol.md): urllib.robotparser of the python3 running it. Copy it to wrap
your own parser (change HELLO, `answer_all` and `ask`). Run by CPython 3.11 it answers
exactly as the built-in `cpython-3.11` oracle (oracles/src/python/glue.py). Try it:
`cargo xtask check --oracle-cmd mine='python3 oracles/harness/example.py'`"""
import json, math, os, platform, socket, sys, urllib.robotparser

PY, IMPL = platform.python_version(), platform.python_implementation()
HELLO = {"v": 2, "hello": {
    "name": "example", "library": "urllib.robotparser", "version": PY,
    "language": "python", "runtime": {"name": IMPL, "version": PY},
    "provenance": {"registry": "python.org", "package": "cpython", "version": PY},
    "capabilities": {"can_fetch": True, "crawl_delay": True, "request_rate": True,
                     "sitemaps": True, "http_fetch": True},  # read() fetches
    "feeding": "RobotFileParser.parse(body.decode('utf-8')"
               ".splitlines()), as the built-in cpython-3.11 oracle feeds it"}}


def value(kind, v=None):  # value("none"): {"type": "none"}; value("int", 7): {.., "value": 7}
    typed = {"type": kind} if v is None else {"type": kind, "value": v}
    return {"outcome": "value", "value": typed}


def error(kind, message):  # backslashreplace: a lone surrogate must not reach JSON
    return {"outcome": "error", "kind": kind,
            "message": message.encode("utf-8", "backslashreplace").decode("utf-8")}


def number(n):
    """crawl_delay(): None or an int. Past i64 the int goes as the float a user sees."""
    if n is None:
        return value("none")
    if -2**63 <= n < 2**63:
        return value("int", n)
    if math.isinf(float(str(n))):  # JSON has no infinity
        return error("repdiff.Unrepresentable", f"{n} is not a finite JSON number")
    return dict(value("float", float(str(n))), explain=f"int {n} does not fit i64; shown as float")


def rate(r):
    """request_rate(): None or RequestRate(requests, seconds), two ints."""
    if r is None:
        return value("none")
    if all(0 <= x < 2**64 for x in r):
        return value("rate", {"requests": r.requests, "seconds": r.seconds})
    return error("repdiff.Unrepresentable",
                 f"request rate {r.requests!r}/{r.seconds!r} does not fit Value::Rate (u64/u64)")


def sitemaps(urls):
    """site_maps(): None or a list; each URL's own bytes, invalid UTF-8 as U+FFFD."""
    if urls is None:
        return value("none")
    return value("list", [u.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                          for u in urls])


def ask(rp, q):
    """One query. Users write `if rp.can_fetch(...)`: truthiness is the verdict."""
    what, agent, url = q["ask"], q.get("agent", ""), q.get("url", "")
    if what == "can_fetch":
        return {"outcome": "allowed" if rp.can_fetch(agent, url) else "disallowed"}
    if what == "crawl_delay":
        return number(rp.crawl_delay(agent))
    if what == "request_rate":
        return rate(rp.request_rate(agent))
    if what == "sitemaps":
        return sitemaps(rp.site_maps())
    return {"outcome": "unsupported", "reason": f"unknown ask {what}"}


def answer_all(feed, queries):
    """Parse once (an exception there answers every query), then each query."""
    rp = urllib.robotparser.RobotFileParser()
    try:
        feed(rp)
    except Exception as e:
        return [error(type(e).__name__, str(e))] * len(queries)
    answers = []
    for q in queries:
        try:
            answers.append(ask(rp, q))
        except Exception as e:
            answers.append(error(type(e).__name__, str(e)))
    return answers


print(json.dumps(HELLO), flush=True)  # one line of (ASCII) JSON per message
for line in iter(sys.stdin.buffer.readline, b""):  # until the parent closes stdin
    req = json.loads(line)
    if req["op"] == "run":  # the header line is followed by body_len raw bytes
        body = sys.stdin.buffer.read(req["body_len"])
        # as 3.11's read() decodes: strictly, so a byte that is not UTF-8 raises
        feed = lambda rp: rp.parse(body.decode("utf-8").splitlines())
    else:  # "fetch": read() fetches, with the parent's fetch timeout (1 s by default)
        socket.setdefaulttimeout(float(os.environ.get("REPDIFF_FETCH_TIMEOUT") or 1))
        feed = lambda rp: (rp.set_url(req["url"]), rp.read())
    print(json.dumps({"answers": answer_all(feed, req["queries"])}), flush=True)
