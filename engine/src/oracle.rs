//! The contract every parser adapter implements.
//!
//! The engine never names a parser: it sees only this trait. One call per case
//! (one body, many queries) keeps the per-query cost of slow adapters — a
//! Python interpreter, a worker process — paid once per body, not per query.

use serde::{Deserialize, Serialize};

/// What a query asks of the parsed robots.txt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Ask {
    /// May `agent` fetch `url`?
    CanFetch,
    /// The crawl-delay that applies to `agent`.
    CrawlDelay,
    /// The request-rate that applies to `agent`.
    RequestRate,
    /// Every sitemap URL in the file (agent and url ignored).
    Sitemaps,
}

impl Ask {
    pub fn as_str(self) -> &'static str {
        match self {
            Ask::CanFetch => "can_fetch",
            Ask::CrawlDelay => "crawl_delay",
            Ask::RequestRate => "request_rate",
            Ask::Sitemaps => "sitemaps",
        }
    }
}

/// One question put to an oracle. Agent and URL are passed verbatim: an
/// adapter must not massage them, because what a library does with the input
/// its users really give it is exactly what we measure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Query {
    pub ask: Ask,
    #[serde(default)]
    pub agent: String,
    #[serde(default)]
    pub url: String,
}

/// A typed extension value, so `7` (CPython's int) and `7.0` (protego's
/// float) can be compared numerically yet still shown as what they were.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum Value {
    None,
    Int(i64),
    Float(f64),
    Rate { requests: u64, seconds: u64 },
    List(Vec<String>),
}

impl Value {
    /// Equality as a user of the value sees it: numbers compare numerically.
    pub fn same_as(&self, other: &Value) -> bool {
        match (self.as_number(), other.as_number()) {
            (Some(a), Some(b)) => a == b,
            _ => self == other,
        }
    }

    fn as_number(&self) -> Option<f64> {
        match *self {
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::None => write!(f, "none"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Rate { requests, seconds } => write!(f, "{requests}/{seconds}s"),
            Value::List(items) => write!(f, "[{}]", items.join(", ")),
        }
    }
}

/// What one oracle said to one query. Errors, crashes and timeouts are their
/// own outcomes: they are never turned into a verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    Allowed,
    Disallowed,
    Value {
        value: Value,
    },
    /// The library raised or returned an error (a Python exception, a Rust `Err`).
    Error {
        kind: String,
        message: String,
    },
    /// The library panicked, aborted or took its process down.
    Crash {
        detail: String,
    },
    /// No answer within the per-call limit.
    Timeout,
    /// The library has no way to answer this kind of query.
    Unsupported {
        reason: String,
    },
}

impl Outcome {
    /// The short word used in signatures, tables and `check --json`.
    pub fn label(&self) -> String {
        match self {
            Outcome::Allowed => "allowed".into(),
            Outcome::Disallowed => "disallowed".into(),
            Outcome::Value { value } => value.to_string(),
            Outcome::Error { .. } => "error".into(),
            Outcome::Crash { .. } => "crash".into(),
            Outcome::Timeout => "timeout".into(),
            Outcome::Unsupported { .. } => "unsupported".into(),
        }
    }

    /// Failure outcomes: the oracle gave no answer at all.
    pub fn is_failure(&self) -> bool {
        matches!(
            self,
            Outcome::Error { .. } | Outcome::Crash { .. } | Outcome::Timeout
        )
    }

    pub fn detail(&self) -> String {
        match self {
            Outcome::Error { kind, message } => format!("{kind}: {message}"),
            Outcome::Crash { detail } => detail.clone(),
            Outcome::Unsupported { reason } => reason.clone(),
            _ => String::new(),
        }
    }

    /// The label this outcome is pinned and compared by.
    pub fn pin(&self) -> Label {
        match self {
            Outcome::Allowed => Label::Allowed,
            Outcome::Disallowed => Label::Disallowed,
            Outcome::Value { value } => Label::Value(value.to_string()),
            Outcome::Error { kind, .. } => Label::Error(kind.clone()),
            Outcome::Crash { .. } => Label::Crash,
            Outcome::Timeout => Label::Timeout,
            Outcome::Unsupported { .. } => Label::Unsupported,
        }
    }
}

