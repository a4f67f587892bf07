//! Expectation profiles: four generations of robots.txt rules and one
//! proposed update, each an executable reference that runs as an oracle and explains every verdict
//! with the text it applied.
//!
//! - `rfc9309`: the project's reference ([`crate::rfc9309`]), unchanged.
//! - `robots-1996`: draft-koster-robots-00 ([`classic`], 1996 edition).
//! - `robots-1994`: "A Standard for Robot Exclusion" ([`classic`], 1994).
//! - `aipref`: RFC 9309 with draft-ietf-aipref-attach-05's `Content-Usage`
//!   rule ([`aipref`]).
//! - `googlebot`: Google's published description of how it interprets
//!   robots.txt, with Google's open-source library as parser and matcher
//!   ([`googlebot`]).
//!
//! A profile is a reference, not a parser under test: the ledger stays
//! RFC 9309's, and [`crate::profiles()`] lists profiles apart from the
//! registry, so a conformance run asks them every query to compare the
//! parsers with them (the report's oracle x profile matrix) instead of
//! triaging them.

pub mod aipref;
pub mod classic;
pub mod googlebot;
mod status;
#[cfg(test)]
mod tests;

use crate::rfc9309::fetch::{fetch, Fetched};
use classic::{Chosen, Edition, Parsed, Readings};
use engine::oracle::{
    About, Answer, Ask, Capabilities, Oracle, Outcome, Provenance, Query, Runtime,
};
use status::Access;

pub const ROBOTS_1994: &str = "robots-1994";
pub const ROBOTS_1996: &str = "robots-1996";

/// The 1994 or 1996 text as an oracle.
pub struct Classic {
    name: &'static str,
    edition: Edition,
    readings: Readings,
}

impl Classic {
    pub fn new(edition: Edition) -> Classic {
        Classic::with(edition, Readings::of(edition))
    }

    pub fn with(edition: Edition, readings: Readings) -> Classic {
        let name = match edition {
            Edition::Y1994 => ROBOTS_1994,
            Edition::Y1996 => ROBOTS_1996,
        };
        Classic {
            name,
            edition,
            readings,
        }
    }

    fn cite(&self) -> &'static str {
        match self.edition {
            Edition::Y1994 => "1994 The Format",
            Edition::Y1996 => "1996 §3.2.2",
        }
    }

    /// One `can_fetch` verdict with its account.
    fn decide(&self, parsed: &Parsed, q: &Query) -> Answer {
        let r = &self.readings;
        let path = classic::url_path(&q.url, r);
        if r.robots_txt_allowed && path == b"/robots.txt" {
            return answer(
                true,
                "1996 §3.2.2: the /robots.txt URL is always allowed".into(),
            );
        }
        let token = classic::name_token(&q.agent);
        let (record, why) = match classic::choose(parsed, &token, r) {
            Chosen::None => {
                return answer(
                    true,
                    format!(
                        "{}: no record applies, access is unlimited",
                        self.agent_cite()
                    ),
                );
            }
            Chosen::Named { record, line } => (
                record,
                format!(
                    "{}: record at line {line} names `{}` ({})",
                    self.agent_cite(),
                    String::from_utf8_lossy(&token),
                    direction_label(r, self.edition)
                ),
            ),
            Chosen::Star { record, line } => (
                record,
                format!(
                    "{}: no record names the robot, the `*` record at line {line}",
                    self.agent_cite()
                ),
            ),
        };
        let hit = parsed.records[record]
            .rules
            .iter()
            .find(|rule| classic::matches(&rule.path, &path, r));
        match hit {
            Some(rule) => answer(
                rule.allow,
                format!(
                    "{why}; {}: line {} `{}: {}`",
                    self.rule_cite(),
                    rule.line,
                    if rule.allow { "Allow" } else { "Disallow" },
                    String::from_utf8_lossy(&rule.path)
                ),
            ),
            None => answer(
                true,
                format!("{why}; {}: no rule matches, allowed", self.cite()),
            ),
        }
    }

    /// 1996 §3.2.2 decides by the first match; 1994 has only Disallow, so
    /// any Disallow that starts the URL decides.
    fn rule_cite(&self) -> &'static str {
        match self.edition {
            Edition::Y1994 => {
                "1994 The Format: any URL that starts with this value will not be retrieved"
            }
            Edition::Y1996 => "1996 §3.2.2 the first match in record order",
        }
    }

    fn agent_cite(&self) -> &'static str {
        match self.edition {
            Edition::Y1994 => "1994 The Format (User-agent)",
            Edition::Y1996 => "1996 §3.2.1",
        }
    }
}

