//! `cases/findings.yaml`: what a person wrote for a write-up that no data
//! holds, keyed by ledger entry id (the suggested fix). Kept apart from the
//! ledger so that the ledger stays about explaining cells. Every id must be
//! a ledger entry classified `bug`; anything else is an error naming the
//! file and line, as the corpus and ledger loaders do.

use crate::shared::Usage;
use engine::case::find_line;
use engine::ledger::{Classification, Ledger};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    findings: Vec<Note>,
    /// Write-ups of slow inputs (xtask/src/findings/slow.rs).
    #[serde(default)]
    slow: Vec<super::slow::SlowNote>,
    /// Per oracle, the newest upstream release and what running it showed.
    #[serde(default)]
    newest: Vec<Newest>,
}

/// The newest release of one oracle's library, as checked by running it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Newest {
    pub oracle: String,
    /// The release, as its registry names it (`protego 0.7.0`).
    pub release: String,
    /// Where the release was found and the day it was checked.
    pub checked: String,
    /// The pinned version is that release: every `findings --verify`
    /// (each CI run) re-runs the reproducers on it, so every bug entry of
    /// the oracle is still present there.
    #[serde(default)]
    pub pinned: bool,
    /// Ledger entries whose reproducer was run on that release and still
    /// shows the bug (when the release is not the pinned one).
    #[serde(default)]
    pub still: Vec<String>,
    /// Ledger entries whose bug that release no longer has, by running.
    #[serde(default)]
    pub fixed: Vec<String>,
}

/// Everything cases/findings.yaml holds.
#[derive(Debug, Default)]
pub struct Notes {
    /// Ledger entry id -> suggested fix.
    pub fixes: BTreeMap<String, String>,
    pub slow: Vec<super::slow::SlowNote>,
    /// Oracle -> its newest release.
    pub newest: BTreeMap<String, Newest>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Note {
    /// The ledger entry this note is for.
    id: String,
    /// The suggested fix, naming the library's function where possible.
    fix: String,
}

/// The notes. A missing file is no notes at all.
pub fn load(path: &Path, ledger: &Ledger) -> Result<Notes, Usage> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Notes::default()),
        Err(e) => return Err(Usage(format!("cannot read {}: {e}", path.display()))),
    };
    parse(path, &text, ledger)
}

/// Parse and check the notes against the ledger.
pub fn parse(path: &Path, text: &str, ledger: &Ledger) -> Result<Notes, Usage> {
    let raw: Raw = serde_yaml::from_str(text).map_err(|e| {
        let line = e
            .location()
            .map_or(String::new(), |l| format!(":{}", l.line()));
        Usage(format!("{}{line}: {e}", path.display()))
    })?;
    let mut out = BTreeMap::new();
    for note in raw.findings {
        let line = find_line(text, "id", &note.id).unwrap_or(1);
        let fail = |m: String| {
            Usage(format!(
                "{}:{line}: finding `{}`: {m}",
                path.display(),
                note.id
            ))
        };
        match ledger.get(&note.id) {
            None => return Err(fail("no ledger entry has this id".into())),
            Some(e) if e.classification != Classification::Bug => {
                return Err(fail(format!(
                    "the ledger classifies it `{}`; write-ups are for `bug` entries",
                    e.classification.as_str()
                )))
            }
            Some(_) => {}
        }
        if note.fix.trim().is_empty() {
            return Err(fail("empty fix".into()));
        }
        if out
            .insert(note.id.clone(), note.fix.trim().to_string())
            .is_some()
        {
            return Err(fail("duplicate id".into()));
        }
    }
    for note in &raw.slow {
        let line = find_line(text, "id", &note.id).unwrap_or(1);
        if ledger.get(&note.id).is_some() || out.contains_key(&note.id) {
            return Err(Usage(format!(
                "{}:{line}: slow finding `{}`: the id is a ledger entry's too; a write-up needs its own name",
                path.display(),
                note.id
            )));
        }
    }
    let mut newest = BTreeMap::new();
    for n in raw.newest {
        let line = find_line(text, "oracle", &n.oracle).unwrap_or(1);
        for id in n.still.iter().chain(&n.fixed) {
            let names_it = ledger.get(id).is_some_and(|e| {
                e.classification == Classification::Bug && e.oracles.contains(&n.oracle)
            });
            if !names_it {
                return Err(Usage(format!(
                    "{}:{line}: newest `{}`: `{id}` is not a bug entry naming this oracle",
                    path.display(),
                    n.oracle
                )));
            }
        }
        if n.pinned && !n.fixed.is_empty() {
            return Err(Usage(format!(
                "{}:{line}: newest `{}`: the pinned version is the newest, so nothing can be fixed in it",
                path.display(),
                n.oracle
            )));
        }
        if newest.insert(n.oracle.clone(), n).is_some() {
            return Err(Usage(format!(
                "{}:{line}: newest: oracle listed twice",
                path.display()
            )));
        }
    }
    Ok(Notes {
        fixes: out,
        slow: raw.slow,
        newest,
    })
}
