// Command harness is repdiff's oracle harness (protocol v2,
// docs/protocol.md) for the Go module github.com/temoto/robotstxt, fed
// exactly the way its main user, gocolly/colly v2.3.0, feeds it.
//
// Built by `cargo xtask setup` from this module (go.mod and go.sum are ours
// and pin every module; the library comes from the Go module proxy):
//
//	go build -trimpath -o .cache/go/temoto-robotstxt/harness .
//
// What colly v2.3.0 does, and so what this harness does (colly.go, read at
// v2.3.0 in the module cache):
//
//   - Collector.scrape parses the request URL with its package-level
//     `urlParser = whatwgUrl.NewParser(whatwgUrl.WithPercentEncodeSinglePercentSign())`
//     (github.com/nlnwa/whatwg-url, the version colly's go.mod requires:
//     v0.6.2), then `url.Parse(parsedWhatwgURL.Href(false))` (net/url), then
//     `http.NewRequest(method, parsedURL.String(), nil)`. An error in any of
//     these fails the Visit: here an `error` outcome (kind: the error's Go
//     type, message: its text). The same functions are called here.
//   - Collector.checkRobots builds the robots.txt request
//     (`http.NewRequest("GET", u.Scheme+"://"+u.Host+"/robots.txt", nil)`,
//     an error fails the Visit), fetches it and hands the response to
//     `robotstxt.FromResponse(resp)`. Here the response is a synthetic
//     `*http.Response` with status 200 and the body bytes, so FromResponse
//     goes to FromStatusAndBytes(200, body) = FromBytes(body). A parse error
//     (one bad line rejects the whole file) fails every Visit of that host:
//     an `error` outcome for every query of the request (can_fetch queries
//     whose URL colly already refuses get that URL error instead, as colly
//     refuses the URL before it fetches robots.txt).
//   - Then `robot.FindGroup(c.UserAgent).Test(eu)` where c.UserAgent is the
//     whole UA string (here the query's agent, verbatim) and
//     `eu := u.EscapedPath(); if u.RawQuery != "" { eu += "?" + u.Query().Encode() }`
//     (so a query is re-sorted and re-encoded, malformed pairs dropped, and
//     a "?" only when the raw query is not empty). false is
//     ErrRobotsTxtBlocked: `disallowed`.
//
// colly's URL filters, depth and revisit checks do not apply (none are
// configured). colly's robots cache is keyed by host; each request here is
// one body, so it stands alone. Not modelled: the real HTTP transport (the
// direct program in ./direct serves the body through a RoundTripper for any
// scheme and host, and so does this harness, which never fetches).
//
// Crawl-delay: colly does not use it; asked here as
// `FindGroup(agent).CrawlDelay` (a time.Duration; 0, the library's "none",
// is reported as none, as the library cannot tell 0 from absent).
// Sitemaps: `RobotsData.Sitemaps` (always a list). Request-rate: the library
// has no such field: unsupported.
//
// Speed: the body is parsed once per request; colly's URL handling (a pure
// function of the URL string) is memoised in a bounded map across requests.
//
// I/O: a JSON line per request on stdin, then body_len raw bytes; one JSON
// line per response on stdout, flushed; nothing else on stdout.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	whatwgUrl "github.com/nlnwa/whatwg-url/url"
	"github.com/temoto/robotstxt"
)

const (
	name         = "temoto-robotstxt"
	libModule    = "github.com/temoto/robotstxt"
	urlModule    = "github.com/nlnwa/whatwg-url"
	collyVersion = "v2.3.0"
	feeding      = "as colly v2.3.0 checkRobots: robotstxt.FromResponse(200 response with the body bytes); " +
		"URL via whatwg-url Parse (WithPercentEncodeSinglePercentSign), net/url.Parse(Href(false)), http.NewRequest; " +
		"FindGroup(whole agent).Test(EscapedPath() + \"?\"+Query().Encode() if RawQuery != \"\"); " +
		"a parse error is an error for every query"
	noRate = "temoto/robotstxt has no Request-rate support (Group has only rules and CrawlDelay)"
)

// colly.go:307 at v2.3.0.
var urlParser = whatwgUrl.NewParser(whatwgUrl.WithPercentEncodeSinglePercentSign())

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

func errAnswer(err error, explain string) answer {
	if p, ok := err.(panicError); ok {
		a := errOf(p.value)
		a["explain"] = "the library panicked"
		return a
	}
	a := answer{"outcome": "error", "kind": fmt.Sprintf("%T", err), "message": err.Error()}
	if explain != "" {
		a["explain"] = explain
	}
	return a
}

// panicError is a panic inside the library, reported as an error of kind
// "panic" (colly would crash; the direct program reports it the same way).
type panicError struct{ value any }

func (p panicError) Error() string { return fmt.Sprint(p.value) }

func errOf(r any) answer {
	return answer{"outcome": "error", "kind": "panic", "message": panicError{r}.Error()}
}

