//! Triage inside the fuzzing loop: signatures, the deciding feature, the
//! known list, and what makes a disagreement *new*.
//!
//! One module for both sides: the fuzz targets call it in the loop, and
//! the product calls it (`fuzzcore::triage`) for `repdiff triage minimize`
//! and the known list, so the loop and the minimiser can never disagree on what
//! a signature is. It depends only on `engine` and `oracles`.
//!
//! # Vocabulary
//!
//! - **agreement**: how the oracles split on one `can_fetch` query, the
//!   engine's own signature (`{google,protego}=allowed | {cpython-3.11}=disallowed`).
//! - **feature**: what decided the verdict under the `rfc9309` oracle's
//!   reading: `/robots.txt`, `no-group`, `no-match/<group>` or
//!   `<allow|disallow>[<flags>]/<group>`, where `<group>` is how the group was
//!   chosen (`exact` product token, `star`, `none`) and `<flags>` are the
//!   deciding pattern's `*`, `$`, `%` and `8` (a non-ASCII octet).
//! - **signature**: `agreement @ feature`.
//! - **cell key**: one oracle's departure from `rfc9309` on that query,
//!   with the feature's flags left out: `cpython-3.11:
//!   allowed->disallowed @ disallow/star`; an error or crash is keyed by its
//!   kind alone (`protego: ->error UnicodeEncodeError`).
//!
//! # When is a fuzz input "explained by the ledger"?
//!
//! Fuzz inputs are not in the corpus, so no ledger entry names them. The
//! known list is derived instead from a run of the whole corpus through the
//! same in-process oracles ([`derive_known`]): for every `can_fetch` query
//! of every (non-HTTP) case whose cells are all matching or explained by a
//! ledger entry, its signature and every cell key it shows are *known*.
//! A fuzz disagreement is **known** when its signature is in that list, or
//! when every one of its cell keys is (each oracle departs from the
//! reference in a way, with a deciding feature, that a ledger-explained
//! corpus cell also shows). Otherwise each cell key of its **new part** —
//! the cell keys the corpus never showed explained — is saved once, under
//! `fuzz/findings/<sha256(key)[..12]>/`, with a hit count: one finding per
//! new kind of departure, however many oracles combine on one input.
//!
//! This is a heuristic, and says so: a known cell key is the same *kind* of
//! departure with the same deciding feature, not proof of the same cause. A
//! new cause that happens to produce an already-explained cell key is
//! counted as known; the feature is what keeps that rare. Once a finding is
//! promoted to a corpus case with a ledger entry, the next derivation knows
//! it.

use engine::case::Corpus;
pub use engine::cell::{CellKey, Departure};
use engine::ledger::Ledger;
use engine::oracle::{Ask, Outcome};
use engine::run::RunResult;
use engine::signature::Signature;
use oracles::rfc9309::{Chosen, DecidedBy, Readings, Robots};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

/// The oracle every other is compared with for cell keys.
pub use cause::REFERENCE;

/// What decided the reference verdict (see the module docs).
pub fn feature(robots: &Robots, agent: &str, url: &str, scratch: &mut Vec<u8>) -> String {
    let v = robots.decide(agent, url, scratch);
    let group = match v.selection.kind {
        Chosen::Exact => "exact",
        Chosen::Star => "star",
        Chosen::None => "none",
    };
    match v.decided_by {
        DecidedBy::RobotsTxt => "/robots.txt".to_string(),
        DecidedBy::NoGroup => "no-group".to_string(),
        DecidedBy::NoMatch => format!("no-match/{group}"),
        DecidedBy::Rule { rule, .. } => {
            let Some((allow, pattern)) = rule_at(robots, rule) else {
                return format!("rule/{group}");
            };
            format!(
                "{}[{}]/{group}",
                if allow { "allow" } else { "disallow" },
                pattern_flags(pattern)
            )
        }
    }
}

/// The deciding rule's kind and raw pattern, found through the public groups.
fn rule_at(robots: &Robots, index: u32) -> Option<(bool, &[u8])> {
    robots.groups().iter().find_map(|g| {
        if g.start <= index && index < g.end {
            let rule = robots.rules_of(g).get((index - g.start) as usize)?;
            Some((rule.allow, robots.raw_pattern(rule)))
        } else {
            None
        }
    })
}

