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
//!
//! Built by hand rather than with `format!`: one is made per query, and
//! queries are what the harness benchmarks.

use super::parse::{
    Chosen, Robots, QUIRK_INNER_DOLLAR, QUIRK_INVALID_UTF8, QUIRK_JUNK, QUIRK_NO_COLON, QUIRK_START,
};
use super::readings::Specificity;
use super::{DecidedBy, Verdict};

/// How many merged groups' lines are listed before eliding.
const MAX_LINES_SHOWN: usize = 8;

/// A string being built.
struct Out(String);

impl Out {
    #[inline]
    fn s(&mut self, text: &str) -> &mut Self {
        self.0.push_str(text);
        self
    }

    fn n(&mut self, mut v: u64) -> &mut Self {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        // Only ASCII digits were written.
        self.0
            .push_str(std::str::from_utf8(&digits[i..]).unwrap_or("?"));
        self
    }

    /// `bytes` in double quotes, as Rust's `{:?}` would show them: invalid
    /// UTF-8 replaced, quotes, backslashes and control characters escaped.
    fn q(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.push('"');
        for chunk in bytes.utf8_chunks() {
            let valid = chunk.valid();
            if valid
                .bytes()
                .all(|b| (0x20..0x7F).contains(&b) && b != b'"' && b != b'\\')
            {
                self.0.push_str(valid);
            } else {
                for c in valid.chars() {
                    if c == '\'' {
                        self.0.push(c);
                    } else {
                        self.0.extend(c.escape_debug());
                    }
                }
            }
            if !chunk.invalid().is_empty() {
                self.0.push(char::REPLACEMENT_CHARACTER);
            }
        }
        self.0.push('"');
        self
    }
}

pub fn explain(robots: &Robots, v: &Verdict<'_>, agent: &str, path: &[u8]) -> String {
    let r = robots.readings();
    let token = super::agent::caller_token(agent, r.caller_token);
    let mut o = Out(String::with_capacity(256));
    o.s(if v.allowed { "allowed" } else { "disallowed" });
    decided(&mut o, robots, v);
    group(&mut o, robots, v, token);
    // Normalised paths are ASCII: every other octet is percent-encoded.
    o.s("; path ").q(path);

    readings(&mut o, robots, v, path);
    o.0
}

/// What decided: the exemption, no group, no match, or the rule and its rank.
fn decided(o: &mut Out, robots: &Robots, v: &Verdict<'_>) {
    let r = robots.readings();
    match v.decided_by {
        DecidedBy::RobotsTxt => {
            o.s(": /robots.txt is implicitly allowed (§2.2.2)");
        }
        DecidedBy::NoGroup => {
            o.s(": no group applies, no rules apply (§2.2.1)");
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
                o.s(": the group has no rules (§2.2.2)");
            } else {
                o.s(": none of the group's ")
                    .n(rules.into())
                    .s(" rules matches (§2.2.2)");
            }
        }
        DecidedBy::Rule { rule, rank } => {
            let rule = &robots.rules[rule as usize];
            o.s(" by line ")
                .n(rule.line.into())
                .s(if rule.allow { " allow " } else { " disallow " })
                .q(robots.raw_pattern(rule))
                .s(" (")
                .n(rank.into())
                .s(match r.specificity {
                    Specificity::PatternOctets => " octets of pattern",
                    Specificity::MatchedSpan => " octets of matched URI span",
                })
                .s(", §2.2.2 most specific)");
        }
    }
}

/// The group chosen and why, with its lines.
fn group(o: &mut Out, robots: &Robots, v: &Verdict<'_>, token: &[u8]) {
    let groups = v.selection.groups;
    match v.selection.kind {
        Chosen::Exact => {
            // The index is keyed by the lower-cased token.
            o.s("; group ")
                .q(&token.to_ascii_lowercase())
                .s(": exact token, ");
        }
        Chosen::Star => {
            o.s("; group \"*\": fallback, no group names ")
                .q(token)
                .s(" (§2.2.1), ");
        }
        Chosen::None => {
            o.s("; group: none, no group names ")
                .q(token)
                .s(" and there is no \"*\" group");
        }
    }
    if !groups.is_empty() {
        if groups.len() == 1 {
            o.s("line ");
        } else {
            o.n(groups.len() as u64)
                .s(" groups merged (§2.2.1) at lines ");
        }
        for (i, &g) in groups.iter().take(MAX_LINES_SHOWN).enumerate() {
            if i > 0 {
                o.s(", ");
            }
            let g = &robots.groups()[g as usize];
            o.n(g.line.into());
            if g.implicit {
                o.s(" (rules before any user-agent)");
            }
        }
        if groups.len() > MAX_LINES_SHOWN {
            o.s(", … (+")
                .n((groups.len() - MAX_LINES_SHOWN) as u64)
                .s(" more)");
        }
    }
}