/// An outcome as the ledger pins it, `repdiff check` prints it and root-cause
/// triage compares two of them: `allowed`, `disallowed`, `value:<value>`,
/// `error:<kind>`, `crash`, `timeout`, `unsupported`. A crash's detail and an
/// error's message are left out: they carry addresses and paths that change
/// from run to run. Its text is its one form ([`FromStr`](std::str::FromStr)
/// reads what `Display` writes; serde goes through both), so a pin in
/// `cases/divergences/*.yaml` and an answer the program just got compare as
/// values, never as strings.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Label {
    Allowed,
    Disallowed,
    /// The value as [`Value`]'s `Display` writes it (`3`, `1/10s`).
    Value(String),
    /// The error's kind (`ValueError`, `Utf8Error`).
    Error(String),
    Crash,
    Timeout,
    Unsupported,
}

impl Label {
    /// What a label may be, for error messages.
    pub const FORMS: &'static str =
        "allowed, disallowed, error:KIND, crash, timeout, unsupported, value:V";

    /// The short word [`Outcome::label`] gives the same outcome (a value
    /// bare, an error without its kind): how older history lines recorded
    /// it, so a label can be compared with one of them.
    pub fn word(&self) -> String {
        match self {
            Label::Value(v) => v.clone(),
            Label::Error(_) => "error".into(),
            other => other.to_string(),
        }
    }
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Label::Allowed => f.write_str("allowed"),
            Label::Disallowed => f.write_str("disallowed"),
            Label::Value(v) => write!(f, "value:{v}"),
            Label::Error(kind) => write!(f, "error:{kind}"),
            Label::Crash => f.write_str("crash"),
            Label::Timeout => f.write_str("timeout"),
            Label::Unsupported => f.write_str("unsupported"),
        }
    }
}

impl std::str::FromStr for Label {
    type Err = String;
    // String: a token that does not parse; its message is the whole error, and
    // the loader that read it adds the file and line.
    fn from_str(s: &str) -> Result<Self, String> {
        let nonempty = |t: &str| (!t.is_empty()).then(|| t.to_string());
        match s {
            "allowed" => Ok(Label::Allowed),
            "disallowed" => Ok(Label::Disallowed),
            "crash" => Ok(Label::Crash),
            "timeout" => Ok(Label::Timeout),
            "unsupported" => Ok(Label::Unsupported),
            _ => s
                .strip_prefix("error:")
                .and_then(nonempty)
                .map(Label::Error)
                .or_else(|| {
                    s.strip_prefix("value:")
                        .and_then(nonempty)
                        .map(Label::Value)
                })
                .ok_or_else(|| format!("`{s}` is not an outcome ({})", Label::FORMS)),
        }
    }
}

/// serde for an `Option<Label>` stored as text, `""` for none: a field
/// that older files wrote as a plain string, empty when there was no answer
/// to give (census.json's top causes that could not be triaged).
pub mod label_or_empty {
    use super::Label;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(label: &Option<Label>, s: S) -> Result<S::Ok, S::Error> {
        match label {
            Some(l) => s.collect_str(l),
            None => s.serialize_str(""),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Label>, D::Error> {
        let text = String::deserialize(d)?;
        if text.is_empty() {
            return Ok(None);
        }
        text.parse().map(Some).map_err(serde::de::Error::custom)
    }
}

impl TryFrom<String> for Label {
    type Error = String;
    // String: a token that does not parse; its message is the whole error, and
    // the loader that read it adds the file and line.
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl From<Label> for String {
    fn from(label: Label) -> String {
        label.to_string()
    }
}

/// An outcome plus the oracle's own account of it (the reference oracle
/// explains which group and rule decided; others may leave it empty).
///
/// On the wire it is one flat object (`{"outcome": "error", "kind": ...,
/// "explain": ...}`), read and written through `wire::Flat`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "wire::Flat")]
pub struct Answer {
    pub outcome: Outcome,
    pub explain: String,
    /// The line that decided a can_fetch verdict, when the library can
    /// tell (Google's `matching_line()`, robots-parser's
    /// `getMatchingLineNumber`); `None` when it cannot.
    pub line: Option<Deciding>,
}

/// Which line of the file decided a verdict, as the library tells it. On
/// the wire `"line": N`, 1-based, and `"line": 0` for [`Deciding::NoRule`]
/// (docs/protocol.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deciding {
    /// The 1-based line of the rule that matched.
    Line(u32),
    /// No rule matched: the verdict is the library's default.
    NoRule,
}

impl Deciding {
    /// The wire number: the line, or 0 for no rule.
    pub fn wire(self) -> u32 {
        match self {
            Deciding::Line(n) => n,
            Deciding::NoRule => 0,
        }
    }

    /// From the wire number.
    pub fn from_wire(n: u32) -> Deciding {
        match n {
            0 => Deciding::NoRule,
            n => Deciding::Line(n),
        }
    }
}

impl std::fmt::Display for Deciding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Deciding::Line(n) => write!(f, "line {n}"),
            Deciding::NoRule => f.write_str("no rule matched"),
        }
    }
}

