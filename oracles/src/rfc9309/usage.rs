//! Which usage preference applies to a URL for an agent: the second stage
//! draft-ietf-aipref-attach-05 §3.1 adds to RFC 9309 ("Acquisition relies
//! on Allow/Disallow rules; usage preference relies on Content-Usage
//! rules"), with the statements read by draft-ietf-aipref-vocab-08's
//! processing algorithm (§6.5) and conflicts combined by its §7.1.
//!
//! Only a [`Robots`] parsed under [`ContentUsage::Rule`] holds usage rules;
//! under RFC 9309 as published a `Content-Usage` line is an other record,
//! and every answer here is [`UsageOutcome::NoRule`].
//!
//! [`ContentUsage::Rule`]: super::readings::ContentUsage::Rule

use super::matching::rank;
use super::readings::Specificity;
use super::{Robots, Verdict};
use serde::Serialize;

/// One category's preference (aipref-vocab §7: "one of three potential
/// answers: allow, disallow, and unknown").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Preference {
    /// The token `y`.
    Allow,
    /// The token `n`.
    Disallow,
    /// Absent, not a token, or a token other than `y`/`n` (§6.5 "All of
    /// these are not errors").
    Unknown,
}

impl Preference {
    /// §6.5: `y` allows, `n` disallows, anything else is unknown.
    fn of(entry: Option<&sfv::ListEntry>) -> Preference {
        let token = match entry {
            Some(sfv::ListEntry::Item(item)) => item.bare_item.as_token(),
            _ => None,
        };
        match token.map(|t| t.as_str()) {
            Some("y") => Preference::Allow,
            Some("n") => Preference::Disallow,
            _ => Preference::Unknown,
        }
    }

    /// §7.1 for one category: any disallow wins, then any allow.
    fn combine(self, other: Preference) -> Preference {
        use Preference::*;
        match (self, other) {
            (Disallow, _) | (_, Disallow) => Disallow,
            (Allow, _) | (_, Allow) => Allow,
            _ => Unknown,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Preference::Allow => "y",
            Preference::Disallow => "n",
            Preference::Unknown => "unknown",
        }
    }
}

/// The vocabulary's categories (aipref-vocab §6.1, "Mappings for
/// Categories": `train-ai` and `search`, case-sensitive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Preferences {
    #[serde(rename = "train-ai")]
    pub train_ai: Preference,
    pub search: Preference,
}

impl Preferences {
    const UNKNOWN: Preferences = Preferences {
        train_ai: Preference::Unknown,
        search: Preference::Unknown,
    };

    /// §6.5: parse the bytes as a Structured Fields Dictionary (RFC 9651);
    /// "If the parsing of the Dictionary fails, preferences are unknown";
    /// of a repeated key the last value applies (the Dictionary's own
    /// rule); parameters are disregarded.
    pub fn parse(statement: &[u8]) -> Preferences {
        let Ok(dict) = sfv::Parser::new(statement).parse::<sfv::Dictionary>() else {
            return Preferences::UNKNOWN;
        };
        let get = |label: &str| {
            let found = dict.iter().find(|(k, _)| k.as_str() == label);
            Preference::of(found.map(|(_, v)| v))
        };
        Preferences {
            train_ai: get("train-ai"),
            search: get("search"),
        }
    }

    fn combine(self, other: Preferences) -> Preferences {
        Preferences {
            train_ai: self.train_ai.combine(other.train_ai),
            search: self.search.combine(other.search),
        }
    }
}

/// Which usage preference applies, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UsageOutcome {
    /// aipref-attach §3.1 "Usage preferences apply only to those resources
    /// that can be crawled ...; no preferences are implied for resources
    /// that are disallowed."
    NotCrawlable,
    /// No `Content-Usage` rule of the agent's group matches: every
    /// category is unknown (vocab §7 "Otherwise, the preference for that
    /// category is unknown").
    NoRule,
    /// The longest matching rules (§3.1 "the same path prefix matching
    /// rules as defined for Allow and Disallow"); where several have the
    /// same length their preferences "apply separately" (§3.1), combined
    /// per category by vocab §7.1.
    Rules {
        preferences: Preferences,
        /// The deciding lines, 1-based, in file order.
        lines: Vec<u32>,
    },
}

impl UsageOutcome {
    /// One line for a person: `train-ai=n, search=unknown (line 4)`.
    pub fn describe(&self) -> String {
        match self {
            UsageOutcome::NotCrawlable => {
                "none: the URL cannot be crawled, and no preference is implied for it (§3.1)".into()
            }
            UsageOutcome::NoRule => {
                "train-ai=unknown, search=unknown (no Content-Usage rule of the group matches)"
                    .into()
            }
            UsageOutcome::Rules { preferences, lines } => {
                let lines: Vec<String> = lines.iter().map(u32::to_string).collect();
                format!(
                    "train-ai={}, search={} (line{} {})",
                    preferences.train_ai.word(),
                    preferences.search.word(),
                    if lines.len() == 1 { "" } else { "s" },
                    lines.join(", ")
                )
            }
        }
    }
}

