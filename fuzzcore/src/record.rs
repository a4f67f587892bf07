//! What the fuzz processes write and `cargo xtask fuzz` reads back: the
//! per-process statistics (`REPDIFF_FUZZ_STATS/*.json`), a finding
//! (`finding.json`) and its minimisation (`minimized.json`).
//!
//! One set of types for the writer and the reader, so a renamed or missing
//! field is a compile error on one side or a named parse error on the
//! other, never a figure silently read as 0. Every struct denies unknown
//! fields and requires all of its own: a stats file from an older or newer
//! build says which field it lacks. The field names are the on-disk format
//! of the committed files (fuzz/findings/, reports/fuzz/); the test
//! `committed_files_parse` reads every one of them.

use crate::triage::{CellKey, FuzzSignature, Novel};
use engine::signature::Signature;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Counters of one differential process (`differential`, `differential_bytes`).
/// One lane of a fuzzing process (fuzzcore/src/lane.rs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaneRecord {
    pub label: String,
    pub oracles: Vec<String>,
    /// Inputs it answered.
    pub answered: u64,
    /// Time the fuzzing thread waited on it.
    pub wait_micros: u64,
    /// CPU of the lane's thread (part of the fuzzing process's); absent in
    /// older files.
    #[serde(default)]
    pub thread_cpu_micros: u64,
    /// CPU of its worker processes, restarts included; absent in older
    /// files.
    #[serde(default)]
    pub worker_cpu_micros: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DifferentialStats {
    pub target: String,
    pub pid: u32,
    /// Every oracle the process runs, in triage order.
    pub oracles: Vec<String>,
    pub execs: u64,
    /// Inputs whose rendered body and queries were just run (skipped).
    pub repeats: u64,
    pub queries: u64,
    pub disagreements: u64,
    /// Known signature -> hits.
    pub known: BTreeMap<FuzzSignature, u64>,
    /// Finding hash -> its new cell key and hits.
    pub new: BTreeMap<String, NewHits>,
    /// Oracle -> outcome label (crash, error, timeout) -> count.
    pub failures: BTreeMap<String, BTreeMap<String, u64>>,
    /// The oracles run on lanes (helper threads: the Python lane and one
    /// per worker process), all lanes together.
    pub lane: Vec<String>,
    /// Time the fuzzing thread waited on any lane.
    pub lane_wait_micros: u64,
    /// CPU of the whole fuzzing process (every thread: libFuzzer, the
    /// in-process oracles, the lanes); its workers' is in `lanes`. Absent
    /// in older files.
    #[serde(default)]
    pub process_cpu_micros: u64,
    /// Each lane apart; absent in older files.
    #[serde(default)]
    pub lanes: Vec<LaneRecord>,
    /// Distinct inputs every oracle of `oracles` answered and that were
    /// triaged (the rate the report gives is this over the wall time);
    /// absent in older files.
    #[serde(default)]
    pub reached_all: u64,
    /// Registered oracles not in this process's loop, each with why
    /// (unavailable, or left out by REPDIFF_FUZZ_ORACLES or
    /// REPDIFF_FUZZ_EXTERNAL=0); absent in older files.
    #[serde(default)]
    pub left_out: BTreeMap<String, String>,
    /// Oracle -> time spent in its `run`.
    pub oracle_micros: BTreeMap<String, u64>,
    /// Input class (`crate::classes`) -> distinct inputs showing it: what
    /// the generator actually reached, whatever it is meant to reach.
    pub classes: BTreeMap<String, u64>,
    /// Input class -> distinct inputs showing it on which the oracles
    /// disagreed, to set beside `classes`.
    pub classes_divergent: BTreeMap<String, u64>,
    /// Inputs rejected unrun because they carry a class that only
    /// re-triggers known errors (fuzzcore/src/downweight.rs); absent in
    /// older files.
    #[serde(default)]
    pub downweighted: u64,
    /// Classes down-weighted at the last flush.
    #[serde(default)]
    pub downweighted_classes: u64,
    /// Per class, the triaged inputs carrying it that only re-triggered a
    /// known error (beside `classes`: the share down-weighting reads).
    #[serde(default)]
    pub classes_known_error_only: BTreeMap<String, u64>,
}

