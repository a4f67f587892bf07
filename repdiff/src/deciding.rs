//! The line that decided each parser's verdict (`check`).
//!
//! A site owner asks "which line blocks this URL?" — Bing's tester names
//! it, Lighthouse was asked for it. A few libraries can tell (the protocol's
//! `line`: Google's `matching_line()`, robots-parser's
//! `getMatchingLineNumber`, grobotstxt's `MatchingLine()`, the reference's
//! chosen rule). For the others the line is derived against that parser
//! alone: each candidate line is disabled in turn and the parser asked
//! again; the lines whose disabling flips its verdict are the ones it
//! rests on. An `Allow`/`Disallow` line is disabled by giving it a path no
//! question asks ([`NOWHERE`]), not by deleting it: a group whose only rule
//! goes away can join the next group's agents (blank lines do not end a
//! group in RFC 9309), which flips nothing for the rule's own sake. Other
//! lines are deleted. A derived line is said to be derived, and where no
//! single line's disabling changes a disallow, nothing is claimed.

use engine::oracle::{Answer, Ask, Deciding, Oracle, Outcome, Query};

/// More candidate lines than this and a derivation is not tried: each one
/// costs a call per parser.
pub const MAX_CANDIDATES: usize = 200;

/// The path a disabled rule is given: no URL lint or check asks holds it.
pub const NOWHERE: &str = "/repdiff-disabled-rule-matches-nothing";

/// What is known of one verdict's deciding line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// The library's own account.
    Told(Deciding),
    /// The lines (1-based) whose disabling alone flips the parser's
    /// verdict; empty for an allow no disabling changes (no rule matched).
    Derived(Vec<u32>),
    /// Why no line can be given.
    NotDerived(String),
}

impl Found {
    /// For `check`'s text: the line, quoted from `body`, and how it is
    /// known.
    pub fn describe(&self, body: &[u8]) -> String {
        match self {
            Found::Told(Deciding::Line(n)) => {
                format!("line {n}{} (the library's own account)", quote(body, *n))
            }
            Found::Told(d) => format!("{d} (the library's own account)"),
            Found::Derived(lines) if lines.len() == 1 => format!(
                "line {}{} (derived: disabling it alone flips the verdict)",
                lines[0],
                quote(body, lines[0])
            ),
            Found::Derived(lines) if lines.is_empty() => {
                "no rule matched (derived: disabling no single line changes it)".into()
            }
            Found::Derived(lines) => format!(
                "{} {} (derived: disabling {} alone flips the verdict)",
                if lines.len() == 1 { "line" } else { "lines" },
                join(lines),
                if lines.len() == 1 { "it" } else { "any one" }
            ),
            Found::NotDerived(why) => format!("no deciding line: {why}"),
        }
    }

    /// For `check --json`: `{"how", "lines"}` or `{"how", "why"}`.
    pub fn json(&self) -> serde_json::Value {
        match self {
            Found::Told(Deciding::Line(n)) => serde_json::json!({"how": "told", "lines": [n]}),
            Found::Told(Deciding::NoRule) => serde_json::json!({"how": "told", "lines": []}),
            Found::Derived(lines) => serde_json::json!({"how": "derived", "lines": lines}),
            Found::NotDerived(why) => serde_json::json!({"how": "not-derived", "why": why}),
        }
    }
}

/// ` `Disallow: /x`` for line `n` of `body` (cut at 80 characters), or
/// nothing past its end.
fn quote(body: &[u8], n: u32) -> String {
    let Some(line) = lines(body).into_iter().nth(n.saturating_sub(1) as usize) else {
        return String::new();
    };
    let text = String::from_utf8_lossy(&body[line.start..line.end]);
    let text = text.trim();
    let cut: String = text.chars().take(80).collect();
    let more = if cut.len() < text.len() { "…" } else { "" };
    format!(" `{cut}{more}`")
}

