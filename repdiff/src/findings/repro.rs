//! Direct reproducers: one small program per oracle, in the library's own
//! language, calling the library the way the repdiff harness for that
//! oracle calls it (oracles/src/python/glue.py, oracles/harness/*), so the
//! program shows what a maintainer sees without repdiff in between.

use super::repro_jvm_go;
use engine::oracle::{Ask, Query};

/// One input, as the templates need it.
pub struct Input<'a> {
    pub body: &'a [u8],
    pub query: &'a Query,
    /// What RFC 9309 expects, in words (`allowed`, `disallowed`, ...).
    pub expected: &'a str,
    /// What the ledger pins for this oracle here.
    pub actual: &'a str,
}

/// The language a direct reproducer is written in: the fence of its code
/// block and the runtime `repdiff findings --verify` runs it in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Python,
    Js,
    Perl,
    Ruby,
    Rust,
    Cpp,
    Java,
    Go,
}

impl Lang {
    /// The Markdown fence name.
    pub fn fence(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Js => "js",
            Lang::Perl => "perl",
            Lang::Ruby => "ruby",
            Lang::Rust => "rust",
            Lang::Cpp => "cpp",
            Lang::Java => "java",
            Lang::Go => "go",
        }
    }
}

/// One complete program in the library's own language.
pub struct Program {
    pub lang: Lang,
    pub source: String,
}

/// The program for `oracle` on this input, or `None` when this oracle has
/// no template for the query's ask (the `repdiff` line is then the
/// reproducer).
pub fn direct(oracle: &str, inp: &Input) -> Option<Program> {
    let (lang, source) = match oracle {
        "cpython-3.11" | "cpython-3.15" => (Lang::Python, cpython(oracle, inp)?),
        "protego" | "protego-0.6.1" => (Lang::Python, protego(oracle, inp)?),
        "robotspy" => (Lang::Python, robotspy(inp)?),
        "robots-parser" => (Lang::Js, robots_parser(inp)?),
        "www-robotrules" => (Lang::Perl, www_robotrules(inp)?),
        "webrobots" => (Lang::Ruby, webrobots(inp)?),
        "texting-robots" => (Lang::Rust, texting_robots(inp)?),
        "robotstxt-rs" => (Lang::Rust, robotstxt_rs(inp)?),
        "spider" => (Lang::Rust, spider(inp)?),
        "google" => (Lang::Cpp, google(inp)?),
        "crawler-commons" => (Lang::Java, repro_jvm_go::crawler_commons(inp, true)?),
        "crawler-commons-1.4" => (Lang::Java, repro_jvm_go::crawler_commons(inp, false)?),
        "heritrix" => (Lang::Java, repro_jvm_go::heritrix(inp)?),
        "temoto-robotstxt" => (Lang::Go, repro_jvm_go::temoto(inp)?),
        "grobotstxt" => (Lang::Go, repro_jvm_go::grobotstxt(inp)?),
        "robotexclusionrulesparser" => (Lang::Python, repro_jvm_go::rerp(inp)?),
        _ => return None,
    };
    Some(Program { lang, source })
}

pub use cause::escape_bytes;

/// A text (agent or URL) as a double-quoted literal in any of the
/// languages: ASCII controls escaped, other characters kept as written
/// (every template's source is UTF-8), since `\xNN` means a byte in some
/// of these languages and a character in others.
pub(super) fn text_lit(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if c.is_ascii() {
            out.push_str(&escape_bytes(&[c as u8]));
        } else {
            out.push(c);
        }
    }
    out.push('"');
    out
}

/// Perl and Ruby interpolate `$`/`@` (Perl) and `#{` (Ruby) in "..." strings.
fn interpolating_lit(s: &[u8]) -> String {
    let e = escape_bytes(s)
        .replace('$', "\\$")
        .replace('@', "\\@")
        .replace('#', "\\#");
    format!("\"{e}\"")
}

