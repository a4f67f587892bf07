//! `lint --before OLD NEW`: change review. A site owner changing a
//! robots.txt wants to know, before it ships, which crawler's access
//! changes and for which parsers: the two versions are asked the union of
//! their questions, and every question whose verdict moves for some parser
//! is listed with the parsers it moves for and the lines that changed.
//! A change named by `--expect-change` is intended; any other fails.

use super::panel::{Panel, Reading};
use super::{input, questions, Asked, Question};
use engine::oracle::Label;
use serde::Serialize;

/// One parser whose reading of a question moved.
#[derive(Debug, Clone, Serialize)]
pub struct Moved {
    pub oracle: String,
    /// Who runs it (its manifest's `runs_in`; empty for an
    /// `--oracle-cmd` one): the crawler products whose access moves.
    pub runs_in: String,
    pub before: String,
    pub after: String,
}

/// One question whose verdict moved for some parser.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub agent: String,
    pub url: String,
    pub moved: Vec<Moved>,
    /// Parsers whose reading stayed.
    pub unchanged: usize,
    /// Matched by an `--expect-change` pattern.
    pub expected: bool,
}

/// The whole review: what `--json` prints (docs/lint.md).
#[derive(Debug, Clone, Serialize)]
pub struct Review {
    pub format: u32,
    pub before: String,
    pub after: String,
    pub oracles: Vec<String>,
    pub questions: usize,
    /// The changed lines, as a unified diff without context.
    pub diff: String,
    pub changes: Vec<Change>,
    /// Changes no `--expect-change` pattern names.
    pub unexpected: usize,
    /// Parsers that gave no answer (a timeout, a crash) on some question of
    /// either version: the review is incomplete for them.
    pub silent: Vec<String>,
}

/// Ask both versions the union of their questions and compare.
pub fn review(
    panel: &mut Panel,
    old: &input::File,
    new: &input::File,
    asked: &Asked,
    expect: &[String],
) -> Review {
    let derive = |body: &[u8]| {
        questions::questions(
            body,
            asked.agents,
            asked.urls,
            asked.max_agents,
            asked.ai_crawlers,
        )
        .0
    };
    let mut union: Vec<Question> = derive(&old.body);
    for q in derive(&new.body) {
        if !union.iter().any(|u| u.agent == q.agent && u.url == q.url) {
            union.push(q);
        }
    }
    let before = panel.ask(&old.body, &union);
    let after = panel.ask(&new.body, &union);
    let mut silent: Vec<String> = Vec::new();
    for split in before.iter().chain(&after) {
        for (i, label) in split.failures() {
            let name = panel.name(i).to_string();
            if matches!(label, Label::Timeout | Label::Crash) && !silent.contains(&name) {
                silent.push(name);
            }
        }
    }
    let runs_in = crate::registry::runs_in().ok();
    let runner = |name: &str| {
        runs_in
            .and_then(|m| m.get(name))
            .cloned()
            .unwrap_or_default()
    };
    let changes: Vec<Change> = union
        .iter()
        .zip(before.iter().zip(&after))
        .filter_map(|(q, (b, a))| {
            let moved: Vec<Moved> =
                b.0.iter()
                    .zip(&a.0)
                    .enumerate()
                    .filter(|(_, (x, y))| x != y)
                    .map(|(i, (x, y))| Moved {
                        oracle: panel.name(i).to_string(),
                        runs_in: runner(panel.name(i)),
                        before: word(x),
                        after: word(y),
                    })
                    .collect();
            (!moved.is_empty()).then(|| Change {
                agent: q.agent.clone(),
                url: q.url.clone(),
                unchanged: b.0.len() - moved.len(),
                expected: expect
                    .iter()
                    .any(|p| crate::shared::glob_match(p, &format!("{} {}", q.agent, q.url))),
                moved,
            })
        })
        .collect();
    Review {
        format: 1,
        before: old.name.clone(),
        after: new.name.clone(),
        oracles: (0..panel.size())
            .map(|i| panel.name(i).to_string())
            .collect(),
        questions: union.len(),
        diff: line_diff(&old.body, &new.body),
        unexpected: changes.iter().filter(|c| !c.expected).count(),
        changes,
        silent,
    }
}

fn word(r: &Reading) -> String {
    r.label().to_string()
}

/// The changed lines, `-N old` / `+N new`, no context.
fn line_diff(old: &[u8], new: &[u8]) -> String {
    let (old, new) = (String::from_utf8_lossy(old), String::from_utf8_lossy(new));
    let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref());
    let mut out = String::new();
    for change in diff.iter_all_changes() {
        let (sign, line) = match change.tag() {
            similar::ChangeTag::Delete => ('-', change.old_index()),
            similar::ChangeTag::Insert => ('+', change.new_index()),
            similar::ChangeTag::Equal => continue,
        };
        out.push_str(&format!(
            "{sign}{:>4} {}\n",
            line.map_or(0, |i| i + 1),
            change.value().trim_end_matches(['\n', '\r'])
        ));
    }
    out
}

/// Questions shown per item; the rest are counted.
const SHOWN: usize = 5;

/// The terminal report: the lines that changed, then every changed
/// question with the parsers it moved for.
pub fn text(r: &Review) {
    crate::out!(
        "{} -> {}: {} question(s) asked of {} parser(s) on both versions",
        r.before,
        r.after,
        r.questions,
        r.oracles.len()
    );
    if r.diff.is_empty() {
        crate::out!("\nThe two files have the same lines.");
    } else {
        crate::out!(
            "\nChanged lines (old line numbers with -, new with +):\n{}",
            r.diff.trim_end()
        );
    }
    if r.changes.is_empty() {
        crate::out!("\nNo verdict changes for any parser.");
        return;
    }
    // Questions that moved the same way for the same parsers are one item.
    let mut items: Vec<(String, bool, Vec<&Change>)> = Vec::new();
    for c in &r.changes {
        let moves: Vec<String> = c
            .moved
            .iter()
            .map(|m| match m.runs_in.as_str() {
                "" => format!("{} {} -> {}", m.oracle, m.before, m.after),
                runs => format!("{} ({runs}) {} -> {}", m.oracle, m.before, m.after),
            })
            .collect();
        let key = format!("{} (unchanged for {})", moves.join(", "), c.unchanged);
        match items
            .iter_mut()
            .find(|(k, e, _)| *k == key && *e == c.expected)
        {
            Some((_, _, list)) => list.push(c),
            None => items.push((key, c.expected, vec![c])),
        }
    }
    for (moves, expected, list) in &items {
        crate::out!(
            "\n{} {}: {} question(s)",
            if *expected { "expected:" } else { "CHANGED:" },
            moves,
            list.len()
        );
        for c in list.iter().take(SHOWN) {
            crate::out!("  {} {}", c.agent, c.url);
        }
        if list.len() > SHOWN {
            crate::out!(
                "  … and {} more (--json lists every one)",
                list.len() - SHOWN
            );
        }
    }
    crate::out!(
        "\n{} question(s) change for some parser, {} of them not named by --expect-change.",
        r.changes.len(),
        r.unexpected
    );
}

/// `--json`: exactly one object.
pub fn json(r: &Review) {
    match serde_json::to_string(r) {
        Ok(s) => crate::out!("{s}"),
        Err(e) => log::error!("cannot write the JSON review: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_names_old_and_new_lines() {
        let d = line_diff(
            b"User-agent: *\nDisallow: /a\n",
            b"User-agent: *\nDisallow: /b\n",
        );
        assert_eq!(d, "-   2 Disallow: /a\n+   2 Disallow: /b\n");
    }
}
