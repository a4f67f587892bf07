//! Direct reproducers for the JVM, Go and robotexclusionrulesparser
//! oracles: each calls the library through its public API as the crawler
//! its harness follows does (Nutch, StormCrawler, Heritrix, colly, Scrapy;
//! see each harness's header in `oracles/harness/<name>/`).

use super::repro::{escape_bytes, text_lit, trailer, Input};
use engine::oracle::Ask;

/// A Java string literal holding one char per byte, turned back into the
/// exact bytes with ISO-8859-1. Octal escapes, never `\u000a`: javac turns
/// `\u` escapes into characters before it reads string literals, so an
/// escaped line feed would end the literal.
fn java_bytes(b: &[u8]) -> String {
    let mut out = String::from("\"");
    for &c in b {
        out.push_str(&java_char(u16::from(c)));
    }
    out.push_str("\".getBytes(StandardCharsets.ISO_8859_1)");
    out
}

/// One UTF-16 unit inside a Java string literal: printable ASCII as is,
/// other Latin-1 units as octal escapes, the rest as `\uXXXX` (safe above
/// U+00FF: none of those is a line end, quote or backslash).
fn java_char(u: u16) -> String {
    match u {
        0x5c => "\\\\".into(),
        0x22 => "\\\"".into(),
        0x20..=0x7e => char::from(u as u8).to_string(),
        0..=0xff => format!("\\{u:03o}"),
        _ => format!("\\u{u:04x}"),
    }
}

/// A Java string literal for a text, ASCII-only source whatever javac
/// assumes about the file's encoding.
fn java_text(s: &str) -> String {
    let body: String = s.encode_utf16().map(java_char).collect();
    format!("\"{body}\"")
}

/// crawler-commons as Apache Nutch 1.22 (`nutch`) or StormCrawler 3.4
/// (`!nutch`) calls it.
pub fn crawler_commons(inp: &Input, nutch: bool) -> Option<String> {
    if inp.query.ask != Ask::CanFetch {
        return None;
    }
    let (version, names, verdict, who) = if nutch {
        (
            "1.6",
            "agent.trim().equals(\"*\") ? Set.of() : Set.of(agent.trim().toLowerCase())",
            "rules.isAllowed(new URL(url))",
            "Apache Nutch 1.22 (HttpRobotRulesParser, FetcherThread)",
        )
    } else {
        (
            "1.4",
            "Set.of(agent.toLowerCase(Locale.ROOT))",
            "rules.isAllowed(url)",
            "StormCrawler 3.4 (HttpRobotRulesParser)",
        )
    };
    Some(format!(
        r#"// crawler-commons {version} from Maven Central (com.github.crawler-commons:crawler-commons:{version}
// and its slf4j-api) in lib/; run: java -cp 'lib/*' Repro.java
import crawlercommons.robots.BaseRobotRules;
import crawlercommons.robots.SimpleRobotRulesParser;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;

public class Repro {{
    public static void main(String[] args) throws Exception {{
        byte[] body = {};
        String agent = {};
        String url = {};
        // as {who} calls it
        SimpleRobotRulesParser parser = new SimpleRobotRulesParser();
        parser.setMaxCrawlDelay(Long.MAX_VALUE);
        String robotsUrl = new URL(new URL(url), "/robots.txt").toString();
        BaseRobotRules rules = parser.parseContent(robotsUrl, body, "text/plain", {names});
        System.out.println({verdict} ? "allowed" : "disallowed");
    }}
}}
{}"#,
        java_bytes(inp.body),
        java_text(&inp.query.agent),
        java_text(&inp.query.url),
        trailer(inp, "//")
    ))
}

