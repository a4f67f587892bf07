//! Every committed snapshot stays readable by this build, and the one schema
//! writes back exactly what it read: `reports/latest/compat.json`, every
//! other committed `compat.json`, and `reports/history.jsonl`.
//!
//! Plus a run made in memory: its report, written and read back, gives the
//! same compat.json, compat.md and history records as the value it came
//! from, so recording history from the run itself and from its file agree.

use engine::case::Case;
use engine::oracle::{About, Answer, Ask, Capabilities, Oracle, Outcome, Query, Value};
use report::compat::{Report, FORMAT};
use report::error::ReadError;
use report::{history, markdown, score};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn latest() -> (String, Report) {
    let path = root().join("reports/latest/compat.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let report = Report::load(&path).unwrap_or_else(|e| panic!("{e}"));
    (text, report)
}

/// Every `compat.json` in the repository outside build output, caches and
/// ignored run directories: the committed snapshots.
fn committed_compat_jsons(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if p.is_dir() {
            let skip = name.starts_with('.')
                || name == "target"
                || name == "node_modules"
                || p.ends_with("reports/run");
            if !skip {
                committed_compat_jsons(&p, out);
            }
        } else if name == "compat.json" {
            out.push(p);
        }
    }
}

#[test]
fn the_latest_snapshot_reads_and_writes_back_byte_for_byte() {
    let (text, report) = latest();
    assert_eq!(report.format, FORMAT);
    assert!(report.oracles.len() >= 8, "a full run");
    let written = report.to_json().unwrap();
    assert!(
        written == text,
        "reading and writing reports/latest/compat.json changed it: the schema lost or reordered a field"
    );
}

#[test]
fn every_committed_compat_json_is_readable() {
    let mut found = Vec::new();
    committed_compat_jsons(&root(), &mut found);
    assert!(
        found
            .iter()
            .any(|p| p.ends_with("reports/latest/compat.json")),
        "{found:?}"
    );
    for p in &found {
        let r = Report::load(p).unwrap_or_else(|e| panic!("{e}"));
        assert!(!r.cells.is_empty(), "{}", p.display());
    }
}

#[test]
fn stored_scores_are_what_the_cells_count_to() {
    let (_, report) = latest();
    let cards = score::cards(&report);
    assert_eq!(report.scores.len(), cards.len());
    for (name, card) in &cards {
        assert_eq!(report.scores.get(name), Some(&card.all), "{name}");
    }
    // Likewise the profile matrix and the closest profiles (absent before
    // the matrix: then both are empty).
    let matrix = score::profile_matrix(&report);
    assert_eq!(report.profile_matrix, matrix);
    assert_eq!(
        report.closest_profile,
        score::closest_profiles(&report, &matrix)
    );
}

#[test]
fn the_history_reads_and_holds_the_latest_snapshot() {
    let path = root().join("reports/history.jsonl");
    let records = history::read(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(!records.is_empty());
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(history::to_jsonl(&records), text, "a record lost a field");
    // Publishing appends the snapshot's records: every key is there.
    let (_, report) = latest();
    for r in history::records(&report) {
        assert!(
            records.iter().any(|h| h.key() == r.key()),
            "{:?} is not in the history",
            r.key()
        );
    }
}

#[test]
fn a_malformed_report_is_an_error_naming_its_file() {
    let dir = std::env::temp_dir().join(format!("repdiff-report-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (text, _) = latest();
    let cases = [
        ("truncated.json", text[..text.len() / 2].to_string()),
        ("future.json", text.replacen(FORMAT, "repdiff-compat/99", 1)),
        (
            "badhex.json",
            text.replacen("\"body_hex\": \"", "\"body_hex\": \"zz", 1),
        ),
    ];
    for (name, body) in cases {
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        // A file that is read but is no report: Invalid, naming it.
        let e = Report::load(&p).unwrap_err();
        assert!(
            matches!(&e, ReadError::Invalid { path, .. } if path == &p),
            "{name}: {e:?}"
        );
        assert!(e.to_string().contains(name), "{e}");
    }
    // A file that is not there: the machine's failure, naming it.
    let missing = Report::load(&dir.join("missing.json")).unwrap_err();
    assert!(
        matches!(missing, ReadError::Io { doing: "read", .. }),
        "{missing:?}"
    );
    assert!(missing.to_string().contains("missing.json"), "{missing}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A parser that allows everything: enough to give every kind of cell
/// (match, deviate, split, unsupported) on the real corpus.
struct AllowAll;

impl Oracle for AllowAll {
    fn name(&self) -> &str {
        "allow-all"
    }
    fn about(&self) -> About {
        About {
            library: "allow-all".into(),
            version: "1".into(),
            ..About::default()
        }
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            can_fetch: true,
            crawl_delay: true,
            ..Capabilities::default()
        }
    }
    fn run(&mut self, _body: &[u8], queries: &[Query]) -> Vec<Answer> {
        queries
            .iter()
            .map(|q| match q.ask {
                Ask::CanFetch => Outcome::Allowed.into(),
                _ => Outcome::Value { value: Value::None }.into(),
            })
            .collect()
    }
}

#[test]
fn a_run_and_its_file_give_the_same_report_markdown_and_history() {
    let corpus = engine::case::load_dir(&root().join("cases/corpus")).unwrap();
    let cases: Vec<&Case> = corpus.cases.iter().collect();
    let ledger = engine::ledger::Ledger::default();
    // AllowAll is also asked as a reference, so the profile fields make
    // the round trip too.
    let result = engine::run::run_with_references(
        &cases,
        vec![Box::new(AllowAll) as Box<dyn Oracle>],
        vec![Box::new(AllowAll) as Box<dyn Oracle>],
        Vec::new(),
        &ledger,
        &|_| None,
        &mut |_| {},
    );
    let run = Report::from_run(&result, &cases, &ledger, &corpus.hash, &root());
    let json = run.to_json().unwrap();
    let back = Report::parse(&json).unwrap();
    assert_eq!(back.to_json().unwrap(), json);
    assert_eq!(
        markdown::render(&run, &ledger),
        markdown::render(&back, &ledger)
    );
    let records = history::records(&run);
    assert_eq!(records, history::records(&back));
    assert_eq!(records.len(), 1);
    let all = run.scores["allow-all"];
    assert!(all.matched > 0 && all.deviated > 0, "{all:?}");
    // Against itself as a profile: every decided query matches.
    assert_eq!(run.profile_names(), ["rfc9309", "allow-all"]);
    let itself = run.profile_matrix["allow-all"]["allow-all"];
    assert!(itself.matched > all.matched, "{itself:?}");
    assert_eq!(itself.share(), Some(100.0), "{itself:?}");
    assert_eq!(back.profile_matrix, run.profile_matrix);
    assert_eq!(records[0].matched, all.matched);
    // Nothing is triaged by an empty ledger.
    assert_eq!(all.triaged, 0);
    assert_eq!(all.untriaged, run.untriaged().count());
    let checkout = root().canonicalize().unwrap();
    assert!(
        !json.contains(&*checkout.to_string_lossy()),
        "compat.json names the checkout"
    );
}
