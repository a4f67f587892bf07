//! `rfc9309`: an executable reading of RFC 9309 (Robots Exclusion Protocol),
//! written from the RFC's text, pure Rust, no third-party parser.
//!
//! It is the harness's reference: every rule cites the section it reads, and
//! where the text admits more than one meaning the reading is a named option
//! of [`Readings`] with a stated default. Each answer explains itself (the
//! group chosen and why, the deciding rule, the readings that decided it).
//!
//! - [`parse`]: §2.1/§2.2 lines, records and groups → [`Robots`].
//! - [`agent`]: §2.2.1 product tokens, the file's and the caller's.
//! - [`matching`]: §2.2.2 percent-encoding normalisation, §2.2.3 `*`/`$`,
//!   the wildcard matcher, the URL's path.
//! - [`access`]: §2.3 the fetch policy ([`fetch_policy`]).
//! - [`explain`]: the one-line account of a verdict.
//! - [`readings`]: the documented options.
//! - [`usage`]: draft-ietf-aipref-attach-05's second stage, the usage
//!   preference a `Content-Usage` rule gives a URL.
//!
//! Not RFC 9309, so answered `Unsupported`: `crawl_delay` and `request_rate`
//! (§2.2.4 lets crawlers interpret other records; this reading interprets
//! only `Sitemap`).

pub mod access;
pub mod agent;
pub mod explain;
pub mod fetch;
pub mod matching;
pub mod parse;
pub mod readings;
pub mod usage;

pub use access::{fetch_policy, fetch_policy_with, AccessDecision};
pub use parse::{Chosen, ParseNotes, Robots, Rule, Selection, UsageRule};
pub use readings::*;
pub use usage::{Preference, Preferences, UsageOutcome};

use crate::panic_guard::guard;
use engine::oracle::{Answer, Ask, Capabilities, Deciding, Oracle, Outcome, Query, Value};
use matching::{is_robots_txt, normalise_uri, rank};

pub const NAME: &str = "rfc9309";

/// What decided a `can_fetch` verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecidedBy {
    /// §2.2.2 "The /robots.txt URI is implicitly allowed."
    RobotsTxt,
    /// §2.2.1 no group names the agent and there is no `*` group: "no rules
    /// apply".
    NoGroup,
    /// §2.2.2 "If no match is found amongst the rules in a group for a
    /// matching user-agent or there are no rules in the group, the URI is
    /// allowed."
    NoMatch,
    /// The most specific matching rule (`Robots::rules[rule]`) with its rank
    /// under the specificity reading.
    Rule { rule: u32, rank: u32 },
}

/// A `can_fetch` verdict with what it rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict<'r> {
    pub allowed: bool,
    pub selection: Selection<'r>,
    pub decided_by: DecidedBy,
}

impl Robots {
    /// May `agent` fetch `url`? `path` is scratch space, left holding the
    /// normalised path and query the rules were matched against (reuse it
    /// across queries to avoid allocating).
    pub fn decide(&self, agent: &str, url: &str, path: &mut Vec<u8>) -> Verdict<'_> {
        let r = &self.readings;
        let selection = self.select(agent::caller_token(agent, r.caller_token));
        normalise_uri(url.as_bytes(), r.query_reserved, path);
        let verdict = |allowed, decided_by| Verdict {
            allowed,
            selection,
            decided_by,
        };
        if is_robots_txt(path, r.robots_txt_query) {
            return verdict(true, DecidedBy::RobotsTxt);
        }
        if selection.kind == Chosen::None {
            return verdict(true, DecidedBy::NoGroup);
        }
        let pattern_octets = r.specificity == Specificity::PatternOctets;
        let empty_matches = r.empty_pattern == EmptyPattern::MatchesEverything;
        // (rank, allow, line, index) of the best match so far.
        let mut best: Option<(u32, bool, u32, u32)> = None;
        for &g in selection.groups {
            let group = &self.groups[g as usize];
            for i in group.start..group.end {
                let rule = &self.rules[i as usize];
                if pattern_octets {
                    if let Some((rank, allow, _, _)) = best {
                        // Sorted by octets: nothing further on can win.
                        if rule.octets() < rank || (rule.octets() == rank && (allow || !rule.allow))
                        {
                            break;
                        }
                    }
                }
                let got = if rule.is_empty() {
                    empty_matches.then_some(0)
                } else {
                    rank(self.pattern(rule), path, r.specificity)
                };
                let Some(got) = got else { continue };
                let candidate = (got, rule.allow, rule.line, i);
                if best.is_none_or(|b| better(candidate, b)) {
                    best = Some(candidate);
                }
                if pattern_octets {
                    // The group's first match is its most specific.
                    break;
                }
            }
        }
        match best {
            None => verdict(true, DecidedBy::NoMatch),
            Some((rank, allow, _, rule)) => verdict(allow, DecidedBy::Rule { rule, rank }),
        }
    }

    /// [`Robots::decide`]'s verdict alone.
    pub fn allowed(&self, agent: &str, url: &str) -> bool {
        self.decide(agent, url, &mut Vec::new()).allowed
    }
}

/// §2.2.2: "The most specific match found MUST be used"; "If an "allow" rule
/// and a "disallow" rule are equivalent, then the "allow" rule SHOULD be
/// used." Equal rank and kind: the earlier line, so explanations are stable.
#[inline]
fn better(a: (u32, bool, u32, u32), b: (u32, bool, u32, u32)) -> bool {
    (a.0, a.1, std::cmp::Reverse(a.2)) > (b.0, b.1, std::cmp::Reverse(b.2))
}

