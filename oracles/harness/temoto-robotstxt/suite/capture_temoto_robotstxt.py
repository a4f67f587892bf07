#!/usr/bin/env python3
"""Runs github.com/temoto/robotstxt v1.1.2's own tests against a recording
copy of the library and writes the repdiff suite capture (the `Raw` shape of
repdiff/src/suites/model.rs).

Usage: python3 capture_temoto_robotstxt.py MODULE_DIR WORK_DIR OUT.json

MODULE_DIR is the module as the Go module cache extracted it
(.cache/gomod/github.com/temoto/robotstxt@v1.1.2, read-only; the oracle's
go.sum pins its zip). Every file used from it is checked against the sha256
below first. WORK_DIR is scratch (.cache/suites/work/temoto-robotstxt): it is
emptied, the module's package files are copied into WORK_DIR/src, and there

  * robotstxt.go gets the renames listed in go/repdiff_record.go.in
    (each an exact, counted substitution; the library's code is otherwise
    unchanged) and repdiff_record.go is added: wrappers that call the
    originals and record what each call was asked and returned;
  * robotstxt_test.go gets one substitution: expectAllAgents's
    `quick.Check(f, nil)` (a clock-seeded source) becomes
    `quick.Check(f, repdiffQuickConfig(t))` (repdiff_record_test.go: the same
    generator and count, a fixed seed per call), so two captures are equal;
  * go.mod and go.sum are go/'s (the module's own, byte for
    byte: testify v1.3.0 and its two dependencies, pinned).

The package's test binary is built once (`go test -c`, offline:
GOPROXY=off, GOFLAGS=-mod=readonly, GOTOOLCHAIN=local, with GOMODCACHE the
cache MODULE_DIR is in (.cache/gomod) and GOCACHE its sibling gobuild
(.cache/gobuild); go.sum is checked against the cached zips). Then each
top-level test (`-test.list`) runs in a process of its own through
`go tool test2json`, with its own $REPDIFF_EVENTS file. One process per test
is what makes attribution exact: in a single `go test -json` run the tests
that call t.Parallel() hand over to each other, and the "--- PASS" line of
the one that finished can be printed after the next one's "=== CONT", so
test2json attributed the next test's output to the finished one (a fresh
machine saw exactly that). Within one process the subtests run one after
the other (none calls t.Parallel), so the stderr line "REPDIFF-EVENT n"
each wrapper writes belongs to the subtest test2json attributes it to; the
top-level test function on the call stack is checked against it.
Every (sub)test's outcome comes from test2json's events.

The tests pass paths, not URLs: a path "/x" is written as the relative URL
"/x" (repdiff gives it the http://example.test base); the empty path "" is
written as "http://example.test" (that base plus the empty path).
"""

import collections
import json
import os
import re
import shutil
import subprocess
import sys

# What the Go suite captures share (pins, patches, templates, the offline Go
# environment), beside capture_py.py.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "suites"))
import go_capture  # noqa: E402

SUITE = "temoto-robotstxt"
MODULE = "github.com/temoto/robotstxt@v1.1.2"
SHIM_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "go")
BASE = "http://example.test"

# Every file taken from the module directory (v1.1.2 as the module zip holds it).
PINNED = {
    "robotstxt.go": "9c34980544cd895a2e95bfc318a0f95a73d00d0e2a1cf26558c1b5310b7d3ebf",
    "parser.go": "2b9eb2252f86f6be58f00dbd60f13988d8454213045183ce95e3c63c0ab71eb2",
    "scanner.go": "4521ad656252c1a72d0a8d3cef270b9e5915ace0173bc15a3104cff33516cc27",
    "fuzz.go": "621ba91031ce4bbe1f0207b4a8d2e9b747ab8bc972b503e2aec8ae4c31f453f4",
    "robotstxt_test.go": "ccd5a9fab5f1d2ebba9fa86577cefbe5f91ac162a9e5212a6147bbc0d605cb0f",
    "google_test.go": "204e3c064c80bb6692ffd154c4355c0f0c4be91b8731096d03ca471b4c847151",
    "scanner_test.go": "e5a8752e4ef65980de13550c848d65bb5ea26fe9572fb82a0f34c42b8e0bc30e",
    "go.mod": "640fa42048bf994e3d093c7aa117334cd56ba5eaa556f19b3a9f87ae6db5b85e",
    "go.sum": "11efe9e2e67375b98d3198a84b3f6cd7936618843209f2a5e498a4d81d4c7169",
}

