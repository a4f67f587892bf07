#!/usr/bin/env python3
"""Recompute one census pair by hand: CPython 3.11's urllib.robotparser
against protego, called directly, over the census's own files and
as-written questions; compare with what `repdiff census` wrote.

Shares no code with repdiff's adapters (oracles/src/python/glue.py): it is
the check that the census counts what the two libraries really answer.
Each library is fed as its users feed it: RobotFileParser.parse() gets the
lines 3.11's read() would give it (the body decoded as strict UTF-8, split
into lines; a body that is not UTF-8 makes read() raise, so no answer);
Protego.parse() gets the text Scrapy's decode_robotstxt makes (utf-8-sig,
errors ignored).

    repdiff census queries --out /tmp/q.jsonl
    .cache/venv/bin/python cases/tools/census-crosscheck.py \
        /tmp/q.jsonl reports/census/census.json

Run it with the venv setup made (`.cache/venv`: protego 0.7.0 on the
CPython 3.11 the cpython-3.11 oracle embeds). Prints both figures; exits 1
when they differ.
"""

import json
import sys
import urllib.robotparser

from protego import Protego

PAIR = ("cpython-3.11", "protego")


def cpython(body, queries):
    rp = urllib.robotparser.RobotFileParser()
    try:
        rp.parse(body.decode("utf-8").splitlines())
    except Exception:
        return [None] * len(queries)
    out = []
    for q in queries:
        try:
            out.append(bool(rp.can_fetch(q["agent"], q["url"])))
        except Exception:
            out.append(None)
    return out


def protego(body, queries):
    try:
        rp = Protego.parse(body.decode("utf-8-sig", errors="ignore"))
    except Exception:
        return [None] * len(queries)
    out = []
    for q in queries:
        try:
            out.append(bool(rp.can_fetch(q["url"], q["agent"])))
        except Exception:
            out.append(None)
    return out


# The headline's questions: `/` or a path a rule names, for the agents no
# file chooses (census/src/tally.rs, `Headline`).
HEADLINE_KINDS = {"root", "rule-match"}
HEADLINE_AGENTS = {"ExampleBot", "Googlebot"}


def by_hand(path):
    """queries_compared, queries_disagree, files_compared, files_disagree
    over the as-written questions, then the headline's files_compared and
    files_disagree."""
    counts = [0, 0, 0, 0, 0, 0]
    with open(path, encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            # `origin` since repdiff-census/3 (near misses apart); `probe`
            # alone before.
            queries = [
                q
                for q in rec["queries"]
                if q.get("origin", "probe" if q["probe"] else "written") == "written"
            ]
            body = bytes.fromhex(rec["body_hex"])
            a, b = cpython(body, queries), protego(body, queries)
            both = [(x, y) for x, y in zip(a, b) if x is not None and y is not None]
            differ = sum(x != y for x, y in both)
            counts[0] += len(both)
            counts[1] += differ
            counts[2] += bool(both)
            counts[3] += bool(differ)
            head = [
                x != y
                for q, x, y in zip(queries, a, b)
                if q["kind"] in HEADLINE_KINDS
                and not q.get("unrequested", False)
                and q["agent"] in HEADLINE_AGENTS
                and x is not None
                and y is not None
            ]
            counts[4] += bool(head)
            counts[5] += any(head)
    return counts


def from_census(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    tally = doc["written"]["tally"]
    key = f"{PAIR[0]} vs {PAIR[1]}"
    if key not in tally["pairs"]:
        key = f"{PAIR[1]} vs {PAIR[0]}"
    p, h = tally["pairs"][key], tally["headline"][key]
    return [
        p["queries_compared"],
        p["queries_disagree"],
        p["files_compared"],
        p["files_disagree"],
        h["files_compared"],
        h["files_disagree"],
    ]


def main():
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} QUERIES.jsonl CENSUS.json")
    hand, census = by_hand(sys.argv[1]), from_census(sys.argv[2])
    names = [
        "queries compared",
        "queries disagreeing",
        "files compared",
        "files disagreeing",
        "headline: sites compared",
        "headline: sites disagreeing",
    ]
    print(f"{PAIR[0]} vs {PAIR[1]}, as-written questions (Python {sys.version.split()[0]}):")
    for name, h, c in zip(names, hand, census):
        mark = "" if h == c else "   <- differs"
        print(f"  {name:28} by hand {h:>8}   census {c:>8}{mark}")
    sys.exit(0 if hand == census else 1)


if __name__ == "__main__":
    main()
