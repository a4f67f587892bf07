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

use crate::bench::{fmt_ns, quantile, Body};
use crate::registry::{self, External};
use engine::oracle::Oracle;
use engine::worker::{Limits, Supervised};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Calls per sample and samples per contender.
const CALLS: usize = 20;
const SAMPLES: usize = 7;

pub struct ExtRow {
    pub oracle: String,
    pub runtime: String,
    pub body: &'static str,
    pub floor_ns: f64,
    pub protocol_ns: f64,
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
            eprintln!(
                "bench:   {} x {:<9} floor {:>9}  call {:>9}{}",
                e.name,
                body.name,
                fmt_ns(row.floor_ns),
                fmt_ns(row.protocol_ns),
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
        error: None,
    };
    let limits = Limits {
        timeout: Duration::from_secs(60),
        ..Limits::default()
    };
    let mut sup = match Supervised::start_with_env(&e.name, e.argv(), e.envs(), limits) {
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
    row
}

pub fn to_markdown(rows: &[ExtRow]) -> String {
    let mut md = String::from(
        "\n## External oracles: the cost of the protocol\n\n\
         call: one batch of 100 can_fetch queries on the body through the worker protocol, as a \
         run makes it. floor: a request with an empty body and no query, the round trip and \
         framing alone in that runtime, which is what the protocol adds to each call. Medians of \
         samples taken in this run, the two alternating.\n\n\
         | oracle | runtime | body | call | floor (added /call) | added /query | floor / call |\n\
         |---|---|---|---:|---:|---:|---:|\n",
    );
    for r in rows {
        if let Some(e) = &r.error {
            md.push_str(&format!(
                "| `{}` | {} | {} | ERROR: {} | | | |\n",
                r.oracle,
                r.runtime,
                r.body,
                e.replace('|', "\\|")
            ));
            continue;
        }
        md.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {:.1}% |\n",
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
                    "call_ns": r.protocol_ns, "floor_ns": r.floor_ns, "error": r.error,
                })
            })
            .collect(),
    )
}
