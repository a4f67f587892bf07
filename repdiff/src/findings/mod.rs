//! `repdiff findings [--check]`: upstream-ready write-ups, one
//! `reports/findings/<entry-id>.md` per ledger entry classified `bug`, plus
//! `reports/findings/README.md` (the index).
//!
//! Everything in a write-up comes from committed data, so two checkouts
//! write the same bytes and `--check` can keep them current in CI: the
//! ledger (title, oracles, pinned outcomes, RFC section, upstream link), the
//! corpus (the smallest case the entry explains), the `rfc9309` reference
//! run in process (the expected verdict), the published run
//! `reports/latest/compat.json` (each library's version and provenance, as
//! it announced them) and `cases/findings.yaml` (hand-written suggested
//! fixes). The actual behaviour is the ledger's pinned outcome, which every
//! conformance run re-checks against the real library.

mod notes;
mod render;
pub mod repro;
mod slow;
mod verify;

use crate::paths;
use crate::shared::Usage;
use engine::case::{Case, Corpus, Expect, Verdict};
use engine::ledger::{Classification, Entry, Ledger};
use engine::oracle::{Label, Oracle, Outcome};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const HELP: &str = "\
Writes reports/findings/<entry-id>.md for every ledger entry classified `bug`
and reports/findings/README.md (the index), from the ledger, the corpus, the
rfc9309 reference, reports/latest/compat.json and cases/findings.yaml (the
hand-written suggested fixes). Files already current are left untouched.
--check compares instead of writing; exit 1 when reports/findings/ is out of date.
--verify runs every write-up's direct reproducer in its own runtime against
the libraries setup installed (Python, node, Perl, Ruby, Java, Go, Rust,
C++) and checks each prints the outcome its ledger entry pins; exit 1 when
one does not (or cannot run).";

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Compare instead of writing; exit 1 when reports/findings/ is out of date
    #[arg(long)]
    check: bool,
    /// Run every direct reproducer in its runtime; exit 1 when one does not
    /// print the outcome its ledger entry pins
    #[arg(long, conflicts_with = "check")]
    verify: bool,
    /// With --verify: only the reproducers for these oracles
    #[arg(long = "oracle", requires = "verify")]
    oracles: Vec<String>,
}

/// One (case, query) an entry explains, chosen for one or more oracles.
pub struct Pick<'a> {
    pub case: &'a Case,
    /// 0-based query index.
    pub index: usize,
    /// `(oracle, pinned outcome)` for every oracle shown on this input.
    pub oracles: Vec<(String, Label)>,
    /// The rfc9309 reference's answer (`None` for HTTP cases, which the
    /// reference answers only through a server).
    pub reference: Option<Label>,
}

/// Everything a write-up is rendered from.
pub struct Finding<'a> {
    pub entry: &'a Entry,
    pub picks: Vec<Pick<'a>>,
    pub fix: Option<&'a str>,
    /// oracle -> its newest release, as checked (cases/findings.yaml).
    pub newest: &'a BTreeMap<String, notes::Newest>,
    /// oracle -> (identity, provenance line), from the published run.
    pub versions: &'a BTreeMap<String, (String, String)>,
}

pub fn main(opts: Opts, program: &str) -> Result<i32, crate::error::Error> {
    if opts.verify {
        return verify_main(&opts.oracles);
    }
    let files = generate()?;
    let dir = paths::root().join("reports/findings");
    let stale = differences(&dir, &files);
    if opts.check {
        if stale.is_empty() {
            crate::out!("{} is up to date ({} files)", dir.display(), files.len());
            return Ok(0);
        }
        for s in &stale {
            log::info!("out of date: {s}");
        }
        log::error!("{} is out of date; run `{program} findings`", dir.display(),);
        return Ok(1);
    }
    write_files(&dir, &files, &stale)?;
    crate::out!(
        "{}: {} write-ups, {} file(s) changed",
        dir.display(),
        files.len() - 1,
        stale.len()
    );
    Ok(0)
}

