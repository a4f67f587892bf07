//! The fuzz nightly's whole run against its speed mode, read from the
//! newest nightly report (`cargo xtask fuzz` measures both stretches in one
//! run and writes the ratio as `whole_run.of_speed_mode`, computed by
//! `fuzz::throughput`). The bench never runs the fuzzer: a fuzz build
//! alone takes minutes, and its figures would not be the nightly's.

use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What the newest nightly said of its whole run and its speed mode.
#[derive(Debug, Clone, PartialEq)]
pub struct Nightly {
    /// The report, relative to the checkout.
    pub source: String,
    /// When the nightly started (`YYYY-MM-DDTHH:MM:SSZ`).
    pub started: String,
    pub whole_seconds: Option<f64>,
    pub whole_rate: Option<f64>,
    pub whole_of_ceiling: Option<f64>,
    pub speed_mode: String,
    pub speed_mode_rate: Option<f64>,
    pub speed_mode_of_ceiling: Option<f64>,
    /// Whole run / speed mode: the ratio the row is for.
    pub of_speed_mode: f64,
}

pub enum NightlyRow {
    Read(Nightly),
    Skipped(String),
}

/// Where nightly reports are: the run folder's (a local nightly) and the
/// committed ones (a published nightly).
const DIRS: &[&str] = &["reports/run/fuzz", "reports/fuzz"];

/// The newest nightly report with a whole-run figure.
pub fn read() -> NightlyRow {
    let root = repdiff::paths::root();
    let mut reports = Vec::new();
    for dir in DIRS {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for path in entries.flatten().map(|e| e.path()) {
            if !is_nightly(&path) {
                continue;
            }
            let Some(doc) = std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            else {
                continue;
            };
            let name = path.strip_prefix(&root).unwrap_or(&path).to_path_buf();
            reports.push((name, doc));
        }
    }
    pick(&reports)
}

/// A nightly's JSON report (a sweep's report has no speed figures).
fn is_nightly(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
        && !path
            .file_stem()
            .is_some_and(|s| s.to_string_lossy().ends_with("-sweep"))
}

/// The newest (by start) of `reports` that has the whole-run ratio, or why
/// there is none.
pub fn pick(reports: &[(PathBuf, Value)]) -> NightlyRow {
    let started = |d: &Value| d["started"].as_str().unwrap_or_default().to_string();
    let newest = reports
        .iter()
        .filter_map(|(p, d)| parse(p, d))
        .max_by(|a, b| a.started.cmp(&b.started));
    if let Some(n) = newest {
        return NightlyRow::Read(n);
    }
    let why = match reports.iter().max_by_key(|(_, d)| started(d)) {
        Some((p, d)) => format!(
            "no nightly JSON report has a whole-run figure; the newest, {} (started {}), \
             predates it (a `cargo xtask fuzz` run writes one in reports/run/fuzz/)",
            p.display(),
            started(d)
        ),
        None => format!(
            "no nightly JSON report in {} (a `cargo xtask fuzz` run writes one)",
            DIRS.join(" or ")
        ),
    };
    NightlyRow::Skipped(why)
}

fn parse(path: &Path, d: &Value) -> Option<Nightly> {
    let w = &d["whole_run"];
    let speed_mode = w["speed_mode"].as_str()?.to_string();
    let mode_rate = d["speed"]["modes"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["mode"] == speed_mode.as_str()))
        .and_then(|m| m["distinct_per_sec"].as_f64());
    Some(Nightly {
        source: path.display().to_string(),
        started: d["started"].as_str()?.to_string(),
        whole_seconds: w["seconds"].as_f64(),
        whole_rate: w["distinct_per_sec"].as_f64(),
        whole_of_ceiling: w["of_ceiling"].as_f64(),
        speed_mode,
        speed_mode_rate: mode_rate,
        speed_mode_of_ceiling: w["speed_mode_of_ceiling"].as_f64(),
        of_speed_mode: w["of_speed_mode"].as_f64()?,
    })
}

fn num(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.0}"))
}

fn percent(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.0}%", v * 100.0))
}

