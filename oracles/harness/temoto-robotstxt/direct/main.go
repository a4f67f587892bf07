// Command direct is the direct run of github.com/temoto/robotstxt for
// repdiff's fidelity test: the reference the protocol harness (../main.go)
// is compared against. It shares no code with the harness and goes through
// the library's main user, gocolly/colly v2.3.0, for real:
//
//   - can_fetch: a fresh colly.Collector per case (colly caches robots.txt
//     per host) with IgnoreRobotsTxt = false, AllowURLRevisit = true (a case
//     may ask the same URL twice) and UserAgent = the query's agent; its
//     HTTP client gets a RoundTripper (c.WithTransport) that answers every
//     .../robots.txt with status 200 and the case's body, and any other URL
//     with an empty 200 page. Then c.Visit(url): ErrRobotsTxtBlocked ->
//     disallowed; the request reaching OnRequest (robots.txt let it through)
//     or Visit returning nil -> allowed; any other error (a robots.txt parse
//     error, a URL colly refuses) -> error with kind = the error's Go type.
//   - crawl_delay and sitemaps: colly does not use them; robotstxt.FromBytes
//     (body), then FindGroup(agent).CrawlDelay (0 -> none) and Sitemaps.
//   - request_rate: the library has none: unsupported.
//
// stdin: one JSON object per line, {"body_b64": "...", "queries": [...]}.
// stdout: one line per input, {"answers": [...]}, answers as in protocol v2
// (docs/protocol.md), without `explain`.
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/gocolly/colly/v2"
	"github.com/temoto/robotstxt"
)

type serve struct{ body []byte }

func (s *serve) RoundTrip(req *http.Request) (*http.Response, error) {
	body := []byte{}
	if req.URL.Path == "/robots.txt" {
		body = s.body
	}
	return &http.Response{
		Status:        "200 OK",
		StatusCode:    http.StatusOK,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {"text/plain"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}

type outcome = map[string]any

func failed(err error) outcome {
	return outcome{"outcome": "error", "kind": fmt.Sprintf("%T", err), "message": err.Error()}
}

func panicked(r any) outcome {
	return outcome{"outcome": "error", "kind": "panic", "message": fmt.Sprint(r)}
}

func visit(c *colly.Collector, reached *bool, agent, url string) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = panicked(r)
		}
	}()
	c.UserAgent = agent
	*reached = false
	err := c.Visit(url)
	switch {
	case *reached || err == nil:
		return outcome{"outcome": "allowed"}
	case errors.Is(err, colly.ErrRobotsTxtBlocked):
		return outcome{"outcome": "disallowed"}
	}
	return failed(err)
}

func answerCase(body []byte, queries []map[string]string) []outcome {
	c := colly.NewCollector()
	c.IgnoreRobotsTxt = false
	c.AllowURLRevisit = true
	c.WithTransport(&serve{body: body})
	// Set when colly goes on to fetch the page: robots.txt let it through.
	reached := false
	c.OnRequest(func(*colly.Request) { reached = true })

	var perr outcome // FromBytes failed (or panicked): every answer
	robots, err := func() (r *robotstxt.RobotsData, err error) {
		defer func() {
			if p := recover(); p != nil {
				perr = panicked(p)
			}
		}()
		return robotstxt.FromBytes(body)
	}()
	if err != nil {
		perr = failed(err)
	}
	answers := []outcome{}
	for _, q := range queries {
		switch q["ask"] {
		case "can_fetch":
			answers = append(answers, visit(c, &reached, q["agent"], q["url"]))
		case "crawl_delay", "sitemaps":
			if perr != nil {
				answers = append(answers, perr)
			} else if q["ask"] == "sitemaps" {
				answers = append(answers, outcome{"outcome": "value",
					"value": outcome{"type": "list", "value": append([]string{}, robots.Sitemaps...)}})
			} else if d := robots.FindGroup(q["agent"]).CrawlDelay; d == 0 {
				answers = append(answers, outcome{"outcome": "value", "value": outcome{"type": "none"}})
			} else {
				answers = append(answers, outcome{"outcome": "value",
					"value": outcome{"type": "float", "value": d.Seconds()}})
			}
		default:
			answers = append(answers, outcome{"outcome": "unsupported",
				"reason": "temoto/robotstxt knows no " + q["ask"]})
		}
	}
	return answers
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
			js, _ := json.Marshal(outcome{"answers": answerCase(body, cs.Queries)})
			out.Write(js)
			out.WriteByte('\n')
			out.Flush()
		}
		if err != nil {
			return
		}
	}
}
