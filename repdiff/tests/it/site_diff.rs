//! `repdiff report diff OLD NEW` lists exactly the cells that changed.
//!
//! Real runs through the engine (the pure-Rust oracles, in process, over the
//! real corpus and ledger), before and after a ledger change and a corpus
//! change; the cells that changed are computed independently from the two
//! `RunResult`s and compared with what `report diff` prints, as text and as
//! markdown.

use engine::case::{Case, Corpus, Expect, Verdict};
use engine::ledger::Ledger;
use engine::oracle::Oracle;
use engine::run::RunResult;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const ORACLES: &[&str] = &["rfc9309", "texting-robots", "robotstxt-rs"];

type Key = (String, usize, String);

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn load() -> (Corpus, Ledger) {
    let corpus = engine::case::load_dir(&root().join("cases/corpus")).unwrap();
    // Every registered name, built-in and external, as repdiff lists them.
    let out = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args(["oracles", "--json"])
        .output()
        .unwrap();
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<String> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap().to_string())
        .collect();
    let mut known: Vec<&str> = names.iter().map(String::as_str).collect();
    known.push("chaos");
    let files = oracles::ledger_files(&root()).unwrap();
    let ledger = engine::ledger::load_files(&files, &corpus, &known).unwrap();
    (corpus, ledger)
}

fn run(cases: &[&Case], ledger: &Ledger) -> RunResult {
    let oracles: Vec<Box<dyn Oracle>> = oracles::registry()
        .into_iter()
        .filter(|e| ORACLES.contains(&e.name))
        .map(|e| (e.make)().unwrap_or_else(|u| panic!("{u}")))
        .collect();
    assert_eq!(oracles.len(), ORACLES.len());
    engine::run::run(cases, oracles, Vec::new(), ledger, &|_| None, &mut |_| {})
}

/// What changed per cell, straight from the runner's structs.
fn changed(a: &RunResult, b: &RunResult) -> BTreeMap<Key, &'static str> {
    let view = |r: &RunResult| -> BTreeMap<Key, (String, String, Option<String>)> {
        r.cells
            .iter()
            .map(|c| {
                (
                    (c.case.clone(), c.query, c.oracle.clone()),
                    (
                        c.answer.outcome.label(),
                        format!("{:?}", c.status),
                        c.triaged_by.clone(),
                    ),
                )
            })
            .collect()
    };
    let (va, vb) = (view(a), view(b));
    let keys: BTreeSet<&Key> = va.keys().chain(vb.keys()).collect();
    let mut out = BTreeMap::new();
    for k in keys {
        let kind = match (va.get(k), vb.get(k)) {
            (None, Some(_)) => "added",
            (Some(_), None) => "removed",
            (Some(x), Some(y)) if x.0 != y.0 => "flipped",
            (Some(x), Some(y)) if x.1 != y.1 => "status",
            (Some(x), Some(y)) if x.2 != y.2 => "triage",
            _ => continue,
        };
        out.insert(k.clone(), kind);
    }
    out
}

fn write(dir: &Path, name: &str, r: &RunResult, cases: &[&Case], hash: &str) -> PathBuf {
    let p = dir.join(name);
    let compat =
        report::compat::Report::from_run(r, cases, &Ledger::default(), hash, Path::new("/"));
    std::fs::write(&p, compat.to_json().unwrap()).unwrap();
    p
}

fn report_diff(old: &Path, new: &Path, markdown: bool) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_repdiff"));
    cmd.args(["report", "diff"]).arg(old).arg(new);
    if markdown {
        cmd.arg("--markdown");
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "report diff failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The cells `report diff` printed: `    [kind] case#N oracle: ...`.
fn listed_text(text: &str) -> BTreeMap<Key, String> {
    text.lines()
        .filter_map(|l| {
            let l = l.strip_prefix("    [")?;
            let (kind, rest) = l.split_once("] ")?;
            let (cell, rest) = rest.split_once(' ')?;
            let (oracle, _) = rest.split_once(": ")?;
            let (case, n) = cell.rsplit_once('#')?;
            Some((
                (
                    case.to_string(),
                    n.parse::<usize>().ok()? - 1,
                    oracle.to_string(),
                ),
                kind.to_string(),
            ))
        })
        .collect()
}

/// The cells of the markdown table: `| kind | `case#N` | `oracle` | ...`.
fn listed_markdown(md: &str) -> BTreeMap<Key, String> {
    md.lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split(" | ").collect();
            if cols.len() < 6 || !cols[1].starts_with('`') {
                return None;
            }
            let kind = cols[0].trim_start_matches("| ").to_string();
            let cell = cols[1].trim_matches('`');
            let oracle = cols[2].trim_matches('`');
            let (case, n) = cell.rsplit_once('#')?;
            Some((
                (
                    case.to_string(),
                    n.parse::<usize>().ok()? - 1,
                    oracle.to_string(),
                ),
                kind,
            ))
        })
        .collect()
}