/// `*`, `$` (final), `%`, `8` (non-ASCII) as present in a pattern.
pub fn pattern_flags(pattern: &[u8]) -> String {
    let mut flags = String::new();
    if pattern.contains(&b'*') {
        flags.push('*');
    }
    if pattern.last() == Some(&b'$') {
        flags.push('$');
    }
    if pattern.contains(&b'%') {
        flags.push('%');
    }
    if !pattern.is_ascii() {
        flags.push('8');
    }
    flags
}

/// Between the agreement and the feature in a fuzz signature's text.
const AT: &str = " @ ";

/// A fuzz signature, `agreement @ feature`: the engine's agreement
/// signature and what decided the reference verdict. Its text is what
/// `known-signatures.json`, the stats files and `finding.json` hold;
/// `FromStr` is their one reader.
///
/// Ordered as its text is, so the known list keeps the order it had when
/// signatures were strings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct FuzzSignature {
    pub agreement: Signature,
    pub feature: String,
}

impl FuzzSignature {
    fn text_bytes(&self) -> impl Iterator<Item = u8> + '_ {
        let a = self.agreement.as_str().bytes();
        a.chain(AT.bytes()).chain(self.feature.bytes())
    }
}

impl fmt::Display for FuzzSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{AT}{}", self.agreement, self.feature)
    }
}

impl PartialOrd for FuzzSignature {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for FuzzSignature {
    fn cmp(&self, other: &Self) -> Ordering {
        let (x, y) = (self.agreement.as_str(), other.agreement.as_str());
        if x == y {
            return self.feature.cmp(&other.feature);
        }
        if !x.starts_with(y) && !y.starts_with(x) {
            // They differ inside both agreements: so do the texts, there.
            return x.cmp(y);
        }
        // The fields break a tie of texts, so the order agrees with the
        // derived equality.
        self.text_bytes()
            .cmp(other.text_bytes())
            .then_with(|| x.cmp(y))
    }
}

impl FromStr for FuzzSignature {
    type Err = String;

    /// A feature never holds ` @ ` and a label may (it is free text), so
    /// the text splits at the last one.
    // String: a token that does not parse; its message is the whole error, and
    // the loader that read it adds the file and line.
    fn from_str(s: &str) -> Result<FuzzSignature, String> {
        let bad = |why: &str| format!("not a fuzz signature `agreement @ feature` ({why}): {s:?}");
        let (agreement, feature) = s.rsplit_once(AT).ok_or_else(|| bad("no ` @ `"))?;
        if feature.is_empty() {
            return Err(bad("no feature"));
        }
        Ok(FuzzSignature {
            agreement: agreement.parse().map_err(|e| bad(&format!("{e}")))?,
            feature: feature.to_string(),
        })
    }
}

engine::serde_as_text!(FuzzSignature);

/// One disagreement, triaged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Triaged {
    pub signature: FuzzSignature,
    /// Every oracle whose answer differs from the reference's.
    pub cells: Vec<CellKey>,
}

impl Triaged {
    pub fn agreement(&self) -> &Signature {
        &self.signature.agreement
    }

    pub fn feature(&self) -> &str {
        &self.signature.feature
    }
}

/// Labels of one query's row, `Unsupported` left out; `None` when they all
/// agree (no disagreement to triage).
pub fn disagrees(row: &[(&str, &Outcome)]) -> bool {
    let mut first: Option<String> = None;
    for (_, o) in row {
        if matches!(o, Outcome::Unsupported { .. }) {
            continue;
        }
        let l = o.label();
        match &first {
            None => first = Some(l),
            Some(f) if *f != l => return true,
            _ => {}
        }
    }
    false
}

/// Signature and cell keys of one query's row; `feature` comes from
/// [`feature`] on the same body, agent and URL.
pub fn triage_row(row: &[(&str, &Outcome)], feature: &str) -> Triaged {
    let agreement = Signature::of(row.iter().map(|(n, o)| (*n, *o)));
    let reference = row
        .iter()
        .find(|(n, _)| *n == REFERENCE)
        .map(|(_, o)| o.label())
        .unwrap_or_else(|| "?".to_string());
    let cells = row
        .iter()
        .filter(|(n, o)| *n != REFERENCE && !matches!(o, Outcome::Unsupported { .. }))
        .filter(|(_, o)| o.label() != reference)
        .map(|(n, o)| outcome_key(n, &reference, o, feature))
        .collect();
    Triaged {
        signature: FuzzSignature {
            agreement,
            feature: feature.to_string(),
        },
        cells,
    }
}

