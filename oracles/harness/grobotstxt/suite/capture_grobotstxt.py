#!/usr/bin/env python3
"""Runs github.com/jimsmart/grobotstxt v1.0.3's own tests (26 ginkgo specs and
2 Go examples) against a recording copy of the library and writes the repdiff
suite capture (the `Raw` shape of repdiff/src/suites/model.rs).

Usage: python3 capture_grobotstxt.py MODULE_DIR WORK_DIR OUT.json

MODULE_DIR is the module as the Go module cache extracted it
(.cache/gomod/github.com/jimsmart/grobotstxt@v1.0.3, read-only; the oracle's
go.sum pins its zip). Every file used from it is checked against the sha256
below first. WORK_DIR is scratch (.cache/suites/work/grobotstxt): it is
emptied, the module's package files are copied into WORK_DIR/src, and there

  * robots_cc.go and sitemaps.go get the renames listed in
    go/repdiff_record.go.in (each an exact, counted substitution; the
    library's code is otherwise unchanged) and repdiff_record.go is added:
    wrappers that call the originals and record what a test asked and got;
  * repdiff_record_test.go is added: it tells the wrappers which ginkgo spec
    is running and, in a top-level AfterEach (no assertion), how each spec
    ended (ginkgo v1 runs every spec inside the one Go test TestRobotstxt);
  * the test files are the module's, unchanged;
  * go.mod and go.sum are go/'s (the module's own, byte for byte:
    ginkgo v1.14.2, gomega v1.10.4 and their dependencies, pinned).

Then `go test -json -count=1 -parallel 1 . -args -ginkgo.seed=1
-ginkgo.noColor` runs offline (GOPROXY=off, GOFLAGS=-mod=readonly,
GOTOOLCHAIN=local) with GOMODCACHE the cache
MODULE_DIR is in (.cache/gomod) and GOCACHE its sibling gobuild
(.cache/gobuild); go.sum is checked against the cached zips, and go test's
default vet checks run (they pass).
The seed only fixes the order of ginkgo's top-level containers; no spec is
random. Specs are named by their full ginkgo text (a text two specs share
gets " [file:line]"); the examples by their Go names.
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

SUITE = "grobotstxt"
MODULE = "github.com/jimsmart/grobotstxt@v1.0.3"
SHIM_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "go")
SUITE_TEST = "TestRobotstxt"  # the Go test that runs the ginkgo suite

PINNED = {
    "doc.go": "04a51edc191c67b3c8487795c35339f3d431cc913c679051891c8393f67d02c7",
    "robots_cc.go": "77237013f83f02858e399af076e474211e234ab2b764580b88d737ca55446f15",
    "robots_h.go": "29a37932a988f83262a86e7f4801c4e810841b7f28c2a3d86b460b0da00ecaa5",
    "sitemaps.go": "06f301a40fae73844e8997baae2c5dced5c8dc27d27630f11061339c4c74e7ee",
    "examples_test.go": "cde958ed89514f31751a253e64b18dd518256a43445f1ff3a307bcc6adae4df7",
    "grobotstxt_suite_test.go": "48ce2b7b08ddfe5127553f47df520728b6254f0584476f3977d35dea3dda17f8",
    "robots_export_test.go": "1cbbc5429511fe53b4ec3f76882c3a7dcfdb30d11a8b4e8fad8a914ec69a36d8",
    "robots_private_test.go": "4cdf6896d8a80b37671ead665cce555357bb762950c96c581eafd5762bc867d6",
    "robots_test.go": "ff982045b5ebfd7280d30c9e226f3e90f13a7f21358e3434e15fbc414ff551b4",
    "go.mod": "9b7dabfcc70083a4ed534de41a308e952245c0a82940c3ee85cbfce48f194b09",
    "go.sum": "b801105e30cca2019472fd30ed1e2acb83b5e589daac67696853f42d0dcdf4b8",
}

PATCHES = [
    ("robots_cc.go",
     "func (m *RobotsMatcher) AgentsAllowed(robotsBody string, userAgents []string, uri string) bool {",
     "func (m *RobotsMatcher) repdiffAgentsAllowed(robotsBody string, userAgents []string, uri string) bool {", 1),
    ("robots_cc.go",
     "func (m *RobotsMatcher) AgentAllowed(robotsBody string, userAgent string, uri string) bool {",
     "func (m *RobotsMatcher) repdiffAgentAllowed(robotsBody string, userAgent string, uri string) bool {", 1),
    ("robots_cc.go", "func Parse(robotsBody string, handler ParseHandler) {",
     "func repdiffParse(robotsBody string, handler ParseHandler) {", 1),
    ("robots_cc.go", "func getPathParamsQuery(uri string) string {",
     "func repdiffGetPathParamsQuery(uri string) string {", 1),
    ("robots_cc.go", "func escapePattern(path string) string {",
     "func repdiffEscapePattern(path string) string {", 1),
    ("robots_cc.go", "func (m *RobotsMatcher) isValidUserAgentToObey(userAgent string) bool {",
     "func (m *RobotsMatcher) repdiffIsValidUserAgentToObey(userAgent string) bool {", 1),
    ("sitemaps.go", "func Sitemaps(robotsBody string) []string {",
     "func repdiffSitemaps(robotsBody string) []string {", 1),
]

ADDED = ["repdiff_record.go", "repdiff_record_test.go"]
# A marker line may follow output written without a newline (ginkgo's
# progress dots on stdout), so it is matched at the end of the line.
MARKER = re.compile(r"REPDIFF-EVENT (\d+)$")
RAN = re.compile(r"Ran (\d+) of (\d+) Specs")


def die(msg):
    sys.stderr.write(f"capture_grobotstxt: {msg}\n")
    sys.exit(1)


def run_tests(module_dir, work, src):
    env = dict(go_capture.go_env(sys.modules[__name__], module_dir),
               REPDIFF_EVENTS=os.path.join(work, "events.jsonl"))
    cmd = ["go", "test", "-json", "-count=1", "-parallel", "1", ".",
           "-args", "-ginkgo.seed=1", "-ginkgo.noColor"]
    proc = subprocess.run(cmd, cwd=src, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with open(os.path.join(work, "go-test.json"), "wb") as f:
        f.write(proc.stdout)
    events = []
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if line.startswith("{"):
            events.append(json.loads(line))
    if not any(e.get("Action") in ("pass", "fail") and not e.get("Test") for e in events):
        die("go test did not finish: " + (proc.stderr.decode("utf-8", "replace")
                                          + proc.stdout.decode("utf-8", "replace"))[-3000:])
    version = subprocess.run(["go", "env", "GOVERSION"], env=env, stdout=subprocess.PIPE).stdout
    return events, version.decode().strip()


def go_outcomes(events):
    """Go test -> outcome; seq -> Go test the event line came from; specs ran."""
    tests, owner, output = {}, {}, collections.defaultdict(list)
    ran = None
    for e in events:
        name = e.get("Test")
        action = e.get("Action")
        if action == "output":
            text = e.get("Output", "")
            m = MARKER.search(text.rstrip())
            if m and name:
                owner[int(m.group(1))] = name
                continue
            r = RAN.search(text)
            if r:
                ran = (int(r.group(1)), int(r.group(2)))
            if name:
                output[name].append(text)
        elif not name:
            continue
        elif action == "pass":
            tests[name] = "passed"
        elif action == "skip":
            tests[name] = "skipped"
        elif action == "fail":
            lines = [l.strip() for l in output[name] if l.strip()
                     and not l.startswith(("=== ", "--- "))]
            tests[name] = "failed: " + (" ".join(lines[:4])[:400] if lines else "(no message)")
    return tests, owner, ran


def build(events_file, go_tests, owner, ran):
    records = []
    if os.path.exists(events_file):
        with open(events_file, encoding="utf-8") as f:
            records = [json.loads(line) for line in f if line.strip()]
    for r in records:
        go_test = owner.get(r["seq"])
        if go_test is None:
            die(f"event {r['seq']} ({r['kind']}) was not attributed to a Go test")
        if ("spec" in r) != (go_test == SUITE_TEST):
            die(f"event {r['seq']}: spec {r.get('spec')} inside Go test {go_test}")
    # Spec names: the full text, made unique by file:line where two share it.
    spec_keys = sorted({(r["spec"]["text"], r["spec"]["file"], r["spec"]["line"])
                        for r in records if "spec" in r})
    by_text = collections.Counter(text for text, _, _ in spec_keys)

    def spec_name(spec):
        if by_text[spec["text"]] > 1:
            return f"{spec['text']} [{spec['file']}:{spec['line']}]"
        return spec["text"]

    tests = {name: state for name, state in go_tests.items() if name != SUITE_TEST}
    specs = {}
    for r in records:
        if r["kind"] == "spec":
            name = spec_name(r["spec"])
            if name in specs:
                die(f"spec {name} ended twice")
            specs[name] = "failed: the ginkgo spec failed (see the ginkgo output)" if r["failed"] else "passed"
    if ran is None or ran[0] != len(specs):
        die(f"ginkgo ran {ran} specs, the AfterEach saw {len(specs)}")
    suite_ok = go_tests.get(SUITE_TEST) == "passed"
    if suite_ok != all(v == "passed" for v in specs.values()):
        die(f"{SUITE_TEST} is {go_tests.get(SUITE_TEST)!r} but the specs say otherwise: {specs}")
    tests.update(specs)

    calls, skips = [], collections.Counter()
    recorded = set()
    for r in records:
        if r["kind"] == "spec":
            continue
        test = spec_name(r["spec"]) if "spec" in r else owner[r["seq"]]
        recorded.add(test)
        if r["kind"] == "skip":
            skips[(test, r["what"])] += 1
            continue
        agents = [bytes.fromhex(a) for a in r["agents_hex"]]
        if len(agents) != 1:
            shown = ", ".join(a.decode("utf-8", "replace") for a in agents)
            skips[(test, f"{r['api']} with {len(agents)} agents ({shown}): a multi-agent call, "
                         "the protocol asks for one agent")] += 1
            continue
        call = {"test": test, "body_hex": r["body_hex"], "allowed": r["allowed"]}
        call.update(go_capture.text_or_hex(agents[0], "agent"))
        call.update(go_capture.text_or_hex(bytes.fromhex(r["url_hex"]), "url"))
        calls.append(call)
    for name in sorted(tests):
        if name not in recorded:
            skips[(name, "no call the shim records")] += 1
    calls.sort(key=lambda c: (c["test"], c["body_hex"], c.get("url", c.get("url_hex")),
                              c.get("agent", c.get("agent_hex")), c["allowed"]))
    skipped = [{"test": t, "what": (w if n == 1 else f"{w} (x{n})")}
               for (t, w), n in sorted(skips.items())]
    return tests, calls, skipped


def main():
    if len(sys.argv) != 4:
        die("usage: capture_grobotstxt.py MODULE_DIR WORK_DIR OUT.json")
    module_dir, work, out = (os.path.abspath(a) for a in sys.argv[1:])
    if os.path.exists(work):
        shutil.rmtree(work)
    src = os.path.join(work, "src")
    go_capture.prepare(sys.modules[__name__], module_dir, src)
    events, version = run_tests(module_dir, work, src)
    go_tests, owner, ran = go_outcomes(events)
    tests, calls, skipped = build(os.path.join(work, "events.jsonl"), go_tests, owner, ran)
    raw = {
        "tests": tests,
        "calls": calls,
        "skipped": skipped,
        "library": f"{src}/robots_cc.go (a recording copy of {module_dir}, {MODULE}; {version})",
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(raw, f, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    passed = sum(1 for v in tests.values() if v == "passed")
    sys.stderr.write(f"{SUITE}: {passed}/{len(tests)} tests passed, {len(calls)} calls, "
                     f"{len(skipped)} skipped\n")


if __name__ == "__main__":
    main()
