//! `reports/history.jsonl`: one compact record per oracle per full run,
//! keyed by (oracle, exact version, corpus hash), so the site can show how a
//! parser moved across versions.
//!
//! A record holds what does not depend on the ledger: the counts, the score
//! per RFC section and per tag, and every cell that did not match its
//! expectation (`case#N` -> `status:answer`). Same key, same answers: a
//! record already present is never written twice.

use crate::compat::{CaseRec, Report, Status};
use crate::error::ReadError;
use crate::score::{cards, Score};
use engine::oracle::{Identity, Label};
use engine::query_ref::QueryRef;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub oracle: String,
    /// The library and its version (lines written before compat `/2` call
    /// it `version`).
    #[serde(alias = "version")]
    pub identity: Identity,
    pub corpus_hash: String,
    /// When this key was first seen (the run's `generated_unix`).
    pub recorded_unix: u64,
    pub cases: usize,
    pub queries: usize,
    pub matched: usize,
    pub deviated: usize,
    pub failed: usize,
    pub split: usize,
    pub unsupported: usize,
    /// Per RFC section: [matched, scored].
    pub sections: BTreeMap<String, [usize; 2]>,
    /// Per tag: [matched, scored].
    pub tags: BTreeMap<String, [usize; 2]>,
    /// Every cell that deviated, failed or split: `case#N` -> `status:answer`.
    pub off: BTreeMap<QueryRef, OffCell>,
}

/// One cell that was off in a run: how it compared with its expectation and
/// what the oracle answered, written `status:label` (`failed:error:ValueError`,
/// `deviate:value:3`: the ledger's spelling of an outcome).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffCell {
    pub status: Status,
    pub answer: OffAnswer,
}

/// What the oracle answered in an off cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OffAnswer {
    /// The outcome as the ledger pins it.
    Label(Label),
    /// A line written before history used the ledger's spelling (`error`,
    /// a bare value): kept as written.
    Recorded(String),
}

impl OffCell {
    /// The same status and the same answer, where a recorded word matches
    /// the label it is the short form of.
    pub fn same_as(&self, other: &OffCell) -> bool {
        self.status == other.status
            && match (&self.answer, &other.answer) {
                (OffAnswer::Label(a), OffAnswer::Label(b)) => a == b,
                (OffAnswer::Recorded(a), OffAnswer::Recorded(b)) => a == b,
                (OffAnswer::Label(l), OffAnswer::Recorded(r))
                | (OffAnswer::Recorded(r), OffAnswer::Label(l)) => l.word() == *r,
            }
    }
}

impl std::fmt::Display for OffAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OffAnswer::Label(l) => write!(f, "{l}"),
            OffAnswer::Recorded(r) => f.write_str(r),
        }
    }
}

impl std::fmt::Display for OffCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.status, self.answer)
    }
}

impl std::str::FromStr for OffCell {
    type Err = String;
    // String: a token that does not parse; its message is the whole error, and
    // the loader that read it adds the file and line.
    fn from_str(s: &str) -> Result<Self, String> {
        let (status, answer) = s
            .split_once(':')
            .ok_or_else(|| format!("`{s}` is not `status:answer`"))?;
        let answer = match answer.parse::<Label>() {
            Ok(l) => OffAnswer::Label(l),
            Err(_) if !answer.is_empty() => OffAnswer::Recorded(answer.to_string()),
            Err(e) => return Err(e),
        };
        Ok(OffCell {
            status: status.parse()?,
            answer,
        })
    }
}

engine::serde_as_text!(OffCell);

impl Record {
    pub fn key(&self) -> (&str, &Identity, &str) {
        (&self.oracle, &self.identity, &self.corpus_hash)
    }

    pub fn tally(&self) -> Score {
        Score {
            matched: self.matched,
            deviated: self.deviated,
            failed: self.failed,
            split: self.split,
            unsupported: self.unsupported,
            triaged: 0,
            untriaged: 0,
        }
    }
}

