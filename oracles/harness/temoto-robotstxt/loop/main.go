// Command loop is the parser's own speed: a direct loop of
// github.com/temoto/robotstxt over a census's exact files and questions
// (`repdiff census queries`), for the bench's "parsers' own speed" table.
// Every file is read and decoded first; then only the library's calls are
// timed with the process's CPU clock, called as colly v2.3.0 calls them
// (see ../main.go): the robots.txt parsed once per host, from a 200
// response (robotstxt.FromResponse), then for every request colly's URL
// handling (whatwg-url, net/url, the escaped path and re-encoded query)
// and FindGroup(agent).Test(path).
//
//	loop QUERIES.jsonl
//
// Prints {"cpu_seconds": S, "verdicts": "ad..."}, one letter per question
// in file order: a allowed, d disallowed, e an error (a URL colly refuses,
// a file the library rejects) or a panic.
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"syscall"

	whatwgUrl "github.com/nlnwa/whatwg-url/url"
	"github.com/temoto/robotstxt"
)

type file struct {
	body    []byte
	queries [][2]string
}

func read(path string) []file {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer f.Close()
	in := bufio.NewScanner(f)
	in.Buffer(make([]byte, 1<<20), 1<<30)
	var out []file
	for in.Scan() {
		var rec struct {
			BodyHex string `json:"body_hex"`
			Queries []struct {
				Agent string `json:"agent"`
				URL   string `json:"url"`
			} `json:"queries"`
		}
		if err := json.Unmarshal(in.Bytes(), &rec); err != nil {
			fmt.Fprintln(os.Stderr, "bad line:", err)
			os.Exit(2)
		}
		body, err := hex.DecodeString(rec.BodyHex)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bad body_hex:", err)
			os.Exit(2)
		}
		fl := file{body: body}
		for _, q := range rec.Queries {
			fl.queries = append(fl.queries, [2]string{q.Agent, q.URL})
		}
		out = append(out, fl)
	}
	return out
}

// cpu is the process's user+system time in seconds.
func cpu() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// colly.go:307 at v2.3.0.
var urlParser = whatwgUrl.NewParser(whatwgUrl.WithPercentEncodeSinglePercentSign())

// parse is colly's checkRobots on a 200 response with the body.
func parse(body []byte) (robots *robotstxt.RobotsData, err error) {
	defer func() {
		if r := recover(); r != nil {
			robots, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	return robotstxt.FromResponse(&http.Response{
		Status:        "200 OK",
		StatusCode:    200,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {"text/plain"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
	})
}

// verdict is colly's scrape -> requestCheck -> checkRobots for one URL.
func verdict(robots *robotstxt.RobotsData, parseErr error, agent, raw string) (v byte) {
	defer func() {
		if recover() != nil {
			v = 'e'
		}
	}()
	wu, err := urlParser.Parse(raw)
	if err != nil {
		return 'e'
	}
	u, err := url.Parse(wu.Href(false))
	if err != nil {
		return 'e'
	}
	if _, err := http.NewRequest("GET", u.String(), nil); err != nil {
		return 'e'
	}
	if _, err := http.NewRequest("GET", u.Scheme+"://"+u.Host+"/robots.txt", nil); err != nil {
		return 'e'
	}
	if parseErr != nil {
		return 'e'
	}
	eu := u.EscapedPath()
	if u.RawQuery != "" {
		eu += "?" + u.Query().Encode()
	}
	if robots.FindGroup(agent).Test(eu) {
		return 'a'
	}
	return 'd'
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: loop QUERIES.jsonl")
		os.Exit(2)
	}
	files := read(os.Args[1])
	start := cpu()
	verdicts := make([]byte, 0, 1<<16)
	for _, f := range files {
		robots, err := parse(f.body)
		for _, q := range f.queries {
			verdicts = append(verdicts, verdict(robots, err, q[0], q[1]))
		}
	}
	spent := cpu() - start
	js, _ := json.Marshal(map[string]any{"cpu_seconds": spent, "verdicts": string(verdicts)})
	fmt.Println(string(js))
}
