// Command direct is the direct run of github.com/jimsmart/grobotstxt for
// repdiff's fidelity test: the reference the protocol harness (../main.go)
// is compared against. It shares no code with the harness and calls the
// library the plainest way its README shows:
//
//	grobotstxt.AgentAllowed(string(body), agent, url)  // can_fetch
//	grobotstxt.Sitemaps(string(body))                  // sitemaps
//
// crawl_delay and request_rate: the library has none: unsupported. A panic
// in the library is an error of kind "panic".
//
// stdin: one JSON object per line, {"body_b64": "...", "queries": [...]}.
// stdout: one line per input, {"answers": [...]}, answers as in protocol v2
// (docs/protocol.md), without `explain`.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/jimsmart/grobotstxt"
)

type outcome = map[string]any

func ask(robots string, q map[string]string) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = outcome{"outcome": "error", "kind": "panic", "message": fmt.Sprint(r)}
		}
	}()
	switch q["ask"] {
	case "can_fetch":
		if grobotstxt.AgentAllowed(robots, q["agent"], q["url"]) {
			return outcome{"outcome": "allowed"}
		}
		return outcome{"outcome": "disallowed"}
	case "sitemaps":
		sitemaps := grobotstxt.Sitemaps(robots)
		if sitemaps == nil {
			sitemaps = []string{}
		}
		return outcome{"outcome": "value", "value": outcome{"type": "list", "value": sitemaps}}
	}
	return outcome{"outcome": "unsupported", "reason": "grobotstxt has no API for " + q["ask"]}
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadString('\n')
		if strings.TrimSpace(line) != "" {
			var cs struct {
				BodyB64 string              `json:"body_b64"`
				Queries []map[string]string `json:"queries"`
			}
			if jerr := json.Unmarshal([]byte(line), &cs); jerr != nil {
				fmt.Fprintln(os.Stderr, "bad input line:", jerr)
				os.Exit(2)
			}
			body, derr := base64.StdEncoding.DecodeString(cs.BodyB64)
			if derr != nil {
				fmt.Fprintln(os.Stderr, "bad body_b64:", derr)
				os.Exit(2)
			}
			answers := []outcome{}
			for _, q := range cs.Queries {
				answers = append(answers, ask(string(body), q))
			}
			js, _ := json.Marshal(outcome{"answers": answers})
			out.Write(js)
			out.WriteByte('\n')
			out.Flush()
		}
		if err != nil {
			return
		}
	}
}
