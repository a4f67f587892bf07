//! From disagreements to the lines that cause them.
//!
//! Each disagreement is minimised for its question: whole lines are
//! deleted (the cause crate's `ddmin` over `lines`, with its shape rules:
//! no orphaned rule, no blank line newly splitting a group) while every
//! oracle keeps reading the question exactly as on the whole file. The
//! kept lines are mapped back to their numbers in the original. The cause
//! is then named per parser apart ([`attribute`]): each is triaged
//! against the other side on the minimal file, as the census triages a
//! pair (`census_causes.rs`), measured causes first. The group's cause is
//! the one most parsers apart share; the lines its transformation touches
//! are the lines
//! that make the difference. A disagreement with the same split (every oracle reading
//! it the same way) as one of a group, which that group's minimal file
//! reproduces, joins it without a minimisation of its own. Groups are
//! listed in the order of their first line.

use super::attribute::{self, Apart, KnownCauses};
use super::panel::{Panel, Split};
use super::Question;
use cause::{Diagnosis, Input, CATALOGUE};
use std::time::{Duration, Instant};

/// A question on which the oracles part ways, and how.
#[derive(Debug, Clone)]
pub struct Disagreement {
    pub question: Question,
    pub split: Split,
    /// Per oracle (panel order), the line that decided its verdict on the
    /// whole file ([`crate::deciding`]); empty until `lint::decide`
    /// fills it.
    pub deciding: Vec<Option<crate::deciding::Found>>,
}

/// A named cause: a catalogue transformation, or [`Diagnosis::New`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    pub name: Diagnosis,
    /// The parser behaviour behind it, in the catalogue's words.
    pub neutralises: &'static str,
    /// Whether the transformation makes every oracle agree (else it only
    /// reconciles one oracle of each side).
    pub reunites_all: bool,
}

/// The disagreements that one set of lines makes.
#[derive(Debug)]
pub struct LineGroup {
    /// 0-based indices of the lines that make the difference.
    pub lines: Vec<usize>,
    /// 0-based indices of the minimal file (it holds `lines`).
    pub minimal: Vec<usize>,
    /// False when the budget ran out before the minimisation ended.
    pub minimised: bool,
    /// The cause most parsers apart share ([`attribute::main_cause`]).
    pub cause: Cause,
    /// Each parser apart on the first question, and its own cause.
    pub apart: Vec<Apart>,
    pub disagreements: Vec<Disagreement>,
    pub rewrite: Option<super::suggestion::Suggestion>,
}

/// Questions one minimisation may ask, and how long it may take.
const MINIMISE_ASKS: u64 = 600;
const MINIMISE_TIME: Duration = Duration::from_secs(20);

/// The whole grouping, under a deadline: disagreements not reached in time
/// are returned apart.
pub struct Grouping {
    pub groups: Vec<LineGroup>,
    pub unexamined: Vec<Disagreement>,
}

/// Group `found` by the lines of `body` that make each split.
pub fn group(
    panel: &mut Panel,
    body: &[u8],
    found: Vec<Disagreement>,
    deadline: Instant,
    progress: &mut super::Progress,
    known: &KnownCauses,
) -> Grouping {
    let lines = cause::lines(body);
    let mut out = Grouping {
        groups: Vec::new(),
        unexamined: Vec::new(),
    };
    let total = found.len();
    for (n, d) in found.into_iter().enumerate() {
        progress.say(&format!("grouping disagreement {}/{total}", n + 1));
        if Instant::now() > deadline {
            out.unexamined.push(d);
            continue;
        }
        if let Some(g) = reproducing_group(panel, &lines, &mut out.groups, &d) {
            g.disagreements.push(d);
            continue;
        }
        let (minimal, minimised) = minimise(panel, body, &lines, &d, deadline);
        let (cause, touched, apart) = name(panel, &lines, &minimal, &d, known);
        match out
            .groups
            .iter_mut()
            .find(|g| g.lines == touched && g.cause.name == cause.name)
        {
            Some(g) => {
                g.cause.reunites_all &= cause.reunites_all;
                g.disagreements.push(d)
            }
            None => out.groups.push(LineGroup {
                lines: touched,
                minimal,
                minimised,
                cause,
                apart,
                disagreements: vec![d],
                rewrite: None,
            }),
        }
    }
    out.groups.sort_by_key(|g| g.lines.first().copied());
    out
}

/// The lines at `keep`, joined into a body.
pub fn body_of(lines: &[Vec<u8>], keep: &[usize]) -> Vec<u8> {
    keep.iter()
        .flat_map(|&i| lines[i].iter().copied())
        .collect()
}

