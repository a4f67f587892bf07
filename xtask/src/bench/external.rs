//! `cargo xtask bench`, external oracles: what the protocol costs a parser
//! that runs as its own program (node, perl, ruby, python, a Rust binary).
//!
//! There is no in-process call to compare with, and a direct script is no
//! fair stand-in (some call the library once per query where the harness
//! parses once per body). So the cost is measured inside the protocol:
//! "floor" is a request with an empty body and no query (read a line, parse
//! it, write `{"answers":[]}`: the round trip and framing alone, in that
//! runtime); "call" is a 100-query batch on the body. added per call ≈ the
//! floor; floor / call is the protocol's share. Medians of samples taken in
//! this one run, the two alternating.
//!
//! "direct" is the oracle's direct-call program (the fidelity test's, in the
//! library's own runtime, no protocol in between) in a loop over one call
//! with ONE query: most direct programs parse the body again for each query
//! (the harness parses once per batch), so one query per call is the only
//! shape in which both do the same work. Fed `DIRECT_SHORT` and then
//! `DIRECT_LONG` copies of that call in one process each, its cost is the
//! slope between the two, so start-up and warm-up (JIT, class loading)
//! cancel out; it still includes the program's own JSON and base64
//! handling, as the harness's side does. Beside it, "call1": the same
//! one-query call through the protocol. Only oracles whose manifest names a
//! `direct:` program have the pair (the JVM, Go and
//! robotexclusionrulesparser ones).

use super::{fmt_ns, quantile, Body};
use base64::Engine as _;
use engine::oracle::Oracle;
use engine::worker::Limits;
use repdiff::registry::{self, External};
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Calls per sample and samples per contender.
const CALLS: usize = 20;
const SAMPLES: usize = 7;
/// Copies of the call fed to the direct program: the slope between the two
/// runs is one warm call.
const DIRECT_SHORT: usize = 50;
const DIRECT_LONG: usize = 550;

pub struct ExtRow {
    pub oracle: String,
    pub runtime: String,
    pub body: &'static str,
    pub floor_ns: f64,
    pub protocol_ns: f64,
    /// A one-query call through the protocol, and the same call in the
    /// direct program's own loop; NaN when the oracle has no direct program.
    pub call1_ns: f64,
    pub direct_ns: f64,
    pub error: Option<String>,
}

/// The bodies measured: the large one would take minutes in the slow
/// interpreters without saying more about the protocol.
fn wanted(b: &Body) -> bool {
    b.name != "large"
}

pub fn measure(bodies: &[Body], names: &[String]) -> Vec<ExtRow> {
    let Ok(externals) = registry::externals() else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for e in externals.iter().filter(|e| names.contains(&e.name)) {
        for body in bodies.iter().filter(|b| wanted(b)) {
            let row = measure_one(e, body);
            log::info!(
                "bench:   {} x {:<9} floor {:>9}  call {:>9}  1-query call {:>9}  direct {:>9}{}",
                e.name,
                body.name,
                fmt_ns(row.floor_ns),
                fmt_ns(row.protocol_ns),
                fmt_ns(row.call1_ns),
                fmt_ns(row.direct_ns),
                row.error
                    .as_deref()
                    .map(|m| format!("  ERROR {m}"))
                    .unwrap_or_default()
            );
            rows.push(row);
        }
    }
    rows
}

fn measure_one(e: &External, body: &Body) -> ExtRow {
    let mut row = ExtRow {
        oracle: e.name.clone(),
        runtime: String::new(),
        body: body.name,
        floor_ns: f64::NAN,
        protocol_ns: f64::NAN,
        call1_ns: f64::NAN,
        direct_ns: f64::NAN,
        error: None,
    };
    let limits = Limits {
        timeout: Duration::from_secs(60),
        ..Limits::default()
    };
    let exe = repdiff::select::self_exe();
    let roster = registry::roster_or_builtins();
    let mut sup = match roster.supervise(&e.name, &exe, limits, None) {
        Ok(s) => s,
        Err(u) => {
            row.error = Some(u.to_string());
            return row;
        }
    };
    let about = sup.about();
    row.runtime = format!("{} {}", about.runtime.name, about.runtime.version);
    let bytes = body.text.as_bytes();
    // Warm up both sides (interpreter caches, JIT), then alternate samples.
    for _ in 0..3 {
        sup.run(bytes, &body.queries);
    }
    let (mut floor, mut protocol) = (Vec::new(), Vec::new());
    for _ in 0..SAMPLES {
        let t = Instant::now();
        for _ in 0..CALLS {
            sup.run(bytes, &body.queries);
        }
        protocol.push(t.elapsed().as_nanos() as f64 / CALLS as f64);
        let t = Instant::now();
        for _ in 0..CALLS {
            sup.run(b"", &[]);
        }
        floor.push(t.elapsed().as_nanos() as f64 / CALLS as f64);
    }
    row.floor_ns = quantile(&floor, 0.5);
    row.protocol_ns = quantile(&protocol, 0.5);
    let direct = e.direct_argv();
    if direct.is_empty() {
        return row;
    }
    let one = &body.queries[..1.min(body.queries.len())];
    let mut call1 = Vec::new();
    for _ in 0..SAMPLES {
        let t = Instant::now();
        for _ in 0..CALLS {
            sup.run(bytes, one);
        }
        call1.push(t.elapsed().as_nanos() as f64 / CALLS as f64);
    }
    row.call1_ns = quantile(&call1, 0.5);
    drop(sup);
    match direct_loop(&direct, &e.envs(), bytes, one) {
        Ok(ns) => row.direct_ns = ns,
        Err(m) => row.error = Some(format!("direct program: {m}")),
    }
    row
}

