//! A suggested rewrite: a catalogue transformation of the file (or the
//! smallest piece of it, one hunk of its diff) after which every oracle
//! agrees on the group's questions, or, failing that, fewer parsers stand
//! apart (the ones left are named: `Allow` first in the WordPress file
//! leaves only WWW::RobotRules, which has no `Allow`).
//!
//! A rewrite is offered only if it is safe to apply: no question that all
//! oracles agreed on comes to split, and the RFC 9309 reference reads every
//! question lint asked exactly as before, so the rewrite changes how the
//! file is written, not what it means (renaming `bot` to `zz-unrelated`
//! reunites the parsers too, but changes who is disallowed; it is never
//! offered). The [`REPAIRS`] are the exception: they mend a line whose
//! author's intent is plain (`Disallow /a` lacks its colon, `Dissallow` is
//! misspelt, a BOM sticks to the first key), which the RFC then reads for
//! the first time; such a rewrite says that it changes the RFC's reading.

use super::attribute::{Apart, KnownCauses};
use super::group::LineGroup;
use super::panel::{Panel, Split};
use super::suggestion::{Hunk, Suggestion};
use super::Question;
use cause::{Input, CATALOGUE};
use engine::oracle::Oracle;

/// Parsers on the smaller side of a split (0 when it does not split).
pub fn dissent(split: &Split) -> usize {
    use super::panel::Reading;
    let allowed = split.reading(&Reading::Allowed).len();
    let disallowed = split.reading(&Reading::Disallowed).len();
    allowed.min(disallowed)
}

/// What a rewrite is checked against: every question, how the oracles
/// read each on the original, and the reference's reading of each.
pub struct Baseline<'a> {
    pub questions: &'a [Question],
    pub splits: &'a [Split],
    pub reference: Option<&'a mut Box<dyn Oracle>>,
    pub reference_labels: Vec<engine::oracle::Label>,
    /// The ledger's measured causes, for naming who stays apart.
    pub known: &'a KnownCauses,
}

impl Baseline<'_> {
    /// The reference's readings of every question on `body` (empty without
    /// a reference).
    pub fn labels(&mut self, body: &[u8]) -> Vec<engine::oracle::Label> {
        let Some(r) = self.reference.as_mut() else {
            return Vec::new();
        };
        let queries: Vec<_> = self.questions.iter().map(Question::query).collect();
        r.run(body, &queries)
            .iter()
            .map(|a| a.outcome.pin())
            .collect()
    }
}

/// Transformations that mend how a line is written, so that it says what
/// its author evidently meant: offered even when the RFC 9309 reference
/// reads the file otherwise afterwards (it ignored the broken line before).
pub const REPAIRS: &[&str] = &[
    "strip-bom",
    "strip-partial-bom",
    "remove-inner-bom",
    "remove-extra-line-breaks",
    "trim-unicode-spaces",
    "normalise-line-ends",
    "drop-indentation",
    "add-missing-colon",
    "fix-misspelt-key",
    "fix-key-prefix",
];

/// Hunks of one transformation tried alone, at most.
const HUNKS_TRIED: usize = 8;

/// The safe rewrite for `group` that settles most of its questions (the
/// first that settles them all): its cause's transformation first, then
/// the catalogue in order; within each, one hunk alone before all.
pub fn suggest(
    panel: &mut Panel,
    body: &[u8],
    group: &LineGroup,
    base: &mut Baseline<'_>,
) -> Option<Suggestion> {
    let first = &group.disagreements.first()?.question;
    let input = Input {
        body: body.to_vec(),
        agent: first.agent.clone(),
        url: first.url.clone(),
    };
    let order = CATALOGUE
        .iter()
        .filter(|t| group.cause.name.name() == Some(t.name))
        .chain(
            CATALOGUE
                .iter()
                .filter(|t| group.cause.name.name() != Some(t.name)),
        );
    let old = cause::lines(body);
    let before: usize = group.disagreements.iter().map(|d| dissent(&d.split)).sum();
    let mut best: Option<Suggestion> = None;
    for t in order {
        let Some(changed) = (t.apply)(&input) else {
            continue;
        };
        if changed.body == input.body || changed.agent != input.agent || changed.url != input.url {
            continue;
        }
        let new = cause::lines(&changed.body);
        let repair = REPAIRS.contains(&t.name);
        for hunks in candidates(&old, &new, &group.lines) {
            if drops_preference(&hunks) || (!repair && renames_paths(&hunks)) {
                continue;
            }
            let Some(after) = safe(panel, &old, &hunks, group, base, repair) else {
                continue;
            };
            if after.dissent >= before {
                continue;
            }
            let better = best.as_ref().is_none_or(|b| {
                (after.settles, std::cmp::Reverse(after.dissent))
                    > (b.settles, std::cmp::Reverse(b.dissent))
            });
            if better {
                best = Some(Suggestion {
                    transformation: t.name,
                    hunks,
                    changes_reference: after.changes_reference,
                    settles: after.settles,
                    remaining: after.remaining,
                    apart: Vec::new(),
                    dissent: after.dissent,
                });
            }
            if after.settles == group.disagreements.len() {
                return best;
            }
        }
    }
    if let Some(b) = best.as_mut() {
        b.apart = apart(
            panel,
            &apply(&old, &b.hunks),
            group,
            &b.remaining,
            base.known,
        );
    }
    best
}