/// A group whose minimal file gives `d`'s question exactly `d`'s split.
fn reproducing_group<'g>(
    panel: &mut Panel,
    lines: &[Vec<u8>],
    groups: &'g mut [LineGroup],
    d: &Disagreement,
) -> Option<&'g mut LineGroup> {
    let i = (0..groups.len()).find(|&i| {
        groups[i].disagreements.iter().any(|o| o.split == d.split)
            && panel.ask_one(&body_of(lines, &groups[i].minimal), &d.question) == d.split
    })?;
    Some(&mut groups[i])
}

/// The smallest set of lines (0-based indices) on which every oracle still
/// reads `d`'s question as on the whole file, and whether ddmin finished.
fn minimise(
    panel: &mut Panel,
    body: &[u8],
    lines: &[Vec<u8>],
    d: &Disagreement,
    deadline: Instant,
) -> (Vec<usize>, bool) {
    let started = Instant::now();
    let asked = std::cell::Cell::new(0u64);
    let spent = || {
        asked.get() >= MINIMISE_ASKS
            || started.elapsed() > MINIMISE_TIME
            || Instant::now() > deadline
    };
    let kept = cause::ddmin_until(
        (0..lines.len()).collect(),
        |cand: &[usize]| {
            let b = body_of(lines, cand);
            if !cause::keeps_shape(body, &b) {
                return false;
            }
            asked.set(asked.get() + 1);
            panel.ask_one(&b, &d.question) == d.split
        },
        &spent,
    );
    (kept, !spent())
}

/// The cause on the minimal file, each parser apart's own
/// ([`attribute::causes`]), and the original lines the main one touches
/// (all the minimal file's lines when it changes the question, not the
/// file, or when no catalogue cause explains a parser apart).
fn name(
    panel: &mut Panel,
    lines: &[Vec<u8>],
    minimal: &[usize],
    d: &Disagreement,
    known: &KnownCauses,
) -> (Cause, Vec<usize>, Vec<Apart>) {
    let input = Input {
        body: body_of(lines, minimal),
        agent: d.question.agent.clone(),
        url: d.question.url.clone(),
    };
    let apart = attribute::causes(panel, &input, &d.split, d.question.source, known);
    let main = attribute::main_cause(&apart);
    let cause = match CATALOGUE.iter().find(|t| main.name() == Some(t.name)) {
        Some(t) => Cause {
            name: main,
            neutralises: t.neutralises,
            reunites_all: reunites(panel, &input, &d.question, t.name),
        },
        None => Cause {
            name: Diagnosis::New,
            neutralises:
                "no transformation of the catalogue reconciles the parsers apart with the rest",
            reunites_all: false,
        },
    };
    let touched = CATALOGUE
        .iter()
        .find(|t| cause.name.name() == Some(t.name))
        .and_then(|t| (t.apply)(&input))
        .map(|changed| touched(&cause::lines(&input.body), &cause::lines(&changed.body)))
        .filter(|t| !t.is_empty())
        .map(|t| t.into_iter().map(|i| minimal[i]).collect())
        .unwrap_or_else(|| minimal.to_vec());
    (cause, touched, apart)
}

/// Does transformation `name` make every oracle agree on `input`?
fn reunites(panel: &mut Panel, input: &Input, q: &Question, name: &str) -> bool {
    let Some(changed) = CATALOGUE
        .iter()
        .find(|t| t.name == name)
        .and_then(|t| (t.apply)(input))
    else {
        return false;
    };
    let asked = Question {
        agent: changed.agent.clone(),
        url: changed.url.clone(),
        source: q.source,
    };
    !panel.ask_one(&changed.body, &asked).disagrees()
}

/// The lines of `old` (0-based) that an edit into `new` deletes or
/// replaces; an insertion touches the line it goes before (or the last).
pub fn touched(old: &[Vec<u8>], new: &[Vec<u8>]) -> Vec<usize> {
    let mut out = Vec::new();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, old, new) {
        let (start, len) = match op {
            similar::DiffOp::Equal { .. } => continue,
            similar::DiffOp::Delete {
                old_index, old_len, ..
            }
            | similar::DiffOp::Replace {
                old_index, old_len, ..
            } => (old_index, old_len),
            similar::DiffOp::Insert { old_index, .. } => {
                (old_index.min(old.len().saturating_sub(1)), 1)
            }
        };
        out.extend((start..start + len).filter(|i| *i < old.len()));
    }
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touched_lines_of_an_edit() {
        let l = |s: &str| cause::lines(s.as_bytes());
        let old = l("a\nb\nc\n");
        assert_eq!(touched(&old, &l("a\nB\nc\n")), vec![1]);
        assert_eq!(touched(&old, &l("a\nc\n")), vec![1]);
        assert_eq!(touched(&old, &l("a\n\nb\nc\n")), vec![1]);
        assert_eq!(touched(&old, &old), Vec::<usize>::new());
    }
}
