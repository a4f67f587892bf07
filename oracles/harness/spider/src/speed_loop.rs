//! `spider-oracle --loop QUERIES.jsonl`: the parser's own speed, a direct
//! loop of spider's RobotFileParser over a census's exact files and
//! questions (`repdiff census queries`), for the bench's "parsers' own
//! speed" table. Every file is read and decoded first; then only spider's
//! calls are timed with the process's CPU clock, fed as its crawler feeds
//! it (`parse_as_crawler`, once per file, as `read()` does once per site),
//! then `can_fetch(agent, url)` per question.
//!
//! Prints `{"cpu_seconds": S, "verdicts": "ad..."}`, one letter per
//! question in file order: a allowed, d disallowed, e a panic.

use serde::Deserialize;
use std::io::{self, BufRead};
use std::panic::{catch_unwind, AssertUnwindSafe};

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

fn unhex(s: &str) -> io::Result<Vec<u8>> {
    let digit = |c: u8| {
        (c as char)
            .to_digit(16)
            .map(|d| d as u8)
            .ok_or_else(|| io::Error::other("body_hex is not hex"))
    };
    s.as_bytes()
        .chunks(2)
        .map(|p| match p {
            [a, b] => Ok(digit(*a)? << 4 | digit(*b)?),
            _ => Err(io::Error::other("body_hex has an odd length")),
        })
        .collect()
}

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    // The C library's, already linked; declared here so the harness needs
    // no crate beyond the ones its lock pins.
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

/// Linux's CLOCK_PROCESS_CPUTIME_ID.
const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;

/// The process's CPU time in seconds, in nanoseconds' resolution (the
/// /proc clock-tick counters are too coarse for a sample of a few files).
fn cpu_seconds() -> io::Result<f64> {
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration.
    if unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9)
}

pub fn run(path: &str) -> io::Result<()> {
    let mut files = Vec::new();
    for line in io::BufReader::new(std::fs::File::open(path)?).lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let f: File = serde_json::from_str(&line).map_err(io::Error::other)?;
        files.push((unhex(&f.body_hex)?, f.queries));
    }
    let start = cpu_seconds()?;
    let mut verdicts = String::new();
    for (body, queries) in &files {
        let parser = crate::parse_as_crawler(body);
        for q in queries {
            let v = catch_unwind(AssertUnwindSafe(|| {
                parser.can_fetch(q.agent.as_str(), &q.url)
            }));
            verdicts.push(match v {
                Ok(true) => 'a',
                Ok(false) => 'd',
                Err(_) => 'e',
            });
        }
    }
    let spent = cpu_seconds()? - start;
    println!(
        "{}",
        serde_json::json!({"cpu_seconds": spent, "verdicts": verdicts})
    );
    Ok(())
}