/// One warm call of the direct program: the median, over samples, of the
/// slope between a short and a long run of the same call.
fn direct_loop(
    argv: &[String],
    envs: &[(String, String)],
    body: &[u8],
    queries: &[engine::oracle::Query],
) -> Result<f64, String> {
    let line = json!({
        "body_b64": base64::engine::general_purpose::STANDARD.encode(body),
        "queries": queries,
    })
    .to_string()
        + "\n";
    let mut slopes = Vec::new();
    for _ in 0..3 {
        let short = direct_run(argv, envs, &line, DIRECT_SHORT)?;
        let long = direct_run(argv, envs, &line, DIRECT_LONG)?;
        slopes.push((long - short) / (DIRECT_LONG - DIRECT_SHORT) as f64);
    }
    Ok(quantile(&slopes, 0.5))
}

/// Wall time, in ns, of the direct program answering `copies` copies of
/// `line`, start-up included.
fn direct_run(
    argv: &[String],
    envs: &[(String, String)],
    line: &str,
    copies: usize,
) -> Result<f64, String> {
    let input = line.repeat(copies);
    let t = Instant::now();
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .envs(envs.iter().cloned())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", argv[0]))?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let elapsed = t.elapsed().as_nanos() as f64;
    let _ = writer.join();
    let answered = out.stdout.iter().filter(|&&b| b == b'\n').count();
    if !out.status.success() || answered != copies {
        return Err(format!(
            "{} answered {answered} of {copies} lines ({})",
            argv[0], out.status
        ));
    }
    Ok(elapsed)
}

pub fn to_markdown(rows: &[ExtRow]) -> String {
    let mut md = String::from(
        "\n## External oracles: the cost of the protocol\n\n\
         call: one batch of 100 can_fetch queries on the body through the worker protocol, as a \
         run makes it. floor: a request with an empty body and no query, the round trip and \
         framing alone in that runtime, which is what the protocol adds to each call. Medians of \
         samples taken in this run, the two alternating.\n\n\
         1-query call: the body with one query through the protocol; direct: that same call in \
         a loop of the library's own direct-call program (its runtime, no protocol; the slope \
         between 50 and 550 calls in one process, so start-up and warm-up cancel out), where the \
         manifest names one. One query because most direct programs parse the body again per \
         query, where the harness parses once per batch. 1-query / direct is what the protocol \
         and repdiff's side add. The direct programs replay their crawler's whole path (the \
         temoto one a real colly Collector and HTTP round trip per case, the heritrix one a \
         Recorder, a CrawlURI and CrawlServer.updateRobots), so a ratio under 1x says that path \
         costs more than the harness's direct library calls, not that the protocol is free.\n\n\
         | oracle | runtime | body | call | floor (added /call) | added /query | floor / call | 1-query call | direct | 1-query / direct |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        if let Some(e) = &r.error {
            md.push_str(&format!(
                "| `{}` | {} | {} | ERROR: {} | | | | | | |\n",
                r.oracle,
                r.runtime,
                r.body,
                e.replace('|', "\\|")
            ));
            continue;
        }
        let (call1, direct, ratio) = if r.direct_ns.is_nan() {
            ("—".to_string(), "—".to_string(), "—".to_string())
        } else {
            (
                fmt_ns(r.call1_ns),
                fmt_ns(r.direct_ns),
                format!("{:.2}x", r.call1_ns / r.direct_ns),
            )
        };
        md.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {:.1}% | {call1} | {direct} | {ratio} |\n",
            r.oracle,
            r.runtime,
            r.body,
            fmt_ns(r.protocol_ns),
            fmt_ns(r.floor_ns),
            fmt_ns(r.floor_ns / 100.0),
            100.0 * r.floor_ns / r.protocol_ns
        ));
    }
    md
}

pub fn to_json(rows: &[ExtRow]) -> Value {
    Value::Array(
        rows.iter()
            .map(|r| {
                json!({
                    "oracle": r.oracle, "runtime": r.runtime, "body": r.body,
                    "call_ns": r.protocol_ns, "floor_ns": r.floor_ns,
                    "call1_ns": finite(r.call1_ns), "direct_ns": finite(r.direct_ns),
                    "error": r.error,
                })
            })
            .collect(),
    )
}

/// JSON has no NaN: a figure not measured is null.
fn finite(ns: f64) -> Value {
    if ns.is_finite() {
        json!(ns)
    } else {
        Value::Null
    }
}