# (file, old, new, expected count): the whole patch.
PATCHES = [
    ("robotstxt.go",
     "func FromStatusAndBytes(statusCode int, body []byte) (*RobotsData, error) {",
     "func repdiffFromStatusAndBytes(statusCode int, body []byte) (*RobotsData, error) {", 1),
    ("robotstxt.go",
     "func FromBytes(body []byte) (r *RobotsData, err error) {",
     "func repdiffFromBytes(body []byte) (r *RobotsData, err error) {", 1),
    ("robotstxt.go",
     "func (r *RobotsData) TestAgent(path, agent string) bool {",
     "func (r *RobotsData) repdiffTestAgent(path, agent string) bool {", 1),
    ("robotstxt.go",
     "func (r *RobotsData) FindGroup(agent string) (ret *Group) {",
     "func (r *RobotsData) repdiffFindGroup(agent string) (ret *Group) {", 1),
    ("robotstxt.go",
     "func (g *Group) Test(path string) bool {",
     "func (g *Group) repdiffTest(path string) bool {", 1),
    ("robotstxt.go", "\tg := r.FindGroup(agent)\n", "\tg := r.repdiffFindGroup(agent)\n", 1),
    ("robotstxt.go", "\treturn g.Test(path)\n", "\treturn g.repdiffTest(path)\n", 1),
    ("robotstxt_test.go", "quick.Check(f, nil)", "quick.Check(f, repdiffQuickConfig(t))", 1),
]

ADDED = ["repdiff_record.go", "repdiff_record_test.go"]
# A marker line may follow output written without a newline (ginkgo's
# progress dots on stdout), so it is matched at the end of the line.
MARKER = re.compile(r"REPDIFF-EVENT (\d+)$")


def die(msg):
    sys.stderr.write(f"capture_temoto_robotstxt: {msg}\n")
    sys.exit(1)


