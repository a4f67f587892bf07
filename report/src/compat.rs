//! `compat.json`: a run as data, the one schema both written by
//! `conformance` and read back by the site, `report diff` and the history, so
//! the writer and the readers cannot drift apart field by field.
//!
//! The format is versioned ([`FORMAT`]); a reader that meets a version it
//! does not know says so instead of guessing. The site can be rendered from a
//! report alone (no re-run, no corpus needed): the body travels as hex.

use crate::error::ReadError;
use engine::case::{Case, HttpSpec};
use engine::ledger::{Entry, Ledger};
use engine::oracle::Outcome;
use engine::oracle::{About, Answer, Capabilities, Unavailable};
use engine::run::{ReferenceRun, RunResult};
use engine::signature::Signature;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

pub use engine::run::Status;

/// The version this build writes. Bump it when a field changes meaning or
/// disappears, and keep reading the old one (see [`Report::parse`]).
pub const FORMAT: &str = "repdiff-compat/2";

/// Every version [`Report::parse`] accepts.
pub const READABLE: &[&str] = &[FORMAT, "repdiff-compat/1"];

/// What a query expects, as compat.json holds it: a verdict (`"allowed"`,
/// `"disallowed"`, `"either"`, as /1 wrote it too), a typed value
/// (`{"type": "int", "value": 3}`), or, read from a report written before
/// values were typed, the value as that report displayed it. Displayed as
/// the case model displays its expectation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Expected {
    Verdict(engine::case::Verdict),
    Value(engine::oracle::Value),
    /// A value's text from an older report; never written by this build.
    Shown(String),
}

impl From<&engine::case::Expect> for Expected {
    fn from(e: &engine::case::Expect) -> Expected {
        match e {
            engine::case::Expect::Verdict(v) => Expected::Verdict(*v),
            engine::case::Expect::Value(v) => Expected::Value(v.clone()),
        }
    }
}

impl std::fmt::Display for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expected::Verdict(v) => engine::case::Expect::Verdict(*v).fmt(f),
            Expected::Value(v) => v.fmt(f),
            Expected::Shown(text) => f.write_str(text),
        }
    }
}

/// The profile whose expectations are the corpus's own (`expect:`), and the
/// ledger's: the first column of the profile matrix.
pub const RFC9309: &str = "rfc9309";

/// What one expectation profile other than RFC 9309 expects of a query:
/// the case's hand pin for it when there is one (with its citation), else
/// what the profile's reference answered. Only `allowed` or `disallowed`:
/// a query the reference could not decide has no entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileExpect {
    pub expect: String,
    /// The pin's citation; absent when the reference decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cite: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OracleRec {
    pub name: String,
    /// The library and its version; `/1` called it `version`.
    #[serde(alias = "version")]
    pub identity: engine::oracle::Identity,
    /// Structured identity and provenance (absent in snapshots before
    /// protocol 2).
    #[serde(default)]
    pub about: About,
    #[serde(default)]
    pub capabilities: Capabilities,
    #[serde(default)]
    pub millis: u128,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QueryRec {
    /// 1-based.
    pub index: usize,
    pub ask: engine::oracle::Ask,
    #[serde(default)]
    pub agent: String,
    #[serde(default)]
    pub url: String,
    pub expect: Expected,
    pub basis: String,
    #[serde(default)]
    pub why: Option<String>,
    /// The agreement-class signature of the oracles' answers.
    #[serde(default)]
    pub signature: Signature,
    /// Profile name -> what it expects here (absent before the profile
    /// matrix, and for queries no profile decides).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub profiles: BTreeMap<String, ProfileExpect>,
}