/// Every file of `reports/findings/`: name and text.
pub fn generate() -> Result<BTreeMap<String, String>, crate::error::Error> {
    let corpus = paths::load_corpus()?;
    let ledger = load_ledger(&corpus)?;
    let notes_path = paths::root().join("cases/findings.yaml");
    let notes = notes::load(&notes_path, &ledger)?;
    let versions = versions(&paths::root().join("reports/latest/compat.json"))?;
    let mut files = BTreeMap::new();
    let mut index = Vec::new();
    for entry in ledger
        .entries
        .iter()
        .filter(|e| e.classification == Classification::Bug)
    {
        let finding = Finding {
            entry,
            picks: picks(entry, &corpus),
            fix: notes.fixes.get(entry.id.as_str()).map(String::as_str),
            newest: &notes.newest,
            versions: &versions,
        };
        files.insert(format!("{}.md", entry.id), render::write_up(&finding));
        index.push(finding);
    }
    let mut readme = render::index(&index);
    for note in &notes.slow {
        let sweep = slow::load_sweep(note)?;
        files.insert(
            format!("{}.md", note.id),
            slow::write_up(note, &sweep, &versions),
        );
    }
    readme.push_str(&slow::index(&notes.slow));
    files.insert("README.md".into(), readme);
    Ok(files)
}

/// `--verify`: run the reproducers, one line per disagreement, a summary.
fn verify_main(only: &[String]) -> Result<i32, crate::error::Error> {
    let mut repros = reproducers()?;
    if !only.is_empty() {
        repros.retain(|r| only.contains(&r.oracle));
    }
    if repros.is_empty() {
        return Err(Usage("no direct reproducer to run (check --oracle)".into()).into());
    }
    // Kept when a reproducer disagrees, so the program can be rerun by hand.
    let work = std::env::temp_dir().join(format!("repdiff-repro-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    log::info!(
        "running {} direct reproducers in {}",
        repros.len(),
        work.display()
    );
    let verdicts = verify::run_all(&repros, &work, 2)?;
    let mut bad = 0;
    for v in &verdicts {
        if v.agrees() {
            log::debug!("ok {} {}", v.repro.write_up, v.repro.oracle);
            continue;
        }
        bad += 1;
        let printed = match &v.printed {
            Ok(p) => format!("printed {p}"),
            Err(e) => format!("did not run: {e}"),
        };
        crate::out!(
            "DIFF {} {}: {printed}; the ledger pins {}",
            v.repro.write_up,
            v.repro.oracle,
            v.repro.pinned
        );
    }
    crate::out!(
        "{} direct reproducers run, {} print their pinned outcome, {bad} do not",
        verdicts.len(),
        verdicts.len() - bad
    );
    if bad == 0 {
        let _ = std::fs::remove_dir_all(&work);
    } else {
        crate::out!("the programs are in {}", work.display());
    }
    Ok(i32::from(bad > 0))
}

/// Every write-up's direct reproducers, each with the outcome it must
/// print: the programs `render` writes into the write-ups, built from the
/// same picks.
pub fn reproducers() -> Result<Vec<verify::Reproducer>, crate::error::Error> {
    let corpus = paths::load_corpus()?;
    let ledger = load_ledger(&corpus)?;
    let mut out = Vec::new();
    for entry in ledger
        .entries
        .iter()
        .filter(|e| e.classification == Classification::Bug)
    {
        for p in picks(entry, &corpus) {
            for (oracle, pin) in &p.oracles {
                if let render::Direct::Program(program) =
                    render::direct_program(p.case, p.index, oracle, pin)
                {
                    out.push(verify::Reproducer {
                        write_up: entry.id.clone(),
                        oracle: oracle.clone(),
                        ask: p.case.queries[p.index].query.ask,
                        program,
                        pinned: pin.clone(),
                    });
                }
            }
        }
    }
    Ok(out)
}

/// The ledger, checked against every oracle name a run could produce.
fn load_ledger(corpus: &Corpus) -> Result<Ledger, crate::error::Error> {
    let mut known = crate::select::known_names();
    known.extend(crate::chaos::NAMES.iter().map(|n| n.to_string()));
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    paths::load_ledger(corpus, &known)
}

/// oracle -> (its identity, where it came from), as the published run
/// recorded each oracle's own announcement.
fn versions(path: &Path) -> Result<BTreeMap<String, (String, String)>, crate::error::Error> {
    let text =
        std::fs::read_to_string(path).map_err(|e| crate::error::Error::io("read", path, e))?;
    let report: report::compat::Report =
        serde_json::from_str(&text).map_err(|e| crate::error::Error::Input {
            path: path.to_path_buf(),
            line: Some(e.line()),
            message: e.to_string(),
        })?;
    Ok(report
        .oracles
        .iter()
        .map(|o| {
            let p = &o.about.provenance;
            let mut from = format!("{} `{}` {}", p.registry, p.package, p.version);
            if !p.commit.is_empty() {
                from.push_str(&format!(" (commit {})", p.commit));
            }
            (o.name.clone(), (o.identity.to_string(), from))
        })
        .collect())
}

/// The label RFC 9309 expects for a query, when it expects a verdict.
fn expected_label(e: &Expect) -> Option<Label> {
    match e {
        Expect::Verdict(Verdict::Allowed) => Some(Label::Allowed),
        Expect::Verdict(Verdict::Disallowed) => Some(Label::Disallowed),
        _ => None,
    }
}

/// Every (case, query index) an entry names, in the entry's order.
fn cells<'a>(entry: &Entry, corpus: &'a Corpus) -> Vec<(&'a Case, usize)> {
    let mut out = Vec::new();
    for r in &entry.cases {
        let Some(case) = corpus.get(&r.case) else {
            continue;
        };
        match r.query {
            Some(q) => out.push((case, q)),
            None => out.extend((0..case.queries.len()).map(|i| (case, i))),
        }
    }
    out
}