def run_tests(module_dir, work, src):
    """Builds the test binary, then runs each top-level test alone.

    Returns (runs, go version): one (test2json events, events file) per test."""
    env = go_capture.go_env(sys.modules[__name__], module_dir)
    binary = os.path.join(work, "robotstxt.test")
    built = subprocess.run(["go", "test", "-c", "-o", binary, "."], cwd=src, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if built.returncode != 0:
        die("go test -c failed: " + built.stdout.decode("utf-8", "replace")[-3000:])
    listed = subprocess.run([binary, "-test.list", "."], cwd=src, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    names = [n for n in listed.stdout.decode().split() if n.startswith("Test")]
    if listed.returncode != 0 or not names:
        die("the test binary listed no tests: " + listed.stderr.decode("utf-8", "replace"))
    runs, log = [], []
    for name in names:
        events_file = os.path.join(work, f"events-{name}.jsonl")
        cmd = ["go", "tool", "test2json", "-p", MODULE.split("@")[0], binary,
               "-test.v=test2json", "-test.run", f"^{name}$", "-test.count=1"]
        proc = subprocess.run(cmd, cwd=src, env=dict(env, REPDIFF_EVENTS=events_file),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        log.append(proc.stdout)
        events = [json.loads(line) for line in proc.stdout.decode("utf-8", "replace").splitlines()
                  if line.strip().startswith("{")]
        if not any(e.get("Action") in ("pass", "fail") and not e.get("Test") for e in events):
            die(f"{name} did not finish: " + (proc.stderr.decode("utf-8", "replace")
                                              + proc.stdout.decode("utf-8", "replace"))[-3000:])
        runs.append((events, events_file))
    with open(os.path.join(work, "go-test.json"), "wb") as f:
        f.write(b"".join(log))
    version = subprocess.run(["go", "env", "GOVERSION"], env=env, stdout=subprocess.PIPE).stdout
    return runs, version.decode().strip()


def outcomes(events):
    """(sub)test -> outcome string; seq -> test the event line came from."""
    tests, owner, output = {}, {}, collections.defaultdict(list)
    for e in events:
        name = e.get("Test")
        action = e.get("Action")
        if not name:
            continue
        if action == "output":
            text = e.get("Output", "")
            m = MARKER.search(text.rstrip())
            if m:
                owner[int(m.group(1))] = name
            else:
                output[name].append(text)
        elif action == "pass":
            tests[name] = "passed"
        elif action == "skip":
            tests[name] = "skipped"
        elif action == "fail":
            lines = [l.strip() for l in output[name] if l.strip()
                     and not l.startswith(("=== ", "--- "))]
            tests[name] = "failed: " + (" ".join(lines[:4])[:400] if lines else "(no message)")
    return tests, owner


def load_runs(runs):
    """(sub)test outcomes of every run, and every recorded event with the
    (sub)test it was attributed to in its own run (parse ids are numbered
    per process, so they are made unique by the run's index)."""
    tests, records = {}, []
    for index, (events, events_file) in enumerate(runs):
        run_tests_, owner = outcomes(events)
        tests.update(run_tests_)
        if not os.path.exists(events_file):
            continue
        with open(events_file, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    r["owner"] = owner.get(r["seq"])
                    r["parse"] = (index, r["parse"])
                    records.append(r)
    return tests, records


def build(records, tests):
    parses = {}
    calls, skips = [], collections.Counter()
    queried = set()
    seen_tests = set()
    for r in records:
        test = r["owner"]
        if test is None:
            die(f"event {r['seq']} ({r['kind']}) was not attributed to a test")
        if r["testfn"] and test.split("/")[0] != r["testfn"]:
            die(f"event {r['seq']} attributed to {test} but made by {r['testfn']}")
        seen_tests.add(test)
        if r["kind"] == "parse":
            parses[r["parse"]] = dict(r, test=test)
            continue
        p = parses.get(r["parse"])
        path = bytes.fromhex(r["path_hex"])
        if p is None:
            skips[(test, f"{r['api']} on a Group or RobotsData whose body the shim did not see")] += 1
            continue
        queried.add((test, p["parse"]))
        if not 200 <= p["status"] < 300:
            skips[(test, f"{r['api']} verdict of a robots.txt given with HTTP status {p['status']} "
                         "(FromResponse / FromStatusAndString): the protocol gives a body served with 200")] += 1
            continue
        if path and not path.startswith(b"/"):
            skips[(test, f"{r['api']} of the path {path!r}, which does not start with /")] += 1
            continue
        call = {"test": test, "body_hex": p["body_hex"], "allowed": r["allowed"]}
        call.update(go_capture.text_or_hex(bytes.fromhex(r["agent_hex"]), "agent"))
        call.update(go_capture.text_or_hex(path if path else BASE.encode(), "url"))
        calls.append(call)
    for p in parses.values():
        if (p["test"], p["parse"]) in queried:
            continue
        if not p["ok"]:
            error = "; ".join(l.strip() for l in p["error"].splitlines() if l.strip())
            what = (f"{p['api']} returned an error ({error}), which the test "
                    "asserts: a rejected file has no allowed/disallowed verdict to record")
        else:
            what = (f"{p['api']} parsed a body the test asks no verdict of (it checks Host, "
                    "Sitemaps, Crawl-delay or compiled rule fields, or only that parsing succeeds)")
        skips[(p["test"], what)] += 1
    names = set(tests)
    for name in sorted(names):
        leaf = not any(other.startswith(name + "/") for other in names)
        if leaf and name not in seen_tests:
            skips[(name, "no parse or verdict call the shim records (the test exercises "
                         "package internals: the scanner)")] += 1
    calls.sort(key=lambda c: (c["test"], c["body_hex"], c.get("url", c.get("url_hex")),
                              c.get("agent", c.get("agent_hex")), c["allowed"]))
    skipped = [{"test": t, "what": (w if n == 1 else f"{w} (x{n})")}
               for (t, w), n in sorted(skips.items())]
    return calls, skipped


def main():
    if len(sys.argv) != 4:
        die("usage: capture_temoto_robotstxt.py MODULE_DIR WORK_DIR OUT.json")
    module_dir, work, out = (os.path.abspath(a) for a in sys.argv[1:])
    if os.path.exists(work):
        shutil.rmtree(work)
    src = os.path.join(work, "src")
    go_capture.prepare(sys.modules[__name__], module_dir, src)
    runs, version = run_tests(module_dir, work, src)
    tests, records = load_runs(runs)
    calls, skipped = build(records, tests)
    raw = {
        "tests": tests,
        "calls": calls,
        "skipped": skipped,
        "library": f"{src}/robotstxt.go (a recording copy of {module_dir}, {MODULE}; {version})",
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(raw, f, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    passed = sum(1 for v in tests.values() if v == "passed")
    sys.stderr.write(f"{SUITE}: {passed}/{len(tests)} tests passed, {len(calls)} calls, "
                     f"{len(skipped)} skipped\n")


if __name__ == "__main__":
    main()
