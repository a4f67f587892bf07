//! The known-divergence ledger (`cases/divergences.yaml`).
//!
//! Every cell that deviates from the expectation, errors, or splits an
//! `either` query must be explained by an entry, or the run fails; an entry
//! that explains nothing is stale. This is what keeps a green run meaningful:
//! new behaviour can never hide behind an old explanation.

use crate::case::{find_line, Corpus, LoadError};
pub use crate::cause::{Cause, CauseName};
pub use crate::oracle::Label;
use crate::oracle::Outcome;
pub use crate::query_ref::QueryRef;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Classification {
    /// The parser is wrong by its own documentation or the RFC's MUST.
    Bug,
    /// A deliberate tolerance beyond the RFC (Google's typos, say).
    Leniency,
    /// The RFC admits more than one reading.
    SpecAmbiguity,
    /// The library's contract puts work on the caller (Google wants a
    /// %-encoded URI and a bare product token).
    ApiContract,
    /// A choice the harness made when feeding the library.
    HarnessConvention,
}

impl Classification {
    pub fn as_str(self) -> &'static str {
        match self {
            Classification::Bug => "bug",
            Classification::Leniency => "leniency",
            Classification::SpecAmbiguity => "spec-ambiguity",
            Classification::ApiContract => "api-contract",
            Classification::HarnessConvention => "harness-convention",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub id: String,
    pub title: String,
    /// The oracles whose cells this entry explains.
    pub oracles: Vec<String>,
    pub classification: Classification,
    /// RFC 9309 section(s), e.g. "§2.2.1".
    pub rfc: String,
    /// Upstream issue URL, or "none known".
    pub upstream: String,
    /// Case ids, or `case-id#N` for the N-th query (1-based) of a case.
    pub cases: Vec<QueryRef>,
    /// What each oracle answers on the cells this entry explains (see
    /// [`Label`]): a cell is explained only when its actual outcome is
    /// the pinned one, so a deviation that turns into an error, a crash or
    /// the opposite verdict is untriaged again.
    pub outcomes: BTreeMap<String, Pin>,
    pub explanation: String,
    /// The root cause, in the words fuzz triage uses: a name from the cause
    /// catalogue (`cause::CATALOGUE`, docs/causes.md) that the
    /// classifier gave for this entry's cells, or `uncatalogued: <reason>`.
    /// The engine knows no catalogue (it names no parser behaviour), so
    /// [`Cause`] checks the form; the `cause` crate's tests check every name
    /// against the catalogue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<Cause>,
    /// The other catalogue causes the classifier names for some of this
    /// entry's cells, when they split (`cause:` names the most common): what
    /// lets a cause found elsewhere (a census signature, a fuzz finding) be
    /// linked to this entry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_causes: Vec<CauseName>,
    /// Filled by the loader.
    #[serde(skip)]
    pub line: usize,
}

/// The pinned outcome of one oracle: one label for every cell the entry
/// explains, or one per case reference (`case#N` is looked up before `case`).
///
/// Labels are typed ([`Label`]): a label no outcome has is refused where
/// the file is read, with its line, and a pin compares with an answer as a
/// value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, try_from = "RawPin")]
pub enum Pin {
    All(Label),
    PerCase(BTreeMap<QueryRef, Label>),
}

/// A pin as text, read first so that a bad label is reported as
/// [`Label`]'s parse error (serde's untagged enums say only that no
/// variant matched).
#[derive(Deserialize)]
#[serde(untagged)]
enum RawPin {
    All(String),
    PerCase(BTreeMap<QueryRef, String>),
}

impl TryFrom<RawPin> for Pin {
    type Error = String;
    // String: a token that does not parse; its message is the whole error, and
    // the loader that read it adds the file and line.
    fn try_from(raw: RawPin) -> Result<Pin, String> {
        Ok(match raw {
            RawPin::All(label) => Pin::All(label.parse()?),
            RawPin::PerCase(map) => Pin::PerCase(
                map.into_iter()
                    .map(|(r, label)| Ok((r, label.parse()?)))
                    .collect::<Result<_, String>>()?,
            ),
        })
    }
}

impl Entry {
    /// Does this entry name the cell (`oracle`, `case`, query `index`
    /// 0-based), whatever the oracle answered?
    pub fn names(&self, oracle: &str, case: &str, index: usize) -> bool {
        self.oracles.iter().any(|o| o == oracle) && self.cases.iter().any(|r| r.names(case, index))
    }

    /// Does this entry explain the cell: does it name it, and is the
    /// oracle's actual outcome the pinned one?
    pub fn covers(&self, oracle: &str, case: &str, index: usize, outcome: &Outcome) -> bool {
        self.names(oracle, case, index) && self.pinned(oracle, case, index) == Some(outcome.pin())
    }

    /// The outcome pinned for this oracle on this cell, if any.
    pub fn pinned(&self, oracle: &str, case: &str, index: usize) -> Option<Label> {
        match self.outcomes.get(oracle)? {
            Pin::All(label) => Some(label.clone()),
            Pin::PerCase(map) => map
                .get(&QueryRef::one(case, index))
                .or_else(|| map.get(&QueryRef::case(case)))
                .cloned(),
        }
    }

