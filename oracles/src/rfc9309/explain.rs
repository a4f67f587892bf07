//! The one-line account that goes with every verdict (`Answer::explain`):
//! the verdict and what decided it, the group chosen and why, the path that
//! was matched, and the readings that decided it.
//!
//! Shape (fields separated by `; `):
//!
//! ```text
//! disallowed by line 7 disallow "/" (1 octets of pattern, §2.2.2 most specific);
//! group "foobot": exact token, line 6; path "/x";
//! readings: agent=up-to-slash-or-space, token=strict, specificity=pattern-octets
//! ```

use super::parse::{Chosen, Robots};
use super::readings::Specificity;
use super::{DecidedBy, Verdict};
use std::fmt::Write;

/// How many merged groups' lines are listed before eliding.
const MAX_LINES_SHOWN: usize = 8;

pub fn explain(robots: &Robots, v: &Verdict<'_>, agent: &str, path: &[u8]) -> String {
    let r = robots.readings();
    let token = super::agent::caller_token(agent, r.caller_token);
    let token = String::from_utf8_lossy(token);
    let mut s = String::with_capacity(200);
    let word = if v.allowed { "allowed" } else { "disallowed" };

    // What decided.
    match v.decided_by {
        DecidedBy::RobotsTxt => {
            let _ = write!(s, "{word}: /robots.txt is implicitly allowed (§2.2.2)");
        }
        DecidedBy::NoGroup => {
            let _ = write!(s, "{word}: no group applies, no rules apply (§2.2.1)");
        }
        DecidedBy::NoMatch => {
            let rules: u32 = v
                .selection
                .groups
                .iter()
                .map(|&g| {
                    let g = &robots.groups()[g as usize];
                    g.end - g.start
                })
                .sum();
            if rules == 0 {
                let _ = write!(s, "{word}: the group has no rules (§2.2.2)");
            } else {
                let _ = write!(
                    s,
                    "{word}: none of the group's {rules} rules matches (§2.2.2)"
                );
            }
        }
        DecidedBy::Rule { rule, rank } => {
            let rule = &robots.rules[rule as usize];
            let kind = if rule.allow { "allow" } else { "disallow" };
            let pattern = String::from_utf8_lossy(robots.raw_pattern(rule));
            let measure = match r.specificity {
                Specificity::PatternOctets => "octets of pattern",
                Specificity::MatchedSpan => "octets of matched URI span",
            };
            let _ = write!(
                s,
                "{word} by line {} {kind} {pattern:?} ({rank} {measure}, §2.2.2 most specific)",
                rule.line
            );
        }
    }

    // The group and why.
    let groups = v.selection.groups;
    let lines = |s: &mut String| {
        let n = groups.len();
        if n == 1 {
            let g = &robots.groups()[groups[0] as usize];
            let _ = write!(s, "line {}", g.line);
            if g.implicit {
                s.push_str(" (rules before any user-agent)");
            }
        } else {
            let _ = write!(s, "{n} groups merged (§2.2.1) at lines ");
            for (i, &g) in groups.iter().take(MAX_LINES_SHOWN).enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                let g = &robots.groups()[g as usize];
                let _ = write!(s, "{}", g.line);
                if g.implicit {
                    s.push_str(" (rules before any user-agent)");
                }
            }
            if n > MAX_LINES_SHOWN {
                let _ = write!(s, ", … (+{} more)", n - MAX_LINES_SHOWN);
            }
        }
    };
    match v.selection.kind {
        Chosen::Exact => {
            let _ = write!(s, "; group {:?}: exact token, ", token.to_ascii_lowercase());
            lines(&mut s);
        }
        Chosen::Star => {
            let _ = write!(
                s,
                "; group \"*\": fallback, no group names {token:?} (§2.2.1), "
            );
            lines(&mut s);
        }
        Chosen::None => {
            let _ = write!(
                s,
                "; group: none, no group names {token:?} and there is no \"*\" group"
            );
        }
    }

    let _ = write!(s, "; path {:?}", String::from_utf8_lossy(path));

    // The readings that decided it.
    s.push_str("; readings: ");
    s.push_str(r.caller_token.label());
    s.push_str(", ");
    s.push_str(r.product_token.label());
    let notes = robots.notes();
    if let DecidedBy::Rule { rule, .. } = v.decided_by {
        s.push_str(", ");
        s.push_str(r.specificity.label());
        if robots.rules[rule as usize].is_empty() {
            s.push_str(", ");
            s.push_str(r.empty_pattern.label());
        }
    } else if v.decided_by == DecidedBy::NoMatch && notes.empty_rules > 0 {
        s.push_str(", ");
        s.push_str(r.empty_pattern.label());
    }
    if v.decided_by != DecidedBy::NoGroup && path.contains(&b'?') {
        s.push_str(", ");
        s.push_str(r.query_reserved.label());
    }
    if notes.orphan_rules > 0 {
        let _ = write!(
            s,
            ", {} ({} rules before any user-agent)",
            r.orphan_rules.label(),
            notes.orphan_rules
        );
    }
    if notes.bom {
        s.push_str(", ");
        s.push_str(r.byte_order_mark.label());
    }
    if let Some(cut) = notes.truncated_to {
        let _ = write!(
            s,
            ", parse-limit={} (parsed the first {cut} bytes, §2.5)",
            r.parse_limit.unwrap_or(0)
        );
    }
    s
}