/// The records of one report, one per oracle that ran.
pub fn records(report: &Report) -> Vec<Record> {
    let cards = cards(report);
    let cases: BTreeMap<&str, &CaseRec> = report.cases.iter().map(|c| (c.id.as_str(), c)).collect();
    report
        .oracles
        .iter()
        .map(|o| {
            let card = cards.get(&o.name).cloned().unwrap_or_default();
            let pair = |t: &Score| [t.matched, t.scored()];
            let off = report
                .cells
                .iter()
                .filter(|c| c.oracle == o.name && c.status.needs_triage())
                .filter(|c| cases.contains_key(c.case.as_str()))
                .map(|c| {
                    (
                        c.query_ref(),
                        OffCell {
                            status: c.status,
                            answer: OffAnswer::Label(c.answer.outcome.pin()),
                        },
                    )
                })
                .collect();
            Record {
                oracle: o.name.clone(),
                identity: o.identity.clone(),
                corpus_hash: report.corpus_hash.clone(),
                recorded_unix: report.generated_unix,
                cases: report.cases.len(),
                queries: report.queries(),
                matched: card.all.matched,
                deviated: card.all.deviated,
                failed: card.all.failed,
                split: card.all.split,
                unsupported: card.all.unsupported,
                sections: card
                    .sections
                    .iter()
                    .map(|(k, t)| (k.clone(), pair(t)))
                    .collect(),
                tags: card
                    .tags
                    .iter()
                    .map(|(k, t)| (k.clone(), pair(t)))
                    .collect(),
                off,
            }
        })
        .collect()
}

/// Read a history file; a missing file is an empty history, a bad line an
/// error naming its line.
pub fn read(path: &Path) -> Result<Vec<Record>, ReadError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ReadError::read(path, e)),
    };
    parse(&text).map_err(|(line, message)| ReadError::Invalid {
        path: path.to_path_buf(),
        line: Some(line),
        message,
    })
}

pub fn parse(text: &str) -> Result<Vec<Record>, (usize, String)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| (i + 1, e.to_string())))
        .collect()
}

/// `existing` plus every record of `new` whose key is not there yet.
pub fn merge(existing: &[Record], new: &[Record]) -> (Vec<Record>, usize) {
    let mut out = existing.to_vec();
    let mut added = 0;
    for r in new {
        if !out.iter().any(|e| e.key() == r.key()) {
            out.push(r.clone());
            added += 1;
        }
    }
    (out, added)
}

pub fn to_jsonl(records: &[Record]) -> String {
    let mut s = String::new();
    for r in records {
        s.push_str(&serde_json::to_string(r).unwrap_or_default());
        s.push('\n');
    }
    s
}

/// Append the records of a run to the history file (atomically, and only
/// keys not yet there). Returns how many were added.
pub fn append(path: &Path, new: &[Record]) -> Result<usize, ReadError> {
    let existing = read(path)?;
    let (all, added) = merge(&existing, new);
    if added > 0 {
        engine::write_atomic(path, to_jsonl(&all).as_bytes()).map_err(|source| ReadError::Io {
            doing: "write",
            path: path.to_path_buf(),
            source,
        })?;
    }
    Ok(added)
}

/// Record a report's runs in the history file: what `report --publish` does
/// with the run it publishes. Takes the typed report (built from a run by
/// [`Report::from_run`](crate::compat::Report::from_run), or read with the
/// same schema), so the records are the ones the site shows for it.
pub fn record(path: &Path, report: &Report) -> Result<usize, ReadError> {
    append(path, &records(report))
}

/// One point of a parser's history: a record, or the current report's view
/// of an oracle (which has every cell, not only those that were off).
#[derive(Debug, Clone)]
pub struct Point {
    pub record: Record,
    /// In the report being rendered: its cells can be compared one by one.
    pub current: bool,
}

/// Every point by lineage, oldest version first within each; the current
/// report's records win over history records with the same key.
pub fn points(report: &Report, history: &[Record]) -> BTreeMap<String, Vec<Point>> {
    let current = records(report);
    let mut all: Vec<Point> = current
        .into_iter()
        .map(|mut record| {
            // First seen: the history's date for a key it already has.
            if let Some(h) = history.iter().find(|h| h.key() == record.key()) {
                record.recorded_unix = h.recorded_unix.min(record.recorded_unix);
            }
            Point {
                record,
                current: true,
            }
        })
        .collect();
    for r in history {
        if !all.iter().any(|p| p.record.key() == r.key()) {
            all.push(Point {
                record: r.clone(),
                current: false,
            });
        }
    }
    let mut by_lineage: BTreeMap<String, Vec<Point>> = BTreeMap::new();
    for p in all {
        by_lineage
            .entry(lineage_of(&p.record.oracle).to_string())
            .or_default()
            .push(p);
    }
    for pts in by_lineage.values_mut() {
        pts.sort_by(|a, b| {
            version_sort_key(&a.record)
                .cmp(&version_sort_key(&b.record))
                .then(a.record.recorded_unix.cmp(&b.record.recorded_unix))
                .then(a.record.oracle.cmp(&b.record.oracle))
        });
    }
    by_lineage
}

