//! The case model and its YAML loader.
//!
//! A case is data, not code: one robots.txt body (exact bytes), the queries
//! put to it, and what RFC 9309 says each answer must be. Loading is strict
//! — unknown fields, duplicate ids and expectations without a basis are
//! errors with file and line — because a corpus that silently accepts typos
//! measures nothing.

use crate::oracle::{Ask, Query, Value};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// A loader error, always pointing at a file and, where known, a line.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    pub file: PathBuf,
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.file.display(), line, self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for LoadError {}

/// A robots.txt body as written in YAML: a plain string for ordinary text, or
/// a list of parts for bytes a YAML string cannot carry (BOM, invalid UTF-8,
/// NUL, lone CR) and for long repeated runs.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(untagged)]
pub enum BodySpec {
    Text(String),
    Parts(Vec<BodyPart>),
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BodyPart {
    /// UTF-8 text, taken as is (YAML double-quoted escapes like `\r` apply).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Raw bytes in hex; spaces allowed: `"ef bb bf"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
    /// Repeat the part's text or hex this many times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<usize>,
}

impl BodySpec {
    pub fn to_bytes(&self) -> Result<Vec<u8>, String> {
        match self {
            BodySpec::Text(s) => Ok(s.as_bytes().to_vec()),
            BodySpec::Parts(parts) => {
                let mut out = Vec::new();
                for (i, part) in parts.iter().enumerate() {
                    let chunk = match (&part.text, &part.hex) {
                        (Some(t), None) => t.as_bytes().to_vec(),
                        (None, Some(h)) => {
                            decode_hex(h).map_err(|e| format!("body part {}: {e}", i + 1))?
                        }
                        _ => {
                            return Err(format!(
                                "body part {} needs exactly one of `text` or `hex`",
                                i + 1
                            ))
                        }
                    };
                    let times = part.times.unwrap_or(1);
                    for _ in 0..times {
                        out.extend_from_slice(&chunk);
                    }
                }
                Ok(out)
            }
        }
    }
}

pub fn decode_hex(s: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits in {s:?}"));
    }
    digits
        .chunks(2)
        .map(|pair| {
            let text = std::str::from_utf8(pair).map_err(|_| format!("bad hex in {s:?}"))?;
            u8::from_str_radix(text, 16).map_err(|_| format!("bad hex byte {text:?} in {s:?}"))
        })
        .collect()
}

/// What a can_fetch query expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Allowed,
    Disallowed,
    /// RFC 9309 leaves the answer open; `why` must say where.
    Either,
}

/// What a query expects, typed by what it asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expect {
    Verdict(Verdict),
    Value(Value),
}

impl fmt::Display for Expect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expect::Verdict(Verdict::Allowed) => write!(f, "allowed"),
            Expect::Verdict(Verdict::Disallowed) => write!(f, "disallowed"),
            Expect::Verdict(Verdict::Either) => write!(f, "either"),
            Expect::Value(v) => write!(f, "{v}"),
        }
    }
}

/// A query as written in YAML; validated into [`CaseQuery`]. Also what a
/// generator writes (through `Serialize`), so a generated case file is
/// the loader's own format by construction.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawQuery {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask: Option<Ask>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub expect: serde_yaml::Value,
    /// RFC 9309 section (and level) the expectation rests on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rfc: Option<String>,
    /// When the RFC is silent: the convention the expectation follows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub convention: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Hand pins for other expectation profiles than RFC 9309's, each with
    /// the text it rests on; the profiles' references are tested against
    /// them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub profiles: BTreeMap<String, ProfilePin>,
}

/// What another profile's text (the 1996 draft, the 1994 standard, Google's
/// documentation) says one `can_fetch` query must answer, and where.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProfilePin {
    pub expect: Verdict,
    /// The section or paragraph of that text.
    pub cite: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CaseQuery {
    pub query: Query,
    pub expect: Expect,
    /// `RFC 9309 §x.y` or `convention: ...`.
    pub basis: String,
    pub why: Option<String>,
    /// Profile name → pinned verdict (see [`ProfilePin`]).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub profiles: BTreeMap<String, ProfilePin>,
}