pub fn cell_key(oracle: &str, reference: &str, label: &str, feature: &str) -> CellKey {
    CellKey::new(
        oracle,
        Departure::Answer {
            reference: reference.to_string(),
            answer: label.to_string(),
            feature: feature.to_string(),
        },
    )
}

/// The cell key of one oracle's outcome. An error or crash is keyed by its
/// kind alone (`protego: ->error UnicodeEncodeError`): what raises is the
/// input's bytes, not the rule that decided the reference verdict, so the
/// feature would only split one cause into many signatures.
pub fn outcome_key(oracle: &str, reference: &str, outcome: &Outcome, feature: &str) -> CellKey {
    let departure = match outcome {
        Outcome::Error { kind, .. } => Departure::Error { kind: kind.clone() },
        Outcome::Crash { .. } => Departure::Crash,
        Outcome::Timeout => Departure::Timeout,
        o => return cell_key(oracle, reference, &o.label(), &key_feature(feature)),
    };
    CellKey::new(oracle, departure)
}

/// The feature as cell keys carry it: without the pattern's flags
/// (`disallow[*$]/star` -> `disallow/star`). Flags stay in the signature;
/// in keys they multiplied one cause (a BOM, a misspelt key) into a key per
/// flag combination the corpus happens not to show.
pub fn key_feature(feature: &str) -> String {
    match (feature.find('['), feature.find(']')) {
        (Some(a), Some(b)) if a < b => format!("{}{}", &feature[..a], &feature[b + 1..]),
        _ => feature.to_string(),
    }
}

/// One piece of a disagreement's new part: a cell key the known list lacks
/// or, when the reference gave no answer to key cells against, the
/// signature itself. Stored as its text (`finding.json`'s `new`), which
/// [`Novel`]'s `FromStr` reads back: a cell key begins with an oracle name,
/// a signature with `{` or ` @`, so the two cannot be confused.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Novel {
    Cell(CellKey),
    Signature(FuzzSignature),
}

impl fmt::Display for Novel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Novel::Cell(key) => key.fmt(f),
            Novel::Signature(sig) => sig.fmt(f),
        }
    }
}

impl FromStr for Novel {
    type Err = String;

    // String: a token that does not parse; its message is the whole error, and
    // the loader that read it adds the file and line.
    fn from_str(s: &str) -> Result<Novel, String> {
        match s.parse::<CellKey>() {
            Ok(key) => Ok(Novel::Cell(key)),
            Err(not_key) => s
                .parse::<FuzzSignature>()
                .map(Novel::Signature)
                .map_err(|not_sig| format!("{not_key}; nor a fuzz signature: {not_sig}")),
        }
    }
}

engine::serde_as_text!(Novel);

impl Novel {
    /// Whether `known` explains this piece now (the list may have grown
    /// since the finding was saved).
    pub fn known_by(&self, known: &Known) -> bool {
        match self {
            Novel::Cell(key) => known.cells.contains(key),
            Novel::Signature(sig) => known.signatures.contains(sig),
        }
    }
}

/// sha256 of the new part, 12 hex digits: a finding's directory name.
pub fn finding_hash(new_part: &[Novel]) -> String {
    use sha2::{Digest, Sha256};
    let text: Vec<String> = new_part.iter().map(Novel::to_string).collect();
    let digest = Sha256::digest(text.join("\n").as_bytes());
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

/// The known signatures and cell keys, derived from the corpus and ledger
/// (`fuzz/known-signatures.json`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Known {
    /// Identifies what it was derived from (corpus hash, ledger, oracles).
    pub stamp: String,
    pub signatures: BTreeSet<FuzzSignature>,
    pub cells: BTreeSet<CellKey>,
    /// How many corpus queries fed it, and how many were left out because a
    /// cell was unexplained.
    pub queries: usize,
    pub unexplained_queries: usize,
    /// Cell key -> the ledger entries that explained it in the corpus
    /// (`(expected)` when the cell matched the case's expectation), for
    /// drafting ledger entries of promoted findings.
    pub explained_by: BTreeMap<CellKey, BTreeSet<String>>,
}

