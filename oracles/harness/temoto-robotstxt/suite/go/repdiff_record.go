// repdiff recording layer for github.com/temoto/robotstxt's own tests.
//
// Copied by capture_temoto_robotstxt.py into a work-dir copy of the module
// (never into the module cache), next to the library files, where these
// definitions were renamed (one exact substitution each, behaviour unchanged):
//
//	func FromStatusAndBytes      -> func repdiffFromStatusAndBytes
//	func FromBytes               -> func repdiffFromBytes
//	func (r *RobotsData) TestAgent -> repdiffTestAgent
//	func (r *RobotsData) FindGroup -> repdiffFindGroup
//	func (g *Group) Test         -> repdiffTest
//	TestAgent's own inner calls r.FindGroup / g.Test -> the repdiff* originals
//
// Each wrapper below calls the original and returns its result unchanged; it
// only writes an event: a JSON line appended to $REPDIFF_EVENTS (body bytes,
// status, agent, path, verdict) and a line "REPDIFF-EVENT <seq>" on stderr,
// which test2json attributes to the (sub)test running at that moment (the
// capture runs each top-level test in a process of its own, and no subtest
// is parallel, so one test body runs at a time).
//
// Written by repdiff, not taken from the library: it holds no line of the
// library's code (the module comes from the Go module proxy at setup, pinned
// by go.sum); every function here only records and delegates.
//
// Written for the module's language version (go 1.11): no generics, no `any`.
package robotstxt

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
)

type repdiffParse struct {
	id     int
	status int
	body   []byte
}

type repdiffGroupOrigin struct {
	robots *RobotsData
	agent  string
}

var (
	repdiffMu      sync.Mutex
	repdiffSeq     int
	repdiffParseNo int
	repdiffDepth   int
	repdiffFile    *os.File
	// The parse each result came from. allowAll/disallowAll are shared
	// singletons: their entry is the latest parse that returned them (every
	// test queries a result right after parsing it).
	repdiffSources = map[*RobotsData]repdiffParse{}
	// The robots data and agent a Group was found for (FindGroup, then Test).
	repdiffGroups = map[*Group]repdiffGroupOrigin{}
)

// repdiffTestFunc is the top-level test function on the call stack, a
// cross-check of the test2json attribution.
func repdiffTestFunc() string {
	pcs := make([]uintptr, 256)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	const prefix = "github.com/temoto/robotstxt."
	found := ""
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, prefix+"Test") {
			name := strings.TrimPrefix(f.Function, prefix)
			if i := strings.Index(name, "."); i >= 0 {
				name = name[:i]
			}
			found = name
		}
		if !more {
			break
		}
	}
	return found
}

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
	ev["testfn"] = repdiffTestFunc()
	line, err := json.Marshal(ev)
	if err != nil {
		panic("repdiff: " + err.Error())
	}
	if _, err := repdiffFile.Write(append(line, '\n')); err != nil {
		panic("repdiff: " + err.Error())
	}
	fmt.Fprintf(os.Stderr, "REPDIFF-EVENT %d\n", repdiffSeq)
}

func repdiffParsed(api string, r *RobotsData, err error, status int, body []byte) {
	repdiffMu.Lock()
	defer repdiffMu.Unlock()
	if repdiffDepth > 0 {
		return // an inner call of an outer constructor, recorded there
	}
	repdiffParseNo++
	ev := map[string]interface{}{
		"kind":     "parse",
		"api":      api,
		"parse":    repdiffParseNo,
		"status":   status,
		"body_hex": hex.EncodeToString(body),
		"ok":       err == nil && r != nil,
	}
	if err != nil {
		ev["error"] = fmt.Sprintf("%T: %v", err, err)
	}
	if r != nil {
		repdiffSources[r] = repdiffParse{id: repdiffParseNo, status: status, body: body}
	}
	repdiffEmit(ev)
}

func repdiffVerdict(api string, r *RobotsData, agent, path string, allowed bool) {
	repdiffMu.Lock()
	defer repdiffMu.Unlock()
	ev := map[string]interface{}{
		"kind":      "verdict",
		"api":       api,
		"agent_hex": hex.EncodeToString([]byte(agent)),
		"path_hex":  hex.EncodeToString([]byte(path)),
		"allowed":   allowed,
		"parse":     0,
	}
	if src, ok := repdiffSources[r]; ok && r != nil {
		ev["parse"] = src.id
	}
	repdiffEmit(ev)
}

func FromStatusAndBytes(statusCode int, body []byte) (*RobotsData, error) {
	repdiffMu.Lock()
	repdiffDepth++
	repdiffMu.Unlock()
	r, err := repdiffFromStatusAndBytes(statusCode, body)
	repdiffMu.Lock()
	repdiffDepth--
	repdiffMu.Unlock()
	repdiffParsed("FromStatusAndBytes", r, err, statusCode, body)
	return r, err
}

func FromBytes(body []byte) (*RobotsData, error) {
	r, err := repdiffFromBytes(body)
	repdiffParsed("FromBytes", r, err, 200, body)
	return r, err
}

func (r *RobotsData) TestAgent(path, agent string) bool {
	v := r.repdiffTestAgent(path, agent)
	repdiffVerdict("TestAgent", r, agent, path, v)
	return v
}

func (r *RobotsData) FindGroup(agent string) *Group {
	g := r.repdiffFindGroup(agent)
	repdiffMu.Lock()
	repdiffGroups[g] = repdiffGroupOrigin{robots: r, agent: agent}
	repdiffMu.Unlock()
	return g
}

func (g *Group) Test(path string) bool {
	v := g.repdiffTest(path)
	repdiffMu.Lock()
	origin, ok := repdiffGroups[g]
	repdiffMu.Unlock()
	if ok {
		repdiffVerdict("FindGroup.Test", origin.robots, origin.agent, path, v)
	} else {
		repdiffVerdict("Group.Test", nil, "", path, v)
	}
	return v
}