impl DifferentialStats {
    /// CPU of the process and of its lanes' workers: what its
    /// `reached_all` inputs cost in all.
    pub fn cpu_micros(&self) -> u64 {
        self.process_cpu_micros + self.lanes.iter().map(|l| l.worker_cpu_micros).sum::<u64>()
    }
}

/// One new cell key seen by a differential process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewHits {
    pub new: Novel,
    pub hits: u64,
}

/// Counters of one robustness process (one oracle alone).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RobustStats {
    /// The report's name for the run: `robust_<oracle>` (see [`crate::robust_target`]).
    pub target: String,
    pub oracle: String,
    pub pid: u32,
    pub execs: u64,
    /// Answers that were an error (not a crash: those fail the run).
    pub errors: u64,
}

/// Either kind of stats file; which one is decided by its name
/// ([`ROBUST_PREFIX`]), so a malformed file is reported against the one
/// shape it should have had. (A few dozen are read per report: the size of
/// the larger variant does not matter, boxing it would only add noise.)
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum ProcessStats {
    Differential(DifferentialStats),
    Robust(RobustStats),
}

/// Stats files of robustness processes start with this.
pub const ROBUST_PREFIX: &str = "robust-";

impl ProcessStats {
    /// Parse one stats file; `name` is its file name.
    // String: a file the fuzz report reads back; one that does not parse is
    // reported with this message and left out, no caller acts on its kind.
    pub fn parse(name: &str, text: &str) -> Result<ProcessStats, String> {
        let parsed = if name.starts_with(ROBUST_PREFIX) {
            serde_json::from_str(text).map(ProcessStats::Robust)
        } else {
            serde_json::from_str(text).map(ProcessStats::Differential)
        };
        parsed.map_err(|e| format!("stats file {name}: {e}"))
    }
}

/// Every stats file in `dir` (`*.json`; writers rename `*.tmp` into place).
/// A missing directory is no stats yet; an unreadable or malformed file is
/// an error naming it.
pub fn read_stats_dir(dir: &Path) -> Result<Vec<ProcessStats>, String> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut paths: Vec<_> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            let name = p
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned());
            ProcessStats::parse(&name, &text).map_err(|e| format!("{e} (in {})", dir.display()))
        })
        .collect()
}

/// One oracle's answer as saved with a finding.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedAnswer {
    pub outcome: String,
    pub detail: String,
    pub explain: String,
}

/// `finding.json`: the first input that showed a new cell key.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FindingRecord {
    /// sha256 of the new part, 12 hex digits: the directory's name.
    pub hash: String,
    /// The cell keys the known list did not explain.
    pub new: Vec<Novel>,
    pub signature: FuzzSignature,
    pub agreement: Signature,
    pub feature: String,
    pub cells: Vec<CellKey>,
    /// The fuzz target that found it.
    pub target: String,
    pub agent: String,
    pub url: String,
    /// Oracle -> answer.
    pub answers: BTreeMap<String, SavedAnswer>,
    pub found_unix: u64,
}

/// `minimized.json`: what `repdiff triage minimize` shrank a finding to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Minimized {
    pub agent: String,
    pub url: String,
    pub body_len: usize,
    pub signature: FuzzSignature,
    pub cells: Vec<CellKey>,
    /// Oracle replays the shrinking took.
    pub replays: u64,
    pub case_id: String,
    /// Each departing oracle's root cause (the `cause` crate): its pair with
    /// the reference minimised alone and classified with the catalogue.
    /// Missing in minimisations made before causes were named.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<PairCause>,
}

/// One oracle's departure on a finding, named by its cause. A finding's
/// identity is (oracle, cause); its signature and cell key stay as facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairCause {
    pub oracle: String,
    /// A catalogue name, or `new` when no transformation neutralises it.
    pub cause: cause::Diagnosis,
    /// The reference's and the oracle's outcomes (`allowed->disallowed`).
    pub answers: String,
    /// The cell key the in-loop triage gave this departure.
    pub cell_key: CellKey,
    /// The finding's signature.
    pub signature: FuzzSignature,
    /// The pair's own minimised input; the body as escaped bytes
    /// (`<[u8]>::escape_ascii`: `\n`, `\xef`).
    pub agent: String,
    pub url: String,
    pub body: String,
}