/// [`text_lit`] for Perl and Ruby.
fn interpolating_text(s: &str) -> String {
    text_lit(s)
        .replace('$', "\\$")
        .replace('@', "\\@")
        .replace('#', "\\#")
}

/// C++: octal escapes, which cannot swallow a following hex digit.
fn cpp_lit(s: &[u8]) -> String {
    let mut out = String::from("\"");
    for &b in s {
        match b {
            b'\n' => out.push_str("\\n"),
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            b'?' => out.push_str("\\?"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

pub(super) fn trailer(inp: &Input, comment: &str) -> String {
    format!(
        "{comment} RFC 9309 expects: {}; this library answers: {}\n",
        inp.expected, inp.actual
    )
}

/// Python: serve `body` as a 200 `text/plain` response on a loopback
/// port, so a library's own fetcher reads exactly these bytes.
fn python_server(body: &[u8]) -> String {
    format!(
        r#"import http.server
import threading

body = b"{}"


class RobotsTxt(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), RobotsTxt)
threading.Thread(target=server.serve_forever, daemon=True).start()
robots_url = f"http://127.0.0.1:{{server.server_port}}/robots.txt"
"#,
        escape_bytes(body)
    )
}

fn cpython(oracle: &str, inp: &Input) -> Option<String> {
    let (a, u) = (text_lit(&inp.query.agent), text_lit(&inp.query.url));
    let call = match inp.query.ask {
        Ask::CanFetch => format!("rp.can_fetch({a}, {u})"),
        Ask::CrawlDelay => format!("rp.crawl_delay({a})"),
        Ask::RequestRate => format!("rp.request_rate({a})"),
        Ask::Sitemaps => "rp.site_maps()".into(),
    };
    let run = if oracle == "cpython-3.11" {
        "python3.11"
    } else {
        "python3.15"
    };
    Some(format!(
        "# run: {run} repro.py\nimport urllib.robotparser\n{}\n\
rp = urllib.robotparser.RobotFileParser()\n\
rp.set_url(robots_url)\n\
rp.read()  # the library's own fetcher reads the bytes above\n\
print({call})\n{}",
        python_server(inp.body),
        trailer(inp, "#")
    ))
}

fn protego(oracle: &str, inp: &Input) -> Option<String> {
    let (a, u) = (text_lit(&inp.query.agent), text_lit(&inp.query.url));
    let call = match inp.query.ask {
        Ask::CanFetch => format!("rp.can_fetch({u}, {a})"),
        Ask::CrawlDelay => format!("rp.crawl_delay({a})"),
        Ask::RequestRate => format!("rp.request_rate({a})"),
        Ask::Sitemaps => "list(rp.sitemaps)".into(),
    };
    let pin = if oracle == "protego" {
        "0.7.0"
    } else {
        "0.6.1"
    };
    Some(format!(
        "# pip install protego=={pin}; run: python3 repro.py\nfrom protego import Protego\n\n\
body = b\"{}\"\n\
# decoded as Scrapy's ProtegoRobotParser decodes a response body (scrapy/robotstxt.py)\n\
rp = Protego.parse(body.decode(\"utf-8-sig\", errors=\"ignore\"))\nprint({call})\n{}",
        escape_bytes(inp.body),
        trailer(inp, "#")
    ))
}

fn robotspy(inp: &Input) -> Option<String> {
    let (a, u) = (text_lit(&inp.query.agent), text_lit(&inp.query.url));
    let call = match inp.query.ask {
        Ask::CanFetch => format!("parser.can_fetch({a}, {u})"),
        Ask::Sitemaps => "parser.sitemaps".into(),
        _ => return None,
    };
    Some(format!(
        r#"# pip install robotspy==0.13.0; run: PYTHONHASHSEED=0 python3 repro.py
# (its rule merging follows set order, so the hash seed is fixed)
import robots
{}
parser = robots.RobotsParser.from_uri(robots_url)  # its own fetcher reads the bytes above
print({call})
{}"#,
        python_server(inp.body),
        trailer(inp, "#")
    ))
}

fn robots_parser(inp: &Input) -> Option<String> {
    let (a, u) = (text_lit(&inp.query.agent), text_lit(&inp.query.url));
    let call = match inp.query.ask {
        Ask::CanFetch => format!("robots.isAllowed({u}, {a})"),
        Ask::CrawlDelay => format!("robots.getCrawlDelay({a})"),
        Ask::Sitemaps => "robots.getSitemaps()".into(),
        Ask::RequestRate => return None,
    };
    Some(format!(
        "// npm install robots-parser@3.0.1; run: node repro.js\nconst robotsParser = require('robots-parser');\n\n\
// the bytes, one JS char per byte, then decoded as UTF-8\n\
const body = Buffer.from({}, 'latin1');\n\
const url = {u};\n\
let origin = 'null';\ntry {{ origin = new URL(url).origin; }} catch (e) {{}}\n\
const robotsUrl = origin === 'null' ? 'http://robots-relative.samclarke.com/robots.txt' : origin + '/robots.txt';\n\
const robots = robotsParser(robotsUrl, new TextDecoder('utf-8').decode(body));\n\
console.log({call});\n{}",
        text_lit_bytes(inp.body),
        trailer(inp, "//")
    ))
}

/// A JS string literal holding one char per byte (`\xNN` is a code unit).
fn text_lit_bytes(b: &[u8]) -> String {
    format!("\"{}\"", escape_bytes(b))
}

fn www_robotrules(inp: &Input) -> Option<String> {
    if inp.query.ask != Ask::CanFetch {
        return None;
    }
    Some(format!(
        r#"# apt install libwww-perl libhttp-daemon-perl; run: perl repro.pl
use strict;
use warnings;
use HTTP::Daemon;
use HTTP::Response;
use LWP::RobotUA;
use URI;

my $body = {};
my $url = URI->new({});
# a loopback server: the robots.txt above, and a page for every other path
my $daemon = HTTP::Daemon->new(LocalAddr => '127.0.0.1', LocalPort => 0) or die "listen: $!";
my $server = fork // die "fork: $!";
if (!$server) {{
    while (my $conn = $daemon->accept) {{
        while (my $req = $conn->get_request) {{
            my $content = $req->uri->path eq '/robots.txt' ? $body : "a page\n";
            $conn->send_response(HTTP::Response->new(200, 'OK', ['Content-Type' => 'text/plain'], $content));
        }}
        $conn->close;
    }}
    exit 0;
}}
# the same path and query on that server, asked by LWP's robot user agent
my $local = URI->new($daemon->url);
$local->path_query($url->path_query);
my $ua = LWP::RobotUA->new(agent => {}, from => 'repro@example.test');
$ua->delay(0);
my $res = $ua->get($local);
kill 'TERM', $server;
print $res->code == 403 && $res->message eq 'Forbidden by robots.txt' ? "disallowed\n" : "allowed\n";
{}"#,
        interpolating_lit(inp.body),
        interpolating_text(&inp.query.url),
        interpolating_text(&inp.query.agent),
        trailer(inp, "#")
    ))
}

fn webrobots(inp: &Input) -> Option<String> {
    // webrobots wants a URL for every ask; the harness asks about this one
    // when a crawl-delay or sitemaps query has none.
    let url = match inp.query.url.as_str() {
        "" if inp.query.ask != Ask::CanFetch => "http://example.test/",
        u => u,
    };
    let u = interpolating_text(url);
    let call = match inp.query.ask {
        Ask::CanFetch => format!("robots.allowed?({u})"),
        Ask::CrawlDelay => format!("robots.crawl_delay({u})"),
        Ask::Sitemaps => format!("robots.sitemaps({u})"),
        Ask::RequestRate => return None,
    };
    Some(format!(
        "# apt install ruby-webrobots (or gem install webrobots -v 0.1.2); run: ruby repro.rb\nrequire 'webrobots'\n\n\
body = {}.b\n\
robots = WebRobots.new({}, http_get: ->(_uri) {{ body.dup }}, crawl_delay: :ignore)\n\
p {call}\n{}",
        interpolating_lit(inp.body),
        interpolating_text(&inp.query.agent),
        trailer(inp, "#")
    ))
}

fn texting_robots(inp: &Input) -> Option<String> {
    if inp.query.ask != Ask::CanFetch {
        return None;
    }
    Some(format!(
        r#"// Cargo.toml: texting_robots = "=0.2.2"; run: cargo run
fn main() {{
    let body: &[u8] = b"{}";
    match texting_robots::Robot::new({}, body) {{
        Ok(robot) => println!("{{}}", if robot.allowed({}) {{ "allowed" }} else {{ "disallowed" }}),
        Err(e) => println!("error: {{e}}"),
    }}
}}
{}"#,
        escape_bytes(inp.body),
        text_lit(&inp.query.agent),
        text_lit(&inp.query.url),
        trailer(inp, "//")
    ))
}

fn robotstxt_rs(inp: &Input) -> Option<String> {
    if inp.query.ask != Ask::CanFetch {
        return None;
    }
    Some(format!(
        r#"// Cargo.toml: robotstxt = "=0.3.0"; run: cargo run
fn main() {{
    let body: &[u8] = b"{}";
    let text = String::from_utf8_lossy(body);
    let mut matcher = robotstxt::DefaultMatcher::default();
    let ok = matcher.one_agent_allowed_by_robots(&text, {}, {});
    println!("{{}}", if ok {{ "allowed" }} else {{ "disallowed" }});
}}
{}"#,
        escape_bytes(inp.body),
        text_lit(&inp.query.agent),
        text_lit(&inp.query.url),
        trailer(inp, "//")
    ))
}

fn spider(inp: &Input) -> Option<String> {
    let (a, u) = (text_lit(&inp.query.agent), text_lit(&inp.query.url));
    let call = match inp.query.ask {
        Ask::CanFetch => format!("parser.can_fetch({a}, {u})"),
        Ask::RequestRate => format!("parser.get_req_rate({a}).map(|r| (r.requests, r.seconds))"),
        _ => return None,
    };
    Some(format!(
        r#"// Cargo.toml: spider = {{ version = "=2.53.9", default-features = false }}, http = "1"; run: cargo run
use spider::packages::robotparser::parser::RobotFileParser;

fn main() {{
    let body: &[u8] = b"{}";
    // what RobotFileParser::read does once its GET came back 200 OK
    let mut parser = RobotFileParser::new();
    parser.modified();
    let response = http::Response::builder().status(200).body(body.to_vec()).unwrap();
    spider::tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(parser.from_response(response.into()));
    println!("{{:?}}", {call});
}}
{}"#,
        escape_bytes(inp.body),
        trailer(inp, "//")
    ))
}

fn google(inp: &Input) -> Option<String> {
    if inp.query.ask != Ask::CanFetch {
        return None;
    }
    Some(format!(
        r#"// build: g++ -std=c++17 -I. repro.cc robots.cc -labsl_strings -labsl_strings_internal \
//   -labsl_int128 -labsl_raw_logging_internal -labsl_throw_delegate  (in a google/robotstxt checkout)
#include <iostream>
#include <string>
#include "robots.h"

int main() {{
  const std::string body({}, {});
  googlebot::RobotsMatcher matcher;
  bool ok = matcher.OneAgentAllowedByRobots(body, {}, {});
  std::cout << (ok ? "allowed" : "disallowed") << std::endl;
}}
{}"#,
        cpp_lit(inp.body),
        inp.body.len(),
        cpp_lit(inp.query.agent.as_bytes()),
        cpp_lit(inp.query.url.as_bytes()),
        trailer(inp, "//")
    ))
}