/// The oracle: parses each body once under its [`Readings`], then answers
/// every query from the parsed form.
#[derive(Debug, Clone, Default)]
pub struct Rfc9309 {
    pub readings: Readings,
    /// Set by [`Oracle::skip_explanations`] (the census tallies outcomes
    /// only): can_fetch answers then carry no account, which costs a second
    /// look at the rules and a string per answer.
    quiet: bool,
}

impl Rfc9309 {
    pub fn new(readings: Readings) -> Self {
        Rfc9309 {
            readings,
            quiet: false,
        }
    }

    fn answer(&self, robots: &Robots, q: &Query, path: &mut Vec<u8>) -> Answer {
        match q.ask {
            Ask::CanFetch => {
                let v = robots.decide(&q.agent, &q.url, path);
                Answer {
                    outcome: if v.allowed {
                        Outcome::Allowed
                    } else {
                        Outcome::Disallowed
                    },
                    explain: if self.quiet {
                        String::new()
                    } else {
                        explain::explain(robots, &v, &q.agent, path)
                    },
                    line: Some(match v.decided_by {
                        DecidedBy::Rule { rule, .. } => {
                            Deciding::Line(robots.rules[rule as usize].line)
                        }
                        DecidedBy::RobotsTxt | DecidedBy::NoGroup | DecidedBy::NoMatch => {
                            Deciding::NoRule
                        }
                    }),
                }
            }
            Ask::Sitemaps => Answer {
                outcome: Outcome::Value {
                    value: Value::List(robots.sitemaps()),
                },
                explain: format!(
                    "§2.2.4 other records MAY be interpreted: {} `Sitemap:` record(s) in file order",
                    robots.sitemap_count()
                ),
                line: None,
            },
            Ask::CrawlDelay | Ask::RequestRate => Answer::from(Outcome::Unsupported {
                reason: format!(
                    "{} is not part of RFC 9309 (§2.2.4 MAY interpret other records; this \
                     reading interprets only Sitemap)",
                    q.ask.as_str()
                ),
            }),
        }
    }
}

impl Oracle for Rfc9309 {
    fn name(&self) -> &str {
        NAME
    }

    fn about(&self) -> engine::oracle::About {
        use engine::oracle::{About, Provenance, Runtime};
        About {
            library: "rfc9309".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            language: "rust".into(),
            runtime: Runtime {
                name: "rustc".into(),
                version: String::new(),
            },
            provenance: Provenance {
                registry: "repdiff".into(),
                package: "repdiff-oracles (oracles/src/rfc9309/), RFC 9309 September 2022".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                ..Provenance::default()
            },
            feeding: "the raw bytes".into(),
        }
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            can_fetch: true,
            crawl_delay: false,
            request_rate: false,
            sitemaps: true,
            http_fetch: true,
        }
    }

    fn skip_explanations(&mut self) {
        self.quiet = true;
    }

    fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
        let mut robots = None;
        let parsed = guard(|| {
            robots = Some(Robots::parse(body, &self.readings));
            Answer::from(Outcome::Allowed)
        });
        let Some(robots) = robots else {
            return queries.iter().map(|_| parsed.clone()).collect();
        };
        let mut path = Vec::with_capacity(256);
        queries
            .iter()
            .map(|q| guard(|| self.answer(&robots, q, &mut path)))
            .collect()
    }

    /// §2.3: fetch for real, decide what the outcome means, then (for a
    /// parseable 2xx) answer from the body like any other case.
    fn run_fetch(&mut self, robots_url: &str, queries: &[Query]) -> Vec<Answer> {
        use access::{fetch_policy_with, AccessDecision};
        let (decision, got) = match fetch::fetch(robots_url) {
            fetch::Fetched::Response { status, hops, body } => (
                fetch_policy_with(status, hops, body.len(), false, &self.readings),
                Some(body),
            ),
            fetch::Fetched::NetworkError { hops, detail } => {
                let d = fetch_policy_with(0, hops, 0, true, &self.readings);
                let reason = format!("{} ({detail})", d.reason());
                (AccessDecision::FullDisallow { reason }, None)
            }
        };
        let whole = |outcome: Outcome, reason: &str| -> Vec<Answer> {
            queries
                .iter()
                .map(|q| match q.ask {
                    Ask::CanFetch => Answer {
                        outcome: outcome.clone(),
                        explain: reason.to_string(),
                        line: None,
                    },
                    Ask::Sitemaps => Answer {
                        outcome: Outcome::Value {
                            value: Value::List(Vec::new()),
                        },
                        explain: reason.to_string(),
                        line: None,
                    },
                    _ => self.answer(&Robots::parse(b"", &self.readings), q, &mut Vec::new()),
                })
                .collect()
        };
        match (decision, got) {
            (AccessDecision::ParseBody { reason, .. }, Some(body)) => self
                .run(&body, queries)
                .into_iter()
                .map(|mut a| {
                    a.explain = format!("{reason}; {}", a.explain);
                    a
                })
                .collect(),
            (AccessDecision::FullAllow { reason }, _) => whole(Outcome::Allowed, &reason),
            (AccessDecision::FullDisallow { reason }, _) => whole(Outcome::Disallowed, &reason),
            (AccessDecision::ParseBody { reason, .. }, None) => whole(Outcome::Disallowed, &reason),
        }
    }
}

#[cfg(test)]
mod tests;