/// The wire form of an [`Answer`]. Derived through `#[serde(flatten)]` of
/// the tagged [`Outcome`], serde buffered every answer into an intermediate
/// tree before reading it; a plain struct of optional fields is read in one
/// pass, which matters at a hundred answers per worker call.
mod wire {
    use super::{Answer, Deciding, Outcome, Value};
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Clone, Copy)]
    #[serde(rename_all = "snake_case")]
    pub enum Tag {
        Allowed,
        Disallowed,
        Value,
        Error,
        Crash,
        Timeout,
        Unsupported,
    }

    #[derive(Deserialize)]
    pub struct Flat {
        outcome: Tag,
        #[serde(default)]
        value: Option<Value>,
        #[serde(default)]
        kind: Option<String>,
        #[serde(default)]
        message: Option<String>,
        #[serde(default)]
        detail: Option<String>,
        #[serde(default)]
        reason: Option<String>,
        #[serde(default)]
        explain: String,
        #[serde(default)]
        line: Option<u32>,
    }

    impl TryFrom<Flat> for Answer {
        type Error = String;
        // String: a token that does not parse; its message is the whole error, and
        // the loader that read it adds the file and line.
        fn try_from(f: Flat) -> Result<Self, String> {
            let need = |v: Option<String>, field: &str| {
                v.ok_or_else(|| format!("missing field `{field}`"))
            };
            let outcome = match f.outcome {
                Tag::Allowed => Outcome::Allowed,
                Tag::Disallowed => Outcome::Disallowed,
                Tag::Value => Outcome::Value {
                    value: f.value.ok_or("missing field `value`")?,
                },
                Tag::Error => Outcome::Error {
                    kind: need(f.kind, "kind")?,
                    message: need(f.message, "message")?,
                },
                Tag::Crash => Outcome::Crash {
                    detail: need(f.detail, "detail")?,
                },
                Tag::Timeout => Outcome::Timeout,
                Tag::Unsupported => Outcome::Unsupported {
                    reason: need(f.reason, "reason")?,
                },
            };
            Ok(Answer {
                outcome,
                explain: f.explain,
                line: f.line.map(Deciding::from_wire),
            })
        }
    }

    /// [`Flat`], borrowed: written without copying the answer.
    #[derive(Serialize)]
    struct FlatRef<'a> {
        outcome: Tag,
        #[serde(skip_serializing_if = "Option::is_none")]
        value: Option<&'a Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        kind: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        detail: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<&'a str>,
        #[serde(skip_serializing_if = "str::is_empty")]
        explain: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        line: Option<u32>,
    }

    impl Serialize for Answer {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut f = FlatRef {
                outcome: Tag::Allowed,
                value: None,
                kind: None,
                message: None,
                detail: None,
                reason: None,
                explain: &self.explain,
                line: self.line.map(Deciding::wire),
            };
            f.outcome = match &self.outcome {
                Outcome::Allowed => Tag::Allowed,
                Outcome::Disallowed => Tag::Disallowed,
                Outcome::Value { value } => {
                    f.value = Some(value);
                    Tag::Value
                }
                Outcome::Error { kind, message } => {
                    (f.kind, f.message) = (Some(kind.as_str()), Some(message.as_str()));
                    Tag::Error
                }
                Outcome::Crash { detail } => {
                    f.detail = Some(detail.as_str());
                    Tag::Crash
                }
                Outcome::Timeout => Tag::Timeout,
                Outcome::Unsupported { reason } => {
                    f.reason = Some(reason.as_str());
                    Tag::Unsupported
                }
            };
            f.serialize(s)
        }
    }
}