impl QueryRec {
    /// Scored when matched: anything but `either`, where any verdict would do.
    pub fn definite(&self) -> bool {
        self.expect != Expected::Verdict(engine::case::Verdict::Either)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CaseRec {
    pub id: String,
    pub title: String,
    pub tags: Vec<String>,
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub file: String,
    #[serde(default)]
    pub line: usize,
    /// Metamorphic family: variants that must get the same verdicts.
    #[serde(default)]
    pub family: Option<String>,
    #[serde(default)]
    pub http: Option<HttpSpec>,
    /// The body, as bytes in hex, so the report alone can replay a case.
    pub body_hex: String,
    pub queries: Vec<QueryRec>,
}

impl CaseRec {
    /// The body's exact bytes. [`Report::parse`] has checked the hex, so
    /// only a hand-built record can come out empty here.
    pub fn body(&self) -> Vec<u8> {
        engine::case::decode_hex(&self.body_hex).unwrap_or_default()
    }

    /// The corpus file relative to the repository (`cases/corpus/seed.yaml`).
    pub fn file_rel(&self) -> &str {
        match self.file.find("cases/") {
            Some(i) => &self.file[i..],
            None => &self.file,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CellRec {
    pub case: String,
    /// 0-based, as in the JSON.
    pub query: usize,
    pub oracle: String,
    pub answer: Answer,
    pub status: Status,
    #[serde(default)]
    pub triaged_by: Option<String>,
}

impl CellRec {
    /// The query this cell answers (written `case#N`, 1-based).
    pub fn query_ref(&self) -> engine::query_ref::QueryRef {
        engine::query_ref::QueryRef::one(&self.case, self.query)
    }
    pub fn label(&self) -> String {
        self.answer.outcome.label()
    }
    pub fn untriaged(&self) -> bool {
        self.status.needs_triage() && self.triaged_by.is_none()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub format: String,
    #[serde(default)]
    pub generated_unix: u64,
    pub corpus_hash: String,
    #[serde(default)]
    pub millis: u128,
    pub oracles: Vec<OracleRec>,
    #[serde(default)]
    pub unavailable: Vec<Unavailable>,
    /// Per oracle, as [`crate::score::cards`] counts them; written for
    /// readers without this crate, recomputed from the cells by this one.
    #[serde(default)]
    pub scores: BTreeMap<String, Score>,
    /// The expectation profiles' references asked beside the oracles
    /// (`robots-1996`, ...): references, not parsers, so they have no cells.
    /// Absent in snapshots before the profile matrix.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub profiles: Vec<OracleRec>,
    /// Oracle -> profile -> counts, as [`crate::score::profile_matrix`]
    /// counts them; written for readers without this crate.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub profile_matrix: BTreeMap<String, BTreeMap<String, Score>>,
    /// Oracle -> the profile it is closest to
    /// ([`crate::score::closest_profiles`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub closest_profile: BTreeMap<String, String>,
    pub cases: Vec<CaseRec>,
    pub cells: Vec<CellRec>,
    #[serde(default)]
    pub stale: Vec<String>,
    /// The ledger entries the run was triaged against (`/2`), so the site
    /// and a publish need no checkout's ledger, and a ledger edit after the
    /// run cannot mix into its pages. `/1` reports carry none; their site
    /// reads the checkout's ledger.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ledger: Vec<Entry>,
}

/// Counts of one oracle's cells: an `either` query that matched is not
/// scored (any verdict would do).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Score {
    pub matched: usize,
    pub deviated: usize,
    pub failed: usize,
    pub split: usize,
    pub unsupported: usize,
    #[serde(default)]
    pub triaged: usize,
    #[serde(default)]
    pub untriaged: usize,
}

impl Score {
    pub(crate) fn add(&mut self, cell: &CellRec, definite: bool) {
        self.count(cell.status, cell.triaged_by.is_some(), definite);
    }

    /// Count one cell of `status`; `triaged`: a ledger entry explains it;
    /// `definite`: its query's expectation is not `either`.
    pub fn count(&mut self, status: Status, triaged: bool, definite: bool) {
        self.count_status(status, definite);
        if status.needs_triage() {
            if triaged {
                self.triaged += 1;
            } else {
                self.untriaged += 1;
            }
        }
    }

    /// Count `status` alone, for a comparison no ledger applies to (the
    /// profile matrix: profiles are never triaged).
    pub(crate) fn count_status(&mut self, status: Status, definite: bool) {
        match status {
            Status::Match if definite => self.matched += 1,
            Status::Match => {}
            Status::Deviate => self.deviated += 1,
            Status::Failed => self.failed += 1,
            Status::Split => self.split += 1,
            Status::Unsupported => self.unsupported += 1,
        }
    }

    /// Cells with a definite expectation that the oracle answered.
    pub fn scored(&self) -> usize {
        self.matched + self.deviated + self.failed
    }

    /// Matched share of the scored cells; `None` when nothing was scored.
    pub fn share(&self) -> Option<f64> {
        (self.scored() > 0).then(|| 100.0 * self.matched as f64 / self.scored() as f64)
    }

    /// [`Score::share`], 0 when nothing was scored.
    pub fn percent(&self) -> f64 {
        self.share().unwrap_or(0.0)
    }
}

/// The key of one cell: case id, 0-based query, oracle.
pub type CellKey = (String, usize, String);

impl Report {
    /// A run as its report without its counts (`scores`, the profile
    /// matrix and closest profiles stay empty): [`Report::from_run`], in
    /// `score.rs`, fills them, so the record knows no scoring.
    pub(crate) fn unscored(
        result: &RunResult,
        cases: &[&Case],
        ledger: &Ledger,
        corpus_hash: &str,
        base: &Path,
    ) -> Report {
        let sigs: BTreeMap<(&str, usize), &Signature> = result
            .signatures
            .iter()
            .map(|s| ((s.case.as_str(), s.query), &s.signature))
            .collect();
        Report {
            format: FORMAT.to_string(),
            generated_unix: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
            corpus_hash: corpus_hash.to_string(),
            millis: result.millis,
            oracles: result.oracles.iter().map(OracleRec::from_run).collect(),
            unavailable: result.unavailable.clone(),
            scores: BTreeMap::new(),
            profiles: result
                .references
                .iter()
                .map(|r| OracleRec::from_run(&r.info))
                .collect(),
            profile_matrix: BTreeMap::new(),
            closest_profile: BTreeMap::new(),
            cases: cases
                .iter()
                .enumerate()
                .map(|(ci, c)| CaseRec::from_case(c, base, &sigs, ci, &result.references))
                .collect(),
            cells: result.cells.iter().map(CellRec::from_run).collect(),
            stale: result.stale.clone(),
            ledger: ledger.entries.clone(),
        }
    }

    /// The columns of the profile matrix: `rfc9309`, then every profile
    /// whose reference ran; none for a report without profiles.
    pub fn profile_names(&self) -> Vec<String> {
        if self.profiles.is_empty() {
            return Vec::new();
        }
        std::iter::once(RFC9309.to_string())
            .chain(self.profiles.iter().map(|p| p.name.clone()))
            .collect()
    }

    /// The `compat.json` text. (String: serialising this type fails only on a
    /// bug; the message is all there is to say.)
    pub fn to_json(&self) -> Result<String, String> {
        serde_json::to_string_pretty(self).map_err(|e| format!("cannot serialise the report: {e}"))
    }

    /// Parse a `compat.json`; anything else is an error that says what it got.
    /// (String: text without a file; [`Report::load`] adds it as
    /// [`ReadError::Invalid`].)
    pub fn parse(text: &str) -> Result<Report, String> {
        let report: Report = serde_json::from_str(text)
            .map_err(|e| format!("not a repdiff compat.json (expected format {FORMAT}): {e}"))?;
        if !READABLE.contains(&report.format.as_str()) {
            return Err(format!(
                "format {:?} is not one this build reads ({})",
                report.format,
                READABLE.join(", ")
            ));
        }
        for c in &report.cases {
            engine::case::decode_hex(&c.body_hex)
                .map_err(|e| format!("case {}: body_hex: {e}", c.id))?;
            if let Some(q) = c.queries.iter().enumerate().find(|(i, q)| q.index != i + 1) {
                return Err(format!(
                    "case {}: query {} is numbered {}",
                    c.id,
                    q.0 + 1,
                    q.1.index
                ));
            }
        }
        Ok(report)
    }

    /// [`Report::parse`] of a file; errors name it.
    pub fn load(path: &Path) -> Result<Report, ReadError> {
        let text = std::fs::read_to_string(path).map_err(|e| ReadError::read(path, e))?;
        Report::parse(&text).map_err(|e| ReadError::invalid(path, e))
    }

    pub fn case(&self, id: &str) -> Option<&CaseRec> {
        self.cases.iter().find(|c| c.id == id)
    }

    pub fn oracle(&self, name: &str) -> Option<&OracleRec> {
        self.oracles.iter().find(|o| o.name == name)
    }

    pub fn queries(&self) -> usize {
        self.cases.iter().map(|c| c.queries.len()).sum()
    }

    /// Every cell by (case, query, oracle).
    pub fn cell_map(&self) -> BTreeMap<CellKey, &CellRec> {
        self.cells
            .iter()
            .map(|c| ((c.case.clone(), c.query, c.oracle.clone()), c))
            .collect()
    }

    /// The cells of one case, by (query, oracle).
    pub fn cells_by_case(&self) -> BTreeMap<&str, Vec<&CellRec>> {
        let mut out: BTreeMap<&str, Vec<&CellRec>> = BTreeMap::new();
        for c in &self.cells {
            out.entry(c.case.as_str()).or_default().push(c);
        }
        out
    }

    pub fn untriaged(&self) -> impl Iterator<Item = &CellRec> {
        self.cells.iter().filter(|c| c.untriaged())
    }
}

impl OracleRec {
    fn from_run(o: &engine::run::OracleInfo) -> OracleRec {
        OracleRec {
            name: o.name.clone(),
            identity: o.identity.clone(),
            about: o.about.clone(),
            capabilities: o.capabilities,
            millis: o.millis,
        }
    }
}

impl CellRec {
    fn from_run(c: &engine::run::Cell) -> CellRec {
        CellRec {
            case: c.case.clone(),
            query: c.query,
            oracle: c.oracle.clone(),
            answer: c.answer.clone(),
            status: c.status,
            triaged_by: c.triaged_by.clone(),
        }
    }
}

impl CaseRec {
    /// `ci`: the case's index in the run, which indexes the references'
    /// answers.
    fn from_case(
        c: &Case,
        base: &Path,
        sigs: &BTreeMap<(&str, usize), &Signature>,
        ci: usize,
        refs: &[ReferenceRun],
    ) -> CaseRec {
        CaseRec {
            id: c.id.clone(),
            title: c.title.clone(),
            tags: c.tags.clone(),
            source: c.source.clone(),
            file: c
                .file
                .strip_prefix(base)
                .unwrap_or(&c.file)
                .display()
                .to_string(),
            line: c.line,
            family: c.family.clone(),
            http: c.http.clone(),
            body_hex: c.body.iter().map(|b| format!("{b:02x}")).collect(),
            queries: c
                .queries
                .iter()
                .enumerate()
                .map(|(i, q)| QueryRec {
                    index: i + 1,
                    ask: q.query.ask,
                    agent: q.query.agent.clone(),
                    url: q.query.url.clone(),
                    expect: Expected::from(&q.expect),
                    basis: q.basis.clone(),
                    why: q.why.clone(),
                    signature: sigs
                        .get(&(c.id.as_str(), i))
                        .map(|s| (*s).clone())
                        .unwrap_or_default(),
                    profiles: profile_expects(q, ci, i, refs),
                })
                .collect(),
        }
    }
}

/// What each profile that ran expects of query `qi` of case `ci`: its pin,
/// else its reference's verdict. Pins of profiles that did not run are
/// left out, so a column never mixes pins with nothing.
fn profile_expects(
    q: &engine::case::CaseQuery,
    ci: usize,
    qi: usize,
    refs: &[ReferenceRun],
) -> BTreeMap<String, ProfileExpect> {
    let mut out = BTreeMap::new();
    for r in refs {
        let name = &r.info.name;
        let expect = match q.profiles.get(name) {
            Some(pin) => ProfileExpect {
                expect: engine::case::Expect::Verdict(pin.expect).to_string(),
                cite: Some(pin.cite.clone()),
            },
            None => match r.answers.get(ci).and_then(|a| a.get(qi)) {
                Some(o @ (Outcome::Allowed | Outcome::Disallowed)) => ProfileExpect {
                    expect: o.label(),
                    cite: None,
                },
                _ => continue,
            },
        };
        out.insert(name.clone(), expect);
    }
    out
}

/// The RFC 9309 section a query's basis cites (`RFC 9309 §2.2.1 MUST (...)`
/// gives `§2.2.1`); a convention gives `convention`.
pub fn section_of(basis: &str) -> String {
    let Some(rest) = basis.strip_prefix("RFC 9309") else {
        return "convention".into();
    };
    let rest = rest.trim_start();
    let Some(num) = rest.strip_prefix('§') else {
        return "RFC 9309".into();
    };
    let n: String = num
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let n = n.trim_end_matches('.');
    if n.is_empty() {
        "RFC 9309".into()
    } else {
        format!("§{n}")
    }
}

/// Sections in document order (§2.2 < §2.2.1 < §2.10 < §5.1 < convention).
pub fn section_order(s: &str) -> (u8, Vec<u32>, String) {
    match s.strip_prefix('§') {
        Some(n) => (
            0,
            n.split('.')
                .map(|p| p.parse().unwrap_or(u32::MAX))
                .collect(),
            String::new(),
        ),
        None => (1, Vec::new(), s.to_string()),
    }
}

/// RFC 9309's section titles, for headings.
pub fn section_title(s: &str) -> &'static str {
    match s {
        "§1" => "Introduction",
        "§2" => "Specification",
        "§2.1" => "Protocol Definition",
        "§2.2" => "Formal Syntax",
        "§2.2.1" => "The User-Agent Line",
        "§2.2.2" => "The \"Allow\" and \"Disallow\" Lines",
        "§2.2.3" => "Special Characters",
        "§2.2.4" => "Other Records",
        "§2.3" => "Access Method",
        "§2.3.1" => "Access Results",
        "§2.3.1.1" => "Successful Access",
        "§2.3.1.2" => "Redirects",
        "§2.3.1.3" => "\"Unavailable\" Status",
        "§2.3.1.4" => "\"Unreachable\" Status",
        "§2.3.1.5" => "Parsing Errors",
        "§2.4" => "Caching",
        "§2.5" => "Limits",
        "§3" => "Security Considerations",
        "§5" => "Examples",
        "§5.1" => "Simple Example",
        "§5.2" => "Longest Match",
        "convention" => "no RFC rule: a stated convention",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_from_basis() {
        assert_eq!(section_of("RFC 9309 §2.2.1 MUST (x)"), "§2.2.1");
        assert_eq!(section_of("RFC 9309 §2.2 ABNF"), "§2.2");
        assert_eq!(section_of("RFC 9309 §5.1 (foobot)"), "§5.1");
        assert_eq!(section_of("RFC 9309 §2.3.1.5. MUST"), "§2.3.1.5");
        assert_eq!(section_of("convention: RFC 3986 §2.1"), "convention");
        let mut v = vec!["§2.10", "convention", "§2.2.1", "§2.2", "§5.1", "§2.3.1.5"];
        v.sort_by_key(|x| section_order(x));
        assert_eq!(
            v,
            ["§2.2", "§2.2.1", "§2.3.1.5", "§2.10", "§5.1", "convention"]
        );
    }

    #[test]
    fn expectations_are_typed_and_read_as_older_reports_wrote_them() {
        use engine::case::{Expect, Verdict};
        use engine::oracle::Value;
        let cases = [
            (Expect::Verdict(Verdict::Allowed), r#""allowed""#),
            (Expect::Verdict(Verdict::Either), r#""either""#),
            (Expect::Value(Value::Int(3)), r#"{"type":"int","value":3}"#),
            (
                Expect::Value(Value::Float(0.5)),
                r#"{"type":"float","value":0.5}"#,
            ),
            (
                Expect::Value(Value::List(vec!["https://a.test/s.xml".into()])),
                r#"{"type":"list","value":["https://a.test/s.xml"]}"#,
            ),
            (Expect::Value(Value::None), r#"{"type":"none"}"#),
        ];
        for (expect, json) in cases {
            let typed = Expected::from(&expect);
            assert_eq!(serde_json::to_string(&typed).expect("writes"), json);
            let back: Expected = serde_json::from_str(json).expect("reads");
            assert_eq!(back, typed);
            assert_eq!(
                typed.to_string(),
                expect.to_string(),
                "displayed as the case model does"
            );
        }
        // A value as a report written before values were typed holds it.
        let old: Expected = serde_json::from_str(r#""1/10s""#).expect("reads");
        assert_eq!(old, Expected::Shown("1/10s".into()));
        assert_eq!(old.to_string(), "1/10s");
        let query = |expect| QueryRec {
            index: 1,
            ask: engine::oracle::Ask::CanFetch,
            agent: String::new(),
            url: String::new(),
            expect,
            basis: String::new(),
            why: None,
            signature: Signature::default(),
            profiles: BTreeMap::new(),
        };
        assert!(!query(Expected::Verdict(Verdict::Either)).definite());
        assert!(query(Expected::Verdict(Verdict::Allowed)).definite());
        assert!(query(old).definite());
    }

    #[test]
    fn unknown_formats_and_bad_bodies_are_refused() {
        let base = r#"{"format":"F","corpus_hash":"h","oracles":[],"cases":[
            {"id":"c","title":"t","tags":[],"body_hex":"B","queries":[]}],"cells":[]}"#;
        let with = |f: &str, b: &str| {
            base.replace("\"F\"", &format!("{f:?}"))
                .replace("\"B\"", &format!("{b:?}"))
        };
        assert!(Report::parse(&with(FORMAT, "41")).is_ok());
        let e = Report::parse(&with("repdiff-compat/9", "41")).unwrap_err();
        assert!(e.contains("repdiff-compat/9"), "{e}");
        let e = Report::parse(&with(FORMAT, "4")).unwrap_err();
        assert!(e.contains("case c"), "{e}");
        assert!(Report::parse("{}").unwrap_err().contains(FORMAT));
    }
}