/// The HTTP response a status-matrix case is served with.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HttpSpec {
    /// Final status of `/robots.txt` (after the redirect chain).
    pub status: u16,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Redirect statuses served before the final response, one per hop.
    #[serde(default)]
    pub redirects: Vec<u16>,
    /// A transport fault instead of a clean response.
    #[serde(default)]
    pub fault: Option<Fault>,
    /// Send the body gzip-encoded with `Content-Encoding: gzip`.
    #[serde(default)]
    pub gzip: bool,
    /// Googlebot's documented handling of this response (Google's robots.txt
    /// documentation), shown beside the RFC column of the status matrix.
    #[serde(default)]
    pub googlebot: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Fault {
    /// Close the connection without a response.
    Reset,
    /// Answer slower than any sane fetch timeout.
    Slow,
    /// Redirect back to itself forever.
    RedirectLoop,
}

/// A case as written in YAML (see [`RawQuery`]).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawCase {
    pub id: String,
    pub title: String,
    pub tags: Vec<String>,
    pub source: String,
    pub robots: BodySpec,
    pub queries: Vec<RawQuery>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpSpec>,
    /// Metamorphic family: cases sharing it must get the same verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// A case file: `cases:` and the list.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawFile {
    pub cases: Vec<RawCase>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Case {
    pub id: String,
    pub title: String,
    pub tags: Vec<String>,
    pub source: String,
    #[serde(skip)]
    pub body: Vec<u8>,
    pub queries: Vec<CaseQuery>,
    pub http: Option<HttpSpec>,
    pub family: Option<String>,
    pub notes: Option<String>,
    /// Where it was written, for error messages and reproducers.
    pub file: PathBuf,
    pub line: usize,
}

impl Case {
    /// The queries as the oracles see them.
    pub fn oracle_queries(&self) -> Vec<Query> {
        self.queries.iter().map(|q| q.query.clone()).collect()
    }
}

/// Tags a case may carry. A closed list keeps per-tag scorecards meaningful.
pub const TAGS: &[&str] = &[
    "longest-match",
    "wildcard",
    "percent-encoding",
    "ua-matching",
    "grouping",
    "line-syntax",
    "encoding",
    "extension",
    "http-status",
    "special-path",
    "metamorphic",
    "robustness",
    "google-leniency",
    "ai-preferences",
];

fn is_kebab(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('-')
        && !id.ends_with('-')
        && !id.contains("--")
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The line where `key: value` is written, found by scanning the text: serde
/// gives no positions for values that parsed fine but are semantically wrong.
pub fn find_line(text: &str, key: &str, value: &str) -> Option<usize> {
    find_nth_line(text, key, value, 0)
}

/// The line of the `n`-th (0-based) `key: value`, for the second of two
/// duplicates.
pub fn find_nth_line(text: &str, key: &str, value: &str, n: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let t = line.trim_start().trim_start_matches("- ").trim_start();
            t.strip_prefix(key)
                .and_then(|rest| rest.trim_start().strip_prefix(':'))
                .map(|rest| rest.trim().trim_matches(|c| c == '"' || c == '\'') == value)
                .unwrap_or(false)
        })
        .nth(n)
        .map(|(i, _)| i + 1)
}