/// Pretty JSON of a record. The types hold only strings, numbers and maps
/// with string keys, which serde_json always serialises.
pub fn to_pretty<T: Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    /// Every committed finding and minimisation parses with the types (and
    /// writes back to the same JSON), and the findings embedded in every
    /// committed nightly report parse too. Not vacuous: it counts them.
    #[test]
    fn committed_files_parse() {
        let mut findings = 0;
        let mut minimized = 0;
        for e in std::fs::read_dir(repo().join("fuzz/findings"))
            .unwrap()
            .flatten()
        {
            let f = e.path().join("finding.json");
            let text = std::fs::read_to_string(&f).unwrap();
            let r: FindingRecord =
                serde_json::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", f.display()));
            assert_eq!(r.hash, e.file_name().to_string_lossy());
            let back: serde_json::Value = serde_json::to_value(&r).unwrap();
            let orig: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(back, orig, "{}", f.display());
            findings += 1;
            let m = e.path().join("minimized.json");
            if let Ok(text) = std::fs::read_to_string(&m) {
                let _: Minimized = serde_json::from_str(&text)
                    .unwrap_or_else(|err| panic!("{}: {err}", m.display()));
                minimized += 1;
            }
        }
        assert!(findings >= 10, "only {findings} committed findings");
        assert!(minimized >= 10, "only {minimized} committed minimisations");
        let mut reports = 0;
        for e in std::fs::read_dir(repo().join("reports/fuzz"))
            .unwrap()
            .flatten()
        {
            if e.path().extension().is_none_or(|x| x != "json") {
                continue;
            }
            let text = std::fs::read_to_string(e.path()).unwrap();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            // A sweep report (`repdiff triage sweep --write-report`) sits
            // beside the nightly ones and has no findings list.
            if e.file_name().to_string_lossy().ends_with("-sweep.json") {
                assert_eq!(
                    v["format"],
                    "repdiff-fuzz-sweep/1",
                    "{}",
                    e.path().display()
                );
                assert!(v["causes"].is_array(), "{}", e.path().display());
                continue;
            }
            let findings = v["findings"]
                .as_array()
                .unwrap_or_else(|| panic!("{}: no findings array", e.path().display()));
            for f in findings {
                if !f["minimized"].is_null() {
                    let _: Minimized = serde_json::from_value(f["minimized"].clone())
                        .unwrap_or_else(|err| panic!("{}: {err}", e.path().display()));
                }
            }
            reports += 1;
        }
        assert!(reports >= 3, "only {reports} committed reports");
    }

    #[test]
    fn a_missing_or_renamed_field_is_an_error_naming_it() {
        let good = DifferentialStats {
            target: "differential".into(),
            execs: 7,
            ..DifferentialStats::default()
        };
        let text = serde_json::to_string(&good).unwrap();
        assert_eq!(
            ProcessStats::parse("differential-1.json", &text).unwrap(),
            ProcessStats::Differential(good)
        );
        let renamed = text.replace("\"execs\"", "\"exec_count\"");
        let err = ProcessStats::parse("differential-1.json", &renamed).unwrap_err();
        assert!(err.contains("exec_count") || err.contains("execs"), "{err}");
        let robust = r#"{"target":"robust_google","oracle":"google","pid":3,"execs":8}"#;
        let err = ProcessStats::parse("robust-google-3.json", robust).unwrap_err();
        assert!(err.contains("errors"), "{err}");
    }

    #[test]
    fn a_malformed_file_in_a_stats_dir_is_named() {
        let dir = std::env::temp_dir().join(format!("fuzzcore-stats-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let ok = RobustStats {
            target: "robust_google".into(),
            oracle: "google".into(),
            pid: 1,
            execs: 2,
            errors: 0,
        };
        engine::write_atomic(&dir.join("robust-google-1.json"), to_pretty(&ok).as_bytes()).unwrap();
        assert_eq!(
            read_stats_dir(&dir).unwrap(),
            vec![ProcessStats::Robust(ok)]
        );
        std::fs::write(dir.join("differential-2.json"), "{}").unwrap();
        let err = read_stats_dir(&dir).unwrap_err();
        assert!(err.contains("differential-2.json"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
