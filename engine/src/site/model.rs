//! `compat.json` read back: the published report format (`repdiff-compat/1`)
//! as the site, the badges, `report diff` and the history see it.
//!
//! Mirrors what [`crate::report::to_json`] writes, field for field, so the
//! site can be rendered from a report alone (no re-run, no corpus needed).

use crate::oracle::{Answer, Capabilities, Unavailable};
use serde::Deserialize;
use std::collections::BTreeMap;

pub use crate::run::Status;

#[derive(Debug, Clone, Deserialize)]
pub struct OracleRec {
    pub name: String,
    pub version: String,
    /// Structured identity and provenance (absent in snapshots before
    /// protocol 2).
    #[serde(default)]
    pub about: crate::oracle::About,
    #[serde(default)]
    pub capabilities: Capabilities,
    #[serde(default)]
    pub millis: u128,
}

#[derive(Debug, Clone, Deserialize)]
pub struct QueryRec {
    /// 1-based.
    pub index: usize,
    pub ask: String,
    #[serde(default)]
    pub agent: String,
    #[serde(default)]
    pub url: String,
    pub expect: String,
    pub basis: String,
    #[serde(default)]
    pub why: Option<String>,
    #[serde(default)]
    pub signature: String,
}

#[derive(Debug, Clone, Deserialize)]
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
    #[serde(default)]
    pub family: Option<String>,
    #[serde(default)]
    pub http: Option<serde_json::Value>,
    pub body_hex: String,
    pub queries: Vec<QueryRec>,
}

impl CaseRec {
    /// The body's exact bytes (the report carries them as hex).
    pub fn body(&self) -> Vec<u8> {
        crate::case::decode_hex(&self.body_hex).unwrap_or_default()
    }

    /// The corpus file relative to the repository (`cases/corpus/seed.yaml`).
    pub fn file_rel(&self) -> &str {
        match self.file.find("cases/") {
            Some(i) => &self.file[i..],
            None => &self.file,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
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
    /// `case#N`, 1-based.
    pub fn query_ref(&self) -> String {
        format!("{}#{}", self.case, self.query + 1)
    }
    pub fn label(&self) -> String {
        self.answer.outcome.label()
    }
    pub fn untriaged(&self) -> bool {
        self.status.needs_triage() && self.triaged_by.is_none()
    }
}

#[derive(Debug, Clone, Deserialize)]
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
    pub cases: Vec<CaseRec>,
    pub cells: Vec<CellRec>,
    #[serde(default)]
    pub stale: Vec<String>,
}

/// The key of one cell: case id, 0-based query, oracle.
pub type CellKey = (String, usize, String);

impl Report {
    /// Parse a `compat.json`; anything else is an error that says what it got.
    pub fn parse(text: &str) -> Result<Report, String> {
        let report: Report = serde_json::from_str(text).map_err(|e| {
            format!("not a repdiff compat.json (expected format repdiff-compat/1): {e}")
        })?;
        if !report.format.starts_with("repdiff-compat/") {
            return Err(format!(
                "format {:?} is not repdiff-compat/1",
                report.format
            ));
        }
        Ok(report)
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

/// The library an oracle is one version of: a trailing `-<version>` is
/// dropped (`protego-0.6.1` and `protego` are both `protego`;
/// `cpython-3.11` and `cpython-3.15` are `cpython`).
pub fn family_of(oracle: &str) -> &str {
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

/// Counts of one oracle's cells: the scorecards' own [`crate::report::Score`].
pub type Tally = crate::report::Score;

/// Count `cell` into `t`.
fn tally(t: &mut Tally, cell: &CellRec, definite: bool) {
    t.count(cell.status, cell.triaged_by.is_some(), definite);
}

/// One oracle's tallies: overall, per tag, per RFC section.
#[derive(Debug, Clone, Default)]
pub struct Card {
    pub all: Tally,
    pub tags: BTreeMap<String, Tally>,
    pub sections: BTreeMap<String, Tally>,
}

/// Scorecards of every oracle of a report.
pub fn cards(report: &Report) -> BTreeMap<String, Card> {
    let mut out: BTreeMap<String, Card> = report
        .oracles
        .iter()
        .map(|o| (o.name.clone(), Card::default()))
        .collect();
    let cases: BTreeMap<&str, &CaseRec> = report.cases.iter().map(|c| (c.id.as_str(), c)).collect();
    for cell in &report.cells {
        let Some(case) = cases.get(cell.case.as_str()) else {
            continue;
        };
        let Some(q) = case.queries.get(cell.query) else {
            continue;
        };
        let definite = q.expect != "either";
        let card = out.entry(cell.oracle.clone()).or_default();
        tally(&mut card.all, cell, definite);
        for t in &case.tags {
            tally(card.tags.entry(t.clone()).or_default(), cell, definite);
        }
        tally(
            card.sections.entry(section_of(&q.basis)).or_default(),
            cell,
            definite,
        );
    }
    out
}

/// Every tag of the report, sorted.
pub fn tags(report: &Report) -> Vec<String> {
    let mut t: Vec<String> = report.cases.iter().flat_map(|c| c.tags.clone()).collect();
    t.sort();
    t.dedup();
    t
}

/// Every section cited by the report, in document order.
pub fn sections(report: &Report) -> Vec<String> {
    let mut s: Vec<String> = report
        .cases
        .iter()
        .flat_map(|c| c.queries.iter().map(|q| section_of(&q.basis)))
        .collect();
    s.sort_by_key(|x| section_order(x));
    s.dedup();
    s
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
    fn families_and_versions() {
        assert_eq!(family_of("protego-0.6.1"), "protego");
        assert_eq!(family_of("protego"), "protego");
        assert_eq!(family_of("cpython-3.11"), "cpython");
        assert_eq!(family_of("texting-robots"), "texting-robots");
        assert_eq!(family_of("robotstxt-rs"), "robotstxt-rs");
        assert_eq!(family_of("rfc9309"), "rfc9309");
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
}