fn join(lines: &[u32]) -> String {
    lines
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// One line of the body: where it starts and ends (with its line end).
struct Span {
    start: usize,
    end: usize,
    number: u32,
}

/// Every line of the body, ended by `\n`, `\r\n` or a lone `\r` (as
/// Google's parser and the reference count lines).
fn lines(body: &[u8]) -> Vec<Span> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut number = 0u32;
    while start < body.len() {
        number += 1;
        let end = body[start..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .map_or(body.len(), |i| {
                let i = start + i;
                if body[i] == b'\r' && body.get(i + 1) == Some(&b'\n') {
                    i + 2
                } else {
                    i + 1
                }
            });
        out.push(Span { start, end, number });
        start = end;
    }
    out
}

/// `body` with `line` disabled: an `Allow`/`Disallow` line (any case,
/// spaces around the key) keeps its key and line end and gets the path
/// [`NOWHERE`]; any other line is deleted.
fn disabled(body: &[u8], line: &Span) -> Vec<u8> {
    let text = &body[line.start..line.end];
    let rule_key = text.iter().position(|&b| b == b':').and_then(|colon| {
        let key = text[..colon].trim_ascii();
        let lower = key.to_ascii_lowercase();
        (lower == b"allow" || lower == b"disallow").then_some(colon)
    });
    let mut out = body[..line.start].to_vec();
    if let Some(colon) = rule_key {
        let end = text.len()
            - text
                .iter()
                .rev()
                .take_while(|&&b| b == b'\n' || b == b'\r')
                .count();
        out.extend_from_slice(&text[..=colon]);
        out.extend_from_slice(b" ");
        out.extend_from_slice(NOWHERE.as_bytes());
        out.extend_from_slice(&text[end..]);
    }
    out.extend_from_slice(&body[line.end..]);
    out
}

/// The lines a rule could stand on: every line but blank ones, comments
/// and `user-agent` lines (removing a group's only user-agent line flips
/// its rules too, which says nothing about which rule decided).
fn candidates(body: &[u8]) -> Vec<Span> {
    lines(body)
        .into_iter()
        .filter(|l| {
            let text = String::from_utf8_lossy(&body[l.start..l.end]);
            let content = text.split('#').next().unwrap_or_default().trim();
            let key = content
                .split(':')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase();
            !content.is_empty() && !key.contains("agent")
        })
        .collect()
}

/// The deciding line of each answer of `oracle` to `queries` on `body`:
/// its own where it told one, else derived by removing candidate lines;
/// `None` for a query that is not a can_fetch or an answer that is no
/// verdict.
pub fn find(
    oracle: &mut dyn Oracle,
    body: &[u8],
    queries: &[Query],
    answers: &[Answer],
) -> Vec<Option<Found>> {
    let verdict = |a: &Answer| match a.outcome {
        Outcome::Allowed => Some(true),
        Outcome::Disallowed => Some(false),
        _ => None,
    };
    let mut found: Vec<Option<Found>> = queries
        .iter()
        .zip(answers)
        .map(|(q, a)| match (q.ask, verdict(a), a.line) {
            (Ask::CanFetch, Some(_), Some(told)) => Some(Found::Told(told)),
            _ => None,
        })
        .collect();
    let pending: Vec<usize> = (0..queries.len())
        .filter(|&i| {
            found[i].is_none() && queries[i].ask == Ask::CanFetch && verdict(&answers[i]).is_some()
        })
        .collect();
    if pending.is_empty() {
        return found;
    }
    let lines = candidates(body);
    if lines.len() > MAX_CANDIDATES {
        let why = format!(
            "not derived: {} candidate lines (over {MAX_CANDIDATES}, one call each)",
            lines.len()
        );
        for &i in &pending {
            found[i] = Some(Found::NotDerived(why.clone()));
        }
        return found;
    }
    let asked: Vec<Query> = pending.iter().map(|&i| queries[i].clone()).collect();
    let mut flips: Vec<Vec<u32>> = vec![Vec::new(); pending.len()];
    let mut unanswered: Vec<bool> = vec![false; pending.len()];
    for line in &lines {
        let without = disabled(body, line);
        let again = oracle.run(&without, &asked);
        // A worker that timed out or died once would cost its timeout per
        // line: the derivation stops, and says so.
        if again
            .iter()
            .any(|a| matches!(a.outcome, Outcome::Timeout | Outcome::Crash { .. }))
        {
            let why = format!(
                "not derived: the parser gave no answer (timeout or crash) without line {}",
                line.number
            );
            for &i in &pending {
                found[i] = Some(Found::NotDerived(why.clone()));
            }
            return found;
        }
        for (k, &i) in pending.iter().enumerate() {
            match again.get(k).and_then(verdict) {
                Some(v) if Some(v) != verdict(&answers[i]) => flips[k].push(line.number),
                Some(_) => {}
                None => unanswered[k] = true,
            }
        }
    }
    for (k, &i) in pending.iter().enumerate() {
        let allowed = verdict(&answers[i]) == Some(true);
        found[i] = Some(if !flips[k].is_empty() || (allowed && !unanswered[k]) {
            Found::Derived(std::mem::take(&mut flips[k]))
        } else if unanswered[k] {
            Found::NotDerived(
                "not derived: the parser gave no verdict on a file without one of its lines".into(),
            )
        } else {
            Found::NotDerived(
                "disabling no single line changes this disallow (several lines decide it)".into(),
            )
        });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::oracle::{About, Capabilities};

    /// A clearly named fake: disallows when the body has a line
    /// `Disallow: /x` (any case), and tells no line.
    struct FakeDisallowX;

    impl Oracle for FakeDisallowX {
        fn name(&self) -> &str {
            "fake-disallow-x"
        }
        fn about(&self) -> About {
            About::default()
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities {
                can_fetch: true,
                ..Capabilities::default()
            }
        }
        fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
            let text = String::from_utf8_lossy(body).to_ascii_lowercase();
            let hit = text.lines().any(|l| l.trim() == "disallow: /x");
            queries
                .iter()
                .map(|_| {
                    Answer::from(if hit {
                        Outcome::Disallowed
                    } else {
                        Outcome::Allowed
                    })
                })
                .collect()
        }
    }

    fn query() -> Vec<Query> {
        vec![Query {
            ask: Ask::CanFetch,
            agent: "Bot".into(),
            url: "https://example.com/x".into(),
        }]
    }

    #[test]
    fn a_told_line_is_kept_and_another_is_derived_by_removal() {
        let body = b"User-agent: *\r\n# note\r\nAllow: /y\r\nDisallow: /x\r\n";
        let mut o = FakeDisallowX;
        let q = query();
        let answers = o.run(body, &q);
        let found = find(&mut o, body, &q, &answers);
        assert_eq!(found, vec![Some(Found::Derived(vec![4]))]);
        assert_eq!(
            found[0].as_ref().unwrap().describe(body),
            "line 4 `Disallow: /x` (derived: disabling it alone flips the verdict)"
        );
        let told = vec![Answer {
            line: Some(Deciding::Line(9)),
            ..answers[0].clone()
        }];
        assert_eq!(
            find(&mut o, body, &q, &told),
            vec![Some(Found::Told(Deciding::Line(9)))]
        );
    }

    #[test]
    fn an_allow_nothing_changes_matched_no_rule_and_a_doubled_disallow_is_not_claimed() {
        let mut o = FakeDisallowX;
        let q = query();
        let body = b"User-agent: *\nAllow: /y\n";
        let answers = o.run(body, &q);
        let found = find(&mut o, body, &q, &answers);
        assert_eq!(found, vec![Some(Found::Derived(vec![]))]);
        assert!(found[0]
            .as_ref()
            .unwrap()
            .describe(body)
            .starts_with("no rule matched"));
        let body = b"User-agent: *\nDisallow: /x\nDisallow: /x\n";
        let answers = o.run(body, &q);
        assert!(matches!(
            &find(&mut o, body, &q, &answers)[0],
            Some(Found::NotDerived(_))
        ));
    }

    /// A clearly named fake: answers the file as given, then times out.
    struct FakeTimesOutAfterOne(bool);

    impl Oracle for FakeTimesOutAfterOne {
        fn name(&self) -> &str {
            "fake-times-out-after-one"
        }
        fn about(&self) -> About {
            About::default()
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::default()
        }
        fn run(&mut self, _: &[u8], queries: &[Query]) -> Vec<Answer> {
            let first = std::mem::replace(&mut self.0, true);
            let o = if first {
                Outcome::Timeout
            } else {
                Outcome::Disallowed
            };
            queries.iter().map(|_| Answer::from(o.clone())).collect()
        }
    }

    #[test]
    fn a_parser_that_times_out_stops_the_derivation_at_once() {
        let mut o = FakeTimesOutAfterOne(false);
        let q = query();
        let body = b"User-agent: *\nDisallow: /x\nDisallow: /y\nDisallow: /z\n";
        let answers = o.run(body, &q);
        let found = find(&mut o, body, &q, &answers);
        match &found[0] {
            Some(Found::NotDerived(why)) => assert!(why.contains("line 2"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_rule_is_disabled_in_place_and_another_line_deleted() {
        let body = b"User-agent: a\r\n  DISALLOW : /x # c\r\nSitemap: s\n";
        let spans = lines(body);
        assert_eq!(
            disabled(body, &spans[1]),
            format!("User-agent: a\r\n  DISALLOW : {NOWHERE}\r\nSitemap: s\n").into_bytes()
        );
        assert_eq!(
            disabled(body, &spans[2]),
            b"User-agent: a\r\n  DISALLOW : /x # c\r\n"
        );
    }

    #[test]
    fn a_group_s_only_rule_decides_even_when_a_later_group_would_take_its_agent_in() {
        // Deleting line 2 would leave `User-agent: a` to join the next
        // group (blank lines end nothing in RFC 9309), still disallowed.
        let body = b"User-agent: a\nDisallow: /x\n\nUser-agent: b\nDisallow: /x\n";
        let mut o = FakeFirstRuleOfMyGroup;
        let q = query();
        let answers = o.run(body, &q);
        assert_eq!(answers[0].outcome, Outcome::Disallowed);
        assert_eq!(
            find(&mut o, body, &q, &answers),
            vec![Some(Found::Derived(vec![2]))]
        );
    }

    /// A clearly named fake reading groups as RFC 9309 does for agent `a`
    /// (consecutive user-agent lines, blank lines ignored): disallows when
    /// the first rule after `User-agent: a` is `Disallow: /x`.
    struct FakeFirstRuleOfMyGroup;

    impl Oracle for FakeFirstRuleOfMyGroup {
        fn name(&self) -> &str {
            "fake-first-rule-of-my-group"
        }
        fn about(&self) -> About {
            About::default()
        }
        fn capabilities(&self) -> Capabilities {
            Capabilities::default()
        }
        fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
            let text = String::from_utf8_lossy(body);
            let mut rules = text
                .lines()
                .skip_while(|l| l.trim() != "User-agent: a")
                .filter(|l| !l.trim().is_empty() && !l.starts_with("User-agent"));
            let hit = rules.next().is_some_and(|l| l.trim() == "Disallow: /x");
            let o = if hit {
                Outcome::Disallowed
            } else {
                Outcome::Allowed
            };
            queries.iter().map(|_| Answer::from(o.clone())).collect()
        }
    }

    #[test]
    fn user_agent_lines_comments_and_blank_lines_are_no_candidates() {
        let lines: Vec<u32> = candidates(b"User-agent: a\n\n# c\nDisallow: /\nSitemap: s")
            .iter()
            .map(|s| s.number)
            .collect();
        assert_eq!(lines, vec![4, 5]);
    }
}