/// Parse one case file's text. `file` is only used in error messages.
pub fn parse_file(file: &Path, text: &str) -> Result<Vec<Case>, LoadError> {
    let raw: RawFile = serde_yaml::from_str(text).map_err(|e| LoadError {
        file: file.to_path_buf(),
        line: e.location().map(|l| l.line()),
        message: e.to_string(),
    })?;
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for rc in raw.cases {
        let nth = seen.contains_key(&rc.id) as usize;
        let line = find_nth_line(text, "id", &rc.id, nth).unwrap_or(1);
        let err = |message: String| LoadError {
            file: file.to_path_buf(),
            line: Some(line),
            message: format!("case `{}`: {message}", rc.id),
        };
        if !is_kebab(&rc.id) {
            return Err(err("id must be kebab-case (a-z, 0-9, single dashes)".into()));
        }
        if let Some(first) = seen.insert(rc.id.clone(), line) {
            return Err(err(format!("duplicate id (first defined at line {first})")));
        }
        if rc.title.trim().is_empty() || rc.source.trim().is_empty() {
            return Err(err("title and source must not be empty".into()));
        }
        if rc.tags.is_empty() {
            return Err(err("needs at least one tag".into()));
        }
        for tag in &rc.tags {
            if !TAGS.contains(&tag.as_str()) {
                return Err(err(format!(
                    "unknown tag `{tag}` (known: {})",
                    TAGS.join(", ")
                )));
            }
        }
        if rc.queries.is_empty() {
            return Err(err("needs at least one query".into()));
        }
        let body = rc.robots.to_bytes().map_err(err)?;
        let mut queries = Vec::new();
        for (i, rq) in rc.queries.into_iter().enumerate() {
            let q = validate_query(rq).map_err(|m| err(format!("query {}: {m}", i + 1)))?;
            queries.push(q);
        }
        out.push(Case {
            id: rc.id,
            title: rc.title,
            tags: rc.tags,
            source: rc.source,
            body,
            queries,
            http: rc.http,
            family: rc.family,
            notes: rc.notes,
            file: file.to_path_buf(),
            line,
        });
    }
    Ok(out)
}

// String: the message alone; the loader wraps it in a `LoadError` with the
// file and line.
fn validate_query(rq: RawQuery) -> Result<CaseQuery, String> {
    let ask = rq.ask.unwrap_or(Ask::CanFetch);
    let basis = match (&rq.rfc, &rq.convention) {
        (Some(r), None) if !r.trim().is_empty() => format!("RFC 9309 {}", r.trim()),
        (None, Some(c)) if !c.trim().is_empty() => format!("convention: {}", c.trim()),
        _ => {
            return Err(
                "needs exactly one of `rfc` (the RFC 9309 section, e.g. \"§2.2.2 MUST\") or `convention` (why, when the RFC is silent)"
                    .into(),
            )
        }
    };
    let agent = rq.agent.unwrap_or_default();
    let url = rq.url.unwrap_or_default();
    let expect = match ask {
        Ask::CanFetch => {
            if agent.is_empty() && url.is_empty() {
                return Err("can_fetch needs `agent` and `url`".into());
            }
            if url.is_empty() {
                return Err("can_fetch needs `url`".into());
            }
            let v: Verdict = serde_yaml::from_value(rq.expect.clone()).map_err(|_| {
                format!(
                    "expect must be allowed, disallowed or either, got {}",
                    yaml_short(&rq.expect)
                )
            })?;
            if v == Verdict::Either && rq.why.as_deref().is_none_or(|w| w.trim().is_empty()) {
                return Err(
                    "`expect: either` requires `why` (where the RFC leaves it open)".into(),
                );
            }
            Expect::Verdict(v)
        }
        Ask::CrawlDelay => Expect::Value(match &rq.expect {
            serde_yaml::Value::Null => Value::None,
            serde_yaml::Value::Number(n) if n.is_i64() => Value::Int(n.as_i64().unwrap_or(0)),
            serde_yaml::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            other => {
                return Err(format!(
                    "crawl_delay expects an integer, a float or null, got {}",
                    yaml_short(other)
                ))
            }
        }),
        Ask::RequestRate => Expect::Value(match &rq.expect {
            serde_yaml::Value::Null => Value::None,
            serde_yaml::Value::Mapping(_) => {
                #[derive(Deserialize)]
                #[serde(deny_unknown_fields)]
                struct Rate {
                    requests: u64,
                    seconds: u64,
                }
                let r: Rate = serde_yaml::from_value(rq.expect.clone())
                    .map_err(|e| format!("request_rate expects {{requests, seconds}}: {e}"))?;
                Value::Rate {
                    requests: r.requests,
                    seconds: r.seconds,
                }
            }
            other => {
                return Err(format!(
                    "request_rate expects {{requests, seconds}} or null, got {}",
                    yaml_short(other)
                ))
            }
        }),
        Ask::Sitemaps => Expect::Value(match &rq.expect {
            serde_yaml::Value::Null => Value::None,
            serde_yaml::Value::Sequence(_) => {
                let items: Vec<String> = serde_yaml::from_value(rq.expect.clone())
                    .map_err(|e| format!("sitemaps expects a list of URLs: {e}"))?;
                Value::List(items)
            }
            other => {
                return Err(format!(
                    "sitemaps expects a list of URLs or null, got {}",
                    yaml_short(other)
                ))
            }
        }),
    };
    if matches!(ask, Ask::CrawlDelay | Ask::RequestRate) && agent.is_empty() {
        return Err(format!("{} needs `agent`", ask.as_str()));
    }
    validate_pins(ask, &rq.profiles)?;
    Ok(CaseQuery {
        query: Query { ask, agent, url },
        expect,
        basis,
        why: rq.why,
        profiles: rq.profiles,
    })
}

