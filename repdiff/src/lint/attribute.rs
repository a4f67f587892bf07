//! Which parsers stand apart on a question, and the cause of each.
//!
//! A cause belongs to the parsers that split, not to the file: on
//! Cloudflare's prepended block, Heritrix and spider both allow
//! `Amazonbot` where the rest disallow, Heritrix because it matches group
//! names case-sensitively against the caller's agent, spider because a
//! group that disallows falls through to `*`. Each parser apart is paired
//! with the other side (the RFC 9309 reference where it is there) and the
//! pair triaged as the census triages one (`cause::classify`: the
//! catalogue's narrowest transformation that reconciles them); when the
//! ledger measured another cause for that parser that reconciles them too,
//! that one is named instead.

use super::panel::{Panel, Reading, Split};
use super::questions::Source;
use cause::{Diagnosis, Input, PairAsk, CATALOGUE};
use engine::oracle::Label;
use std::collections::BTreeMap;

/// One parser apart, and why: a catalogue name or [`Diagnosis::New`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Apart {
    pub oracle: String,
    pub cause: Diagnosis,
    /// Whether a ledger entry of this parser has this cause. When not,
    /// the transformation reconciles the pair on this file but may do so
    /// for another reason (removing `Allow: /` also reshapes groups), and
    /// the output says so rather than calling it the parser's behaviour.
    pub measured: bool,
}

/// The catalogue causes the ledger records for each oracle: its entries'
/// `cause`, in ledger order. An entry's `also_causes` are left out: they
/// name a few of its cells each (2 of 89 for spider's exact-path
/// matching), not the parser's behaviour.
#[derive(Debug, Clone, Default)]
pub struct KnownCauses(BTreeMap<String, Vec<&'static str>>);

impl KnownCauses {
    pub fn from_ledger(ledger: &engine::ledger::Ledger) -> KnownCauses {
        let mut map: BTreeMap<String, Vec<&'static str>> = BTreeMap::new();
        for e in &ledger.entries {
            let Some(name) = e.cause.as_ref().and_then(|c| c.name()) else {
                continue;
            };
            let Some(t) = CATALOGUE.iter().find(|t| name.as_str() == t.name) else {
                continue;
            };
            for o in &e.oracles {
                let known = map.entry(o.clone()).or_default();
                if !known.contains(&t.name) {
                    known.push(t.name);
                }
            }
        }
        KnownCauses(map)
    }

    /// The checkout's ledger's causes; none (with a warning) when it cannot
    /// be read: the causes are then named in catalogue order alone.
    pub fn load() -> KnownCauses {
        let names = crate::select::known_names();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        match crate::paths::load_corpus().and_then(|c| crate::paths::load_ledger(&c, &names)) {
            Ok(ledger) => KnownCauses::from_ledger(&ledger),
            Err(why) => {
                log::warn!("causes named without the ledger's measured ones: {why}");
                KnownCauses::default()
            }
        }
    }

    /// The causes of `oracle`'s ledger entries.
    fn of(&self, oracle: &str) -> &[&'static str] {
        self.0.get(oracle).map_or(&[], Vec::as_slice)
    }

    /// Whether an entry of `oracle` has `cause` as its cause.
    fn is_cause(&self, oracle: &str, cause: Diagnosis) -> bool {
        cause.name().is_some_and(|n| self.of(oracle).contains(&n))
    }
}

/// Panel indices of the parsers apart in `split` and of the one each is
/// paired with: the side without the RFC 9309 reference, against the
/// reference; without the reference on either side, the smaller side
/// against the first of the other.
pub fn sides(panel: &Panel, split: &Split) -> Option<(Vec<usize>, usize)> {
    let allowed = split.reading(&Reading::Allowed);
    let disallowed = split.reading(&Reading::Disallowed);
    if allowed.is_empty() || disallowed.is_empty() {
        return None;
    }
    let rfc = (0..panel.size()).find(|&i| panel.name(i) == oracles::rfc9309::NAME);
    match rfc {
        Some(r) if allowed.contains(&r) => Some((disallowed, r)),
        Some(r) if disallowed.contains(&r) => Some((allowed, r)),
        _ if allowed.len() <= disallowed.len() => Some((allowed, disallowed[0])),
        _ => Some((disallowed, allowed[0])),
    }
}

/// The cause of each parser apart on `input` (whose question `split`
/// answers).
pub fn causes(
    panel: &mut Panel,
    input: &Input,
    split: &Split,
    source: Source,
    known: &KnownCauses,
) -> Vec<Apart> {
    let Some((apart, against)) = sides(panel, split) else {
        return Vec::new();
    };
    let mut out: Vec<Apart> = Vec::new();
    for me in apart {
        let oracle = panel.name(me).to_string();
        let mut pair = PanelPair {
            panel,
            a: against,
            b: me,
            source,
        };
        // The catalogue's narrowest cause, unless the ledger measured
        // another for this parser that reconciles it too.
        let first = cause::classify(&mut pair, input).unwrap_or(Diagnosis::New);
        let cause = if first.is_new() || known.is_cause(&oracle, first) {
            first
        } else {
            known
                .of(&oracle)
                .iter()
                .copied()
                .find(|c| cause::reconciles(&mut pair, input, c))
                .map_or(first, Diagnosis::Catalogued)
        };
        let measured = known.is_cause(&oracle, cause);
        out.push(Apart {
            oracle,
            cause,
            measured,
        });
    }
    out
}

/// The cause most parsers apart share: a measured one before one only
/// found, a catalogue one before [`Diagnosis::New`] (ties: the first named).
pub fn main_cause(apart: &[Apart]) -> Diagnosis {
    let mut counts: Vec<(Diagnosis, usize, usize)> = Vec::new();
    for a in apart {
        match counts.iter_mut().find(|(c, _, _)| *c == a.cause) {
            Some((_, measured, n)) => {
                *measured += usize::from(a.measured);
                *n += 1
            }
            None => counts.push((a.cause, usize::from(a.measured), 1)),
        }
    }
    let rank = |&(c, measured, n): &(Diagnosis, usize, usize)| (!c.is_new(), measured > 0, n);
    let mut best: Option<(Diagnosis, usize, usize)> = None;
    for c in counts {
        if best.as_ref().is_none_or(|b| rank(&c) > rank(b)) {
            best = Some(c);
        }
    }
    best.map_or(Diagnosis::New, |(c, _, _)| c)
}

/// Two oracles of the panel as the cause crate's pair under triage; only
/// those two are asked.
pub struct PanelPair<'p> {
    pub panel: &'p mut Panel,
    pub a: usize,
    pub b: usize,
    pub source: Source,
}