/// The version of a record for ordering: the version string's number, else
/// the number in the oracle's name, else nothing (sorts first).
pub fn version_label(r: &Record) -> String {
    version_number(&r.identity.version)
        .map(str::to_string)
        .or_else(|| {
            r.oracle
                .rsplit_once('-')
                .map(|(_, v)| v.to_string())
                .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        })
        .unwrap_or_default()
}

fn version_sort_key(r: &Record) -> Vec<(u64, u8, String)> {
    version_key(&version_label(r))
}

/// How one cell moved between two points of a lineage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    pub cell: QueryRef,
    pub expected: String,
    pub before: String,
    pub after: String,
    /// "fixed" (now matches), "broke" (matched before), "changed" otherwise.
    pub kind: &'static str,
}

/// The cells that moved from `a` to `b`. Both in the current report: every
/// cell compared, answer by answer. Otherwise: the `off` sets compared.
pub fn moves(report: &Report, a: &Point, b: &Point) -> Vec<Move> {
    let mut out = Vec::new();
    if a.current && b.current {
        let cells = report.cell_map();
        for case in &report.cases {
            for (qi, q) in case.queries.iter().enumerate() {
                let ka = (case.id.clone(), qi, a.record.oracle.clone());
                let kb = (case.id.clone(), qi, b.record.oracle.clone());
                let (Some(ca), Some(cb)) = (cells.get(&ka), cells.get(&kb)) else {
                    continue;
                };
                if ca.label() == cb.label() && ca.status == cb.status {
                    continue;
                }
                if ca.status == Status::Unsupported && cb.status == Status::Unsupported {
                    continue;
                }
                let kind = match (ca.status, cb.status) {
                    (x, Status::Match) if x != Status::Match => "fixed",
                    (Status::Match, y) if y != Status::Match => "broke",
                    _ => "changed",
                };
                out.push(Move {
                    cell: QueryRef::one(&case.id, qi),
                    expected: q.expect.to_string(),
                    before: format!("{} ({})", ca.label(), ca.status.as_str()),
                    after: format!("{} ({})", cb.label(), cb.status.as_str()),
                    kind,
                });
            }
        }
        return out;
    }
    let expected = |cell: &QueryRef| -> String {
        report
            .case(&cell.case)
            .and_then(|c| c.queries.get(cell.query?))
            .map(|q| q.expect.to_string())
            .unwrap_or_default()
    };
    let show = |c: &OffCell| format!("{} ({})", c.answer, c.status);
    let mut keys: Vec<&QueryRef> = a.record.off.keys().chain(b.record.off.keys()).collect();
    keys.sort();
    keys.dedup();
    for k in keys {
        let (x, y) = (a.record.off.get(k), b.record.off.get(k));
        let (before, after, kind) = match (x, y) {
            (Some(x), None) => (show(x), "matches".to_string(), "fixed"),
            (None, Some(y)) => ("matched".to_string(), show(y), "broke"),
            (Some(x), Some(y)) if !x.same_as(y) => (show(x), show(y), "changed"),
            _ => continue,
        };
        out.push(Move {
            cell: k.clone(),
            expected: expected(k),
            before,
            after,
            kind,
        });
    }
    out
}

/// The lineage of an oracle, the library it is one version of: a trailing `-<version>` is
/// dropped (`protego-0.6.1` and `protego` are both `protego`;
/// `cpython-3.11` and `cpython-3.15` are `cpython`).
pub fn lineage_of(oracle: &str) -> &str {
    match oracle.rsplit_once('-') {
        Some((base, v))
            if !base.is_empty()
                && v.starts_with(|c: char| c.is_ascii_digit())
                && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '.') =>
        {
            base
        }
        _ => oracle,
    }
}

/// The first version-looking word of a version string (`protego 0.7.0
/// (PyPI wheel ...)` gives `0.7.0`; `... of CPython 3.15.0rc1 ...` gives
/// `3.15.0rc1`).
pub fn version_number(version: &str) -> Option<&str> {
    version
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',')
        .find(|w| {
            let mut parts = w.split('.');
            let first = parts.next().unwrap_or("");
            !first.is_empty()
                && first.chars().all(|c| c.is_ascii_digit())
                && w.contains('.')
                && w.split('.')
                    .nth(1)
                    .is_some_and(|p| p.starts_with(|c: char| c.is_ascii_digit()))
        })
}