impl Robots {
    /// The usage preference for `agent` fetching `url`, with the crawl
    /// verdict it rests on (§3.1's two stages).
    pub fn usage(&self, agent: &str, url: &str) -> (Verdict<'_>, UsageOutcome) {
        let mut path = Vec::new();
        let verdict = self.decide(agent, url, &mut path);
        if !verdict.allowed {
            return (verdict, UsageOutcome::NotCrawlable);
        }
        // (prefix length in octets, line) of every matching rule.
        let mut matches: Vec<(u32, u32, Preferences)> = Vec::new();
        for rule in self
            .usage
            .iter()
            .filter(|r| verdict.selection.groups.contains(&r.group))
        {
            let pattern = self.usage_path(rule);
            let got = if pattern.is_empty() {
                Some(0)
            } else {
                rank(pattern, &path, Specificity::PatternOctets)
            };
            if let Some(len) = got {
                let prefs = Preferences::parse(self.usage_statement(rule));
                matches.push((len, rule.line, prefs));
            }
        }
        let Some(longest) = matches.iter().map(|m| m.0).max() else {
            return (verdict, UsageOutcome::NoRule);
        };
        let mut preferences: Option<Preferences> = None;
        let mut lines = Vec::new();
        for (_, line, prefs) in matches.into_iter().filter(|m| m.0 == longest) {
            preferences = Some(preferences.map_or(prefs, |p| p.combine(prefs)));
            lines.push(line);
        }
        let preferences = preferences.unwrap_or(Preferences::UNKNOWN);
        (verdict, UsageOutcome::Rules { preferences, lines })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rfc9309::{ContentUsage, Readings};
    use Preference::*;

    fn aipref(body: &str) -> Robots {
        let readings = Readings {
            content_usage: ContentUsage::Rule,
            ..Readings::default()
        };
        Robots::parse(body.as_bytes(), &readings)
    }

    fn rules(train_ai: Preference, search: Preference, lines: &[u32]) -> UsageOutcome {
        UsageOutcome::Rules {
            preferences: Preferences { train_ai, search },
            lines: lines.to_vec(),
        }
    }

    /// draft-ietf-aipref-attach-05 §3.4, "Example robots.txt file", and the
    /// table under it.
    const EXAMPLE: &str = "User-Agent: *\nAllow: /\nDisallow: /never/\n\
        Content-Usage: train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n\n\
        User-Agent: ExampleBot\nAllow: /\nContent-Usage: train-ai=y\n";

    #[test]
    fn the_drafts_example_table() {
        let r = aipref(EXAMPLE);
        let ask = |agent, path: &str| r.usage(agent, &format!("https://example.com{path}")).1;
        assert_eq!(ask("OtherBot", "/test"), rules(Disallow, Unknown, &[4]));
        assert_eq!(ask("OtherBot", "/never/"), UsageOutcome::NotCrawlable);
        assert_eq!(ask("OtherBot", "/ai-ok/test"), rules(Allow, Unknown, &[5]));
        assert_eq!(ask("ExampleBot", "/never/x"), rules(Allow, Unknown, &[9]));
    }

    /// vocab-08 §6.5: values are case-sensitive tokens; `yes`, a string, a
    /// boolean or an unparseable dictionary are unknown; the last of a
    /// repeated key applies; parameters are disregarded.
    #[test]
    fn the_vocabularys_processing_algorithm() {
        let p = |s: &str| Preferences::parse(s.as_bytes());
        assert_eq!(p("train-ai=n, search=y").train_ai, Disallow);
        assert_eq!(p("train-ai=n, search=y").search, Allow);
        assert_eq!(p("train-ai=no").train_ai, Unknown);
        assert_eq!(p("train-ai=N").train_ai, Unknown);
        assert_eq!(
            p("Train-AI=n").train_ai,
            Unknown,
            "uppercase key: parse fails"
        );
        assert_eq!(
            p("train-ai=y, train-ai, search=n, search=\"n\"").train_ai,
            Unknown
        );
        assert_eq!(p("train-ai;allow=n, train-ai=y").train_ai, Allow);
        assert_eq!(p("ai-train=no, search=yes").train_ai, Unknown);
        assert_eq!(p("bogus-label=n, train-ai=n").train_ai, Disallow);
    }

    /// §3.1 "these preferences apply separately": two rules with the same
    /// path combine per category, the most restrictive winning (vocab §7.1).
    #[test]
    fn identical_paths_combine() {
        let r = aipref(
            "User-agent: *\nContent-Usage: /a train-ai=y, search=y\nContent-Usage: /a train-ai=n\n",
        );
        assert_eq!(
            r.usage("Bot", "https://e.com/a/b").1,
            rules(Disallow, Allow, &[2, 3])
        );
    }

    /// Under RFC 9309 as published no line is a usage rule.
    #[test]
    fn rfc9309_reads_no_usage_rule() {
        let r = Robots::parse(EXAMPLE.as_bytes(), &Readings::default());
        assert_eq!(
            r.usage("OtherBot", "https://example.com/test").1,
            UsageOutcome::NoRule
        );
    }
}