// parse is what checkRobots does with the robots.txt response.
func parse(body []byte) (robots *robotstxt.RobotsData, err error) {
	defer func() {
		if r := recover(); r != nil {
			robots, err = nil, panicError{r}
		}
	}()
	resp := &http.Response{
		Status:        "200 OK",
		StatusCode:    200,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {"text/plain"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
	}
	return robotstxt.FromResponse(resp)
}

// target is what colly makes of a request URL before it looks at
// robots.txt: the path it tests (eu), or the error that fails the Visit.
type target struct {
	eu  string
	err answer
}

// targets memoises colly's URL handling, a pure function of the URL string
// (many cases ask the same URLs); bounded, dropped whole when full.
var targets = make(map[string]target, 1<<12)

// urlTarget is colly's scrape -> requestCheck -> checkRobots up to the
// robots.txt lookup, for one URL.
func urlTarget(raw string) target {
	if t, ok := targets[raw]; ok {
		return t
	}
	t := func() target {
		wu, err := urlParser.Parse(raw)
		if err != nil {
			return target{err: errAnswer(err, "colly's whatwg-url urlParser.Parse refused the URL")}
		}
		href := wu.Href(false)
		u, err := url.Parse(href)
		if err != nil {
			return target{err: errAnswer(err, fmt.Sprintf("net/url.Parse refused whatwg-url's Href %q", href))}
		}
		if _, err := http.NewRequest("GET", u.String(), nil); err != nil {
			return target{err: errAnswer(err, "http.NewRequest refused the URL")}
		}
		if _, err := http.NewRequest("GET", u.Scheme+"://"+u.Host+"/robots.txt", nil); err != nil {
			return target{err: errAnswer(err, "http.NewRequest refused the robots.txt URL")}
		}
		eu := u.EscapedPath()
		if u.RawQuery != "" {
			eu += "?" + u.Query().Encode()
		}
		return target{eu: eu}
	}()
	if len(targets) >= 1<<12 {
		clear(targets)
	}
	targets[raw] = t
	return t
}

// canFetch is colly's scrape -> requestCheck -> checkRobots, for one URL.
func canFetch(robots *robotstxt.RobotsData, parseErr error, agent, raw string) answer {
	t := urlTarget(raw)
	if t.err != nil {
		return t.err
	}
	if parseErr != nil {
		return errAnswer(parseErr, "robotstxt.FromResponse failed: the whole file is rejected")
	}
	verdict := "disallowed"
	if robots.FindGroup(agent).Test(t.eu) {
		verdict = "allowed"
	}
	return answer{"outcome": verdict, "explain": "FindGroup(agent).Test(" + strconv.Quote(t.eu) + ")"}
}

func run(body []byte, queries []query) []answer {
	robots, parseErr := parse(body)
	answers := make([]answer, 0, len(queries))
	for _, q := range queries {
		answers = append(answers, one(robots, parseErr, q))
	}
	return answers
}

// one answers one query; a panic in the library is that query's error.
func one(robots *robotstxt.RobotsData, parseErr error, q query) (a answer) {
	defer func() {
		if r := recover(); r != nil {
			a = errOf(r)
		}
	}()
	switch q.Ask {
	case "can_fetch":
		return canFetch(robots, parseErr, q.Agent, q.URL)
	case "crawl_delay":
		if parseErr != nil {
			return errAnswer(parseErr, "robotstxt.FromResponse failed")
		}
		d := robots.FindGroup(q.Agent).CrawlDelay
		if d == 0 {
			return answer{"outcome": "value", "value": answer{"type": "none"},
				"explain": "Group.CrawlDelay is 0 (no Crawl-delay, or Crawl-delay: 0; the library cannot tell them apart)"}
		}
		return answer{"outcome": "value",
			"value":   answer{"type": "float", "value": d.Seconds()},
			"explain": "Group.CrawlDelay = " + d.String()}
	case "sitemaps":
		if parseErr != nil {
			return errAnswer(parseErr, "robotstxt.FromResponse failed")
		}
		list := append([]string{}, robots.Sitemaps...)
		return answer{"outcome": "value", "value": answer{"type": "list", "value": list}}
	case "request_rate":
		return answer{"outcome": "unsupported", "reason": noRate}
	}
	return answer{"outcome": "unsupported", "reason": "unknown ask " + q.Ask}
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
	var lib, urlDep *debug.Module
	for _, dep := range info.Deps {
		if dep.Replace != nil {
			return unavailable(dep.Path + " is replaced in go.mod")
		}
		switch dep.Path {
		case libModule:
			lib = dep
		case urlModule:
			urlDep = dep
		}
	}
	if lib == nil || urlDep == nil {
		return unavailable(libModule + " or " + urlModule + " missing from the build info")
	}
	build := runtime.Version()
	for _, s := range info.Settings {
		if s.Key == "-trimpath" && s.Value == "true" {
			build += " -trimpath"
		}
	}
	build += "; go.sum " + lib.Sum + "; fed as colly " + collyVersion +
		" does, URLs through " + urlModule + " " + urlDep.Version + " (go.sum " + urlDep.Sum + ")"
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
		"capabilities": answer{"can_fetch": true, "crawl_delay": true, "request_rate": false,
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
