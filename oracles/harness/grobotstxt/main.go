// Command harness is repdiff's oracle harness (protocol v2,
// docs/protocol.md) for the Go module github.com/jimsmart/grobotstxt, a Go
// port of Google's C++ robotstxt (robots.cc of April 2020).
//
// Built by `cargo xtask setup` from this module (go.mod and go.sum are ours
// and pin every module; the library comes from the Go module proxy):
//
//	go build -trimpath -o .cache/go/grobotstxt/harness .
//
// Feeding, the way its README calls it:
//
//   - can_fetch: `grobotstxt.AgentAllowed(string(body), agent, url)`, here
//     spelt `grobotstxt.NewRobotsMatcher().AgentAllowed(...)`, which is what
//     the package-level function does, so that the matcher's MatchingLine and
//     EverSeenSpecificAgent can go into `explain`. The library has no
//     parse-once API: every query parses the body again (as Google's
//     OneAgentAllowedByRobots does). The body crosses as a Go string of the
//     raw bytes (no decoding). The agent is passed verbatim: the library
//     compares it whole (strings.EqualFold) with the product token it
//     extracts from each User-agent line, so a full UA string such as
//     `FooBot/1.0` never matches `User-agent: FooBot`; repdiff's `google`
//     oracle passes the agent verbatim to OneAgentAllowedByRobots too, and
//     this harness does the same. The URL goes in verbatim; the library runs
//     it through net/url.Parse and String() and, when url.Parse fails,
//     returns false: recorded as what it is, `disallowed`, with `explain`
//     saying the URL did not parse.
//   - `grobotstxt.AllowFrequentTypos` (a package global, true by default:
//     "useragent", "disalow" and friends are accepted) is left at its default.
//   - sitemaps: `grobotstxt.Sitemaps(string(body))` (always a list).
//   - crawl_delay, request_rate: the library has no API for them: unsupported.
//   - A panic inside the library is an `error` of kind "panic".
//
// I/O: a JSON line per request on stdin, then body_len raw bytes; one JSON
// line per response on stdout, flushed; nothing else on stdout.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/jimsmart/grobotstxt"
)

const (
	name      = "grobotstxt"
	libModule = "github.com/jimsmart/grobotstxt"
	feeding   = "grobotstxt.AgentAllowed(string(body), agent, url) per query (the body parsed again each time), " +
		"agent and URL verbatim (the agent compared whole, as the google oracle feeds it); " +
		"AllowFrequentTypos left at its default (true); Sitemaps(string(body))"
	noDelay = "grobotstxt has no Crawl-delay or Request-rate API (its parser reports them as unknown keys)"
)

type query struct {
	Ask   string `json:"ask"`
	Agent string `json:"agent"`
	URL   string `json:"url"`
}

type request struct {
	Op      string  `json:"op"`
	BodyLen *int64  `json:"body_len"`
	URL     string  `json:"url"`
	Queries []query `json:"queries"`
}

type answer map[string]any

var out = bufio.NewWriterSize(os.Stdout, 1<<16)

func send(v any) {
	line, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: cannot encode %#v: %v\n", name, v, err)
		os.Exit(2)
	}
	out.Write(line)
	out.WriteByte('\n')
	if err := out.Flush(); err != nil {
		os.Exit(0) // the parent went away
	}
}

func canFetch(body, agent, raw string) answer {
	m := grobotstxt.NewRobotsMatcher()
	allowed := m.AgentAllowed(body, agent, raw)
	verdict := "disallowed"
	if allowed {
		verdict = "allowed"
	}
	var explain string
	out := answer{"outcome": verdict}
	if _, err := url.Parse(raw); err != nil {
		explain = "url.Parse failed, so AgentAllowed returns false: " + err.Error()
	} else {
		// The deciding line for the protocol's `line` (0: no rule matched).
		out["line"] = m.MatchingLine()
		group := "the * group"
		if m.EverSeenSpecificAgent() {
			group = "a group naming the agent"
		}
		if line := m.MatchingLine(); line > 0 {
			explain = fmt.Sprintf("line %d in %s", line, group)
		} else {
			explain = "no rule matched (" + group + " or none)"
		}
	}
	out["explain"] = explain
	return out
}