impl PairAsk for PanelPair<'_> {
    fn ask(&mut self, input: &Input) -> (Label, Label) {
        let q = super::Question {
            agent: input.agent.clone(),
            url: input.url.clone(),
            source: self.source,
        };
        self.panel.ask_two(&input.body, &q, self.a, self.b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEW: Diagnosis = Diagnosis::New;
    const BOM: Diagnosis = Diagnosis::Catalogued("strip-bom");

    fn apart(pairs: &[(&str, Diagnosis, bool)]) -> Vec<Apart> {
        pairs
            .iter()
            .map(|(o, c, measured)| Apart {
                oracle: o.to_string(),
                cause: *c,
                measured: *measured,
            })
            .collect()
    }

    #[test]
    fn the_main_cause_is_the_most_shared_measured_catalogue_one() {
        assert_eq!(
            main_cause(&apart(&[
                ("a", NEW, false),
                ("b", NEW, false),
                ("c", BOM, false)
            ])),
            BOM
        );
        assert_eq!(
            main_cause(&apart(&[
                ("a", Diagnosis::Catalogued("remove-star"), false),
                ("b", BOM, false),
                ("c", BOM, false)
            ])),
            BOM
        );
        assert_eq!(
            main_cause(&apart(&[
                ("a", Diagnosis::Catalogued("drop-allow-rules"), false),
                ("b", Diagnosis::Catalogued("drop-allow-rules"), false),
                ("c", Diagnosis::Catalogued("lowercase-agent"), true)
            ])),
            Diagnosis::Catalogued("lowercase-agent")
        );
        assert_eq!(main_cause(&apart(&[("a", NEW, false)])), NEW);
        assert_eq!(main_cause(&[]), NEW);
    }
}
