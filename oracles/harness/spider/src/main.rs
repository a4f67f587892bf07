//! repdiff oracle harness (protocol v2, `docs/protocol.md`) for the robots.txt
//! parser inside the crates.io crate `spider` 2.53.9,
//! `spider::packages::robotparser::parser::RobotFileParser`.
//!
//! # Feeding: as spider's own crawler does
//!
//! Each `run` body is handed to a fresh parser exactly the way `Website`
//! does it when it respects robots.txt (paths are in spider-2.53.9 and
//! reqwest-0.13.5 as unpacked under `~/.cargo/registry/src`):
//!
//! - `src/website.rs:2793-2822` `configure_robots_parser` creates
//!   `RobotFileParser::new()` and calls `read(client, "<origin>/")`.
//! - `src/packages/robotparser/parser.rs:353-380` `read` calls `modified()`
//!   first (without it `can_fetch` is false for every URL: parser.rs:583-591),
//!   fetches `robots.txt`, and on `200 OK` calls `from_response(res)`.
//! - parser.rs:383-392 `from_response` takes `response.text()` and hands it to
//!   `parse_str` (parser.rs:409-424: split on `\n`, then `parse`).
//! - `response.text()` is reqwest's, built with its `charset` feature (on in
//!   spider's tree): reqwest `src/async_impl/response.rs:163-223`
//!   `text_with_charset("utf-8")` decodes with `encoding_rs`, so a UTF-8 BOM is
//!   stripped, a UTF-16 BOM switches the decoding to UTF-16, and malformed
//!   bytes become U+FFFD. A `charset=` in Content-Type would override UTF-8;
//!   the protocol gives no headers, so the response has none.
//! - `src/website.rs:2231-2245` `is_allowed_robots` asks
//!   `can_fetch(user_agent, link)` with the configured user agent verbatim
//!   (`"*"` only when none is configured) and the absolute link; the query's
//!   agent and URL play those parts, unchanged.
//!
//! So this harness does not imitate the decoding: it builds the `200 OK`
//! response from the raw body and calls spider's own `from_response`.
//!
//! # Asks
//!
//! `can_fetch`, `crawl_delay` (`get_crawl_delay`, which the crawler also calls
//! with its user agent, website.rs:2814-2818) and `request_rate`
//! (`get_req_rate`, public but unused by the crawler). `Sitemap:` lines are
//! parsed and dropped (parser.rs:510-513), so `sitemaps` is unsupported.
//!
//! A panic inside spider is caught and answered as `error` of kind `panic`
//! (the protocol's `crash` is the parent's word for a dead process).
//!
//! `spider-oracle --direct` is a second, deliberately separate path used by
//! the fidelity test; see `direct.rs`. `--loop QUERIES.jsonl` is the
//! parser's own speed for the bench; see `speed_loop.rs`.

mod direct;
mod speed_loop;

use serde::Deserialize;
use serde_json::{json, Value};
use spider::compact_str::CompactString;
use spider::packages::robotparser::parser::RobotFileParser;
use std::any::Any;
use std::io::{self, BufRead, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The pinned version (Cargo.toml says `=2.53.9`). The greeting announces the
/// version spider reports itself, and only if it is this one and the lock's.
const SPIDER_VERSION: &str = "2.53.9";

/// The lock cargo generated; spider's entry pins the crate by its checksum.
const CARGO_LOCK: &str = include_str!("../Cargo.lock");

const FEEDING: &str = "fresh RobotFileParser::new(); modified(); from_response(200 OK, body, no \
    Content-Type) as Website::configure_robots_parser -> read() does: reqwest text() = encoding_rs \
    UTF-8 decode with BOM sniffing (BOM dropped, UTF-16 BOM decodes UTF-16, bad bytes U+FFFD), \
    then parse_str; can_fetch(agent, url) verbatim as is_allowed_robots";

const NO_SITEMAPS: &str = "spider's RobotFileParser reads Sitemap: lines and drops them";

#[derive(Deserialize)]
struct Query {
    ask: String,
    #[serde(default)]
    agent: String,
    #[serde(default)]
    url: String,
}

#[derive(Deserialize)]
struct Request {
    op: String,
    #[serde(default)]
    body_len: usize,
    #[serde(default)]
    queries: Vec<Query>,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let result = if args.get(1).map(String::as_str) == Some("--direct") {
        direct::serve()
    } else if let (Some("--loop"), Some(path)) = (args.get(1).map(String::as_str), args.get(2)) {
        speed_loop::run(path)
    } else {
        serve()
    };
    if let Err(e) = result {
        eprintln!("spider-oracle: {e}");
        std::process::exit(1);
    }
}

/// The protocol loop: greet, then one response per request until stdin ends.
fn serve() -> io::Result<()> {
    let mut input = io::stdin().lock();
    let mut out = io::stdout().lock();
    match hello() {
        Ok(greeting) => send(&mut out, &greeting)?,
        Err(reason) => {
            let fix = "rebuild oracles/harness/spider (its Cargo.lock pins spider";
            let unavailable = json!({"v": 2, "unavailable": {
                "oracle": "spider", "reason": reason, "fix": format!("{fix} {SPIDER_VERSION})")}});
            return send(&mut out, &unavailable);
        }
    }
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(()); // the parent closed stdin
        }
        let request: Request = serde_json::from_slice(&line).map_err(io::Error::other)?;
        let answers = match request.op.as_str() {
            "run" => {
                // Exactly body_len raw bytes follow the header line.
                let mut body = vec![0; request.body_len];
                input.read_exact(&mut body)?;
                run(&body, &request.queries)
            }
            // Not announced (no http_fetch): spider's fetcher is not run here.
            "fetch" => request
                .queries
                .iter()
                .map(|_| unsupported("this harness does not run spider's fetcher"))
                .collect(),
            op => return Err(io::Error::other(format!("unknown op {op:?}"))),
        };
        send(&mut out, &json!({ "answers": answers }))?;
    }
}