// one answers one query; a panic in the library is that query's error.
func one(body string, q query) (a answer) {
	defer func() {
		if r := recover(); r != nil {
			a = answer{"outcome": "error", "kind": "panic", "message": fmt.Sprint(r)}
		}
	}()
	switch q.Ask {
	case "can_fetch":
		return canFetch(body, q.Agent, q.URL)
	case "sitemaps":
		list := append([]string{}, grobotstxt.Sitemaps(body)...)
		return answer{"outcome": "value", "value": answer{"type": "list", "value": list}}
	case "crawl_delay", "request_rate":
		return answer{"outcome": "unsupported", "reason": noDelay}
	}
	return answer{"outcome": "unsupported", "reason": "unknown ask " + q.Ask}
}

func run(raw []byte, queries []query) []answer {
	body := string(raw)
	answers := make([]answer, 0, len(queries))
	for _, q := range queries {
		answers = append(answers, one(body, q))
	}
	return answers
}

// hello sends the greeting, or `unavailable` and reports false.
func hello() bool {
	unavailable := func(reason string) bool {
		send(answer{"v": 2, "unavailable": answer{"oracle": name, "reason": reason, "fix": "cargo xtask setup"}})
		return false
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return unavailable("no build info in the harness binary")
	}
	var lib *debug.Module
	for _, dep := range info.Deps {
		if dep.Path == libModule {
			lib = dep
		}
	}
	if lib == nil {
		return unavailable(libModule + " missing from the build info")
	}
	if lib.Replace != nil {
		return unavailable(libModule + " is replaced in go.mod")
	}
	build := runtime.Version()
	for _, s := range info.Settings {
		if s.Key == "-trimpath" && s.Value == "true" {
			build += " -trimpath"
		}
	}
	build += "; go.sum " + lib.Sum
	send(answer{"v": 2, "hello": answer{
		"name":     name,
		"library":  libModule,
		"version":  lib.Version,
		"language": "go",
		"runtime":  answer{"name": "go", "version": runtime.Version()},
		"provenance": answer{
			"registry": "go-proxy",
			"package":  libModule,
			"version":  lib.Version,
			"build":    build,
		},
		"capabilities": answer{"can_fetch": true, "crawl_delay": false, "request_rate": false,
			"sitemaps": true, "http_fetch": false},
		"feeding": feeding,
	}})
	return true
}

func main() {
	debug.SetGCPercent(400) // short-lived garbage only; the heap stays small
	if !hello() {
		return
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		line, err := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) == 0 {
			if err != nil {
				return // the parent closed stdin
			}
			continue
		}
		var req request
		if jerr := json.Unmarshal(line, &req); jerr != nil {
			fmt.Fprintf(os.Stderr, "%s: bad request line: %v\n", name, jerr)
			os.Exit(2)
		}
		switch req.Op {
		case "run":
			if req.BodyLen == nil || *req.BodyLen < 0 {
				fmt.Fprintf(os.Stderr, "%s: run without body_len\n", name)
				os.Exit(2)
			}
			body := make([]byte, *req.BodyLen)
			if _, rerr := io.ReadFull(in, body); rerr != nil {
				fmt.Fprintf(os.Stderr, "%s: stdin ended inside a body: %v\n", name, rerr)
				os.Exit(2)
			}
			send(answer{"answers": run(body, req.Queries)})
		case "fetch":
			answers := make([]answer, len(req.Queries))
			for i := range answers {
				answers[i] = answer{"outcome": "unsupported", "reason": "no fetch in this harness"}
			}
			send(answer{"answers": answers})
		default:
			fmt.Fprintf(os.Stderr, "%s: unknown op %q\n", name, req.Op)
			os.Exit(2)
		}
		if err != nil {
			return
		}
	}
}
