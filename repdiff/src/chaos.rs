//! Fake oracles that misbehave on purpose, to prove the harness survives
//! them. Named `chaos-*`, never in the default set, and a run that uses one
//! never writes the published report.
//!
//! Each answers `allowed`, except when the query's agent names a fault:
//! `crash` aborts the process, `hang` never returns, `panic` panics
//! (uncaught, taking the worker down), `error` returns an error outcome.

use engine::oracle::{Answer, Capabilities, Oracle, Outcome, Query};

pub const NAMES: &[&str] = &["chaos"];

pub struct Chaos;

impl Oracle for Chaos {
    fn name(&self) -> &str {
        "chaos"
    }
    fn about(&self) -> engine::oracle::About {
        engine::oracle::About {
            library: "chaos".into(),
            version: "0 (fake oracle for harness tests)".into(),
            ..Default::default()
        }
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            can_fetch: true,
            ..Capabilities::default()
        }
    }
    fn run(&mut self, _body: &[u8], queries: &[Query]) -> Vec<Answer> {
        queries
            .iter()
            .map(|q| match q.agent.as_str() {
                "crash" => std::process::abort(),
                "hang" => loop {
                    std::thread::sleep(std::time::Duration::from_secs(3600));
                },
                "panic" => panic!("chaos oracle asked to panic"),
                "error" => Answer::from(Outcome::Error {
                    kind: "ChaosError".into(),
                    message: "asked to fail".into(),
                }),
                _ => Answer::from(Outcome::Allowed),
            })
            .collect()
    }
}

pub fn make(name: &str) -> Option<Box<dyn Oracle>> {
    (name == "chaos").then(|| Box::new(Chaos) as Box<dyn Oracle>)
}
