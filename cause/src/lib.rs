//! Root-cause triage: name *why* an oracle departs from the reference.
//!
//! A cell key (`cpython-3.11: allowed->disallowed @ disallow/star`) says
//! what kind of departure an input shows, not why: two different bugs of one
//! parser behind the same kind of rule share it, so the second one hid behind
//! the first. Here a departure is named by an experiment instead:
//!
//! 1. [`minimise`] the input for the pair (reference, oracle) alone, keeping
//!    the pair's two outcomes: delete lines, normalise line ends, shorten
//!    rule and group values, shorten the URL and the agent. Every step keeps
//!    the file's structure (keys are never cut), so the cause survives.
//! 2. [`classify`] it with the [`CATALOGUE`]: named transformations, each
//!    removing one input feature that parsers are known to read differently
//!    (a BOM, a NUL, a misspelt key, a fragment, lower-case escape hex...).
//!    The first transformation that makes the pair agree names the cause; a
//!    pair that none neutralises is [`Diagnosis::New`].
//!
//! A finding's identity is then (oracle, cause). The catalogue is ordered
//! from the narrowest transformation to the broadest, so a broad one (reverse
//! the rule order) cannot claim a pair that a narrow one (strip the BOM)
//! explains. docs/causes.md lists it with the ledger case each is tested on.

use engine::oracle::{Ask, Label, Oracle, Outcome, Query};

/// What one question is: the robots.txt body, the caller's agent and URL.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Input {
    pub body: Vec<u8>,
    pub agent: String,
    pub url: String,
}

/// One named, neutralising transformation.
pub struct Transformation {
    /// The cause's name, as findings and ledger entries carry it.
    pub name: &'static str,
    /// The parser behaviour it neutralises.
    pub neutralises: &'static str,
    /// The input without the feature, or `None` when the input lacks it.
    pub apply: fn(&Input) -> Option<Input>,
}

/// The oracle every other is paired with: causes and cell keys name how an
/// oracle departs from it.
pub const REFERENCE: &str = "rfc9309";

/// What names a pair's departure. One type instead of a `"new"` sentinel
/// and `a+b` strings: the sweep, lint, the census and the fuzz report each
/// branch on whether a cause was found, and a misspelt sentinel compiled
/// silently. Written (and ordered) as its text: the catalogue name, `a+b`
/// for a stacked pair, `new`, which is how reports and ledgers spell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Diagnosis {
    /// One [`CATALOGUE`] transformation neutralises the pair.
    Catalogued(&'static str),
    /// Two, applied one after the other, in catalogue order
    /// ([`stacked_causes`]): two known features in one input.
    Stacked(&'static str, &'static str),
    /// No transformation (nor pair of them, where that was tried) does: a
    /// candidate new cause.
    New,
}

impl Diagnosis {
    /// The catalogue transformation named `name`, if there is one: how a
    /// cause stored by a person (the ledger) becomes a diagnosis.
    pub fn catalogued(name: &str) -> Option<Diagnosis> {
        CATALOGUE
            .iter()
            .find(|t| t.name == name)
            .map(|t| Diagnosis::Catalogued(t.name))
    }

    /// The one catalogue name, when there is one.
    pub fn name(self) -> Option<&'static str> {
        match self {
            Diagnosis::Catalogued(n) => Some(n),
            _ => None,
        }
    }

    pub fn is_new(self) -> bool {
        self == Diagnosis::New
    }

    /// The text, in pieces, so that ordering needs no allocation.
    fn pieces(self) -> [&'static str; 3] {
        match self {
            Diagnosis::Catalogued(n) => [n, "", ""],
            Diagnosis::Stacked(a, b) => [a, "+", b],
            Diagnosis::New => ["new", "", ""],
        }
    }
}

impl std::fmt::Display for Diagnosis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.pieces().iter().try_for_each(|p| f.write_str(p))
    }
}

impl Ord for Diagnosis {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let text = |d: &Diagnosis| d.pieces().into_iter().flat_map(str::bytes);
        text(self).cmp(text(other))
    }
}

/// Written as its text in JSON (lint's, the fuzz records'), as people and
/// the earlier string fields read it.
impl serde::Serialize for Diagnosis {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Read from its text ([`FromStr`](std::str::FromStr)): a record naming a
/// cause the catalogue no longer has fails to load, naming it.
impl<'de> serde::Deserialize<'de> for Diagnosis {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Diagnosis, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl PartialOrd for Diagnosis {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// A stored diagnosis read back: a findings record (written by the fuzz
/// target's minimisation, read by the nightly's report in another process)
/// or a ledger's `cause:`. An unknown name is an error, so a renamed
/// transformation shows up instead of counting as new.
impl std::str::FromStr for Diagnosis {
    type Err = String;

