//! The `suites.json` schema: every oracle scored on every parser's own test
//! suite. One set of types for the writer (`repdiff suites`) and the readers
//! (the site's suites page, `--json` consumers), like [`crate::compat`] for
//! conformance runs, so a renamed field is a compile error and not a page
//! that silently reads zero.

use crate::error::ReadError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SuitesReport {
    /// Suite name -> its row of the matrix.
    pub suites: BTreeMap<String, SuiteRow>,
    /// Oracle name -> the version that answered.
    pub oracles: BTreeMap<String, String>,
    /// Same body, agent and URL; opposite expectations in different suites.
    pub contradictions: Vec<Contradiction>,
    pub unavailable: Vec<UnavailableRec>,
    /// Suites the checkout knows but the cache does not hold.
    pub missing_suites: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SuiteRow {
    /// Allow/disallow calls made by the suite's passing tests.
    pub assertions: usize,
    /// Calls the protocol cannot express (crawl-delay, sitemaps, ...).
    pub skipped: usize,
    /// Oracle -> assertions it answered as the suite expects.
    pub scores: BTreeMap<String, usize>,
    /// The oracle running the parser whose suite this is.
    pub own_oracle: String,
    /// Each assertion the suite's own parser fails here, with the reason.
    pub own_misses: Vec<Miss>,
    pub skipped_by_kind: BTreeMap<String, usize>,
    pub tests_total: usize,
    pub tests_passed: usize,
    /// Tests that did not pass in the capture run, and how.
    pub not_passed: BTreeMap<String, String>,
    /// Where the tests came from, as pinned.
    pub source: String,
    pub runtime: String,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Miss {
    /// `suite:test-name#n`.
    pub id: String,
    pub agent: String,
    pub url: String,
    /// `allowed` or `disallowed`.
    pub expected: String,
    /// The outcome label the oracle gave.
    pub got: String,
    /// How the suite fed its parser, where that differs from the protocol.
    pub note: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Contradiction {
    /// The body as text (invalid UTF-8 shown with U+FFFD).
    pub body: String,
    pub agent: String,
    pub url: String,
    /// Assertion ids expecting `allowed`.
    pub allowed: Vec<String>,
    /// Assertion ids expecting `disallowed`.
    pub disallowed: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UnavailableRec {
    pub oracle: String,
    pub reason: String,
    pub fix: String,
}

impl SuitesReport {
    /// Read a `suites.json`, naming the file in any error.
    pub fn read(path: &Path) -> Result<SuitesReport, ReadError> {
        let text = std::fs::read_to_string(path).map_err(|e| ReadError::read(path, e))?;
        serde_json::from_str(&text).map_err(|e| ReadError::invalid(path, e.to_string()))
    }
}
