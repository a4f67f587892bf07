// Command loop is the parser's own speed: a direct loop of grobotstxt over
// a census's exact files and questions (`repdiff census queries`), for the
// bench's "parsers' own speed" table. Every file is read and decoded
// first; then only the library's calls are timed with the process's CPU
// clock, fed as the harness feeds it: grobotstxt.AgentAllowed(body, agent,
// url), which parses the text on every call (the library has no parsed
// form to keep; colly-style callers call it so).
//
//	loop QUERIES.jsonl
//
// Prints {"cpu_seconds": S, "verdicts": "ad..."}, one letter per question
// in file order: a allowed, d disallowed, e a panic.
package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"syscall"

	"github.com/jimsmart/grobotstxt"
)

type file struct {
	body    string
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
		fl := file{body: string(body)}
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

func verdict(body, agent, url string) (v byte) {
	defer func() {
		if recover() != nil {
			v = 'e'
		}
	}()
	if grobotstxt.AgentAllowed(body, agent, url) {
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
		for _, q := range f.queries {
			verdicts = append(verdicts, verdict(f.body, q[0], q[1]))
		}
	}
	spent := cpu() - start
	js, _ := json.Marshal(map[string]any{"cpu_seconds": spent, "verdicts": string(verdicts)})
	fmt.Println(string(js))
}
