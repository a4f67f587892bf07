//! The first command's setup steps: each step's time as a share of the
//! whole, read from the record setup writes after every run
//! (`repdiff::setup::timings`), never measured by the bench: running setup
//! again here would time a cache that is already full.

use repdiff::setup::timings::{self, SetupTimes};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::Path;

pub enum StepsRow {
    Read { source: String, times: SetupTimes },
    Skipped(String),
}

/// The latest record, named relative to the checkout.
pub fn read() -> StepsRow {
    match timings::read_latest() {
        Ok((path, times)) => StepsRow::Read {
            source: relative(&path),
            times,
        },
        Err(why) => StepsRow::Skipped(why),
    }
}

fn relative(path: &Path) -> String {
    let root = repdiff::paths::root();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A step's share of the whole, as the table prints it.
fn share(seconds: f64, total: f64) -> String {
    if total > 0.0 {
        format!("{:.1}%", 100.0 * seconds / total)
    } else {
        "-".into()
    }
}

pub fn to_markdown(row: &StepsRow) -> String {
    let mut md = String::from("\n## First-command steps\n\n");
    let (source, t) = match row {
        StepsRow::Skipped(why) => {
            let _ = writeln!(md, "Not read: {why}.");
            return md;
        }
        StepsRow::Read { source, times } => (source, times),
    };
    let total = t.total_seconds();
    let _ = writeln!(
        md,
        "From the last setup run at {} (`{source}`: {}), not measured by this bench. \
         Each step's time as a share of the whole ({total:.1} s). *work*: the step took \
         {} s or more, so it fetched, built or installed something; *cached*: it found \
         its pieces in the cache.{}\n",
        t.started,
        t.run,
        timings::SLOW_STEP.as_secs(),
        if t.any_work() {
            ""
        } else {
            " Every step found its pieces cached: this is not a first command's setup."
        }
    );
    md.push_str("| step | outcome | seconds | share | work |\n|---|---|---:|---:|---|\n");
    for s in &t.steps {
        let _ = writeln!(
            md,
            "| {} | {} | {:.2} | {} | {} |",
            s.name,
            s.outcome,
            s.seconds,
            share(s.seconds, total),
            if s.did_work { "work" } else { "cached" }
        );
    }
    md
}

pub fn to_json(row: &StepsRow) -> Value {
    match row {
        StepsRow::Skipped(why) => json!({"ran": false, "reason": why}),
        StepsRow::Read { source, times } => {
            let total = times.total_seconds();
            json!({
                "ran": true,
                "source": format!("read from {source}, not measured by the bench"),
                "started": times.started,
                "run": times.run,
                "total_seconds": total,
                "steps": times.steps.iter().map(|s| json!({
                    "name": s.name,
                    "outcome": s.outcome,
                    "seconds": s.seconds,
                    "share": (total > 0.0).then(|| s.seconds / total),
                    "did_work": s.did_work,
                })).collect::<Vec<_>>(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> StepsRow {
        let text = r#"{"started":"2026-12-07T23:00:00Z","run":"setup (every step)","steps":[
            {"name":"runtimes","seconds":1.0,"outcome":"ok","did_work":false},
            {"name":"python","seconds":3.0,"outcome":"ok","did_work":true},
            {"name":"suites","seconds":0.0,"outcome":"skipped","did_work":false}]}"#;
        StepsRow::Read {
            source: "reports/run/setup/last-with-work.json".into(),
            times: timings::parse(text).unwrap(),
        }
    }

    #[test]
    fn each_step_is_a_share_of_the_whole_and_names_its_run() {
        let md = to_markdown(&row());
        assert!(
            md.contains("From the last setup run at 2026-12-07T23:00:00Z"),
            "{md}"
        );
        assert!(
            md.contains("`reports/run/setup/last-with-work.json`"),
            "{md}"
        );
        assert!(md.contains("| python | ok | 3.00 | 75.0% | work |"), "{md}");
        assert!(
            md.contains("| runtimes | ok | 1.00 | 25.0% | cached |"),
            "{md}"
        );
        assert!(!md.contains("not a first command"), "{md}");
        let j = to_json(&row());
        assert_eq!(j["total_seconds"], 4.0);
        assert_eq!(j["steps"][1]["share"], 0.75);
    }

    #[test]
    fn skipped_says_why() {
        let row = StepsRow::Skipped("no setup step record in reports/run/setup".into());
        assert!(to_markdown(&row).contains("Not read: no setup step record"));
        assert_eq!(to_json(&row)["ran"], false);
    }
}