    // String: a token that does not parse; its message is the whole error, and
    // the loader that read it adds the file and line.
    fn from_str(s: &str) -> Result<Diagnosis, String> {
        let known = |n: &str| {
            Diagnosis::catalogued(n)
                .and_then(Diagnosis::name)
                .ok_or_else(|| format!("`{n}` is not a cause of the catalogue (docs/causes.md)"))
        };
        match s.split_once('+') {
            _ if s == "new" => Ok(Diagnosis::New),
            Some((a, b)) => Ok(Diagnosis::Stacked(known(a)?, known(b)?)),
            None => known(s).map(Diagnosis::Catalogued),
        }
    }
}

/// The ledger's word for a cause the catalogue does not name (followed by
/// `: <reason>`).
pub use engine::cause::UNCATALOGUED;

/// Is `cause` one the ledger may carry: a catalogue name, or uncatalogued
/// (with its reason, which [`engine::cause::Cause`] requires)?
pub fn valid_ledger_cause(cause: &engine::cause::Cause) -> bool {
    cause
        .name()
        .is_none_or(|n| CATALOGUE.iter().any(|t| *n == *t.name))
}

/// The pair under triage: how the reference and the oracle answer an input.
pub trait PairAsk {
    /// The two outcomes as ledger pins (`allowed`, `error:ValueError`...).
    fn ask(&mut self, input: &Input) -> (Label, Label);
}

/// Two oracles asked one `can_fetch` question each time.
pub struct OraclePair<'a> {
    pub reference: &'a mut dyn Oracle,
    pub oracle: &'a mut dyn Oracle,
    /// Questions asked so far (both oracles count as one).
    pub asked: u64,
}

impl<'a> OraclePair<'a> {
    pub fn new(reference: &'a mut dyn Oracle, oracle: &'a mut dyn Oracle) -> Self {
        OraclePair {
            reference,
            oracle,
            asked: 0,
        }
    }

    /// Two distinct oracles of `all`, by name, borrowed at once; `None`
    /// when either is missing or both names are one oracle.
    pub fn of(all: &'a mut [Box<dyn Oracle>], reference: &str, oracle: &str) -> Option<Self> {
        let r = all.iter().position(|o| o.name() == reference)?;
        let o = all.iter().position(|o| o.name() == oracle)?;
        if r == o {
            return None;
        }
        let (lo, hi) = all.split_at_mut(r.max(o));
        let (first, second) = (&mut lo[r.min(o)], &mut hi[0]);
        let (rf, or) = if r < o {
            (first, second)
        } else {
            (second, first)
        };
        Some(OraclePair::new(rf.as_mut(), or.as_mut()))
    }
}

/// One `can_fetch` answer of `oracle` as its pin label; no answer is a crash.
pub fn ask_one(oracle: &mut dyn Oracle, input: &Input) -> Label {
    let q = [Query {
        ask: Ask::CanFetch,
        agent: input.agent.clone(),
        url: input.url.clone(),
    }];
    let outcome = oracle
        .run(&input.body, &q)
        .pop()
        .map(|a| a.outcome)
        .unwrap_or(Outcome::Crash {
            detail: "no answer".into(),
        });
    outcome.pin()
}

impl PairAsk for OraclePair<'_> {
    fn ask(&mut self, input: &Input) -> (Label, Label) {
        self.asked += 1;
        (ask_one(self.reference, input), ask_one(self.oracle, input))
    }
}

/// Do the two answers agree? `unsupported` is no answer to disagree with.
pub fn agree(answers: &(Label, Label)) -> bool {
    answers.0 == answers.1 || answers.0 == Label::Unsupported || answers.1 == Label::Unsupported
}

/// The first catalogue transformation under which the pair agrees on
/// `input`, or [`Diagnosis::New`]; `None` when the pair already agrees.
pub fn classify(pair: &mut dyn PairAsk, input: &Input) -> Option<Diagnosis> {
    if agree(&pair.ask(input)) {
        return None;
    }
    Some(
        CATALOGUE
            .iter()
            .find(|t| reconciles(pair, input, t.name))
            .map_or(Diagnosis::New, |t| Diagnosis::Catalogued(t.name)),
    )
}

/// Does transformation `name` change `input` and make the pair agree on
/// it? A caller that knows which causes were measured for one of the pair
/// asks this of them: removing `Allow: /` reshapes groups and can
/// reconcile a parser that matches agents case-sensitively, which the
/// catalogue's order names first, though it says nothing about that
/// parser's reading of `Allow`.
pub fn reconciles(pair: &mut dyn PairAsk, input: &Input, name: &str) -> bool {
    CATALOGUE
        .iter()
        .find(|t| t.name == name)
        .and_then(|t| (t.apply)(input))
        .is_some_and(|changed| changed != *input && agree(&pair.ask(&changed)))
}

/// The two catalogue transformations that, applied one after the other,
/// make the pair agree on `input` ([`Diagnosis::Stacked`], in catalogue
/// order); `None` when no pair of them does. For a [`Diagnosis::New`]
/// departure only: a fuzz input often stacks two
/// known features (a misspelt key *and* a missing colon), which no single
/// transformation neutralises, and such a departure is not a new cause.
/// Tries every ordered pair of transformations that each change the input,
/// so about (applicable transformations)² questions, on a minimised input.
pub fn stacked_causes(pair: &mut dyn PairAsk, input: &Input) -> Option<Diagnosis> {
    if agree(&pair.ask(input)) {
        return None;
    }
    let firsts: Vec<(usize, Input)> = CATALOGUE
        .iter()
        .enumerate()
        .filter_map(|(i, t)| (t.apply)(input).filter(|c| c != input).map(|c| (i, c)))
        .collect();
    for (i, first) in &firsts {
        for (j, t) in CATALOGUE.iter().enumerate() {
            if j == *i {
                continue;
            }
            let Some(both) = (t.apply)(first).filter(|c| c != first) else {
                continue;
            };
            if agree(&pair.ask(&both)) {
                let (a, b) = if i < &j { (*i, j) } else { (j, *i) };
                return Some(Diagnosis::Stacked(CATALOGUE[a].name, CATALOGUE[b].name));
            }
        }
    }
    None
}

/// One pair's departure, named: the minimised input and its cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// The reference's and the oracle's outcomes.
    pub answers: (Label, Label),
    pub minimised: Input,
    /// A [`CATALOGUE`] name, or [`Diagnosis::New`] (never stacked: that
    /// takes more questions, and only callers that report it ask them).
    pub cause: Diagnosis,
}