fn send(out: &mut impl Write, message: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, message)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// The greeting, or why the build is not the pinned spider.
fn hello() -> Result<Value, String> {
    // spider's own name for itself (its default crawler UA without the
    // `ua_generator` feature is concat!(CARGO_PKG_NAME, '/', CARGO_PKG_VERSION)).
    let own = spider::configuration::get_ua(false);
    let version = own.strip_prefix("spider/").unwrap_or(own);
    let (locked, sha256) = locked("spider").ok_or("no spider package in Cargo.lock")?;
    if version != SPIDER_VERSION || locked != SPIDER_VERSION {
        return Err(format!(
            "spider reports {own:?}, Cargo.lock has {locked}, harness pins {SPIDER_VERSION}"
        ));
    }
    Ok(json!({"v": 2, "hello": {
        "name": "spider",
        "library": "spider",
        "version": version,
        "language": "rust",
        "runtime": {"name": "rustc", "version": env!("SPIDER_ORACLE_RUSTC_VERSION")},
        "provenance": {"registry": "crates.io", "package": "spider", "version": version,
                       "sha256": sha256},
        "capabilities": {"can_fetch": true, "crawl_delay": true, "request_rate": true,
                         "sitemaps": false, "http_fetch": false},
        "feeding": FEEDING,
    }}))
}

/// (version, checksum) of `package` in [`CARGO_LOCK`].
fn locked(package: &str) -> Option<(String, String)> {
    let name = format!("name = \"{package}\"");
    let block = CARGO_LOCK
        .split("[[package]]")
        .find(|block| block.lines().any(|l| l.trim() == name))?;
    let field = |key: &str| {
        block.lines().find_map(|l| {
            let value = l.trim().strip_prefix(key)?.trim_start().strip_prefix('=')?;
            Some(value.trim().trim_matches('"').to_string())
        })
    };
    Some((field("version")?, field("checksum")?))
}

/// Parse the body as the crawler does (module docs) and answer every query.
/// A panic while parsing is every query's answer; one while asking, that query's.
fn run(body: &[u8], queries: &[Query]) -> Vec<Value> {
    let parser = match catch_unwind(|| parse_as_crawler(body)) {
        Ok(parser) => parser,
        Err(payload) => return queries.iter().map(|_| panicked(&*payload)).collect(),
    };
    queries
        .iter()
        .map(|q| {
            catch_unwind(AssertUnwindSafe(|| answer(&parser, q))).unwrap_or_else(|p| panicked(&*p))
        })
        .collect()
}

/// `read()` after its GET came back `200 OK` with `body`: `modified()`, then
/// spider's `from_response` on a reqwest response holding the raw bytes.
fn parse_as_crawler(body: &[u8]) -> Box<RobotFileParser> {
    let mut parser = RobotFileParser::new();
    parser.modified();
    let response = http::Response::builder()
        .status(200)
        .body(body.to_vec())
        .expect("a status and a body make a valid response");
    // from_response is async only to read the body; an in-memory body needs
    // no I/O, so a bare current-thread runtime drives it.
    spider::tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime without drivers")
        .block_on(parser.from_response(response.into()));
    parser
}

fn answer(parser: &RobotFileParser, q: &Query) -> Value {
    match q.ask.as_str() {
        "can_fetch" => {
            let verdict = parser.can_fetch(q.agent.as_str(), &q.url);
            json!({"outcome": if verdict { "allowed" } else { "disallowed" }})
        }
        "crawl_delay" => {
            // The crawler's own argument type: its configured user agent.
            let agent = Some(Box::new(CompactString::new(&q.agent)));
            match parser.get_crawl_delay(&agent) {
                Some(d) => value(json!({"type": "float", "value": d.as_secs_f64()})),
                None => value(json!({"type": "none"})),
            }
        }
        "request_rate" => match parser.get_req_rate(&q.agent) {
            Some(r) => value(json!({"type": "rate",
                                    "value": {"requests": r.requests, "seconds": r.seconds}})),
            None => value(json!({"type": "none"})),
        },
        "sitemaps" => unsupported(NO_SITEMAPS),
        ask => unsupported(&format!("unknown ask {ask:?}")),
    }
}

fn value(v: Value) -> Value {
    json!({"outcome": "value", "value": v})
}

fn unsupported(reason: &str) -> Value {
    json!({"outcome": "unsupported", "reason": reason})
}

fn panicked(payload: &(dyn Any + Send)) -> Value {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".into());
    json!({"outcome": "error", "kind": "panic", "message": message})
}

#[cfg(test)]
mod tests {
    #[test]
    fn lock_pins_spider() {
        let (version, sha256) = super::locked("spider").unwrap();
        assert_eq!(version, super::SPIDER_VERSION);
        assert_eq!(sha256.len(), 64);
    }
}