impl From<Outcome> for Answer {
    fn from(outcome: Outcome) -> Self {
        Answer {
            outcome,
            explain: String::new(),
            line: None,
        }
    }
}

/// What an oracle can answer; the runner marks the rest `Unsupported`
/// instead of asking, and generators avoid what an oracle cannot express.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    pub can_fetch: bool,
    pub crawl_delay: bool,
    pub request_rate: bool,
    pub sitemaps: bool,
    /// The library owns an HTTP fetcher (CPython's `read()`), so the status
    /// matrix can be run against it over a real socket.
    pub http_fetch: bool,
}

impl Capabilities {
    pub fn supports(&self, ask: Ask) -> bool {
        match ask {
            Ask::CanFetch => self.can_fetch,
            Ask::CrawlDelay => self.crawl_delay,
            Ask::RequestRate => self.request_rate,
            Ask::Sitemaps => self.sitemaps,
        }
    }
}

/// What runs the parser: `CPython 3.11.7`, `node 20.20.2`, `rustc`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Runtime {
    pub name: String,
    pub version: String,
}

/// Where the parser came from, pinned; never a machine path, so the same
/// parser set up on another machine or checkout has the same provenance.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    /// `pypi`, `npm`, `crates.io`, `debian`, `python.org`, `repdiff`, ...
    pub registry: String,
    pub package: String,
    pub version: String,
    /// The file fetched (a wheel, an sdist, a tarball), when there is one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub artifact: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sha256: String,
    /// npm's Subresource Integrity string.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub integrity: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub commit: String,
    /// How it was built, when we built it (compiler, libraries).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub build: String,
}

/// Which library an oracle runs, and which version of it (`protego 0.7.0`,
/// `google/robotstxt a732377`): the key of its history, so it holds no
/// machine path and no build detail. Its text is `library version` (a
/// version has no space, so the last space splits it), which is how
/// history.jsonl and the site spell it; [`FromStr`](std::str::FromStr)
/// is the one reader of that text.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Identity {
    pub library: String,
    pub version: String,
}

impl std::fmt::Display for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.library, self.version)
    }
}

impl std::str::FromStr for Identity {
    type Err = String;

    // String: a token that does not parse; its message is the whole error, and
    // the loader that read it adds the file and line.
    fn from_str(s: &str) -> Result<Self, String> {
        match s.rsplit_once(' ') {
            Some((library, version)) if !library.is_empty() && !version.is_empty() => {
                Ok(Identity {
                    library: library.to_string(),
                    version: version.to_string(),
                })
            }
            _ => Err(format!("`{s}` is not `library version`")),
        }
    }
}

crate::serde_as_text!(Identity);

/// An oracle's structured identity, announced in the worker greeting
/// (protocol v2, `docs/protocol.md`); [`Oracle::identity`] is its short form.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct About {
    /// The parser as its users name it (`protego`, `urllib.robotparser`).
    pub library: String,
    /// Its own version (`0.7.0`; a commit where it has no release).
    pub version: String,
    pub language: String,
    pub runtime: Runtime,
    pub provenance: Provenance,
    /// How the body reaches the library, when that is a choice.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub feeding: String,
}

impl About {
    /// The library and its version: the oracle's stable identity, its
    /// history key.
    pub fn identity(&self) -> Identity {
        Identity {
            library: self.library.clone(),
            version: self.version.clone(),
        }
    }

    /// One paragraph for the oracle's page: where the parser came from, what
    /// runs it and how it is fed, all from its own announcement.
    pub fn provenance_text(&self) -> String {
        let p = &self.provenance;
        if p.registry.is_empty() {
            return String::new();
        }
        let mut out = format!("{} {} from {}", p.package, p.version, p.registry);
        for (label, v) in [
            ("artifact", &p.artifact),
            ("sha256", &p.sha256),
            ("integrity", &p.integrity),
            ("commit", &p.commit),
            ("build", &p.build),
        ] {
            if !v.is_empty() {
                out.push_str(&format!("; {label} `{v}`"));
            }
        }
        let runtime = format!("{} {}", self.runtime.name, self.runtime.version);
        out.push_str(&format!("; {} run by {}", self.language, runtime.trim()));
        if !self.feeding.is_empty() {
            out.push_str(&format!("; fed: {}", self.feeding));
        }
        out
    }
}