/// For each parser still apart on the rewritten `body`: its cause on the
/// first of the group's questions it still splits.
fn apart(
    panel: &mut Panel,
    body: &[u8],
    group: &LineGroup,
    remaining: &[String],
    known: &KnownCauses,
) -> Vec<Apart> {
    let own: Vec<Question> = group
        .disagreements
        .iter()
        .map(|d| d.question.clone())
        .collect();
    let splits = panel.ask(body, &own);
    let mut out: Vec<Apart> = Vec::new();
    for (q, split) in own.iter().zip(&splits) {
        if out.len() == remaining.len() {
            break;
        }
        let input = Input {
            body: body.to_vec(),
            agent: q.agent.clone(),
            url: q.url.clone(),
        };
        let named = super::attribute::causes(panel, &input, split, q.source, known);
        for a in named {
            if remaining.contains(&a.oracle) && !out.iter().any(|o| o.oracle == a.oracle) {
                out.push(a);
            }
        }
    }
    out.sort_by_key(|a| remaining.iter().position(|r| *r == a.oracle));
    out
}

/// Whether `hunks` delete a line written for AI use
/// ([`super::hazards::is_ai_record`]) without writing it elsewhere: a
/// rewrite may move a site owner's preference, never drop it (lint's
/// hazards offer the move).
fn drops_preference(hunks: &[Hunk]) -> bool {
    let written: Vec<&Vec<u8>> = hunks.iter().flat_map(|h| &h.new).collect();
    hunks.iter().flat_map(|h| &h.old).any(|line| {
        super::hazards::is_ai_record(line)
            && !written.iter().any(|w| w.trim_ascii() == line.trim_ascii())
    })
}

/// Whether `hunks` write an Allow/Disallow rule whose path none of the
/// rules they replace or move holds, percent-encoding aside: a rewrite may
/// move, reorder or drop rules (the reference must still read every
/// question as before), never make one name other paths. Dropping the
/// byte of `Disallow: /caf\xE9/` gives `/caf/`, another path; `/caf%E9/`
/// is the same one.
fn renames_paths(hunks: &[Hunk]) -> bool {
    let mut had: Vec<Vec<u8>> = hunks
        .iter()
        .flat_map(|h| &h.old)
        .filter_map(|l| rule_path(l))
        .collect();
    for path in hunks
        .iter()
        .flat_map(|h| &h.new)
        .filter_map(|l| rule_path(l))
    {
        match had.iter().position(|p| *p == path) {
            Some(i) => {
                had.swap_remove(i);
            }
            None => return true,
        }
    }
    false
}

/// An Allow/Disallow line's path with every octet outside ASCII
/// percent-encoded and every escape upper-cased (RFC 9309 §2.2.2 compares
/// paths so), or `None` for another line.
fn rule_path(line: &[u8]) -> Option<Vec<u8>> {
    let line = line.split(|&b| b == b'#').next()?;
    let colon = line.iter().position(|&b| b == b':')?;
    let key = line[..colon].trim_ascii().to_ascii_lowercase();
    if key != b"allow" && key != b"disallow" {
        return None;
    }
    let value = line[colon + 1..].trim_ascii();
    let mut out = Vec::with_capacity(value.len());
    let mut i = 0;
    while i < value.len() {
        let b = value[i];
        let hex = |k: usize| value.get(k).is_some_and(u8::is_ascii_hexdigit);
        if b == b'%' && hex(i + 1) && hex(i + 2) {
            out.push(b'%');
            out.extend(value[i + 1..i + 3].to_ascii_uppercase());
            i += 3;
            continue;
        }
        if b >= 0x80 {
            out.extend(format!("%{b:02X}").bytes());
        } else {
            out.push(b);
        }
        i += 1;
    }
    Some(out)
}

/// The edits to try: each hunk alone (those touching the group's lines
/// first, at most [`HUNKS_TRIED`]), then all of them.
fn candidates(old: &[Vec<u8>], new: &[Vec<u8>], lines: &[usize]) -> Vec<Vec<Hunk>> {
    let all = hunks(old, new);
    let near = |h: &Hunk| {
        lines
            .iter()
            .any(|&l| l >= h.old_start && l <= h.old_start + h.old.len())
    };
    // Half of a move (a line inserted that the file already has) is no
    // rewrite to offer: it leaves the line twice.
    let half_move = |h: &&Hunk| h.old.is_empty() && h.new.iter().all(|l| old.contains(l));
    let mut singles: Vec<&Hunk> = all.iter().filter(|h| near(h) && !half_move(h)).collect();
    singles.extend(all.iter().filter(|h| !near(h) && !half_move(h)));
    let mut out: Vec<Vec<Hunk>> = singles
        .into_iter()
        .take(HUNKS_TRIED)
        .map(|h| vec![h.clone()])
        .collect();
    if all.len() > 1 {
        out.push(all);
    }
    out
}