/// The input to show for each oracle: among the cells the entry pins for
/// it, one where the pin departs from the expectation, a definite one
/// before an `either`, not served over HTTP, with the smallest body (the entry's order breaks ties); oracles
/// that get the same cell share one pick.
fn picks<'a>(entry: &Entry, corpus: &'a Corpus) -> Vec<Pick<'a>> {
    let all = cells(entry, corpus);
    let mut out: Vec<Pick<'a>> = Vec::new();
    for oracle in &entry.oracles {
        let best = all
            .iter()
            .enumerate()
            .filter_map(|(pos, &(case, i))| {
                let pin = entry.pinned(oracle, &case.id, i)?;
                let expected = expected_label(&case.queries[i].expect);
                let departs = expected.as_ref() != Some(&pin);
                // A definite expectation makes the better report: an
                // `either` query shows only that readings differ.
                Some((
                    (
                        !departs,
                        expected.is_none(),
                        case.http.is_some(),
                        case.body.len(),
                        pos,
                    ),
                    case,
                    i,
                    pin,
                ))
            })
            .min_by_key(|(key, ..)| *key);
        let Some((_, case, index, pin)) = best else {
            continue;
        };
        match out
            .iter_mut()
            .find(|p| p.case.id == case.id && p.index == index)
        {
            Some(p) => p.oracles.push((oracle.clone(), pin)),
            None => out.push(Pick {
                case,
                index,
                oracles: vec![(oracle.clone(), pin)],
                reference: reference(case, index),
            }),
        }
    }
    out
}

/// What the rfc9309 reference answers on one query of a case, run in
/// process (pure Rust, always built).
fn reference(case: &Case, index: usize) -> Option<Label> {
    if case.http.is_some() {
        return None;
    }
    let mut oracle = oracles::rfc9309::Rfc9309::default();
    let answers = oracle.run(&case.body, &[case.queries[index].query.clone()]);
    let outcome: &Outcome = &answers.first()?.outcome;
    Some(outcome.pin())
}

/// The files whose text on disk differs from `files` (missing, changed),
/// and `.md` files in `dir` that the generator no longer writes.
fn differences(dir: &Path, files: &BTreeMap<String, String>) -> Vec<String> {
    let mut out: Vec<String> = files
        .iter()
        .filter(|(name, text)| std::fs::read_to_string(dir.join(name)).ok().as_ref() != Some(*text))
        .map(|(name, _)| name.clone())
        .collect();
    if let Ok(rd) = std::fs::read_dir(dir) {
        let mut extra: Vec<String> = rd
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.ends_with(".md") && !files.contains_key(n))
            .collect();
        extra.sort();
        out.extend(extra);
    }
    out
}

