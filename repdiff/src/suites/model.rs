//! A captured suite: what a parser's own tests asked it and what they
//! accepted, in a form every oracle can be asked again.
//!
//! The capture shims (`oracles/harness/<oracle>/suite/`) all write the same raw shape;
//! this module turns it into the saved form, keeping only calls made by
//! tests that passed, so that a verdict in the file is one the suite's own
//! assertions let through.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Bumped when the saved shape or the normalisation changes, so setup
/// captures again instead of trusting an old file.
pub const FORMAT: &str = "suites-v1";

/// The host a relative URL is given: some suites feed their parser a bare
/// path, which the protocol's oracles (Google's matcher above all) need as
/// a URL. Every oracle strips it back to the path.
pub const RELATIVE_BASE: &str = "http://example.test";

/// What a capture shim writes.
#[derive(Debug, Default, Deserialize)]
pub struct Raw {
    /// Test name -> `passed`, `failed…`, `skipped`, `uncollectable…`.
    pub tests: BTreeMap<String, String>,
    pub calls: Vec<RawCall>,
    #[serde(default)]
    pub skipped: Vec<RawSkip>,
    /// The file the library was imported from, where the runtime says.
    #[serde(default)]
    pub library: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct RawCall {
    pub test: Option<String>,
    pub body_hex: String,
    /// Text fields, or their `_hex` forms from shims that see raw bytes.
    pub agent: Option<String>,
    pub agent_hex: Option<String>,
    pub url: Option<String>,
    pub url_hex: Option<String>,
    /// The robots.txt URL the suite gave its parser, when the API takes one.
    pub robots_url: Option<String>,
    pub allowed: bool,
}

#[derive(Debug, Deserialize)]
pub struct RawSkip {
    pub test: Option<String>,
    pub what: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Suite {
    pub format: String,
    pub suite: String,
    /// The oracle that runs the parser whose suite this is.
    pub oracle: String,
    /// Where the tests came from, as pinned.
    pub source: String,
    pub files: Vec<PinnedFile>,
    pub runtime: String,
    /// Hash of every input (pinned files, shims, format): equal means the
    /// capture is current.
    pub inputs: String,
    pub tests_total: usize,
    pub tests_passed: usize,
    /// Tests that did not pass, and how; their calls are not assertions.
    pub not_passed: BTreeMap<String, String>,
    pub assertions: Vec<Assertion>,
    pub skipped: Vec<Skipped>,
    /// What the capture cannot see, said once per suite.
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PinnedFile {
    pub file: String,
    pub sha256: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Assertion {
    /// `suite:test-name#n`, n counting the test's calls from 1.
    pub id: String,
    pub body_hex: String,
    pub agent: String,
    pub url: String,
    pub allowed: bool,
    /// How the suite fed its parser, where that differs from the protocol.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Skipped {
    pub id: String,
    pub what: String,
}

impl Assertion {
    pub fn body(&self) -> Vec<u8> {
        from_hex(&self.body_hex).unwrap_or_default()
    }
}

pub fn dir(cache: &Path) -> PathBuf {
    cache.join("suites")
}

pub fn path(cache: &Path, suite: &str) -> PathBuf {
    dir(cache).join(format!("{suite}.json"))
}

/// The saved suite, if there is one in the current format.
pub fn load(cache: &Path, suite: &str) -> Option<Suite> {
    let bytes = std::fs::read(path(cache, suite)).ok()?;
    let s: Suite = serde_json::from_slice(&bytes).ok()?;
    (s.format == FORMAT).then_some(s)
}

pub fn from_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

fn text(plain: &Option<String>, hex: &Option<String>) -> String {
    match (plain, hex) {
        (Some(t), _) => t.clone(),
        (None, Some(h)) => String::from_utf8_lossy(&from_hex(h).unwrap_or_default()).into_owned(),
        (None, None) => String::new(),
    }
}

/// The raw capture as assertions and skips, numbered per test.
pub fn normalise(suite: &str, raw: &Raw) -> (Vec<Assertion>, Vec<Skipped>) {
    let passed = |t: &Option<String>| {
        t.as_ref()
            .and_then(|t| raw.tests.get(t))
            .is_some_and(|s| s == "passed")
    };
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut assertions = Vec::new();
    for c in raw.calls.iter().filter(|c| passed(&c.test)) {
        let test = c.test.clone().unwrap_or_default();
        let n = counts.entry(test.clone()).or_default();
        *n += 1;
        let given = text(&c.url, &c.url_hex);
        let (url, mut note) = if given.starts_with('/') {
            (
                format!("{RELATIVE_BASE}{given}"),
                Some(format!("the suite gave the relative URL `{given}`")),
            )
        } else {
            (given.clone(), None)
        };
        if let Some(r) = &c.robots_url {
            if !same_origin(r, &given) {
                note = Some(format!(
                    "the suite parsed the body as {r} and asked about `{given}`"
                ));
            }
        }
        assertions.push(Assertion {
            id: format!("{suite}:{test}#{n}"),
            body_hex: c.body_hex.clone(),
            agent: text(&c.agent, &c.agent_hex),
            url,
            allowed: c.allowed,
            note,
        });
    }
    let skipped = raw
        .skipped
        .iter()
        .filter(|s| passed(&s.test))
        .map(|s| Skipped {
            id: format!("{suite}:{}", s.test.clone().unwrap_or_default()),
            what: s.what.clone(),
        })
        .collect();
    (assertions, skipped)
}

/// Scheme and authority of an absolute URL.
fn origin(url: &str) -> Option<&str> {
    let rest = url.find("://").map(|i| i + 3)?;
    let end = url[rest..].find('/').map_or(url.len(), |j| rest + j);
    Some(&url[..end])
}

fn same_origin(robots_url: &str, url: &str) -> bool {
    match (origin(robots_url), origin(url)) {
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_passing_tests_give_assertions_numbered_per_test() {
        let raw: Raw = serde_json::from_str(
            r#"{"tests": {"a": "passed", "b": "failed: x"},
                "calls": [
                  {"test": "a", "body_hex": "41", "agent": "bot", "url": "/x", "allowed": true},
                  {"test": "b", "body_hex": "41", "agent": "bot", "url": "/y", "allowed": true},
                  {"test": "a", "body_hex": "41", "agent_hex": "626f74", "url_hex": "687474703a2f2f612f", "allowed": false}],
                "skipped": [{"test": "a", "what": "crawl_delay"}, {"test": "b", "what": "x"}]}"#,
        )
        .unwrap();
        let (a, s) = normalise("s", &raw);
        let ids: Vec<&str> = a.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["s:a#1", "s:a#2"]);
        assert_eq!(a[0].url, "http://example.test/x");
        assert_eq!(a[1].agent, "bot");
        assert_eq!(a[1].url, "http://a/");
        assert_eq!(s.len(), 1);
    }
}