fn check_exact(expected: &BTreeMap<Key, &'static str>, text: &str, md: &str) {
    let want: BTreeMap<Key, String> = expected
        .iter()
        .map(|(k, v)| (k.clone(), v.to_string()))
        .collect();
    assert_eq!(listed_text(text), want, "text diff:\n{text}");
    assert_eq!(listed_markdown(md), want, "markdown diff:\n{md}");
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("repdiff-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn subset(corpus: &Corpus) -> Vec<&Case> {
    corpus
        .cases
        .iter()
        .filter(|c| {
            c.id.starts_with("seed-") || c.id.starts_with("kd-") || c.id.starts_with("rfc-")
        })
        .collect()
}

#[test]
fn a_ledger_change_lists_exactly_the_cells_it_retriages() {
    let dir = tmp("diff-ledger");
    let (corpus, ledger) = load();
    let cases = subset(&corpus);
    let before = run(&cases, &ledger);

    // Drop the entry explaining the most cells of these oracles, and one case
    // reference of another entry.
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &before.cells {
        if let Some(e) = &c.triaged_by {
            *counts.entry(e.as_str()).or_default() += 1;
        }
    }
    let mut by_count: Vec<(&str, usize)> = counts.into_iter().collect();
    by_count.sort_by_key(|(id, n)| (std::cmp::Reverse(*n), id.to_string()));
    assert!(
        by_count.len() >= 2,
        "need two entries explaining cells: {by_count:?}"
    );
    let dropped = by_count[0].0.to_string();
    let trimmed = by_count[1].0.to_string();
    let mut after_ledger = ledger.clone();
    after_ledger.entries.retain(|e| e.id != dropped);
    let trimmed_ref = {
        let e = after_ledger
            .entries
            .iter_mut()
            .find(|e| e.id == trimmed)
            .unwrap();
        let cell = before
            .cells
            .iter()
            .find(|c| c.triaged_by.as_deref() == Some(trimmed.as_str()))
            .unwrap();
        let one = cell.query_ref();
        e.cases.retain(|r| r.case != one.case && *r != one);
        cell.case.clone()
    };
    let after = run(&cases, &after_ledger);
    let expected = changed(&before, &after);
    assert!(!expected.is_empty());
    assert!(expected.values().all(|k| *k == "triage"), "{expected:?}");
    // Every cell the dropped entry explained, and the trimmed case's cells.
    for c in before
        .cells
        .iter()
        .filter(|c| c.triaged_by.as_deref() == Some(&dropped))
    {
        assert!(expected.contains_key(&(c.case.clone(), c.query, c.oracle.clone())));
    }
    assert!(expected.keys().any(|(case, _, _)| *case == trimmed_ref));

    let hash = corpus.hash.clone();
    let old = write(&dir, "old.json", &before, &cases, &hash);
    let new = write(&dir, "new.json", &after, &cases, &hash);
    let text = report_diff(&old, &new, false);
    let md = report_diff(&old, &new, true);
    check_exact(&expected, &text, &md);
    assert!(text.contains("corpus: unchanged"), "{text}");
    assert!(
        text.contains(&format!("    {dropped}: ")),
        "entry summary: {text}"
    );
    assert!(text.contains("gone (explains no cell now"), "{text}");
    let was: BTreeSet<Key> = before
        .cells
        .iter()
        .filter(|c| c.untriaged())
        .map(|c| (c.case.clone(), c.query, c.oracle.clone()))
        .collect();
    let untriaged = after
        .cells
        .iter()
        .filter(|c| c.untriaged() && !was.contains(&(c.case.clone(), c.query, c.oracle.clone())))
        .count();
    assert!(
        text.contains(&format!("untriaged, new ({untriaged})")),
        "{untriaged} untriaged: {text}"
    );
    assert!(md.starts_with("## repdiff report diff"));
    // The score does not depend on the ledger.
    assert!(!text.contains("\nscores:"), "{text}");

    // And back: the same cells, the other way round.
    let back = report_diff(&new, &old, false);
    assert_eq!(
        listed_text(&back).keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    // Against itself: nothing.
    let same = report_diff(&old, &old, false);
    assert!(same.contains("no change"), "{same}");
    assert!(listed_text(&same).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_corpus_change_lists_exactly_the_cells_it_moves() {
    let dir = tmp("diff-corpus");
    let (corpus, ledger) = load();
    let cases = subset(&corpus);
    let before = run(&cases, &ledger);

    // Three corpus edits: seed-18's body no longer names `bot` (verdicts
    // flip), another case's first expectation is turned round (statuses
    // change), and a new case appears (cells added).
    let mut edited: Vec<Case> = cases.iter().map(|c| (*c).clone()).collect();
    let seed18 = edited.iter_mut().find(|c| c.id == "seed-18").unwrap();
    seed18.body = b"User-agent: *\nDisallow: /\n".to_vec();
    let target = edited
        .iter_mut()
        .find(|c| {
            c.id != "seed-18"
                && c.http.is_none()
                && matches!(c.queries[0].expect, Expect::Verdict(Verdict::Allowed))
        })
        .unwrap();
    let flipped_expect = target.id.clone();
    target.queries[0].expect = Expect::Verdict(Verdict::Disallowed);
    let mut extra = edited.iter().find(|c| c.id == "seed-18").unwrap().clone();
    extra.id = "seed-18-copy".into();
    edited.push(extra);
    let after_cases: Vec<&Case> = edited.iter().collect();
    let after = run(&after_cases, &ledger);

    let expected = changed(&before, &after);
    let kinds: BTreeSet<&str> = expected.values().copied().collect();
    assert!(kinds.contains("flipped") && kinds.contains("status") && kinds.contains("added"));
    for ((case, _, _), kind) in &expected {
        match *kind {
            "added" => assert_eq!(case, "seed-18-copy"),
            "flipped" | "status" | "triage" => assert!(
                case == "seed-18" || *case == flipped_expect,
                "{case} {kind}: only the edited cases move"
            ),
            other => panic!("unexpected {other}"),
        }
    }
    let old = write(&dir, "old.json", &before, &cases, &corpus.hash);
    let new = write(
        &dir,
        "new.json",
        &after,
        &after_cases,
        "0123456789abcdef-edited",
    );
    let text = report_diff(&old, &new, false);
    let md = report_diff(&old, &new, true);
    check_exact(&expected, &text, &md);
    assert!(text.contains("corpus: changed"), "{text}");
    assert!(text.contains("cases added: seed-18-copy"), "{text}");
    // seed-18 flips for the oracles that followed the RFC: now disallowed.
    assert!(
        text.contains(
            "[flipped] seed-18#1 rfc9309: allowed (match, -) -> disallowed (deviate, UNTRIAGED)"
        ),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn oracle_versions_and_bad_input() {
    let dir = tmp("diff-versions");
    let (corpus, ledger) = load();
    let cases: Vec<&Case> = corpus.cases.iter().filter(|c| c.id == "seed-18").collect();
    let r = run(&cases, &ledger);
    let old = write(&dir, "old.json", &r, &cases, &corpus.hash);
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&old).unwrap()).unwrap();
    v["oracles"][1]["identity"] = "texting_robots 9.9.9".into();
    let new = dir.join("new.json");
    std::fs::write(&new, v.to_string()).unwrap();
    let text = report_diff(&old, &new, false);
    assert!(text.contains("oracle versions changed: 1"), "{text}");
    assert!(text.contains("-> texting_robots 9.9.9"), "{text}");
    let md = report_diff(&old, &new, true);
    assert!(
        md.contains("| `texting-robots` | texting_robots 0.2.2 | texting_robots 9.9.9 |"),
        "{md}"
    );

    let bad = dir.join("bad.json");
    std::fs::write(&bad, "[]").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args(["report", "diff"])
        .arg(&old)
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.json"));
    let out = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args(["report", "diff"])
        .arg(&old)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
