//! What each setup step cost, written after every setup run so that
//! `cargo xtask bench` can set a first command's steps beside each other
//! (issue 51) without running setup itself: the bench reads the file and
//! says which run it came from and when.
//!
//! Two files under `reports/run/setup/` (ignored by git): `last.json`, the
//! last setup run whatever it did, and `last-with-work.json`, the last run
//! in which a step had work to do (the one worth reading for a first
//! command: a run that found everything cached takes milliseconds a step).

use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// A step that takes this long or more had work to do: setup's steps check
/// hashes and return in milliseconds when nothing is missing, so the same
/// threshold decides whether setup prints a step's time.
pub const SLOW_STEP: Duration = Duration::from_secs(2);

/// One step of one setup run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepTime {
    pub name: String,
    pub seconds: f64,
    /// `ok`, `failed`, or `skipped` (named in `REPDIFF_SETUP_SKIP`).
    pub outcome: String,
    /// Whether it had work to do (fetched, built or installed): it took
    /// [`SLOW_STEP`] or more. `false`: it found its pieces in the cache.
    pub did_work: bool,
}

/// One setup run's steps, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetupTimes {
    /// When the run started, `YYYY-MM-DDTHH:MM:SSZ`.
    pub started: String,
    /// `setup` (every step) or the steps a command needs (`ensure`).
    pub run: String,
    pub steps: Vec<StepTime>,
}

impl SetupTimes {
    /// Every step's seconds summed: the whole the bench divides by.
    pub fn total_seconds(&self) -> f64 {
        self.steps.iter().map(|s| s.seconds).sum()
    }

    pub fn any_work(&self) -> bool {
        self.steps.iter().any(|s| s.did_work)
    }
}

/// The folder both files live in.
pub fn dir() -> PathBuf {
    crate::paths::run_dir().join("setup")
}

pub const LAST: &str = "last.json";
pub const LAST_WITH_WORK: &str = "last-with-work.json";

/// Record `t`: always as the last run, and as the last run with work when
/// a step had some. A failure to write is logged, never fatal: the figures
/// are a report, and setup itself succeeded or failed on its own.
pub fn record(t: &SetupTimes) {
    let dir = dir();
    let Ok(text) = serde_json::to_string_pretty(t) else {
        return;
    };
    let mut names = vec![LAST];
    if t.any_work() {
        names.push(LAST_WITH_WORK);
    }
    for name in names {
        let path = dir.join(name);
        let written = std::fs::create_dir_all(&dir)
            .and_then(|()| engine::write_atomic(&path, format!("{text}\n").as_bytes()));
        if let Err(e) = written {
            log::debug!("setup: cannot record step times in {}: {e}", path.display());
        }
    }
}

/// Parse a file [`record`] wrote; the message names what is wrong.
// String error: the bench prints it as the row's reason for being skipped.
pub fn parse(text: &str) -> Result<SetupTimes, String> {
    serde_json::from_str(text).map_err(|e| format!("not a setup step record: {e}"))
}

/// The record the bench reads: the last run with work, else the last run;
/// with the file it came from.
// String error: the bench prints it as the row's reason for being skipped.
pub fn read_latest() -> Result<(PathBuf, SetupTimes), String> {
    let dir = dir();
    let path = [LAST_WITH_WORK, LAST]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.exists())
        .ok_or_else(|| {
            format!(
                "no setup step record in {} (a setup run writes one)",
                dir.display()
            )
        })?;
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&text)
        .map(|t| (path.clone(), t))
        .map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_and_sums() {
        let text = r#"{"started":"2026-12-07T23:00:00Z","run":"setup","steps":[
            {"name":"runtimes","seconds":0.25,"outcome":"ok","did_work":false},
            {"name":"python","seconds":42.5,"outcome":"ok","did_work":true},
            {"name":"suites","seconds":0.0,"outcome":"skipped","did_work":false}]}"#;
        let t = parse(text).unwrap();
        assert_eq!(t.steps.len(), 3);
        assert_eq!(t.total_seconds(), 42.75);
        assert!(t.any_work());
        assert_eq!(parse(&serde_json::to_string(&t).unwrap()).unwrap(), t);
    }

    #[test]
    fn a_file_of_another_shape_says_so() {
        let e = parse(r#"{"started":"x"}"#).unwrap_err();
        assert!(e.starts_with("not a setup step record"), "{e}");
        assert!(parse("not json").is_err());
    }
}