    pub fn case_ids(&self) -> BTreeSet<&str> {
        self.cases.iter().map(|r| r.case.as_str()).collect()
    }
}

/// Check an entry's `outcomes` against its `oracles` and `cases`.
// String: the message alone; the loader wraps it in a `LoadError` with the
// file and line.
fn check_pins(entry: &Entry) -> Result<(), String> {
    for o in &entry.oracles {
        if !entry.outcomes.contains_key(o) {
            return Err(format!(
                "no pinned outcome for `{o}` (outcomes: {o}: allowed | disallowed | error:KIND | crash | ...)"
            ));
        }
    }
    for (o, pin) in &entry.outcomes {
        if !entry.oracles.contains(o) {
            return Err(format!("outcomes names `{o}`, which is not in oracles"));
        }
        if let Pin::PerCase(map) = pin {
            for r in map.keys() {
                let listed = entry
                    .cases
                    .iter()
                    .any(|c| c == r || (c.query.is_none() && c.case == r.case));
                if !listed {
                    return Err(format!("`{o}`: pin for `{r}`, which is not in cases"));
                }
            }
        }
    }
    Ok(())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLedger {
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, Default)]
pub struct Ledger {
    pub entries: Vec<Entry>,
}

impl Ledger {
    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// Every pin that no longer says what its oracle answered. A run only
    /// asks the ledger about cells that need explaining, so a pin on a cell
    /// that does not (the majority side of an `either` query, a match) was
    /// never checked: `leading-bom-stripped-or-kept` said protego keeps a
    /// leading BOM and pinned `allowed` while protego, fed as Scrapy feeds
    /// it, strips it and answers `disallowed` (issue 53). Each cell is
    /// `(oracle, case, 0-based query, answer)`.
    pub fn drifted<'a>(
        &self,
        cells: impl IntoIterator<Item = (&'a str, &'a str, usize, &'a Outcome)>,
    ) -> Vec<Drift> {
        let mut out = Vec::new();
        for (oracle, case, query, outcome) in cells {
            for e in &self.entries {
                if !e.names(oracle, case, query) {
                    continue;
                }
                let Some(pinned) = e.pinned(oracle, case, query) else {
                    continue;
                };
                let answered = outcome.pin();
                if pinned != answered {
                    out.push(Drift {
                        entry: e.id.clone(),
                        oracle: oracle.to_string(),
                        case: case.to_string(),
                        query,
                        pinned,
                        answered,
                    });
                }
            }
        }
        out.sort_by(|a, b| {
            (&a.entry, &a.oracle, &a.case, a.query).cmp(&(&b.entry, &b.oracle, &b.case, b.query))
        });
        out
    }
}

/// A ledger pin that differs from what its oracle answered on a cell the
/// entry names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drift {
    pub entry: String,
    pub oracle: String,
    pub case: String,
    /// 0-based.
    pub query: usize,
    pub pinned: Label,
    pub answered: Label,
}

impl std::fmt::Display for Drift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} on {}#{} is pinned {} but answered {}",
            self.entry,
            self.oracle,
            self.case,
            self.query + 1,
            self.pinned,
            self.answered
        )
    }
}

/// Load and check a ledger kept in several files, in the order given (a
/// checkout's are `oracles::ledger_files`), against the corpus and the
/// oracle names known to this build: a reference to a case or an oracle
/// that does not exist is an error, not a silently dead entry. One file per
/// oracle keeps a parser's entries together; ids are unique across all.
pub fn load_files(
    files: &[std::path::PathBuf],
    corpus: &Corpus,
    known_oracles: &[&str],
) -> Result<Ledger, LoadError> {
    let mut ledger = Ledger {
        entries: Vec::new(),
    };
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| LoadError {
            file: file.clone(),
            line: None,
            message: format!("cannot read ledger: {e}"),
        })?;
        let part = parse(file, &text, corpus, known_oracles)?;
        for entry in part.entries {
            if ledger.get(&entry.id).is_some() {
                return Err(LoadError {
                    file: file.clone(),
                    line: Some(entry.line),
                    message: format!("ledger entry `{}`: duplicate id", entry.id),
                });
            }
            ledger.entries.push(entry);
        }
    }
    Ok(ledger)
}

pub fn parse(
    path: &Path,
    text: &str,
    corpus: &Corpus,
    known_oracles: &[&str],
) -> Result<Ledger, LoadError> {
    let raw: RawLedger = serde_yaml::from_str(text).map_err(|e| LoadError {
        file: path.to_path_buf(),
        line: e.location().map(|l| l.line()),
        message: e.to_string(),
    })?;
    let mut seen = BTreeSet::new();
    let mut entries = Vec::new();
    for mut entry in raw.entries {
        entry.line = find_line(text, "id", &entry.id).unwrap_or(1);
        let err = |message: String| LoadError {
            file: path.to_path_buf(),
            line: Some(entry.line),
            message: format!("ledger entry `{}`: {message}", entry.id),
        };
        if !seen.insert(entry.id.clone()) {
            return Err(err("duplicate id".into()));
        }
        if entry.oracles.is_empty() || entry.cases.is_empty() {
            return Err(err("needs at least one oracle and one case".into()));
        }
        if entry.upstream.trim().is_empty() || entry.explanation.trim().is_empty() {
            return Err(err(
                "upstream (a URL or \"none known\") and explanation must not be empty".into(),
            ));
        }
        for o in &entry.oracles {
            if !known_oracles.contains(&o.as_str()) {
                return Err(err(format!(
                    "unknown oracle `{o}` (known: {})",
                    known_oracles.join(", ")
                )));
            }
        }
        check_pins(&entry).map_err(err)?;
        for r in &entry.cases {
            let Some(case) = corpus.get(&r.case) else {
                return Err(err(format!("unknown case `{}`", r.case)));
            };
            if r.query.is_some_and(|q| q >= case.queries.len()) {
                return Err(err(format!(
                    "`{r}`: case `{}` has queries 1..={}",
                    r.case,
                    case.queries.len()
                )));
            }
        }
        entries.push(entry);
    }
    Ok(Ledger { entries })
}