/// A robots.txt parser under test.
pub trait Oracle: Send {
    /// Stable name used in cases, the ledger and reports (`protego`, `google`).
    fn name(&self) -> &str;
    /// Which parser this is, where it came from and what runs it, probed
    /// at run time from the library itself where it can say.
    fn about(&self) -> About;
    /// The library and its version (`protego 0.7.0`): the key of its
    /// history, so it holds no machine path and no build detail.
    fn identity(&self) -> Identity {
        self.about().identity()
    }
    fn capabilities(&self) -> Capabilities;
    /// Parse `body` once and answer every query, one answer per query, in order.
    fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer>;
    /// Several bodies, each with its queries: the answers of [`Oracle::run`]
    /// on each, in order. For a caller with inputs queued (the fuzz loop's
    /// lanes): an oracle in another process takes them in one exchange
    /// instead of a round trip each, which is most of what a small input
    /// costs it.
    fn run_many(&mut self, inputs: &[(&[u8], &[Query])]) -> Vec<Vec<Answer>> {
        inputs.iter().map(|(b, q)| self.run(b, q)).collect()
    }
    /// Fetch `robots_url` with the library's own fetcher, then answer the
    /// queries. Only called when `capabilities().http_fetch` is set.
    fn run_fetch(&mut self, robots_url: &str, queries: &[Query]) -> Vec<Answer> {
        let _ = robots_url;
        unsupported_all(queries, "this library has no HTTP fetcher")
    }
    /// Cap the time the next calls may take (`None`: the oracle's own
    /// limit; a cap never lengthens it). The runner caps the cases the
    /// ledger already pins as `timeout` for this oracle: they are known not
    /// to answer, and waiting the full limit would only prove it again.
    /// Oracles without a time limit of their own ignore it.
    fn cap_call_time(&mut self, cap: Option<std::time::Duration>) {
        let _ = cap;
    }
    /// The caller will not read `explain`: an oracle whose account costs
    /// extra work (a second lookup per answer) may skip it. The census asks
    /// this, since it tallies outcomes only. Oracles whose account is free
    /// ignore it.
    fn skip_explanations(&mut self) {}
    /// CPU time the oracle's own processes have used so far (a worker and
    /// what it started, restarts included): the parser's side of a run's
    /// cost. `None` for an oracle in the caller's process, whose time is
    /// the calling thread's.
    fn process_cpu(&self) -> Option<std::time::Duration> {
        None
    }
}

pub fn unsupported_all(queries: &[Query], reason: &str) -> Vec<Answer> {
    queries
        .iter()
        .map(|_| {
            Answer::from(Outcome::Unsupported {
                reason: reason.to_string(),
            })
        })
        .collect()
}

/// An oracle that could not be set up. Kept as a value so every run can say
/// loudly what is missing and how to fix it, instead of skipping it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Unavailable {
    pub oracle: String,
    pub reason: String,
    /// What to do; with [`Unavailable::then_setup`], what to do before
    /// setup runs (empty: setup alone).
    pub fix: String,
    /// Setup follows the fix. A flag, not words in `fix`, because the
    /// command that runs setup is the caller's (`repdiff setup`, or
    /// `cargo xtask setup` in a checkout), which no oracle knows.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub then_setup: bool,
}

impl Unavailable {
    /// An oracle that setup provides: `first` (may be empty) is done
    /// before setup runs again.
    pub fn needs_setup(oracle: &str, reason: impl Into<String>, first: impl Into<String>) -> Self {
        Unavailable {
            oracle: oracle.into(),
            reason: reason.into(),
            fix: first.into(),
            then_setup: true,
        }
    }

