//! `robotstxt` 0.3.0 (crates.io), a Rust port of Google's C++ parser.
//!
//! Its matcher takes `&str`, so a Rust user holding fetched bytes converts
//! them with `String::from_utf8_lossy`; we do the same. It re-parses the body
//! on every call (there is no parse-once API) and can panic on char
//! boundaries (upstream issue #5): the guard records that as `Crash`.

use crate::panic_guard::guard;
use engine::oracle::{About, Answer, Ask, Capabilities, Oracle, Outcome, Query};

pub const NAME: &str = "robotstxt-rs";

pub struct RobotstxtRs;

impl Oracle for RobotstxtRs {
    fn name(&self) -> &str {
        NAME
    }

    fn about(&self) -> About {
        About {
            feeding:
                "DefaultMatcher on the body decoded as UTF-8 with replacement (from_utf8_lossy)"
                    .into(),
            ..crate::crate_about("robotstxt", "robotstxt")
        }
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            can_fetch: true,
            ..Capabilities::default()
        }
    }

    fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
        let text = String::from_utf8_lossy(body);
        queries
            .iter()
            .map(|q| {
                if q.ask != Ask::CanFetch {
                    return Answer::from(Outcome::Unsupported {
                        reason: "robotstxt 0.3.0 answers only allow/disallow".into(),
                    });
                }
                guard(|| {
                    let mut matcher = robotstxt::DefaultMatcher::default();
                    Answer::from(
                        if matcher.one_agent_allowed_by_robots(&text, &q.agent, &q.url) {
                            Outcome::Allowed
                        } else {
                            Outcome::Disallowed
                        },
                    )
                })
            })
            .collect()
    }
}