/// Write the changed files and delete the stale ones; files already
/// current are not touched, so a plain run on a current tree changes nothing.
fn write_files(
    dir: &Path,
    files: &BTreeMap<String, String>,
    stale: &[String],
) -> Result<(), crate::error::Error> {
    std::fs::create_dir_all(dir).map_err(|e| crate::error::Error::io("create", dir, e))?;
    for name in stale {
        let path: PathBuf = dir.join(name);
        let result = match files.get(name) {
            Some(text) => engine::write_atomic(&path, text.as_bytes()),
            None => std::fs::remove_file(&path),
        };
        result.map_err(|e| crate::error::Error::io("write", &path, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `findings --check` passes on the committed output: what the
    /// generator writes now is exactly what reports/findings/ holds.
    #[test]
    fn committed_findings_are_current() {
        let files = generate().expect("generate");
        let dir = paths::root().join("reports/findings");
        let stale = differences(&dir, &files);
        assert!(
            stale.is_empty(),
            "out of date (run `repdiff findings`): {stale:?}"
        );
    }

    /// Every write-up has every section, in order, and the index links it.
    #[test]
    fn every_write_up_has_each_section() {
        let files = generate().expect("generate");
        let index = &files["README.md"];
        assert!(files.len() > 1, "no bug entries written up");
        let corpus = paths::load_corpus().expect("corpus");
        let ledger = load_ledger(&corpus).expect("ledger");
        let notes =
            notes::load(&paths::root().join("cases/findings.yaml"), &ledger).expect("notes");
        let slow: Vec<String> = notes.slow.iter().map(|n| format!("{}.md", n.id)).collect();
        for (name, text) in files.iter().filter(|(n, _)| *n != "README.md") {
            if slow.contains(name) {
                let mut at = 0;
                for h in slow::SECTIONS {
                    let found = text[at..].find(&format!("\n{h}\n"));
                    assert!(found.is_some(), "{name}: no `{h}` after byte {at}");
                    at += found.unwrap_or(0) + 1;
                }
                assert!(
                    text.contains("repdiff check --robots "),
                    "{name}: no reproducer line"
                );
                assert!(text.contains("body:  b\""), "{name}: no escaped bytes");
                assert!(
                    index.contains(&format!("]({name})")),
                    "index does not link {name}"
                );
                continue;
            }
            let mut at = 0;
            for h in render::SECTIONS {
                let found = text[at..].find(&format!("\n{h}\n"));
                assert!(found.is_some(), "{name}: no `{h}` after byte {at}");
                at += found.unwrap_or(0) + 1;
            }
            assert!(
                text.contains("repdiff check --case "),
                "{name}: no reproducer line"
            );
            assert!(text.contains("b\""), "{name}: no escaped bytes");
            assert!(
                index.contains(&format!("]({name})")),
                "index does not link {name}"
            );
        }
    }

    /// An id that is not in the ledger is an error naming the file and line.
    #[test]
    fn unknown_id_names_file_and_line() {
        let corpus = paths::load_corpus().expect("corpus");
        let ledger = load_ledger(&corpus).expect("ledger");
        let text = "findings:\n  - id: no-such-entry\n    fix: x\n";
        let err = notes::parse(Path::new("cases/findings.yaml"), text, &ledger).unwrap_err();
        assert!(err.0.contains("cases/findings.yaml:2:"), "{}", err.0);
        assert!(err.0.contains("no-such-entry"), "{}", err.0);
    }

    /// The committed notes load, and a note for a non-bug entry is refused.
    #[test]
    fn notes_load_and_refuse_non_bugs() {
        let corpus = paths::load_corpus().expect("corpus");
        let ledger = load_ledger(&corpus).expect("ledger");
        notes::load(&paths::root().join("cases/findings.yaml"), &ledger).expect("notes");
        let leniency = ledger
            .entries
            .iter()
            .find(|e| e.classification != Classification::Bug)
            .expect("a non-bug entry");
        let text = format!("findings:\n  - id: {}\n    fix: x\n", leniency.id);
        let err = notes::parse(Path::new("f.yaml"), &text, &ledger).unwrap_err();
        assert!(err.0.contains("f.yaml:2:"), "{}", err.0);
    }

    #[test]
    fn escaping_keeps_every_byte_visible() {
        assert_eq!(
            repro::escape_bytes(b"a\r\n\t\"\\\x00\xef\xbb\xbf"),
            "a\\r\\n\\t\\\"\\\\\\x00\\xef\\xbb\\xbf"
        );
    }
}
