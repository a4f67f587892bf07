//! What the fuzz job leaves on disk, read back by the triage passes: the
//! persistent corpora (`fuzz/corpus/<target>/`), the findings folder with
//! its hit counts, the known-signature list, and the in-process replay
//! every minimisation asks. The fuzz processes write these through
//! fuzzcore's types (`record`, `triage`), so reading them here needs no
//! fuzzing toolchain; `cargo xtask fuzz` (which does) reads them through
//! this module too.

use crate::shared::Usage;
use engine::oracle::{Answer, Ask, Oracle, Outcome, Query};
use fuzzcore::record::FindingRecord;
use fuzzcore::triage;
use oracles::rfc9309::{Readings, Robots};
use std::path::{Path, PathBuf};

/// The fuzz crate's folder of the checkout (`--root`).
pub fn fuzz_dir() -> PathBuf {
    crate::paths::root().join("fuzz")
}

/// One target's persistent corpus.
pub fn corpus_dir(target: &str) -> PathBuf {
    fuzz_dir().join("corpus").join(target)
}

/// Where a run's findings live: the committed ones (`fuzz/findings/`,
/// copied in by [`seed_findings`]) plus what this run found, with hit
/// counts. Ignored by git, so a fuzz run changes no tracked file; a finding
/// worth keeping is copied to `fuzz/findings/` in a commit of its own.
pub fn findings_dir() -> PathBuf {
    crate::paths::run_dir().join("fuzz/findings")
}

/// The committed findings, kept in git as results.
pub fn committed_findings_dir() -> PathBuf {
    fuzz_dir().join("findings")
}

/// Copy every committed finding into the run's folder (those already there
/// keep their run's hit counts), so known findings stay known.
pub fn seed_findings() {
    let Ok(entries) = std::fs::read_dir(committed_findings_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let to = findings_dir().join(e.file_name());
        if to.exists() || !e.path().is_dir() {
            continue;
        }
        let _ = std::fs::create_dir_all(&to);
        if let Ok(files) = std::fs::read_dir(e.path()) {
            for f in files.flatten().filter(|f| f.path().is_file()) {
                let _ = std::fs::copy(f.path(), to.join(f.file_name()));
            }
        }
    }
}

pub fn known_path() -> PathBuf {
    fuzz_dir().join("known-signatures.json")
}

/// A finding named by its directory or its hash.
pub fn resolve_finding(which: &str) -> Result<PathBuf, Usage> {
    let p = PathBuf::from(which);
    let dir = if p.join("finding.json").is_file() {
        p
    } else {
        findings_dir().join(which)
    };
    if dir.join("finding.json").is_file() {
        Ok(dir)
    } else {
        Err(Usage(format!(
            "no finding `{which}` (neither a directory with finding.json nor a hash under {})",
            findings_dir().display()
        )))
    }
}

/// Every oracle the fuzz loop runs, in its triage order
/// (`fuzzcore::lineup` with this process's `REPDIFF_FUZZ_*` settings: the
/// built-ins in process, the external ones as workers unless
/// `REPDIFF_FUZZ_EXTERNAL=0`); one that cannot start is
/// an error naming its fix (as everywhere in repdiff: never silently
/// skipped).
pub fn make_oracles() -> Result<Vec<Box<dyn Oracle>>, String> {
    let settings = fuzzcore::Settings::from_env()?;
    let (lineup, missing) = fuzzcore::lineup(&settings, None);
    if missing.is_empty() {
        Ok(lineup.oracles.into_iter().map(|(o, _)| o).collect())
    } else {
        Err(missing.join("\n"))
    }
}

/// The known list from a corpus run through every oracle of the loop.
// String error: xtask's fuzz loop shares it and prints the message as is.
pub fn derive_known() -> Result<triage::Known, String> {
    let corpus = engine::case::load_dir(&crate::paths::corpus_dir()).map_err(|e| e.to_string())?;
    let ledger_text = crate::paths::ledger_text().map_err(|u| u.0)?;
    // The ledger may name external oracles too (as in `conformance`).
    let names = crate::select::known_names();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let ledger = crate::paths::load_ledger(&corpus, &names).map_err(|e| e.to_string())?;
    let oracles = make_oracles()?;
    let names: Vec<String> = oracles.iter().map(|o| o.name().to_string()).collect();
    let stamp = triage::stamp(&corpus, &ledger_text, &names);
    let cases: Vec<&engine::case::Case> = corpus.cases.iter().collect();
    let result = engine::run::run(&cases, oracles, Vec::new(), &ledger, &|_| None, &mut |_| {});
    Ok(triage::derive_known(&corpus, &ledger, &result, stamp))
}