/// A sort key for versions: numeric parts compare as numbers, a pre-release
/// suffix (`rc1`) sorts before the release.
pub fn version_key(v: &str) -> Vec<(u64, u8, String)> {
    v.split('.')
        .map(|p| {
            let digits: String = p.chars().take_while(|c| c.is_ascii_digit()).collect();
            let rest = &p[digits.len()..];
            (
                digits.parse().unwrap_or(0),
                if rest.is_empty() { 1 } else { 0 },
                rest.to_string(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(oracle: &str, version: &str, corpus: &str, t: u64) -> Record {
        Record {
            oracle: oracle.into(),
            identity: version.parse().unwrap(),
            corpus_hash: corpus.into(),
            recorded_unix: t,
            cases: 1,
            queries: 1,
            matched: 1,
            deviated: 0,
            failed: 0,
            split: 0,
            unsupported: 0,
            sections: BTreeMap::new(),
            tags: BTreeMap::new(),
            off: BTreeMap::new(),
        }
    }

    #[test]
    fn identical_keys_are_written_once() {
        let path =
            std::env::temp_dir().join(format!("repdiff-history-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let a = rec("protego", "protego 0.7.0", "c1", 10);
        let b = rec("protego-0.6.1", "protego 0.6.1", "c1", 10);
        assert_eq!(append(&path, &[a.clone(), b.clone()]).unwrap(), 2);
        // The same run again (a later timestamp): nothing new.
        let mut a2 = a.clone();
        a2.recorded_unix = 20;
        assert_eq!(append(&path, &[a2, b.clone()]).unwrap(), 0);
        // A new corpus or a new version is a new key.
        let c = rec("protego", "protego 0.7.0", "c2", 30);
        let d = rec("protego", "protego 0.8.0", "c2", 30);
        assert_eq!(append(&path, &[c, d]).unwrap(), 2);
        let all = read(&path).unwrap();
        assert_eq!(all.len(), 4);
        assert_eq!(all[0], a, "the first sighting is kept");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 4);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn bad_lines_are_named() {
        assert_eq!(parse("\n").unwrap().len(), 0);
        let e = parse("{}\n").unwrap_err();
        assert_eq!(e.0, 1);
    }

    #[test]
    fn lineages_and_versions() {
        assert_eq!(lineage_of("protego-0.6.1"), "protego");
        assert_eq!(lineage_of("protego"), "protego");
        assert_eq!(lineage_of("cpython-3.11"), "cpython");
        assert_eq!(lineage_of("texting-robots"), "texting-robots");
        assert_eq!(lineage_of("robotstxt-rs"), "robotstxt-rs");
        assert_eq!(lineage_of("rfc9309"), "rfc9309");
        assert_eq!(
            version_number("protego 0.7.0 (PyPI wheel, /x/site-packages/protego)"),
            Some("0.7.0")
        );
        assert_eq!(
            version_number("robotparser.py of CPython 3.15.0rc1 (pyodide 315.0.0-alpha.2), run on"),
            Some("3.15.0rc1")
        );
        assert_eq!(version_number("google/robotstxt a732377 (robots.cc)"), None);
        assert!(version_key("0.6.1") < version_key("0.7.0"));
        assert!(version_key("3.11.7") < version_key("3.15.0rc1"));
        assert!(version_key("3.15.0rc1") < version_key("3.15.0"));
        assert!(version_key("0.9") < version_key("0.10"));
    }

    /// An off cell is typed: new lines use the ledger's spelling, lines
    /// written before it read as recorded and still compare with it, and
    /// every committed history line writes back as it was read.
    #[test]
    fn off_cells_are_typed_and_older_lines_still_compare() {
        let new: OffCell = "failed:error:ValueError".parse().expect("new");
        assert_eq!(new.status, Status::Failed);
        assert_eq!(
            new.answer,
            OffAnswer::Label(Label::Error("ValueError".into()))
        );
        let old: OffCell = "failed:error".parse().expect("old");
        assert_eq!(old.answer, OffAnswer::Recorded("error".into()));
        assert!(new.same_as(&old) && old.same_as(&new));
        let value: OffCell = "deviate:value:3".parse().expect("value");
        assert!(value.same_as(&"deviate:3".parse().expect("old value")));
        assert!(!value.same_as(&"deviate:4".parse().expect("old value")));
        assert!(!value.same_as(&"split:3".parse().expect("other status")));
        assert!("nonsense".parse::<OffCell>().is_err());
        assert!("bogus:allowed".parse::<OffCell>().is_err());

        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/history.jsonl");
        let text = std::fs::read_to_string(path).expect("the committed history");
        for (n, line) in text.lines().enumerate() {
            let record: Record =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
            let as_read: serde_json::Value = serde_json::from_str(line).expect("json");
            assert_eq!(
                serde_json::to_value(&record).expect("writes"),
                as_read,
                "line {}",
                n + 1
            );
        }
    }
}