/// Heritrix 3.13.0's Robotstxt as its fetcher and PreconditionEnforcer use it.
pub fn heritrix(inp: &Input) -> Option<String> {
    if inp.query.ask != Ask::CanFetch {
        return None;
    }
    Some(format!(
        r#"// heritrix-modules and heritrix-commons 3.13.0, webarchive-commons 3.0.2 and their
// dependencies from Maven Central in lib/ (oracles/harness/heritrix/pom.xml lists them);
// run: java -Dfile.encoding=UTF-8 -cp 'lib/*' Repro.java
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.archive.modules.net.Robotstxt;
import org.archive.net.UURI;
import org.archive.net.UURIFactory;

public class Repro {{
    public static void main(String[] args) throws Exception {{
        byte[] body = {};
        String agent = {};
        String url = {};
        // CrawlServer.updateRobots: the body through an InputStreamReader (default charset)
        Robotstxt robots = new Robotstxt(new InputStreamReader(new ByteArrayInputStream(body)));
        // CrawlMetadata's User-Agent template with the crawler's name in it
        String ua = agent.contains(" ") || agent.contains("(") ? agent
            : "Mozilla/5.0 (compatible; " + agent + " +http://example.test/contact)";
        // PreconditionEnforcer + ObeyRobotsPolicy: the UURI's percent-decoded path and query
        UURI uuri = UURIFactory.getInstance(url);
        boolean ok = robots.getDirectivesFor(ua).allows(uuri.getPathQuery());
        System.out.println(ok ? "allowed" : "disallowed");
    }}
}}
{}"#,
        java_bytes(inp.body),
        java_text(&inp.query.agent),
        java_text(&inp.query.url),
        trailer(inp, "//")
    ))
}

/// github.com/temoto/robotstxt v1.1.2 with the path colly v2.3.0 builds.
pub fn temoto(inp: &Input) -> Option<String> {
    if inp.query.ask != Ask::CanFetch {
        return None;
    }
    Some(format!(
        r#"// go mod init repro && go get github.com/temoto/robotstxt@v1.1.2; run: go run .
package main

import (
	"fmt"
	"net/url"

	"github.com/temoto/robotstxt"
)

func main() {{
	body := []byte("{}")
	agent := {}
	raw := {}
	// colly's checkRobots: FromResponse of a 200 response is FromBytes(body)
	robot, err := robotstxt.FromBytes(body)
	if err != nil {{
		fmt.Printf("error: %T: %v\n", err, err) // colly fails every Visit of the host
		return
	}}
	// colly's path: EscapedPath, plus the re-encoded query when there is one
	// (colly first normalises the URL with whatwg-url; this URL needs no more)
	u, err := url.Parse(raw)
	if err != nil {{
		fmt.Println("error:", err)
		return
	}}
	eu := u.EscapedPath()
	if u.RawQuery != "" {{
		eu += "?" + u.Query().Encode()
	}}
	if robot.FindGroup(agent).Test(eu) {{
		fmt.Println("allowed")
	}} else {{
		fmt.Println("disallowed")
	}}
}}
{}"#,
        escape_bytes(inp.body),
        text_lit(&inp.query.agent),
        text_lit(&inp.query.url),
        trailer(inp, "//")
    ))
}

/// github.com/jimsmart/grobotstxt v1.0.3's AgentAllowed.
pub fn grobotstxt(inp: &Input) -> Option<String> {
    if inp.query.ask != Ask::CanFetch {
        return None;
    }
    Some(format!(
        r#"// go mod init repro && go get github.com/jimsmart/grobotstxt@v1.0.3; run: go run .
package main

import (
	"fmt"

	"github.com/jimsmart/grobotstxt"
)

func main() {{
	body := "{}"
	if grobotstxt.AgentAllowed(body, {}, {}) {{
		fmt.Println("allowed")
	}} else {{
		fmt.Println("disallowed")
	}}
}}
{}"#,
        escape_bytes(inp.body),
        text_lit(&inp.query.agent),
        text_lit(&inp.query.url),
        trailer(inp, "//")
    ))
}

/// robotexclusionrulesparser 1.7.1 as Scrapy's RerpRobotParser feeds it.
pub fn rerp(inp: &Input) -> Option<String> {
    let (a, u) = (text_lit(&inp.query.agent), text_lit(&inp.query.url));
    let call = match inp.query.ask {
        Ask::CanFetch => format!("rp.is_allowed({a}, {u})"),
        Ask::CrawlDelay => format!("rp.get_crawl_delay({a})"),
        Ask::Sitemaps => "rp.sitemaps".into(),
        Ask::RequestRate => return None,
    };
    Some(format!(
        r#"# pip install robotexclusionrulesparser==1.7.1; run: python3 repro.py
from robotexclusionrulesparser import RobotExclusionRulesParser

body = b"{}"
rp = RobotExclusionRulesParser()
# Scrapy's RerpRobotParser decodes the response body this way
rp.parse(body.decode("utf-8-sig", errors="ignore"))
print({call})
{}"#,
        escape_bytes(inp.body),
        trailer(inp, "#")
    ))
}
