//! The parsers' own speed in `cargo xtask bench` (repdiff's `speed`
//! module measures): every oracle over the census row's files, its direct
//! CPU beside its CPU through repdiff. The census row's floor from these
//! loops is bench/floor.rs's section.

use repdiff::speed::{measure_one, sample, DirectRow};
use serde_json::{json, Value};
use std::fmt::Write as _;

const NO_LOOP: &str = "no speed loop yet";

pub enum DirectTable {
    Ran {
        files: usize,
        questions: usize,
        rows: Vec<DirectRow>,
    },
    Skipped(String),
}

pub fn measure(names: &[String], limit: u64) -> DirectTable {
    let sample = match sample(limit) {
        Ok(s) => s,
        Err(why) => return DirectTable::Skipped(why),
    };
    let questions = sample.files.iter().map(|(_, q)| q.len()).sum();
    log::info!(
        "bench: the parsers' own speed, {} files, {questions} questions",
        sample.files.len()
    );
    let rows = names
        .iter()
        .map(|n| {
            let row = measure_one(n, &sample);
            log::info!(
                "bench:   {n:<26} direct {:>8}  through repdiff {:>8}  {}",
                secs(row.direct_cpu),
                secs(row.worker_cpu.zip(row.driver_cpu).map(|(w, d)| w + d)),
                row.error
                    .as_deref()
                    .or(row.direct_how.as_deref())
                    .unwrap_or(NO_LOOP)
            );
            row
        })
        .collect();
    DirectTable::Ran {
        files: sample.files.len(),
        questions,
        rows,
    }
}

fn secs(s: Option<f64>) -> String {
    s.map_or("-".into(), |s| format!("{s:.3} s"))
}

/// The table; the census row's floor from these loops is the next section
/// (bench/floor.rs, by `census --floor`'s rule), not worked out here again.
pub fn to_markdown(t: &DirectTable) -> String {
    let mut md = String::from("\n## The parsers' own speed\n\n");
    let (files, questions, rows) = match t {
        DirectTable::Skipped(why) => {
            let _ = writeln!(md, "Not run: {why}.");
            return md;
        }
        DirectTable::Ran {
            files,
            questions,
            rows,
        } => (files, questions, rows),
    };
    let _ = writeln!(
        md,
        "The census row's {files} files and all {questions} of their questions, one oracle at a time. \
         direct: CPU of the library's calls in a loop of its own (its manifest's `loop:`, or for a \
         built-in Rust oracle its adapter in this process); through repdiff: the worker's CPU \
         (parser, harness, JSON) and the driving thread's. overhead = through repdiff / direct \
         (target: at most 1.5x). differ: questions the two sides answered differently.\n"
    );
    md.push_str(
        "| oracle | direct | direct CPU | worker CPU | driver CPU | overhead | < 1.5x | differ |\n\
         |---|---|---:|---:|---:|---:|---|---:|\n",
    );
    for r in rows {
        let through = r.worker_cpu.unwrap_or(0.0) + r.driver_cpu.unwrap_or(0.0);
        let overhead = r.direct_cpu.filter(|d| *d > 0.0).map(|d| through / d);
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |",
            r.oracle,
            r.error
                .as_deref()
                .or(r.direct_how.as_deref())
                .unwrap_or(NO_LOOP),
            secs(r.direct_cpu),
            secs(r.worker_cpu),
            secs(r.driver_cpu),
            overhead.map_or("-".into(), |o| format!("{o:.2}x")),
            overhead.map_or("-", |o| if o <= 1.5 { "yes" } else { "NO" }),
            r.differ.map_or("-".into(), |d| d.to_string()),
        );
    }
    md.push_str(
        "\nThe census sample against these loops, its wall time over their floor: *Census vs floor* below.\n",
    );
    md
}

pub fn to_json(t: &DirectTable) -> Value {
    match t {
        DirectTable::Skipped(why) => json!({"ran": false, "reason": why}),
        DirectTable::Ran {
            files,
            questions,
            rows,
        } => json!({"ran": true, "files": files, "questions": questions, "rows": rows}),
    }
}