/// Profile pins are `can_fetch` verdicts with a citation; RFC 9309's is the
/// query's own `expect`.
// String: the message alone; the loader wraps it in a `LoadError` with the
// file and line.
fn validate_pins(ask: Ask, pins: &BTreeMap<String, ProfilePin>) -> Result<(), String> {
    for (profile, pin) in pins {
        if ask != Ask::CanFetch {
            return Err(format!(
                "profile `{profile}`: pins are for can_fetch queries only"
            ));
        }
        if pin.expect == Verdict::Either {
            return Err(format!(
                "profile `{profile}`: a pin is allowed or disallowed"
            ));
        }
        if pin.cite.trim().is_empty() {
            return Err(format!(
                "profile `{profile}`: `cite` must name the text it rests on"
            ));
        }
        if profile == "rfc9309" {
            return Err("profile `rfc9309`: the query's own `expect` is RFC 9309's".into());
        }
    }
    Ok(())
}

fn yaml_short(v: &serde_yaml::Value) -> String {
    serde_yaml::to_string(v)
        .unwrap_or_default()
        .trim()
        .chars()
        .take(60)
        .collect()
}

/// The whole corpus: every `*.yaml` under a directory, ids unique across files.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    pub cases: Vec<Case>,
    /// sha256 over every file's name and bytes, in name order.
    pub hash: String,
}

impl Corpus {
    pub fn get(&self, id: &str) -> Option<&Case> {
        self.cases.iter().find(|c| c.id == id)
    }
}

pub fn load_dir(dir: &Path) -> Result<Corpus, LoadError> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| LoadError {
            file: dir.to_path_buf(),
            line: None,
            message: format!("cannot read corpus directory: {e}"),
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    let mut hasher_input = Vec::new();
    let mut cases: Vec<Case> = Vec::new();
    let mut where_: BTreeMap<String, (PathBuf, usize)> = BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|e| LoadError {
            file: file.clone(),
            line: None,
            message: format!("cannot read: {e}"),
        })?;
        hasher_input.extend_from_slice(file.file_name().map_or(&[][..], |n| n.as_encoded_bytes()));
        hasher_input.push(0);
        hasher_input.extend_from_slice(text.as_bytes());
        hasher_input.push(0);
        for case in parse_file(file, &text)? {
            if let Some((f, l)) = where_.get(&case.id) {
                return Err(LoadError {
                    file: file.clone(),
                    line: Some(case.line),
                    message: format!(
                        "case `{}`: duplicate id (first defined at {}:{})",
                        case.id,
                        f.display(),
                        l
                    ),
                });
            }
            where_.insert(case.id.clone(), (file.clone(), case.line));
            cases.push(case);
        }
    }
    Ok(Corpus {
        cases,
        hash: crate::sha256_hex(&hasher_input),
    })
}
