//! `spider-oracle --direct`: the library called the plainest way, for the
//! fidelity test that compares it with the protocol path.
//!
//! Kept apart from `main.rs` on purpose (own request type, own parser set-up,
//! own answer code, no panic catching), so a framing or feeding mistake in the
//! protocol path shows up as a difference instead of being shared by both.
//!
//! Input: one JSON object a line, `{"body_b64": "...", "queries": [...]}`.
//! Output: `{"answers": [...]}` a line. The body becomes text as an HTTP
//! client's text decoding gives it (a leading UTF-8 BOM dropped, invalid
//! bytes as U+FFFD; the protocol path gets the same from reqwest's
//! `text()`), then `RobotFileParser::new(); parse_str(text); modified();
//! can_fetch(agent, url)`.

use base64::Engine as _;
use serde::Deserialize;
use serde_json::{json, Value};
use spider::compact_str::CompactString;
use spider::packages::robotparser::parser::RobotFileParser;
use std::io::{self, BufRead, Write};

#[derive(Deserialize)]
struct Case {
    body_b64: String,
    queries: Vec<DirectQuery>,
}

#[derive(Deserialize)]
struct DirectQuery {
    ask: String,
    #[serde(default)]
    agent: String,
    #[serde(default)]
    url: String,
}

pub fn serve() -> io::Result<()> {
    let mut out = io::stdout().lock();
    for line in io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let case: Case = serde_json::from_str(&line).map_err(io::Error::other)?;
        let body = base64::engine::general_purpose::STANDARD
            .decode(case.body_b64.trim())
            .map_err(io::Error::other)?;

        let mut parser = RobotFileParser::new();
        let body = body.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&body);
        parser.parse_str(&String::from_utf8_lossy(body));
        parser.modified(); // without it every can_fetch is false

        let answers: Vec<Value> = case.queries.iter().map(|q| ask(&parser, q)).collect();
        serde_json::to_writer(&mut out, &json!({ "answers": answers }))?;
        out.write_all(b"\n")?;
        out.flush()?;
    }
    Ok(())
}

fn ask(parser: &RobotFileParser, q: &DirectQuery) -> Value {
    match q.ask.as_str() {
        "can_fetch" if parser.can_fetch(&q.agent, &q.url) => json!({"outcome": "allowed"}),
        "can_fetch" => json!({"outcome": "disallowed"}),
        "crawl_delay" => {
            let delay = parser.get_crawl_delay(&Some(Box::new(CompactString::new(&q.agent))));
            let v = delay.map_or(
                json!({"type": "none"}),
                |d| json!({"type": "float", "value": d.as_secs_f64()}),
            );
            json!({"outcome": "value", "value": v})
        }
        "request_rate" => {
            let v = parser.get_req_rate(&q.agent).map_or(json!({"type": "none"}), |r| {
                json!({"type": "rate", "value": {"requests": r.requests, "seconds": r.seconds}})
            });
            json!({"outcome": "value", "value": v})
        }
        "sitemaps" => json!({"outcome": "unsupported",
                             "reason": "spider's RobotFileParser reads Sitemap: lines and drops them"}),
        other => json!({"outcome": "unsupported", "reason": format!("unknown ask {other:?}")}),
    }
}