/// Minimise `input` for the pair, then classify it; `None` when the pair
/// agrees on `input` (nothing to name).
pub fn name_cause(pair: &mut dyn PairAsk, input: &Input) -> Option<Named> {
    let answers = pair.ask(input);
    if agree(&answers) {
        return None;
    }
    let minimised = minimise(pair, input);
    let cause = classify(pair, &minimised)?;
    Some(Named {
        answers,
        minimised,
        cause,
    })
}

/// A minimised body as one readable line, Rust-style (also valid for
/// Python bytes, JS, Ruby and Perl double-quoted strings once `$`, `@` and
/// `#` are handled by the caller): printable ASCII stays readable,
/// everything else is `\xNN`.
pub fn escape_bytes(body: &[u8]) -> String {
    let mut s = String::new();
    for &b in body {
        match b {
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            b'\\' => s.push_str("\\\\"),
            b'"' => s.push_str("\\\""),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s
}

/// Remove chunks of `units` while `test` holds (ddmin, chunk sizes halving).
pub fn ddmin<T: Clone>(units: Vec<T>, test: impl FnMut(&[T]) -> bool) -> Vec<T> {
    ddmin_until(units, test, &|| false)
}

/// [`ddmin`] that stops as soon as `spent` says the question budget is
/// gone (a 16 KiB line would otherwise be walked octet by octet for nothing).
pub fn ddmin_until<T: Clone>(
    units: Vec<T>,
    mut test: impl FnMut(&[T]) -> bool,
    spent: &dyn Fn() -> bool,
) -> Vec<T> {
    let mut cur = units;
    let mut n = (cur.len() / 2).max(1);
    loop {
        let mut progress = false;
        let mut i = 0;
        while i < cur.len() {
            if spent() {
                return cur;
            }
            let end = (i + n).min(cur.len());
            let mut cand = Vec::with_capacity(cur.len());
            cand.extend_from_slice(&cur[..i]);
            cand.extend_from_slice(&cur[end..]);
            if test(&cand) {
                cur = cand;
                progress = true;
            } else {
                i += n;
            }
        }
        if n == 1 && !progress {
            return cur;
        }
        if !progress || n > 1 {
            n = (n / 2).max(1);
        }
    }
}

/// Lines with their line ends (`\n`, `\r\n` or a lone `\r`).
pub fn lines(body: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    for (i, &b) in body.iter().enumerate() {
        cur.push(b);
        if b == b'\n' || (b == b'\r' && body.get(i + 1) != Some(&b'\n')) {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// At most this many questions per pair minimisation: pairs with a Python or
/// worker oracle cost up to a millisecond each.
const MINIMISE_BUDGET: u64 = 1_500;

/// And at most this long: some parsers are super-linear on some inputs (the
/// robotstxt crate takes seconds on a 16 KiB line of `*`), and a
/// half-minimised input still classifies.
const MINIMISE_TIME: std::time::Duration = std::time::Duration::from_secs(10);

/// At most this many passes of [`minimise_pass`]: a pass that shortens the
/// URL can let the next one cut a rule value further.
const MINIMISE_PASSES: usize = 4;

/// Shrink `input` while the pair keeps exactly the outcomes it gives now
/// (see the module docs for the steps), pass after pass until a pass
/// changes nothing. Structure-preserving: lines are deleted whole and only
/// values are cut, so a key is never misspelt by the shrinking itself.
///
/// Passes run to a fixed point so that minimising a minimised input gives
/// it back: a corpus case copied from the sweep's minimised input then
/// classifies as the sweep's departure did, and the ledger entry holding
/// that case names the same (oracle, cause) pair.
pub fn minimise(pair: &mut dyn PairAsk, input: &Input) -> Input {
    let budget = Budget {
        asked: std::cell::Cell::new(0),
        started: std::time::Instant::now(),
    };
    let mut cur = minimise_pass(pair, input, input, &budget);
    for _ in 1..MINIMISE_PASSES {
        if budget.spent() {
            break;
        }
        let next = minimise_pass(pair, input, &cur, &budget);
        if next == cur {
            break;
        }
        cur = next;
    }
    cur
}

/// What one [`minimise`] may still spend, over all its passes.
struct Budget {
    asked: std::cell::Cell<u64>,
    started: std::time::Instant,
}

impl Budget {
    fn spent(&self) -> bool {
        self.asked.get() >= MINIMISE_BUDGET || self.started.elapsed() > MINIMISE_TIME
    }
}

/// One pass of [`minimise`] over `from`, keeping the shape of `original`.
fn minimise_pass(pair: &mut dyn PairAsk, original: &Input, from: &Input, budget: &Budget) -> Input {
    let want = pair.ask(from);
    let spent = || budget.spent();
    let mut holds = |cand: &Input| {
        if spent() {
            return false;
        }
        budget.asked.set(budget.asked.get() + 1);
        pair.ask(cand) == want
    };
    let mut cur = from.clone();
    let normal = normalise_line_ends(&cur.body);
    if normal != cur.body && holds(&with_body(&cur, normal.clone())) {
        cur.body = normal;
    }
    cur.body = shrink_lines(original, &cur, &mut holds, &spent);
    cur.body = shrink_values(&cur, &mut holds, &spent);
    cur.url = shrink_url(&cur, &mut holds, &spent);
    let chars: Vec<char> = cur.agent.chars().collect();
    let agent = ddmin_until(
        chars,
        |c| {
            let a: String = c.iter().collect();
            !a.is_empty()
                && holds(&Input {
                    agent: a,
                    ..cur.clone()
                })
        },
        &spent,
    );
    cur.agent = agent.into_iter().collect();
    cur.body = shrink_lines(original, &cur, &mut holds, &spent);
    cur
}

/// Delete whole lines of `cur` while the outcomes hold and the file keeps
/// the shape of `original` (see [`keeps_shape`]).
fn shrink_lines(
    original: &Input,
    cur: &Input,
    holds: &mut dyn FnMut(&Input) -> bool,
    spent: &dyn Fn() -> bool,
) -> Vec<u8> {
    let kept = ddmin_until(
        lines(&cur.body),
        |c| {
            let b = c.concat();
            keeps_shape(&original.body, &b) && holds(&with_body(cur, b))
        },
        spent,
    );
    kept.concat()
}

fn with_body(input: &Input, body: Vec<u8>) -> Input {
    Input {
        body,
        ..input.clone()
    }
}

/// Each rule's value (after the colon) cut by ddmin over its characters
/// (its bytes when it is not UTF-8), never to empty; leading whitespace and
/// line end kept. Group names are left whole: cutting `*` to an empty name
/// would itself be a cause (CPython's substring match).
fn shrink_values(
    cur: &Input,
    holds: &mut dyn FnMut(&Input) -> bool,
    spent: &dyn Fn() -> bool,
) -> Vec<u8> {
    let mut ls = lines(&cur.body);
    for i in 0..ls.len() {
        let (content, end) = split_end(&ls[i]);
        if !catalogue::is_rule(content) {
            continue;
        }
        let Some(colon) = content.iter().position(|&b| b == b':') else {
            continue;
        };
        let lead = content[colon + 1..]
            .iter()
            .take_while(|b| **b == b' ' || **b == b'\t')
            .count();
        let head = content[..colon + 1 + lead].to_vec();
        let value = &content[colon + 1 + lead..];
        let end = end.to_vec();
        // A pattern that starts with `/` keeps it: one without is a cause
        // of its own (read as relative, or as a literal prefix).
        let slash = value.first() == Some(&b'/');
        let mut try_value = |v: &[u8]| {
            let mut cand = ls.clone();
            cand[i] = [head.as_slice(), v, end.as_slice()].concat();
            !v.is_empty()
                && (!slash || v.first() == Some(&b'/'))
                && holds(&with_body(cur, cand.concat()))
        };
        let value: Vec<u8> = match std::str::from_utf8(value) {
            Ok(text) => {
                let chars: Vec<char> = text.chars().collect();
                let kept = ddmin_until(
                    chars,
                    |c| try_value(c.iter().collect::<String>().as_bytes()),
                    spent,
                );
                kept.into_iter().collect::<String>().into_bytes()
            }
            Err(_) => ddmin_until(value.to_vec(), |v| try_value(v), spent),
        };
        ls[i] = [head, value, end].concat();
    }
    ls.concat()
}

/// Does deleting lines keep the file's shape? Rules must not lose their
/// group (orphan rules are a cause of their own: texting_robots applies
/// them to all), and the body must not become empty of user-agent lines.
/// Public for `repdiff lint`, which minimises a file for a whole split of
/// oracles under the same rules.
pub fn keeps_shape(original: &[u8], cand: &[u8]) -> bool {
    let orphans = |b: &[u8]| {
        let mut seen = false;
        lines(b).iter().any(|l| {
            let c = split_end(l).0;
            seen |= catalogue::is_agent_line(c);
            !seen && catalogue::is_rule(c)
        })
    };
    // Nor may a blank line come to split a group (CPython 3.11 ends one
    // there): no rule or user-agent line newly right after a blank line.
    let split = |b: &[u8]| {
        let ls = lines(b);
        ls.windows(2).any(|w| {
            let (a, c) = (split_end(&w[0]).0, split_end(&w[1]).0);
            a.iter().all(|x| *x == b' ' || *x == b'\t')
                && (catalogue::is_rule(c) || catalogue::is_agent_line(c))
        })
    };
    (orphans(original) || !orphans(cand)) && (split(original) || !split(cand))
}

/// The URL on a plain host, then its path cut by ddmin over its characters.
fn shrink_url(
    cur: &Input,
    holds: &mut dyn FnMut(&Input) -> bool,
    spent: &dyn Fn() -> bool,
) -> String {
    let (host, path) = split_url(&cur.url);
    let mut url = cur.url.clone();
    if !host.is_empty() && host != "http://example.test" {
        let plain = format!("http://example.test{path}");
        if holds(&Input {
            url: plain.clone(),
            ..cur.clone()
        }) {
            url = plain;
        }
    }
    let (host, path) = split_url(&url);
    // An empty path (http://h) is a cause of its own: keep the `/`.
    let slash = path.starts_with('/');
    let chars: Vec<char> = path.chars().collect();
    let path: String = ddmin_until(
        chars,
        |c| {
            let p: String = c.iter().collect();
            (if slash {
                p.starts_with('/')
            } else {
                host.is_empty() || p.is_empty() || p.starts_with('/')
            }) && holds(&Input {
                url: format!("{host}{p}"),
                ..cur.clone()
            })
        },
        spent,
    )
    .into_iter()
    .collect();
    format!("{host}{path}")
}

/// `scheme://host[:port]` and the rest (path, query, fragment).
pub fn split_url(url: &str) -> (String, String) {
    match url.find("://") {
        Some(i) => {
            let after = &url[i + 3..];
            let end = after.find(['/', '?', '#']).map_or(url.len(), |j| i + 3 + j);
            (url[..end].to_string(), url[end..].to_string())
        }
        None => (String::new(), url.to_string()),
    }
}

/// A line's content and its line end.
fn split_end(line: &[u8]) -> (&[u8], &[u8]) {
    let n = line
        .iter()
        .rev()
        .take_while(|b| **b == b'\n' || **b == b'\r')
        .count();
    line.split_at(line.len() - n)
}

fn normalise_line_ends(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        if body[i] == b'\r' {
            out.push(b'\n');
            if body.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
        } else {
            out.push(body[i]);
        }
        i += 1;
    }
    out
}

mod catalogue;
pub use catalogue::CATALOGUE;

#[cfg(test)]
mod tests;