impl Known {
    /// The cell keys of `t` the corpus never showed explained; empty when
    /// `t` is known.
    pub fn new_part(&self, t: &Triaged) -> Vec<Novel> {
        if self.signatures.contains(&t.signature) {
            return Vec::new();
        }
        let mut out: Vec<Novel> = t
            .cells
            .iter()
            .filter(|c| !self.cells.contains(*c))
            .cloned()
            .map(Novel::Cell)
            .collect();
        out.sort();
        out.dedup();
        if out.is_empty() && t.cells.is_empty() {
            // No cell keys (the reference gave no answer): the signature
            // itself is the new part.
            out.push(Novel::Signature(t.signature.clone()));
        }
        out
    }

    /// Pretty JSON. Only strings, numbers and string-keyed maps, which
    /// serde_json always serialises (so `record` stays the only module that
    /// knows both the records and the triage types).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Parse `known-signatures.json`; a missing or unknown field is an
    /// error naming it (the list is then derived again, not half-read).
    // String: a list that does not parse is derived again (see above); the
    // message only says why.
    pub fn from_json(text: &str) -> Result<Known, String> {
        serde_json::from_str(text).map_err(|e| format!("known-signature list: {e}"))
    }
}

/// What the known list is derived from: the corpus hash, the ledger's bytes
/// and the oracles' names, hashed. (Not their version strings: the fuzz
/// build of Google's code names clang, xtask's names g++, and both run the
/// same pinned robots.cc.)
pub fn stamp(corpus: &Corpus, ledger_text: &str, oracles: &[String]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(corpus.hash.as_bytes());
    h.update([0]);
    h.update(ledger_text.as_bytes());
    for n in oracles {
        h.update([0]);
        h.update(n.as_bytes());
    }
    h.finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The known list from a corpus run (`engine::run::run` over the corpus with
/// the same oracles the fuzz targets use, triaged against the ledger).
pub fn derive_known(corpus: &Corpus, _ledger: &Ledger, result: &RunResult, stamp: String) -> Known {
    let readings = Readings::default();
    // cells by (case, query)
    let mut by_query: BTreeMap<(&str, usize), Vec<&engine::run::Cell>> = BTreeMap::new();
    for c in &result.cells {
        by_query
            .entry((c.case.as_str(), c.query))
            .or_default()
            .push(c);
    }
    let mut known = Known {
        stamp,
        ..Known::default()
    };
    let mut scratch = Vec::new();
    for case in &corpus.cases {
        if case.http.is_some() {
            continue;
        }
        let mut robots: Option<Robots> = None;
        for (qi, cq) in case.queries.iter().enumerate() {
            if cq.query.ask != Ask::CanFetch {
                continue;
            }
            let Some(cells) = by_query.get(&(case.id.as_str(), qi)) else {
                continue;
            };
            known.queries += 1;
            if cells.iter().any(|c| c.untriaged()) {
                known.unexplained_queries += 1;
                continue;
            }
            let row: Vec<(&str, &Outcome)> = cells
                .iter()
                .map(|c| (c.oracle.as_str(), &c.answer.outcome))
                .collect();
            if !disagrees(&row) {
                continue;
            }
            let robots = robots.get_or_insert_with(|| Robots::parse(&case.body, &readings));
            let f = feature(robots, &cq.query.agent, &cq.query.url, &mut scratch);
            let t = triage_row(&row, &f);
            let reference = row
                .iter()
                .find(|(n, _)| *n == REFERENCE)
                .map(|(_, o)| o.label())
                .unwrap_or_else(|| "?".to_string());
            for c in cells {
                let l = c.answer.outcome.label();
                if c.oracle == REFERENCE
                    || l == reference
                    || matches!(c.answer.outcome, Outcome::Unsupported { .. })
                {
                    continue;
                }
                let key = outcome_key(&c.oracle, &reference, &c.answer.outcome, &f);
                let by = c
                    .triaged_by
                    .clone()
                    .unwrap_or_else(|| "(expected)".to_string());
                known.explained_by.entry(key).or_default().insert(by);
            }
            known.signatures.insert(t.signature);
            known.cells.extend(t.cells);
        }
    }
    known
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_keys_compare_with_the_reference() {
        let a = Outcome::Allowed;
        let d = Outcome::Disallowed;
        let u = Outcome::Unsupported {
            reason: String::new(),
        };
        let row = [
            ("rfc9309", &a),
            ("google", &a),
            ("cpython-3.11", &d),
            ("x", &u),
        ];
        assert!(disagrees(&row));
        let t = triage_row(&row, "disallow[*]/star");
        assert_eq!(
            t.signature.to_string(),
            "{google,rfc9309}=allowed | {cpython-3.11}=disallowed @ disallow[*]/star"
        );
        let texts: Vec<String> = t.cells.iter().map(CellKey::to_string).collect();
        assert_eq!(texts, ["cpython-3.11: allowed->disallowed @ disallow/star"]);
        let mut known = Known::default();
        let new: Vec<Novel> = t.cells.iter().cloned().map(Novel::Cell).collect();
        assert_eq!(known.new_part(&t), new);
        assert!(!new[0].known_by(&known));
        known.cells.insert(t.cells[0].clone());
        assert!(known.new_part(&t).is_empty());
        assert!(new[0].known_by(&known));
        assert_eq!(t.cells[0].oracle(), "cpython-3.11");
        assert_eq!(key_feature("allow[*$%8]/exact"), "allow/exact");
        let e = Outcome::Error {
            kind: "UnicodeEncodeError".into(),
            message: "m".into(),
        };
        assert_eq!(
            outcome_key("protego", "allowed", &e, "x").as_str(),
            "protego: ->error UnicodeEncodeError"
        );
        let back = Known::from_json(&known.to_json()).unwrap();
        assert_eq!(back, known);
    }

    #[test]
    fn a_new_part_reads_back_as_the_cell_key_or_signature_it_was() {
        let key: Novel = "cpython-3.11: allowed->disallowed @ disallow/star"
            .parse()
            .expect("a cell key");
        assert!(matches!(&key, Novel::Cell(k) if k.oracle() == "cpython-3.11"));
        let sig: Novel = "{google,rfc9309}=allowed | {cpython-3.11}=disallowed @ no-group"
            .parse()
            .expect("a signature");
        assert!(matches!(&sig, Novel::Signature(s) if s.feature == "no-group"));
        for n in [key, sig] {
            let json = serde_json::to_string(&n).expect("serialises");
            assert_eq!(serde_json::from_str::<Novel>(&json).expect("reads"), n);
        }
        assert!("neither".parse::<Novel>().is_err());
    }

    #[test]
    fn fuzz_signatures_round_trip_and_order_as_their_text() {
        let mut all: Vec<FuzzSignature> = [
            "{a}=allowed | {b}=disallowed @ disallow[*]/star",
            "{a}=allowed | {b}=disallowed @ allow[]/exact",
            "{a}=allowed @ x",
            "{a,b}=allowed @ no-group",
            "{a}=[u @ v] | {b}=none @ /robots.txt",
            "{a}=allowed | {b}=disallowed | {c}=error @ no-match/none",
        ]
        .iter()
        .map(|t| {
            let s: FuzzSignature = t.parse().expect("well formed");
            assert_eq!(s.to_string(), *t);
            let json = serde_json::to_string(&s).expect("serialises");
            assert_eq!(
                serde_json::from_str::<FuzzSignature>(&json).ok(),
                Some(s.clone())
            );
            s
        })
        .collect();
        assert_eq!(all[4].feature, "/robots.txt", "the last ` @ ` splits");
        let mut by_text = all.clone();
        by_text.sort_by_key(FuzzSignature::to_string);
        all.sort();
        assert_eq!(all, by_text);
        for bad in ["{a}=allowed", "{a}=allowed @ ", "a=allowed @ x"] {
            assert!(bad.parse::<FuzzSignature>().is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn features_name_what_decided() {
        let r = Robots::parse(
            b"User-agent: foobot\nDisallow: /a*$\nAllow: /a%2F\nUser-agent: *\nDisallow: /\n",
            &Readings::default(),
        );
        let mut s = Vec::new();
        assert_eq!(
            feature(&r, "foobot", "http://x.test/ab", &mut s),
            "disallow[*$]/exact"
        );
        assert_eq!(
            feature(&r, "foobot", "http://x.test/a%2F", &mut s),
            "allow[%]/exact"
        );
        assert_eq!(
            feature(&r, "foobot", "http://x.test/b", &mut s),
            "no-match/exact"
        );
        assert_eq!(
            feature(&r, "other", "http://x.test/b", &mut s),
            "disallow[]/star"
        );
        assert_eq!(
            feature(&r, "other", "http://x.test/robots.txt", &mut s),
            "/robots.txt"
        );
    }
}
