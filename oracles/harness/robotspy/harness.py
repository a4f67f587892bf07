#!/usr/bin/env python3
"""repdiff oracle harness (protocol v2, docs/protocol.md) for PyPI `robotspy`
(module `robots`), run by the python of a venv that has it (`cargo xtask
setup` makes `.cache/venv-robotspy`).

Called the way its README calls it, `robots.RobotsParser.from_string(text)
.can_fetch(agent, url)`, and `.sitemaps` for the sitemaps. robotspy has no
crawl-delay or request-rate support (its `RobotFileParser` facade hard-codes
both to None), so those asks are `unsupported`.

robotspy takes text, and its only bytes entry point is its own fetcher
(`RobotsParser.from_uri`, `gen_uri` in robots/parser.py). The body becomes
text exactly as that fetcher makes it, see `text_as_from_uri`: lines split
after each b"\\n" (iterating the HTTP response), each line decoded on its own
with "utf-8-sig" (so a BOM is dropped at the start of *every* line), and at
the first line that is not UTF-8 the fetcher stops reading and sets
`allow_all`, so every `can_fetch` is True; the rules read before that line
stay, and so do the sitemaps. `from_string` splits on "\\n" and strips each
line, so the joined decoded lines tokenise exactly as the fetcher's lines do.

robotspy's answers depend on Python's string hashing: `update_rules` walks
`set(agents)` of a group and, once an agent seen in an earlier group comes
up, hands the merged rule list to the agents after it in that order. So the
harness runs with PYTHONHASHSEED=0 (see `pin_hash_seed`): the same input
gets the same answer in every run and after every worker restart.
"""

import importlib.metadata
import io
import json
import os
import platform
import sys

NAME = "robotspy"
# The pin `cargo xtask setup` installs: the wheel's sha256 as PyPI lists it.
# Announced only when the installed version is the pinned one.
PINNED_VERSION = "0.13.0"
PINNED_WHEEL = "robotspy-0.13.0-py3-none-any.whl"
PINNED_WHEEL_SHA256 = "d65689eb3650d74fd9741bc18e127d9e99c8866b264fdd15b2d93dd865af60f8"

FEEDING = (
    "RobotsParser.from_string(text) with text decoded as its from_uri fetcher does: "
    "per b'\\n'-line 'utf-8-sig' (a BOM dropped at each line start); at the first "
    "non-UTF-8 line the text ends and allow_all is set, as from_uri does; "
    "PYTHONHASHSEED=0, as its rule merging follows set order"
)
NO_DELAY = (
    "robotspy ignores Crawl-delay and Request-rate "
    "(RobotsParser has no API; the RobotFileParser facade always returns None)"
)


def pin_hash_seed():
    """Re-execute this script under PYTHONHASHSEED=0 unless it already is
    (robotspy's answers follow set order; see the module docstring). Done
    before anything is read from stdin, so no request is lost."""
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = dict(os.environ, PYTHONHASHSEED="0")
        os.execve(sys.executable, [sys.executable, *sys.argv], env)


def send(message):
    """One protocol message: a JSON line on stdout (ASCII, so any text is safe)."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text_as_from_uri(body):
    """(text, why) where text is what robotspy's from_uri would have read
    from a 200 response with this body, and why is None or the decoding
    error after which from_uri stops reading and allows everything."""
    lines = []
    # BytesIO iterates lines as the HTTP response from urlopen does.
    for number, line in enumerate(io.BytesIO(body), 1):
        try:
            lines.append(line.decode("utf-8-sig"))
        except UnicodeDecodeError as err:
            return "".join(lines), f"line {number}: {err}"
    return "".join(lines), None


def text(s):
    """s as valid UTF-8 (a lone surrogate becomes a \\udcxx escape)."""
    return s.encode("utf-8", "backslashreplace").decode("utf-8")


def error(e):
    return {"outcome": "error", "kind": type(e).__name__, "message": text(str(e))}


def answer(parser, query, not_utf8):
    ask = query["ask"]
    if ask == "can_fetch":
        verdict = parser.can_fetch(query["agent"], query["url"])
        if not isinstance(verdict, bool):
            return {"outcome": "error", "kind": type(verdict).__name__,
                    "message": text(f"can_fetch returned {verdict!r}")}
        out = {"outcome": "allowed" if verdict else "disallowed"}
        if not_utf8 is not None:
            out["explain"] = text(f"allow_all: robots.txt is not UTF-8 ({not_utf8})")
        return out
    if ask == "sitemaps":
        sitemaps = parser.sitemaps  # None when there are none
        if sitemaps is None:
            return {"outcome": "value", "value": {"type": "none"}}
        return {"outcome": "value", "value": {"type": "list", "value": list(sitemaps)}}
    if ask in ("crawl_delay", "request_rate"):
        return {"outcome": "unsupported", "reason": NO_DELAY}
    return {"outcome": "unsupported", "reason": f"unknown ask {ask}"}


def run(robots, body, queries):
    """Parse once, answer every query; an exception is that query's error
    (or, from parsing, every query's)."""
    try:
        body_text, not_utf8 = text_as_from_uri(body)
        parser = robots.RobotsParser.from_string(body_text)
        if not_utf8 is not None:
            parser.allow_all = True  # what gen_uri does on UnicodeDecodeError
    except Exception as e:
        return [error(e)] * len(queries)
    answers = []
    for query in queries:
        try:
            answers.append(answer(parser, query, not_utf8))
        except Exception as e:
            answers.append(error(e))
    return answers


def hello():
    """The greeting, or None after sending `unavailable`."""
    try:
        import robots

        version = importlib.metadata.version(NAME)
    except Exception as e:
        send({"v": 2, "unavailable": {
            "oracle": NAME, "reason": f"{type(e).__name__}: {e}", "fix": "cargo xtask setup"}})
        return None
    provenance = {"registry": "pypi", "package": NAME, "version": version}
    if version == PINNED_VERSION:
        provenance.update(artifact=PINNED_WHEEL, sha256=PINNED_WHEEL_SHA256)
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
        "capabilities": {"can_fetch": True, "crawl_delay": False, "request_rate": False,
                         "sitemaps": True, "http_fetch": False},
        "feeding": FEEDING,
    }})
    return robots


def main():
    pin_hash_seed()
    robots = hello()
    if robots is None:
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
            send({"answers": run(robots, body, queries)})
        elif request["op"] == "fetch":
            # Not announced: the harness never runs from_uri's fetcher.
            send({"answers": [{"outcome": "unsupported", "reason": "no fetch in this harness"}
                              for _ in queries]})
        else:
            sys.exit(f"{NAME}: unknown op {request['op']!r}")


if __name__ == "__main__":
    main()
