// repdiff recording layer for github.com/jimsmart/grobotstxt's own tests.
//
// Copied by capture_grobotstxt.py into a work-dir copy of the module (never
// into the module cache), next to the library files, where these
// definitions were renamed (one exact substitution each, behaviour
// unchanged):
//
//	robots_cc.go: func (m *RobotsMatcher) AgentsAllowed -> repdiffAgentsAllowed
//	              func (m *RobotsMatcher) AgentAllowed  -> repdiffAgentAllowed
//	              func Parse                            -> repdiffParse
//	              func getPathParamsQuery               -> repdiffGetPathParamsQuery
//	              func escapePattern                    -> repdiffEscapePattern
//	              func (m *RobotsMatcher) isValidUserAgentToObey -> repdiffIsValidUserAgentToObey
//	sitemaps.go:  func Sitemaps                         -> repdiffSitemaps
//
// Each wrapper below calls the original and returns its result unchanged.
// A call made by a test (not by the library inside another recorded call:
// AgentAllowed calls AgentsAllowed, which calls getPathParamsQuery and
// Parse, whose parser calls escapePattern) writes an event: a JSON line appended to $REPDIFF_EVENTS and a line
// "REPDIFF-EVENT <seq>" on stderr, which `go test -json` attributes to the Go
// test (or example) running. Inside the ginkgo suite the event also names
// the running spec (repdiffCurrentSpec, set by repdiff_record_test.go).
//
// Written by repdiff, not taken from the library: it holds no line of the
// library's code (the module comes from the Go module proxy at setup, pinned
// by go.sum); every function here only records and delegates.
//
// Written for the module's language version (go 1.14): no generics, no `any`.
package grobotstxt

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

var (
	repdiffMu    sync.Mutex
	repdiffSeq   int
	repdiffDepth int
	repdiffFile  *os.File
	// The running ginkgo spec: full text, file, line; "" outside a spec.
	repdiffCurrentSpec func() (string, string, int)
)

func repdiffEmit(ev map[string]interface{}) {
	path := os.Getenv("REPDIFF_EVENTS")
	if path == "" {
		return
	}
	if repdiffFile == nil {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0644)
		if err != nil {
			panic("repdiff: cannot open " + path + ": " + err.Error())
		}
		repdiffFile = f
	}
	repdiffSeq++
	ev["seq"] = repdiffSeq
	if repdiffCurrentSpec != nil {
		if text, file, line := repdiffCurrentSpec(); text != "" {
			ev["spec"] = map[string]interface{}{"text": text, "file": filepath.Base(file), "line": line}
		}
	}
	line, err := json.Marshal(ev)
	if err != nil {
		panic("repdiff: " + err.Error())
	}
	if _, err := repdiffFile.Write(append(line, '\n')); err != nil {
		panic("repdiff: " + err.Error())
	}
	fmt.Fprintf(os.Stderr, "REPDIFF-EVENT %d\n", repdiffSeq)
}

// repdiffEnter reports whether this call is the outermost recorded one, and
// marks the library as inside a recorded call until repdiffLeave.
func repdiffEnter() bool {
	repdiffMu.Lock()
	defer repdiffMu.Unlock()
	repdiffDepth++
	return repdiffDepth == 1
}

func repdiffLeave() {
	repdiffMu.Lock()
	repdiffDepth--
	repdiffMu.Unlock()
}

func repdiffRecord(ev map[string]interface{}) {
	repdiffMu.Lock()
	defer repdiffMu.Unlock()
	repdiffEmit(ev)
}

func repdiffSkip(api, what string) {
	repdiffRecord(map[string]interface{}{"kind": "skip", "api": api, "what": what})
}

func repdiffVerdict(api, body string, agents []string, uri string, allowed bool) {
	hexAgents := make([]string, len(agents))
	for i, a := range agents {
		hexAgents[i] = hex.EncodeToString([]byte(a))
	}
	repdiffRecord(map[string]interface{}{
		"kind":       "verdict",
		"api":        api,
		"body_hex":   hex.EncodeToString([]byte(body)),
		"agents_hex": hexAgents,
		"url_hex":    hex.EncodeToString([]byte(uri)),
		"allowed":    allowed,
	})
}

func (m *RobotsMatcher) AgentsAllowed(robotsBody string, userAgents []string, uri string) bool {
	outer := repdiffEnter()
	v := m.repdiffAgentsAllowed(robotsBody, userAgents, uri)
	repdiffLeave()
	if outer {
		repdiffVerdict("AgentsAllowed", robotsBody, userAgents, uri, v)
	}
	return v
}

func (m *RobotsMatcher) AgentAllowed(robotsBody string, userAgent string, uri string) bool {
	outer := repdiffEnter()
	v := m.repdiffAgentAllowed(robotsBody, userAgent, uri)
	repdiffLeave()
	if outer {
		repdiffVerdict("AgentAllowed", robotsBody, []string{userAgent}, uri, v)
	}
	return v
}

func Parse(robotsBody string, handler ParseHandler) {
	outer := repdiffEnter()
	if outer {
		repdiffSkip("Parse", fmt.Sprintf("Parse with the test's own ParseHandler (%T): line numbers, "+
			"directive counts and sitemap values, not a verdict", handler))
	}
	repdiffParse(robotsBody, handler)
	repdiffLeave()
}

func Sitemaps(robotsBody string) []string {
	outer := repdiffEnter()
	if outer {
		repdiffSkip("Sitemaps", "Sitemaps(body): a sitemap list, not a verdict")
	}
	v := repdiffSitemaps(robotsBody)
	repdiffLeave()
	return v
}

func getPathParamsQuery(uri string) string {
	outer := repdiffEnter()
	if outer {
		repdiffSkip("getPathParamsQuery", "getPathParamsQuery, a private helper (the path, params and query of a URL), not a verdict")
	}
	v := repdiffGetPathParamsQuery(uri)
	repdiffLeave()
	return v
}

func escapePattern(path string) string {
	outer := repdiffEnter()
	if outer {
		repdiffSkip("escapePattern", "escapePattern, a private helper (percent-encoding of a rule pattern), not a verdict")
	}
	v := repdiffEscapePattern(path)
	repdiffLeave()
	return v
}

func (m *RobotsMatcher) isValidUserAgentToObey(userAgent string) bool {
	outer := repdiffEnter()
	if outer {
		repdiffSkip("isValidUserAgentToObey", "isValidUserAgentToObey (via the test-only export IsValidUserAgentToObey): "+
			"whether an agent name is well-formed, not a verdict")
	}
	v := m.repdiffIsValidUserAgentToObey(userAgent)
	repdiffLeave()
	return v
}