/// The readings that decided the verdict, and what the parser noticed.
fn readings(o: &mut Out, robots: &Robots, v: &Verdict<'_>, path: &[u8]) {
    let r = robots.readings();
    o.s("; readings: ")
        .s(r.caller_token.label())
        .s(", ")
        .s(r.product_token.label());
    let notes = robots.notes();
    if let DecidedBy::Rule { rule, .. } = v.decided_by {
        o.s(", ").s(r.specificity.label());
        let rule = &robots.rules[rule as usize];
        if rule.is_empty() {
            o.s(", ").s(r.empty_pattern.label());
        }
        quirk_readings(o, rule.quirks, r);
    } else if v.decided_by == DecidedBy::RobotsTxt && path.contains(&b'?') {
        o.s(", ").s(r.robots_txt_query.label());
    } else if v.decided_by == DecidedBy::NoMatch && notes.empty_rules > 0 {
        o.s(", ").s(r.empty_pattern.label());
    }
    if v.decided_by != DecidedBy::NoGroup && path.contains(&b'?') {
        o.s(", ").s(r.query_reserved.label());
    }
    if notes.orphan_rules > 0 {
        o.s(", ")
            .s(r.orphan_rules.label())
            .s(" (")
            .n(notes.orphan_rules.into())
            .s(" rules before any user-agent)");
    }
    if notes.bom {
        o.s(", ").s(r.byte_order_mark.label());
    }
    if notes.usage_rules > 0 {
        o.s(", ")
            .s(r.content_usage.label())
            .s(" (")
            .n(notes.usage_rules.into())
            .s(" Content-Usage rules)");
    }
    if notes.dropped_rules > 0 {
        o.s(", ")
            .n(notes.dropped_rules.into())
            .s(" rules dropped under ")
            .s(r.pattern_junk.label())
            .s(" / ")
            .s(r.inner_dollar.label())
            .s(" / ")
            .s(r.pattern_start.label());
    }
    if notes.no_colon_rules > 0 {
        o.s(", ")
            .s(r.no_colon.label())
            .s(" (")
            .n(notes.no_colon_rules.into())
            .s(" rule lines without a colon)");
    }
    if let Some(cut) = notes.truncated_to {
        o.s(", parse-limit=")
            .n(r.parse_limit.unwrap_or(0) as u64)
            .s(" (parsed the first ")
            .n(cut as u64)
            .s(" bytes, §2.5)");
    }
}

/// The readings that kept the deciding rule the way it is: one label per
/// gap of the §2.2 grammar its pattern falls into.
fn quirk_readings(o: &mut Out, quirks: u8, r: &super::Readings) {
    let labels = [
        (QUIRK_JUNK, r.pattern_junk.label()),
        (QUIRK_INNER_DOLLAR, r.inner_dollar.label()),
        (QUIRK_INVALID_UTF8, r.invalid_utf8.label()),
        (QUIRK_START, r.pattern_start.label()),
        (QUIRK_NO_COLON, r.no_colon.label()),
    ];
    for (bit, label) in labels {
        if quirks & bit != 0 {
            o.s(", ").s(label);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Out;

    #[test]
    fn quoting_matches_debug() {
        for s in [
            "",
            "plain",
            "a\"b",
            "it's",
            "back\\slash",
            "tab\there",
            "ツ",
            "nul\0",
            "\u{2028}",
        ] {
            let mut o = Out(String::new());
            o.q(s.as_bytes());
            assert_eq!(o.0, format!("{s:?}"));
        }
        let mut o = Out(String::new());
        o.q(b"bad\xFFbyte");
        assert_eq!(o.0, "\"bad\u{FFFD}byte\"");
    }

    #[test]
    fn numbers() {
        for v in [0u64, 7, 10, 512000, u64::MAX] {
            let mut o = Out(String::new());
            o.n(v);
            assert_eq!(o.0, v.to_string());
        }
    }
}
