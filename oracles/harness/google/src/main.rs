//! The `google` oracle's worker: Google's C++ robotstxt, linked in through
//! repdiff-oracles' `google` feature (`oracles/src/google.rs` holds the
//! adapter and its FFI), served over repdiff's worker protocol
//! (docs/protocol.md) on stdin and stdout.
//!
//! Setup builds it (step `google`) once it has fetched the pinned sources;
//! the product starts it as it starts every worker (`oracles::Entry`'s
//! `harness`). It is its own crate, outside the workspace, so that linking
//! C++ that exists only after setup never makes the product rebuild itself.
//!
//! `google-oracle --loop QUERIES.jsonl` is the library's own speed for
//! `repdiff census speed`: the same adapter called in a plain loop over a
//! census's files and questions, no protocol between.

use engine::oracle::{Ask, Outcome, Query};
use serde::Deserialize;
use std::io::BufRead;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [] => engine::worker::serve(oracles::google::make).map_err(|e| e.to_string()),
        [flag, queries] if flag == "--loop" => speed_loop(queries),
        _ => Err("usage: google-oracle [--loop QUERIES.jsonl]".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("google-oracle: {e}");
            ExitCode::FAILURE
        }
    }
}

/// One line of `repdiff census queries`.
#[derive(Deserialize)]
struct File {
    body_hex: String,
    queries: Vec<Question>,
}

#[derive(Deserialize)]
struct Question {
    agent: String,
    url: String,
}

/// Every file read and decoded first; then only the library's calls are
/// timed, on this (only) thread's CPU clock, one `run` per file as the
/// harness answers a batch. Prints `{"cpu_seconds": S, "verdicts": "ad.."}`,
/// one letter per question in file order (a allowed, d disallowed, e else).
fn speed_loop(path: &str) -> Result<(), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let mut files = Vec::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{path}: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let f: File = serde_json::from_str(&line).map_err(|e| format!("{path}:{}: {e}", n + 1))?;
        let body = engine::case::decode_hex(&f.body_hex)
            .map_err(|e| format!("{path}:{}: body_hex: {e}", n + 1))?;
        let queries: Vec<Query> = f
            .queries
            .into_iter()
            .map(|q| Query {
                ask: Ask::CanFetch,
                agent: q.agent,
                url: q.url,
            })
            .collect();
        files.push((body, queries));
    }
    let mut google = oracles::google::make().map_err(|u| u.to_string())?;
    let start = engine::worker::cpu::of_this_thread();
    let mut verdicts = String::new();
    for (body, queries) in &files {
        for answer in google.run(body, queries) {
            verdicts.push(match answer.outcome {
                Outcome::Allowed => 'a',
                Outcome::Disallowed => 'd',
                _ => 'e',
            });
        }
    }
    let spent = engine::worker::cpu::of_this_thread().saturating_sub(start);
    println!(
        "{}",
        serde_json::json!({"cpu_seconds": spent.as_secs_f64(), "verdicts": verdicts})
    );
    Ok(())
}
