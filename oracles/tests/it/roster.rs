//! The roster: one load of the checkout's manifests, `--oracle-cmd` specs
//! checked against it, and a selection started in process with a caller's
//! own makers beside the built-ins.

use engine::oracle::{Answer, Capabilities, Oracle, Outcome, Query};
use engine::worker::Limits;
use oracles::roster::{Builtins, Place, Request};
use oracles::{Checkout, Roster, Runtime};

fn roster() -> Roster {
    Roster::load(Checkout::current()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_checkout_has_its_builtins_externals_and_profiles() {
    let r = roster();
    let names = r.names();
    assert_eq!(names[0], "rfc9309", "the reference comes first: {names:?}");
    assert!(names.iter().any(|n| n == "spider"), "{names:?}");
    assert!(r.profile_names().iter().any(|n| n == "googlebot"));
    assert_eq!(r.builtin("rfc9309").map(|e| e.runtime), Some(Runtime::Rust));
    assert_eq!(Runtime::Python.to_string(), "python");
    let ledger_names = oracles::oracle_names(&r.checkout().root).expect("the names");
    assert_eq!(ledger_names, names);
}

#[test]
fn oracle_cmds_are_checked_against_the_roster() {
    let r = roster();
    let mine = r.oracle_cmds(&["mine=python3 x.py"]).expect("a new name");
    assert_eq!(mine[0].command, ["sh", "-c", "python3 x.py"]);
    let taken = r.oracle_cmds(&["rfc9309=true"]).unwrap_err();
    assert!(taken.contains("already an oracle name"), "{taken}");
    let twice = r.oracle_cmds(&["a=true", "a=false"]).unwrap_err();
    assert!(twice.contains("already an oracle name"), "{twice}");
    let bad = r.oracle_cmds(&["no-command"]).unwrap_err();
    assert!(bad.contains("NAME='COMMAND'"), "{bad}");
}

struct Fake;

impl Oracle for Fake {
    fn name(&self) -> &str {
        "fake"
    }
    fn about(&self) -> engine::oracle::About {
        engine::oracle::About::default()
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }
    fn run(&mut self, _body: &[u8], queries: &[Query]) -> Vec<Answer> {
        queries
            .iter()
            .map(|_| Answer::from(Outcome::Allowed))
            .collect()
    }
}

#[test]
fn a_selection_starts_in_order_with_the_callers_makers() {
    let r = roster();
    let names: Vec<String> = ["fake", "rfc9309", "no-such-oracle"]
        .map(String::from)
        .into();
    let makers = |n: &str| (n == "fake").then(|| Box::new(Fake) as Box<dyn Oracle>);
    let started = r.start(&Request {
        names: &names,
        extra: &[],
        builtins: Builtins::InProcess,
        limits: Limits::default(),
        workers_skip_explanations: false,
        makers: Some(&makers),
        program: None,
    });
    let placed: Vec<(&str, Place)> = started
        .oracles
        .iter()
        .map(|(o, p)| (o.name(), *p))
        .collect();
    assert_eq!(
        placed,
        [("fake", Place::Inline), ("rfc9309", Place::Inline)]
    );
    assert_eq!(started.unavailable.len(), 1);
    assert_eq!(started.unavailable[0].oracle, "no-such-oracle");
    assert_eq!(started.unavailable[0].reason, "unknown oracle");
}