    /// The fix as a command line, setup named as `program` runs it.
    pub fn fix_line(&self, program: &str) -> String {
        match (self.then_setup, self.fix.is_empty()) {
            (false, _) => self.fix.clone(),
            (true, true) => format!("{program} setup"),
            (true, false) => format!("{} && {program} setup", self.fix),
        }
    }
}

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "oracle `{}` is unavailable: {} (fix: {})",
            self.oracle,
            self.reason,
            self.fix_line("repdiff")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every outcome's label reads back as itself, in text and through
    /// serde; what no outcome writes is refused with the forms it may take.
    #[test]
    fn labels_round_trip_and_refuse_the_rest() {
        let outcomes = [
            Outcome::Allowed,
            Outcome::Disallowed,
            Outcome::Value {
                value: Value::Rate {
                    requests: 1,
                    seconds: 10,
                },
            },
            Outcome::Error {
                kind: "ValueError".into(),
                message: "at 0x7f".into(),
            },
            Outcome::Crash {
                detail: "SIGSEGV".into(),
            },
            Outcome::Timeout,
            Outcome::Unsupported {
                reason: "no sitemaps".into(),
            },
        ];
        let texts: Vec<String> = outcomes.iter().map(|o| o.pin().to_string()).collect();
        assert_eq!(
            texts,
            [
                "allowed",
                "disallowed",
                "value:1/10s",
                "error:ValueError",
                "crash",
                "timeout",
                "unsupported"
            ]
        );
        for o in &outcomes {
            let label = o.pin();
            assert_eq!(label.to_string().parse::<Label>(), Ok(label.clone()));
            let json = serde_json::to_string(&label).unwrap();
            assert_eq!(json, format!("\"{label}\""));
            assert_eq!(serde_json::from_str::<Label>(&json).unwrap(), label);
        }
        for bad in ["allowd", "error:", "value:", "Allowed", ""] {
            let err = bad.parse::<Label>().unwrap_err();
            assert!(err.contains(&format!("`{bad}` is not an outcome")), "{err}");
            assert!(err.contains(Label::FORMS), "{err}");
        }
    }

    /// The wire form is the protocol's (docs/protocol.md §3): one flat
    /// object per answer, `explain` only when there is one.
    #[test]
    fn answers_keep_their_flat_wire_form() {
        let cases = [
            (Answer::from(Outcome::Allowed), r#"{"outcome":"allowed"}"#),
            (
                Answer {
                    outcome: Outcome::Disallowed,
                    explain: "line 2".into(),
                    line: None,
                },
                r#"{"outcome":"disallowed","explain":"line 2"}"#,
            ),
            (
                Answer {
                    outcome: Outcome::Disallowed,
                    explain: String::new(),
                    line: Some(Deciding::Line(2)),
                },
                r#"{"outcome":"disallowed","line":2}"#,
            ),
            (
                Answer {
                    outcome: Outcome::Allowed,
                    explain: String::new(),
                    line: Some(Deciding::NoRule),
                },
                r#"{"outcome":"allowed","line":0}"#,
            ),
            (
                Answer::from(Outcome::Value {
                    value: Value::Int(3),
                }),
                r#"{"outcome":"value","value":{"type":"int","value":3}}"#,
            ),
            (
                Answer::from(Outcome::Error {
                    kind: "K".into(),
                    message: "m".into(),
                }),
                r#"{"outcome":"error","kind":"K","message":"m"}"#,
            ),
            (
                Answer::from(Outcome::Crash { detail: "d".into() }),
                r#"{"outcome":"crash","detail":"d"}"#,
            ),
            (Answer::from(Outcome::Timeout), r#"{"outcome":"timeout"}"#),
            (
                Answer::from(Outcome::Unsupported { reason: "r".into() }),
                r#"{"outcome":"unsupported","reason":"r"}"#,
            ),
        ];
        for (answer, text) in cases {
            assert_eq!(serde_json::to_string(&answer).unwrap(), text);
            assert_eq!(serde_json::from_str::<Answer>(text).unwrap(), answer);
        }
    }

    #[test]
    fn an_answer_missing_its_outcome_fields_is_refused() {
        for bad in [
            r#"{"outcome":"error","kind":"K"}"#,
            r#"{"outcome":"value"}"#,
            r#"{"outcome":"crash"}"#,
            r#"{"outcome":"unsupported"}"#,
            r#"{"outcome":"maybe"}"#,
            r#"{"explain":"no outcome"}"#,
        ] {
            assert!(serde_json::from_str::<Answer>(bad).is_err(), "{bad}");
        }
    }
}
