//! Direct reproducers: one small program per oracle, in the library's own
//! language, calling the library the way the repdiff harness for that
//! oracle calls it, so the program shows what a maintainer sees without
//! repdiff in between. Each oracle's program is a template in its own
//! directory (`oracles/harness/<name>/repro.*.tmpl`, named by the
//! manifest's `reproducer:`); this module only fills it in: the input as
//! literals of the template's language, the library call for the query's
//! ask, and the trailer saying what RFC 9309 expects.

use crate::registry::Reproducer;
use crate::template::fill;
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

pub use oracles::manifest::Lang;

/// One complete program in the library's own language.
pub struct Program {
    pub lang: Lang,
    pub source: String,
}

/// The program for `oracle` on this input, or `None` when the oracle has
/// no template, or none for the query's ask (the `repdiff` line is then
/// the reproducer).
pub fn direct(oracle: &str, inp: &Input) -> Option<Program> {
    let reproducers = crate::registry::reproducers().ok()?;
    render(reproducers.get(oracle)?, inp)
}

/// Fill `r`'s template in for `inp`.
pub fn render(r: &Reproducer, inp: &Input) -> Option<Program> {
    let call = r.calls.get(&inp.query.ask)?;
    let url = match (&r.default_url, inp.query.url.as_str()) {
        (Some(default), "") if inp.query.ask != Ask::CanFetch => default.as_str(),
        (_, u) => u,
    };
    let (agent, url) = (r.lang.text(&inp.query.agent), r.lang.text(url));
    let value = |name: &str| -> Option<String> {
        Some(match name {
            "agent" => agent.clone(),
            "url" => url.clone(),
            _ => return None,
        })
    };
    // CALL_PLACEHOLDERS, checked when the manifest was loaded.
    let call = fill(call, &value).ok()?;
    let value = |name: &str| -> Option<String> {
        Some(match name {
            "body" => r.lang.bytes(inp.body),
            "body_len" => inp.body.len().to_string(),
            "agent" => agent.clone(),
            "url" => url.clone(),
            "call" => call.clone(),
            "python_server" => python_server(inp.body),
            "trailer" => format!(
                "{} RFC 9309 expects: {}; this library answers: {}",
                r.lang.comment(),
                inp.expected,
                inp.actual
            ),
            _ => return None,
        })
    };
    Some(Program {
        lang: r.lang,
        source: fill(&r.source, &value).ok()?,
    })
}

/// How a language writes what a template is filled in with (the language
/// itself is the manifest's, `oracles::manifest::Lang`).
trait Literals {
    fn comment(self) -> &'static str;
    fn bytes(self, b: &[u8]) -> String;
    fn text(self, s: &str) -> String;
}

impl Literals for Lang {
    /// How a comment starts.
    fn comment(self) -> &'static str {
        match self {
            Lang::Python | Lang::Perl | Lang::Ruby => "#",
            Lang::Js | Lang::Rust | Lang::Cpp | Lang::Java | Lang::Go => "//",
        }
    }

    /// The robots.txt's exact bytes as an expression of this language.
    fn bytes(self, b: &[u8]) -> String {
        match self {
            Lang::Python | Lang::Rust => format!("b\"{}\"", escape_bytes(b)),
            // A JS string with one char per byte (`\xNN` is a code unit),
            // a Go string (`\xNN` is a byte).
            Lang::Js | Lang::Go => format!("\"{}\"", escape_bytes(b)),
            Lang::Perl | Lang::Ruby => interpolating_lit(b),
            Lang::Cpp => cpp_lit(b),
            Lang::Java => java_bytes(b),
        }
    }

    /// A text (agent or URL) as a string literal of this language.
    fn text(self, s: &str) -> String {
        match self {
            Lang::Python | Lang::Rust | Lang::Js | Lang::Go => text_lit(s),
            Lang::Perl | Lang::Ruby => interpolating_text(s),
            Lang::Cpp => cpp_lit(s.as_bytes()),
            Lang::Java => java_text(s),
        }
    }
}

pub use cause::escape_bytes;

/// A text (agent or URL) as a double-quoted literal in any of the
/// languages: ASCII controls escaped, other characters kept as written
/// (every template's source is UTF-8), since `\xNN` means a byte in some
/// of these languages and a character in others.
fn text_lit(s: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every oracle's template renders a complete program for a plain
    /// question, with the input in it and no placeholder left.
    #[test]
    fn every_template_renders() {
        let reproducers = crate::registry::reproducers().expect("the manifests load");
        assert!(reproducers.len() >= 17, "{}", reproducers.len());
        let query = Query {
            ask: Ask::CanFetch,
            agent: "MyBot".into(),
            url: "http://example.test/private".into(),
        };
        let inp = Input {
            body: b"User-agent: mybot\nDisallow: /private\n",
            query: &query,
            expected: "disallowed",
            actual: "allowed",
        };
        for (name, r) in reproducers {
            let p = render(r, &inp).unwrap_or_else(|| panic!("{name}: no program"));
            assert!(!p.source.contains("{{"), "{name}: {}", p.source);
            assert!(p.source.contains("MyBot"), "{name}: {}", p.source);
            assert!(
                p.source
                    .contains("RFC 9309 expects: disallowed; this library answers: allowed\n"),
                "{name}: {}",
                p.source
            );
        }
    }
}
