//! The harness survives oracles that crash, hang or panic: each costs its
//! own cell, the worker is restarted, and the next call works. Uses the fake
//! `chaos` oracle through the real worker protocol.

use engine::oracle::{Ask, Oracle, Outcome, Query};
use engine::worker::{Limits, Supervised};
use std::time::{Duration, Instant};

fn chaos(timeout_ms: u64) -> Supervised {
    let exe = env!("CARGO_BIN_EXE_repdiff").to_string();
    Supervised::start(
        "chaos",
        vec![exe, "worker".into(), "chaos".into()],
        Limits {
            timeout: Duration::from_millis(timeout_ms),
            max_restarts: 10,
            max_restarts_total: 1000,
            backoff: Duration::from_millis(1),
            ..Limits::default()
        },
    )
    .unwrap_or_else(|u| panic!("chaos worker did not start: {u}"))
}

fn q(agent: &str) -> Query {
    Query {
        ask: Ask::CanFetch,
        agent: agent.into(),
        url: "http://example.test/x".into(),
    }
}

fn outcomes(o: &mut Supervised, agents: &[&str]) -> Vec<Outcome> {
    let queries: Vec<Query> = agents.iter().map(|a| q(a)).collect();
    o.run(b"User-agent: *\n", &queries)
        .into_iter()
        .map(|a| a.outcome)
        .collect()
}

#[test]
fn a_crash_costs_only_its_own_query() {
    let mut o = chaos(5000);
    let got = outcomes(&mut o, &["ok", "crash", "ok"]);
    assert_eq!(got[0], Outcome::Allowed);
    assert!(
        matches!(&got[1], Outcome::Crash { detail } if detail.contains("signal")),
        "{got:?}"
    );
    assert_eq!(got[2], Outcome::Allowed);
    // The worker was restarted and still answers.
    assert_eq!(outcomes(&mut o, &["ok"]), vec![Outcome::Allowed]);
    assert!(o.restarts() >= 1);
}

#[test]
fn an_uncaught_panic_is_a_crash_not_a_verdict() {
    let mut o = chaos(5000);
    let got = outcomes(&mut o, &["panic"]);
    assert!(
        matches!(&got[0], Outcome::Crash { detail } if detail.contains("panic")),
        "{got:?}"
    );
}

#[test]
fn a_hang_times_out_and_the_next_call_works() {
    let mut o = chaos(300);
    let t0 = Instant::now();
    let got = outcomes(&mut o, &["ok", "hang"]);
    assert_eq!(got, vec![Outcome::Timeout, Outcome::Timeout]);
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "took {:?}",
        t0.elapsed()
    );
    assert_eq!(outcomes(&mut o, &["ok"]), vec![Outcome::Allowed]);
}

/// A cap (the runner's for a known hang) shortens the worker's own limit for
/// the calls it covers, and lifting it restores the limit.
#[test]
fn a_call_time_cap_cuts_a_hang_short_and_can_be_lifted() {
    let mut o = chaos(60_000);
    o.cap_call_time(Some(Duration::from_millis(200)));
    let t0 = Instant::now();
    assert_eq!(outcomes(&mut o, &["hang"]), vec![Outcome::Timeout]);
    assert!(
        t0.elapsed() < Duration::from_secs(30),
        "the 60 s limit applied, not the cap: {:?}",
        t0.elapsed()
    );
    // A cap never lengthens the limit.
    let mut short = chaos(200);
    short.cap_call_time(Some(Duration::from_secs(20)));
    let t0 = Instant::now();
    assert_eq!(outcomes(&mut short, &["hang"]), vec![Outcome::Timeout]);
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    o.cap_call_time(None);
    assert_eq!(outcomes(&mut o, &["ok"]), vec![Outcome::Allowed]);
}

#[test]
fn an_error_is_never_a_verdict() {
    let mut o = chaos(5000);
    let got = outcomes(&mut o, &["error"]);
    assert!(matches!(&got[0], Outcome::Error { kind, .. } if kind == "ChaosError"));
}

#[test]
fn restarts_are_bounded() {
    let exe = env!("CARGO_BIN_EXE_repdiff").to_string();
    let mut o = Supervised::start(
        "chaos",
        vec![exe, "worker".into(), "chaos".into()],
        Limits {
            timeout: Duration::from_secs(5),
            max_restarts: 2,
            max_restarts_total: 1000,
            backoff: Duration::from_millis(1),
            ..Limits::default()
        },
    )
    .expect("start");
    for _ in 0..4 {
        outcomes(&mut o, &["crash"]);
    }
    let got = outcomes(&mut o, &["ok"]);
    assert!(
        matches!(&got[0], Outcome::Crash { detail } if detail.contains("budget")),
        "{got:?}"
    );
}

fn chaos_with(max_restarts: u32, max_restarts_total: u32) -> Supervised {
    let exe = env!("CARGO_BIN_EXE_repdiff").to_string();
    Supervised::start(
        "chaos",
        vec![exe, "worker".into(), "chaos".into()],
        Limits {
            timeout: Duration::from_secs(5),
            max_restarts,
            max_restarts_total,
            backoff: Duration::from_millis(1),
            ..Limits::default()
        },
    )
    .expect("start")
}

/// A case whose body kills the worker costs its own crashing queries, not
/// the rest of the run: an answered call resets the in-a-row count.
#[test]
fn answered_calls_reset_the_restart_budget() {
    let mut o = chaos_with(2, 1000);
    for round in 0..6 {
        let got = outcomes(&mut o, &["crash", "ok"]);
        assert!(
            matches!(&got[0], Outcome::Crash { detail } if detail.contains("signal")),
            "round {round}: {got:?}"
        );
        assert_eq!(got[1], Outcome::Allowed, "round {round}: {got:?}");
    }
    // Each round: the batch dies, then both queries are re-asked singly
    // (two restarts); 6 rounds, 12 restarts, never 2 in a row unanswered.
    assert_eq!(o.restarts(), 12);
}

/// The lifetime cap still stops a worker that crashes on every other call.
#[test]
fn the_lifetime_cap_holds_even_with_answers_between() {
    let mut o = chaos_with(10, 3);
    let mut last = Vec::new();
    for _ in 0..4 {
        last = outcomes(&mut o, &["crash", "ok"]);
    }
    assert!(
        matches!(&last[1], Outcome::Crash { detail } if detail.contains("restarts in all")),
        "{last:?}"
    );
}