/// 1996 §3.2.1 says which string holds the other; 1994 does not, so there
/// the direction is a named reading.
fn direction_label(r: &Readings, edition: Edition) -> &'static str {
    match (edition, r.direction) {
        (Edition::Y1996, classic::Direction::TokenInValue) => "the name token inside the line's value",
        (Edition::Y1994, classic::Direction::TokenInValue) => {
            "reading direction=token-in-value (default, the 1996 draft's): the name inside the line's value"
        }
        (_, classic::Direction::ValueInToken) => {
            "reading direction=value-in-name: the line's value inside the name"
        }
    }
}

fn answer(allowed: bool, explain: String) -> Answer {
    Answer {
        outcome: if allowed {
            Outcome::Allowed
        } else {
            Outcome::Disallowed
        },
        explain,
        line: None,
    }
}

/// Beyond `can_fetch` neither pre-RFC text defines anything.
fn not_in_text(name: &str) -> Answer {
    Answer::from(Outcome::Unsupported {
        reason: format!("{name}: only Allow/Disallow are defined by this text"),
    })
}

/// `version` is the text's short name, so `version()` reads
/// "robots-1996 draft-koster-robots-00"; `title` goes to provenance.
fn profile_about(library: &str, text: &str, title: &str) -> About {
    About {
        library: library.into(),
        version: text.into(),
        language: "rust".into(),
        runtime: Runtime {
            name: "rustc".into(),
            version: String::new(),
        },
        provenance: Provenance {
            registry: "repdiff".into(),
            package: format!("repdiff-oracles (oracles/src/profiles/), {title}"),
            version: env!("CARGO_PKG_VERSION").into(),
            ..Provenance::default()
        },
        feeding: "the raw bytes".into(),
    }
}

impl Oracle for Classic {
    fn name(&self) -> &str {
        self.name
    }

    fn about(&self) -> About {
        match self.edition {
            Edition::Y1994 => profile_about(
                ROBOTS_1994,
                "1994-06-30",
                "A Standard for Robot Exclusion, 30 June 1994",
            ),
            Edition::Y1996 => profile_about(
                ROBOTS_1996,
                "draft-koster-robots-00",
                "A Method for Web Robots Control, 4 December 1996",
            ),
        }
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            can_fetch: true,
            http_fetch: true,
            ..Capabilities::default()
        }
    }

    fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
        let parsed = Parsed::parse(body, self.edition);
        queries
            .iter()
            .map(|q| match q.ask {
                Ask::CanFetch => self.decide(&parsed, q),
                _ => not_in_text(self.name),
            })
            .collect()
    }

    fn run_fetch(&mut self, robots_url: &str, queries: &[Query]) -> Vec<Answer> {
        let access = match self.edition {
            Edition::Y1994 => status::classic_1994(&fetch(robots_url)),
            Edition::Y1996 => status::draft_1996(&fetch(robots_url)),
        };
        apply(access, queries, |body| self.run(body, queries))
    }
}

/// Answer every query from what the fetch came to: a whole-site verdict,
/// or the body's own answers prefixed with the status rule applied.
fn apply(access: Access, queries: &[Query], run: impl FnOnce(&[u8]) -> Vec<Answer>) -> Vec<Answer> {
    match access {
        Access::Parse { body, reason } => run(&body)
            .into_iter()
            .map(|mut a| {
                a.explain = format!("{reason}; {}", a.explain);
                a
            })
            .collect(),
        Access::Whole { allowed, reason } => queries
            .iter()
            .map(|q| match q.ask {
                Ask::CanFetch => answer(allowed, reason.clone()),
                _ => Answer::from(Outcome::Unsupported {
                    reason: reason.clone(),
                }),
            })
            .collect(),
    }
}

fn fetched_status(f: &Fetched) -> String {
    match f {
        Fetched::Response { status, hops, .. } => format!("HTTP {status} after {hops} redirect(s)"),
        Fetched::NetworkError { detail, .. } => format!("network error ({detail})"),
    }
}
