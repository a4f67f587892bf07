//! `texting_robots` 0.2.2 (crates.io), Smerity's parser.
//!
//! Its API binds the agent at parse time (`Robot::new(agent, bytes)`), so the
//! body is parsed once per distinct agent of a case — exactly what its users do.

use crate::panic_guard::guard;
use engine::oracle::{About, Answer, Ask, Capabilities, Oracle, Outcome, Query, Value};
use std::collections::HashMap;

pub const NAME: &str = "texting-robots";

pub struct TextingRobots;

impl Oracle for TextingRobots {
    fn name(&self) -> &str {
        NAME
    }

    fn about(&self) -> About {
        About {
            feeding: "Robot::new(agent, body) once per distinct agent of a case, on the raw bytes"
                .into(),
            ..crate::crate_about("texting_robots", "texting_robots")
        }
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            can_fetch: true,
            crawl_delay: true,
            request_rate: false,
            sitemaps: true,
            http_fetch: false,
        }
    }

    fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
        let mut robots: HashMap<&str, Result<texting_robots::Robot, String>> = HashMap::new();
        queries
            .iter()
            .map(|q| {
                guard(|| {
                    let robot = robots.entry(q.agent.as_str()).or_insert_with(|| {
                        texting_robots::Robot::new(&q.agent, body).map_err(|e| e.to_string())
                    });
                    let robot = match robot {
                        Ok(r) => r,
                        Err(message) => {
                            return Answer::from(Outcome::Error {
                                kind: "InvalidRobots".into(),
                                message: message.clone(),
                            })
                        }
                    };
                    Answer::from(match q.ask {
                        Ask::CanFetch => {
                            if robot.allowed(&q.url) {
                                Outcome::Allowed
                            } else {
                                Outcome::Disallowed
                            }
                        }
                        Ask::CrawlDelay => Outcome::Value {
                            value: match robot.delay {
                                Some(d) => Value::Float(d as f64),
                                None => Value::None,
                            },
                        },
                        Ask::Sitemaps => Outcome::Value {
                            value: Value::List(robot.sitemaps.clone()),
                        },
                        Ask::RequestRate => Outcome::Unsupported {
                            reason: "texting_robots has no request-rate".into(),
                        },
                    })
                })
            })
            .collect()
    }
}