pub fn write_known(known: &triage::Known) {
    let _ = engine::write_atomic(&known_path(), known.to_json().as_bytes());
}

/// Every oracle in process, for replaying one (body, agent, URL).
pub struct Probe {
    oracles: Vec<Box<dyn Oracle>>,
    readings: Readings,
    scratch: Vec<u8>,
}

/// One replay: every oracle's answer, and the triage when they disagree.
pub struct Replay {
    pub answers: Vec<(String, Answer)>,
    pub triaged: Option<triage::Triaged>,
}

impl Probe {
    // String error: xtask's fuzz loop shares it and prints the message as is.
    pub fn new() -> Result<Probe, String> {
        Ok(Probe {
            oracles: make_oracles()?,
            readings: Readings::default(),
            scratch: Vec::new(),
        })
    }

    /// The pair (reference, `oracle`) for root-cause triage.
    pub fn pair(&mut self, oracle: &str) -> Option<cause::OraclePair<'_>> {
        cause::OraclePair::of(&mut self.oracles, triage::REFERENCE, oracle)
    }

    pub fn replay(&mut self, body: &[u8], agent: &str, url: &str) -> Replay {
        let q = [Query {
            ask: Ask::CanFetch,
            agent: agent.to_string(),
            url: url.to_string(),
        }];
        let answers: Vec<(String, Answer)> = self
            .oracles
            .iter_mut()
            .map(|o| {
                let a = o.run(body, &q).pop().unwrap_or_else(|| {
                    Answer::from(Outcome::Crash {
                        detail: "no answer".into(),
                    })
                });
                (o.name().to_string(), a)
            })
            .collect();
        let row: Vec<(&str, &Outcome)> = answers
            .iter()
            .map(|(n, a)| (n.as_str(), &a.outcome))
            .collect();
        let triaged = if triage::disagrees(&row) {
            let robots = Robots::parse(body, &self.readings);
            let f = triage::feature(&robots, agent, url, &mut self.scratch);
            Some(triage::triage_row(&row, &f))
        } else {
            None
        };
        Replay { answers, triaged }
    }
}

/// A finding on disk.
#[derive(Debug, Clone)]
pub struct Finding {
    pub dir: PathBuf,
    pub hash: String,
    pub record: FindingRecord,
    pub body: Vec<u8>,
}

impl Finding {
    /// The finding in `dir`; `Ok(None)` when `dir` holds no `finding.json`
    /// (not a finding, or one a fuzz process is still writing), an error
    /// when it holds one that does not parse or has no `robots.txt`.
    pub fn load(dir: &Path) -> Result<Option<Finding>, String> {
        let path = dir.join("finding.json");
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(None);
        };
        let record: FindingRecord =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let body = std::fs::read(dir.join("robots.txt"))
            .map_err(|e| format!("{}: {e}", dir.join("robots.txt").display()))?;
        Ok(Some(Finding {
            dir: dir.to_path_buf(),
            hash: record.hash.clone(),
            record,
            body,
        }))
    }

    pub fn new_part(&self) -> &[triage::Novel] {
        &self.record.new
    }

    /// Total hits: the compacted count plus every process's count file.
    pub fn hits(&self) -> u64 {
        let mut n: u64 = std::fs::read_to_string(self.dir.join("hits.total"))
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        if let Ok(rd) = std::fs::read_dir(self.dir.join("hits")) {
            for e in rd.flatten() {
                n += std::fs::read_to_string(e.path())
                    .ok()
                    .and_then(|s| s.trim().parse::<u64>().ok())
                    .unwrap_or(0);
            }
        }
        n
    }

    /// Fold the per-process hit files into `hits.total`.
    pub fn compact_hits(&self) {
        let total = self.hits();
        if std::fs::write(self.dir.join("hits.total"), format!("{total}\n")).is_ok() {
            let _ = std::fs::remove_dir_all(self.dir.join("hits"));
        }
    }

    /// Is its new part still unexplained by `known`?
    pub fn untriaged(&self, known: &triage::Known) -> bool {
        self.new_part().iter().any(|n| !n.known_by(known))
            && !known.signatures.contains(&self.record.signature)
    }
}

/// Every finding of the run's findings folder, oldest first; a malformed
/// one is an error naming it.
pub fn all_findings() -> Result<Vec<Finding>, String> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(findings_dir()) {
        for e in rd.flatten() {
            out.extend(Finding::load(&e.path())?);
        }
    }
    out.sort_by_key(|f| (f.record.found_unix, f.hash.clone()));
    Ok(out)
}
