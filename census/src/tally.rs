//! What a census counts, kept as plain sums so shards can be merged.
//!
//! Every figure of the report is derived from a [`Tally`], and a tally is a
//! commutative sum of per-file tallies: counts add, an example is the
//! smallest affected file (by size, then name), the high-impact sample is
//! the first files by name. So the census of a union of shards is the merge
//! of their tallies, byte for byte, in any order.

use crate::pair::Pair;
use crate::queries::{Asked, Origin, GENERIC_AGENTS};
use engine::oracle::{Answer, Outcome};
use engine::signature::Signature;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// High-impact rows kept in a tally (the count covers all of them).
pub const HIGH_IMPACT_KEPT: usize = 200;
/// Example files kept per headline pair (the count covers all of them).
pub const HEADLINE_KEPT: usize = 3;
/// An example's body is shown up to this many bytes.
pub const EXAMPLE_BYTES: usize = 2048;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// Files whose queries were put to the oracles.
    pub files: u64,
    pub queries: u64,
    /// Of `queries`, those on a URL no crawler requests (`/robots.txt`, a
    /// bare `?`: [`crate::queries::unrequested`]): asked and counted here,
    /// left out of the headline.
    #[serde(default)]
    pub unrequested: u64,
    /// Files not asked because their HTTP status was not 2xx, by status.
    pub skipped_status: BTreeMap<u16, u64>,
    pub pairs: BTreeMap<Pair, PairTally>,
    pub oracles: BTreeMap<String, OracleTally>,
    /// Only signatures with more than one agreement class.
    pub signatures: BTreeMap<Signature, SigTally>,
    pub high_impact: HighImpact,
    /// Keyed like `pairs`, for the widely used pairs (the impact pairs):
    /// the files on which they disagree on a question a person can repeat.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headline: BTreeMap<Pair, Headline>,
}