pub fn to_markdown(row: &NightlyRow) -> String {
    let mut md = String::from("\n## Nightly vs speed mode\n\n");
    let n = match row {
        NightlyRow::Skipped(why) => {
            let _ = writeln!(md, "Not read: {why}.");
            return md;
        }
        NightlyRow::Read(n) => n,
    };
    // The targets are the fuzz report's (xtask/src/fuzz/report.rs, md_rates).
    let _ = writeln!(
        md,
        "From the fuzz nightly started {} (`{}`), not measured by this bench: `cargo xtask fuzz` \
         times its whole run and its speed mode in that one run. `differential`'s distinct \
         inputs/s reaching every oracle, and each stretch's share of its ceiling (cores / CPU \
         per distinct input). **Whole run / speed mode: {:.2}x** (target: at least 0.90x).\n",
        n.started, n.source, n.of_speed_mode
    );
    md.push_str("| stretch | distinct inputs/s | share of ceiling |\n|---|---:|---:|\n");
    let _ = writeln!(
        md,
        "| whole run ({} s) | {} | {} |",
        num(n.whole_seconds),
        num(n.whole_rate),
        percent(n.whole_of_ceiling)
    );
    let _ = writeln!(
        md,
        "| speed mode: {} | {} | {} (target: at least 85%) |",
        n.speed_mode,
        num(n.speed_mode_rate),
        percent(n.speed_mode_of_ceiling)
    );
    md
}

pub fn to_json(row: &NightlyRow) -> Value {
    match row {
        NightlyRow::Skipped(why) => json!({"ran": false, "reason": why}),
        NightlyRow::Read(n) => json!({
            "ran": true,
            "source": format!("read from {}, not measured by the bench", n.source),
            "started": n.started,
            "whole_run_seconds": n.whole_seconds,
            "whole_run_distinct_per_sec": n.whole_rate,
            "whole_run_of_ceiling": n.whole_of_ceiling,
            "speed_mode": n.speed_mode,
            "speed_mode_distinct_per_sec": n.speed_mode_rate,
            "speed_mode_of_ceiling": n.speed_mode_of_ceiling,
            "whole_run_over_speed_mode": n.of_speed_mode,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(started: &str, whole: Value) -> Value {
        json!({
            "started": started,
            "speed": {"modes": [{"mode": "1 process", "distinct_per_sec": 1206.0}]},
            "whole_run": whole,
        })
    }

    fn whole() -> Value {
        json!({"speed_mode": "1 process", "of_speed_mode": 0.507, "seconds": 421.0,
               "distinct_per_sec": 612.0, "of_ceiling": 0.83, "speed_mode_of_ceiling": 0.94})
    }

    #[test]
    fn the_newest_report_with_the_ratio_is_read() {
        let reports = vec![
            (
                PathBuf::from("reports/fuzz/a.json"),
                report("2026-12-01T00:00:00Z", whole()),
            ),
            (
                PathBuf::from("reports/run/fuzz/b.json"),
                report("2026-12-07T22:16:34Z", whole()),
            ),
            // Newer, but from before the whole-run figure.
            (
                PathBuf::from("reports/fuzz/c.json"),
                report("2026-12-08T00:00:00Z", Value::Null),
            ),
        ];
        let NightlyRow::Read(n) = pick(&reports) else {
            panic!("skipped");
        };
        assert_eq!(n.source, "reports/run/fuzz/b.json");
        assert_eq!(n.speed_mode_rate, Some(1206.0));
        let md = to_markdown(&NightlyRow::Read(n));
        assert!(
            md.contains("From the fuzz nightly started 2026-12-07T22:16:34Z"),
            "{md}"
        );
        assert!(md.contains("**Whole run / speed mode: 0.51x**"), "{md}");
        assert!(md.contains("| whole run (421 s) | 612 | 83% |"), "{md}");
        assert!(
            md.contains("| speed mode: 1 process | 1206 | 94% (target"),
            "{md}"
        );
    }

    #[test]
    fn skipped_names_the_newest_report_or_none() {
        let old = vec![(
            PathBuf::from("reports/fuzz/c.json"),
            report("2026-12-01T00:00:00Z", Value::Null),
        )];
        let NightlyRow::Skipped(why) = pick(&old) else {
            panic!("read");
        };
        assert!(
            why.contains("reports/fuzz/c.json (started 2026-12-01T00:00:00Z), predates it"),
            "{why}"
        );
        let row = pick(&[]);
        let md = to_markdown(&row);
        assert!(
            md.contains("Not read: no nightly JSON report in reports/run/fuzz or reports/fuzz"),
            "{md}"
        );
        assert_eq!(to_json(&row)["ran"], false);
        assert!(!is_nightly(Path::new(
            "reports/fuzz/2026-12-05T023753Z-sweep.json"
        )));
        assert!(is_nightly(Path::new("reports/fuzz/2026-12-01.json")));
    }
}