/// The diff of `old` into `new` as hunks.
pub fn hunks(old: &[Vec<u8>], new: &[Vec<u8>]) -> Vec<Hunk> {
    similar::capture_diff_slices(similar::Algorithm::Myers, old, new)
        .into_iter()
        .filter(|op| op.tag() != similar::DiffTag::Equal)
        .map(|op| {
            let (o, n) = (op.old_range(), op.new_range());
            Hunk {
                old_start: o.start,
                old: old[o].to_vec(),
                new: new[n].to_vec(),
            }
        })
        .collect()
}

/// `old` with `hunks` applied (hunks in order, not overlapping).
pub fn apply(old: &[Vec<u8>], hunks: &[Hunk]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut at = 0;
    for h in hunks {
        out.extend(old[at..h.old_start].iter().flatten());
        out.extend(h.new.iter().flatten());
        at = h.old_start + h.old.len();
    }
    out.extend(old[at..].iter().flatten());
    out
}

/// What a candidate rewrite does to the group's questions.
struct After {
    settles: usize,
    dissent: usize,
    remaining: Vec<String>,
    changes_reference: bool,
}

/// Does the edited file split nothing new and keep the reference's
/// reading of every question (a `repair` may change it)? Then what it does
/// to the group's own questions: how many it settles, the dissent left and
/// the parsers still apart.
fn safe(
    panel: &mut Panel,
    old: &[Vec<u8>],
    hunks: &[Hunk],
    group: &LineGroup,
    base: &mut Baseline<'_>,
    repair: bool,
) -> Option<After> {
    let body = apply(old, hunks);
    let own: Vec<Question> = group
        .disagreements
        .iter()
        .map(|d| d.question.clone())
        .collect();
    let splits = panel.ask(&body, &own);
    let settles = splits.iter().filter(|s| !s.disagrees()).count();
    let dissent: usize = splits.iter().map(dissent).sum();
    let mut remaining: Vec<String> = Vec::new();
    for s in &splits {
        let Some((apart, _)) = super::attribute::sides(panel, s) else {
            continue;
        };
        for i in apart {
            let name = panel.name(i).to_string();
            if !remaining.contains(&name) {
                remaining.push(name);
            }
        }
    }
    let changes_reference = base.labels(&body) != base.reference_labels;
    if changes_reference && !repair {
        return None;
    }
    let after = panel.ask(&body, base.questions);
    after
        .iter()
        .zip(base.splits)
        .all(|(now, before)| !now.disagrees() || before.disagrees())
        .then_some(After {
            settles,
            dissent,
            remaining,
            changes_reference,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewrite_never_makes_a_rule_name_other_paths() {
        let hunk = |old: &[u8], new: &[u8]| Hunk {
            old_start: 1,
            old: vec![old.to_vec()],
            new: vec![new.to_vec()],
        };
        assert!(renames_paths(&[hunk(
            b"Disallow: /caf\xE9/",
            b"Disallow: /caf/"
        )]));
        assert!(!renames_paths(&[hunk(
            b"Disallow: /caf\xE9/",
            b"Disallow: /caf%e9/"
        )]));
        assert!(renames_paths(&[hunk(b"Disallow: /x$", b"Disallow: /x")]));
        // Moving a rule, or writing another kind of line, names no new path.
        let moved = [
            hunk(b"Disallow: /private/", b""),
            Hunk {
                old_start: 4,
                old: vec![],
                new: vec![b"disallow:/private/ # moved".to_vec()],
            },
        ];
        assert!(!renames_paths(&moved));
        assert!(!renames_paths(&[hunk(b"Sitemap: /a", b"Sitemap: /b")]));
    }

    #[test]
    fn a_preference_may_move_but_not_go() {
        let gone = Hunk {
            old_start: 0,
            old: vec![b"License: https://e.test/l.xml\n".to_vec()],
            new: vec![],
        };
        assert!(drops_preference(std::slice::from_ref(&gone)));
        let back = Hunk {
            old_start: 3,
            old: vec![],
            new: vec![b"License: https://e.test/l.xml".to_vec()],
        };
        assert!(!drops_preference(&[gone, back]));
        let rule = Hunk {
            old_start: 0,
            old: vec![b"Disallow: /a\n".to_vec()],
            new: vec![],
        };
        assert!(!drops_preference(&[rule]));
    }

    #[test]
    fn hunks_apply_back() {
        let old = cause::lines(b"a\nb\nc\n");
        let new = cause::lines(b"a\nB\nc\nd\n");
        let hs = hunks(&old, &new);
        assert_eq!(hs.len(), 2);
        assert_eq!(apply(&old, &hs), b"a\nB\nc\nd\n");
        assert_eq!(apply(&old, &hs[..1]), b"a\nB\nc\n");
    }
}