/// One widely used pair on `/` and on the paths the file's own rules name
/// ([`crate::queries::Kind::named_by_file`]), for the agents no file
/// chooses ([`GENERIC_AGENTS`]: Googlebot and a crawler the file does not
/// name), on URLs a crawler requests (not `/robots.txt` nor a bare `?`):
/// "they disagree on N real sites" with nothing invented in it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Headline {
    /// Files on which both answered such a question with a verdict.
    pub files_compared: u64,
    pub files_disagree: u64,
    /// The smallest disagreeing files (by size, then name), at most
    /// [`HEADLINE_KEPT`], each with the first such question and both answers.
    pub examples: Vec<HeadlineRow>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HeadlineRow {
    pub example: Example,
    /// The pair's answers as outcome labels, first oracle first.
    pub answers: (String, String),
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PairTally {
    /// Queries both answered with a verdict.
    pub queries_compared: u64,
    pub queries_disagree: u64,
    pub files_compared: u64,
    pub files_disagree: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OracleTally {
    pub files_error: u64,
    pub files_crash: u64,
    pub files_timeout: u64,
    pub queries_error: u64,
    pub queries_crash: u64,
    pub queries_timeout: u64,
    /// Queries this oracle and the reference both answered with a verdict.
    pub queries_vs_reference: u64,
    pub queries_depart_reference: u64,
    /// Per expectation profile (`robots-1996`, ...): the queries this oracle
    /// and the profile's reference both answered with a verdict, and those
    /// it answered differently. Empty when no profile was asked.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub profiles: BTreeMap<String, Versus>,
}

/// One oracle against one expectation profile.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Versus {
    /// Queries both answered with a verdict.
    pub queries_compared: u64,
    pub queries_disagree: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SigTally {
    pub files: u64,
    pub queries: u64,
    pub example: Example,
}

/// One real file showing a signature: the smallest, so it is readable.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Example {
    pub name: String,
    pub host: String,
    pub agent: String,
    pub url: String,
    pub body_bytes: u64,
    /// The body, lossily decoded, cut at [`EXAMPLE_BYTES`].
    pub body: String,
}

impl Example {
    fn key(&self) -> (u64, &str, &str, &str) {
        (self.body_bytes, &self.name, &self.agent, &self.url)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HighImpact {
    /// Every (file, pair) where the pair disagrees on `/` or on a path
    /// built from a whole-site rule.
    pub total: u64,
    /// The first [`HIGH_IMPACT_KEPT`] of them by file name, then pair.
    pub rows: Vec<ImpactRow>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ImpactRow {
    pub name: String,
    pub pair: Pair,
    pub host: String,
    pub agent: String,
    pub url: String,
    pub answers: String,
}

impl Tally {
    pub fn merge(&mut self, other: Tally) {
        self.files += other.files;
        self.queries += other.queries;
        self.unrequested += other.unrequested;
        for (k, v) in other.skipped_status {
            *self.skipped_status.entry(k).or_default() += v;
        }
        for (k, v) in other.pairs {
            let p = self.pairs.entry(k).or_default();
            p.queries_compared += v.queries_compared;
            p.queries_disagree += v.queries_disagree;
            p.files_compared += v.files_compared;
            p.files_disagree += v.files_disagree;
        }
        for (k, v) in other.oracles {
            let o = self.oracles.entry(k).or_default();
            o.files_error += v.files_error;
            o.files_crash += v.files_crash;
            o.files_timeout += v.files_timeout;
            o.queries_error += v.queries_error;
            o.queries_crash += v.queries_crash;
            o.queries_timeout += v.queries_timeout;
            o.queries_vs_reference += v.queries_vs_reference;
            o.queries_depart_reference += v.queries_depart_reference;
            for (name, p) in v.profiles {
                let q = o.profiles.entry(name).or_default();
                q.queries_compared += p.queries_compared;
                q.queries_disagree += p.queries_disagree;
            }
        }
        for (k, v) in other.signatures {
            match self.signatures.get_mut(&k) {
                None => {
                    self.signatures.insert(k, v);
                }
                Some(s) => {
                    s.files += v.files;
                    s.queries += v.queries;
                    if v.example.key() < s.example.key() {
                        s.example = v.example;
                    }
                }
            }
        }
        for (k, v) in other.headline {
            let h = self.headline.entry(k).or_default();
            h.files_compared += v.files_compared;
            h.files_disagree += v.files_disagree;
            h.examples.extend(v.examples);
            h.examples
                .sort_by(|x, y| x.example.key().cmp(&y.example.key()));
            h.examples.dedup();
            h.examples.truncate(HEADLINE_KEPT);
        }
        let h = &mut self.high_impact;
        h.total += other.high_impact.total;
        h.rows.extend(other.high_impact.rows);
        h.rows.sort();
        h.rows.dedup();
        h.rows.truncate(HIGH_IMPACT_KEPT);
    }
}

fn is_verdict(o: &Outcome) -> bool {
    matches!(o, Outcome::Allowed | Outcome::Disallowed)
}

/// What one file contributes. `answers[k][i]` is oracle `k`'s answer to
/// query `i`; `impact` lists the pairs of widely used parsers.
#[derive(Clone, Copy)]
pub struct FileInput<'a> {
    pub name: &'a str,
    pub host: &'a str,
    pub body: &'a [u8],
    pub asked: &'a [Asked],
    pub names: &'a [String],
    pub answers: &'a [Vec<Answer>],
    pub reference: Option<usize>,
    pub impact: &'a [(usize, usize)],
    /// The expectation profiles' names and, per profile, one answer per
    /// query: compared with each oracle, never part of pairs or signatures.
    pub profile_names: &'a [String],
    pub profile_answers: &'a [Vec<Answer>],
}

pub fn file_tally(f: &FileInput) -> Tally {
    let mut t = Tally {
        files: 1,
        queries: f.asked.len() as u64,
        unrequested: f.asked.iter().filter(|a| a.unrequested).count() as u64,
        ..Tally::default()
    };
    let n = f.names.len();
    let at = |k: usize, i: usize| &f.answers[k][i].outcome;
    for a in 0..n {
        for b in a + 1..n {
            let mut p = PairTally::default();
            for i in 0..f.asked.len() {
                if is_verdict(at(a, i)) && is_verdict(at(b, i)) {
                    p.queries_compared += 1;
                    p.queries_disagree += u64::from(at(a, i) != at(b, i));
                }
            }
            p.files_compared = u64::from(p.queries_compared > 0);
            p.files_disagree = u64::from(p.queries_disagree > 0);
            t.pairs.insert(Pair::new(&f.names[a], &f.names[b]), p);
        }
    }
    for k in 0..n {
        t.oracles.insert(f.names[k].clone(), oracle_tally(f, k));
    }
    signatures(f, &mut t);
    high_impact(f, &mut t);
    headline(f, &mut t);
    t
}

/// One file's tallies, one per [`Origin`]: each is reported apart (a
/// figure says what was asked), so each is counted apart.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileTallies {
    pub written: Tally,
    /// `None` when the file asked no near miss (nor probe, below).
    pub near_misses: Option<Tally>,
    pub probes: Option<Tally>,
}

/// The file's tally over its as-written questions, and over its near
/// misses and its probes when it has any.
pub fn file_tallies(f: &FileInput) -> FileTallies {
    let of = |origin: Origin| -> Vec<usize> {
        (0..f.asked.len())
            .filter(|&i| f.asked[i].kind.origin() == origin)
            .collect()
    };
    let only = |idx: &[usize]| {
        let pick = |all: &[Vec<Answer>]| -> Vec<Vec<Answer>> {
            all.iter()
                .map(|a| idx.iter().map(|&i| a[i].clone()).collect())
                .collect()
        };
        let asked: Vec<Asked> = idx.iter().map(|&i| f.asked[i].clone()).collect();
        let (answers, profile_answers) = (pick(f.answers), pick(f.profile_answers));
        file_tally(&FileInput {
            asked: &asked,
            answers: &answers,
            profile_answers: &profile_answers,
            ..*f
        })
    };
    let some = |idx: Vec<usize>| (!idx.is_empty()).then(|| only(&idx));
    FileTallies {
        // Every file asks `/`, so every file is in the as-written section.
        written: only(&of(Origin::Written)),
        near_misses: some(of(Origin::NearMiss)),
        probes: some(of(Origin::Probe)),
    }
}

fn oracle_tally(f: &FileInput, k: usize) -> OracleTally {
    let mut o = OracleTally::default();
    for (i, answer) in f.answers[k].iter().enumerate() {
        match answer.outcome {
            Outcome::Error { .. } => o.queries_error += 1,
            Outcome::Crash { .. } => o.queries_crash += 1,
            Outcome::Timeout => o.queries_timeout += 1,
            _ => {}
        }
        if let Some(r) = f.reference.filter(|&r| r != k) {
            let (mine, theirs) = (&answer.outcome, &f.answers[r][i].outcome);
            if is_verdict(mine) && is_verdict(theirs) {
                o.queries_vs_reference += 1;
                o.queries_depart_reference += u64::from(mine != theirs);
            }
        }
        for (name, profile) in f.profile_names.iter().zip(f.profile_answers) {
            let (mine, expected) = (&answer.outcome, &profile[i].outcome);
            if is_verdict(mine) && is_verdict(expected) {
                let p = o.profiles.entry(name.clone()).or_default();
                p.queries_compared += 1;
                p.queries_disagree += u64::from(mine != expected);
            }
        }
    }
    o.files_error = u64::from(o.queries_error > 0);
    o.files_crash = u64::from(o.queries_crash > 0);
    o.files_timeout = u64::from(o.queries_timeout > 0);
    o
}

fn example(f: &FileInput, i: usize) -> Example {
    let mut body = String::from_utf8_lossy(f.body).into_owned();
    if body.len() > EXAMPLE_BYTES {
        let mut cut = EXAMPLE_BYTES;
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        body.truncate(cut);
    }
    Example {
        name: f.name.to_string(),
        host: f.host.to_string(),
        agent: f.asked[i].query.agent.clone(),
        url: f.asked[i].query.url.clone(),
        body_bytes: f.body.len() as u64,
        body,
    }
}

fn signatures(f: &FileInput, t: &mut Tally) {
    let mut seen: BTreeSet<Signature> = BTreeSet::new();
    for i in 0..f.asked.len() {
        let row = f
            .names
            .iter()
            .zip(f.answers)
            .map(|(n, a)| (n.as_str(), &a[i].outcome));
        let sig = Signature::of(row);
        if !sig.disagrees() {
            continue;
        }
        let first = seen.insert(sig.clone());
        let s = t.signatures.entry(sig).or_default();
        s.queries += 1;
        if first {
            s.files += 1;
            s.example = example(f, i);
        }
    }
}

fn high_impact(f: &FileInput, t: &mut Tally) {
    for &(a, b) in f.impact {
        let hit = (0..f.asked.len()).find(|&i| {
            let (x, y) = (&f.answers[a][i].outcome, &f.answers[b][i].outcome);
            (f.asked[i].kind == crate::queries::Kind::Root || f.asked[i].whole_site)
                && is_verdict(x)
                && is_verdict(y)
                && x != y
        });
        if let Some(i) = hit {
            t.high_impact.total += 1;
            t.high_impact.rows.push(ImpactRow {
                name: f.name.to_string(),
                pair: Pair::new(&f.names[a], &f.names[b]),
                host: f.host.to_string(),
                agent: f.asked[i].query.agent.clone(),
                url: f.asked[i].query.url.clone(),
                answers: format!(
                    "{}={} {}={}",
                    f.names[a],
                    f.answers[a][i].outcome.label(),
                    f.names[b],
                    f.answers[b][i].outcome.label()
                ),
            });
        }
    }
}

fn headline(f: &FileInput, t: &mut Tally) {
    let asks = |i: usize| {
        let q = &f.asked[i];
        q.kind.named_by_file() && !q.unrequested && GENERIC_AGENTS.contains(&q.query.agent.as_str())
    };
    for &(a, b) in f.impact {
        let both = |i: &usize| {
            asks(*i)
                && is_verdict(&f.answers[a][*i].outcome)
                && is_verdict(&f.answers[b][*i].outcome)
        };
        let compared: Vec<usize> = (0..f.asked.len()).filter(both).collect();
        if compared.is_empty() {
            continue;
        }
        let h = t
            .headline
            .entry(Pair::new(&f.names[a], &f.names[b]))
            .or_default();
        h.files_compared += 1;
        let hit = compared
            .into_iter()
            .find(|&i| f.answers[a][i].outcome != f.answers[b][i].outcome);
        if let Some(i) = hit {
            h.files_disagree += 1;
            h.examples.push(HeadlineRow {
                example: example(f, i),
                answers: (
                    f.answers[a][i].outcome.label(),
                    f.answers[b][i].outcome.label(),
                ),
            });
        }
    }
}
