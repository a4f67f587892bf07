//! A request's `cpu_ms` (docs/protocol.md §2): crawler4j's harness stops a
//! question whose library call runs past that much CPU, answers it
//! `timeout`, answers the rest of the request, and is not restarted; without
//! it the same question costs the parent's wall-clock timeout and a JVM
//! start. The question: a rule of sixteen `*a` pieces and a path of 60 `a`
//! with no `b`, on which PathRule's `.*a.*a…` regex tries every split.

use super::common::registered;
use engine::oracle::{Ask, Oracle, Outcome, Query};
use engine::worker::Limits;
use std::time::Duration;

fn q(path: &str) -> Query {
    Query {
        ask: Ask::CanFetch,
        agent: "bot".into(),
        url: format!("http://example.test/{path}"),
    }
}

fn body() -> String {
    format!(
        "User-agent: *\nDisallow: /{}b\nDisallow: /ok\n",
        "*a".repeat(16)
    )
}

fn crawler4j() -> registered::Registered {
    registered::all()
        .into_iter()
        .find(|o| o.name == "crawler4j")
        .expect("crawler4j is registered")
}

#[test]
fn crawler4j_stops_a_question_past_its_cpu_budget_and_lives_on() {
    let mut w = registered::start_with(
        &crawler4j(),
        Limits {
            // The backstop, far beyond the budget: a pass cannot come from it.
            timeout: Duration::from_secs(60),
            question_cpu: Some(Duration::from_millis(50)),
            ..Limits::default()
        },
    );
    let slow = "a".repeat(60);
    let got: Vec<Outcome> = w
        .run(body().as_bytes(), &[q(&slow), q("ok"), q("fine")])
        .into_iter()
        .map(|a| a.outcome)
        .collect();
    assert_eq!(
        got,
        vec![Outcome::Timeout, Outcome::Disallowed, Outcome::Allowed]
    );
    // The same worker answers the next request: it was never restarted.
    let again: Vec<Outcome> = w
        .run(body().as_bytes(), &[q("ok"), q(&slow)])
        .into_iter()
        .map(|a| a.outcome)
        .collect();
    assert_eq!(again, vec![Outcome::Disallowed, Outcome::Timeout]);
    assert_eq!(
        w.restarts(),
        0,
        "the budget stops the question, not the JVM"
    );
}

#[test]
fn without_a_budget_the_same_question_costs_the_worker() {
    let mut w = registered::start_with(
        &crawler4j(),
        Limits {
            timeout: Duration::from_secs(1),
            ..Limits::default()
        },
    );
    let slow = "a".repeat(60);
    let got = w.run(body().as_bytes(), &[q(&slow)]);
    assert_eq!(got[0].outcome, Outcome::Timeout);
    let next = w.run(body().as_bytes(), &[q("ok")]);
    assert_eq!(next[0].outcome, Outcome::Disallowed);
    assert_eq!(w.restarts(), 1, "the wall-clock timeout killed the JVM");
}

/// What `cargo xtask fuzz lane-cost` leans on: the inputs a worker does not
/// answer within the fuzz loop's limits are found and left out, since the
/// library's own loop (no limit) would never end on them.
#[test]
fn an_input_crawler4j_does_not_end_on_is_found_and_left_out() {
    use repdiff::speed::{hanging_inputs, Calls, Sample};
    let slow = format!("http://example.test/{}", "a".repeat(60));
    let pairs = vec![
        (b"User-agent: *\nDisallow: /x\n".to_vec(), vec![q("x")]),
        (body().into_bytes(), vec![q("ok"), q(&slow[20..])]),
        (b"User-agent: *\nAllow: /\n".to_vec(), vec![q("y")]),
    ];
    let sample = Sample::from_pairs(pairs).expect("a sample");
    let limits = Limits {
        timeout: Duration::from_secs(60),
        question_cpu: Some(Duration::from_millis(50)),
        ..Limits::default()
    };
    let hang = hanging_inputs("crawler4j", &sample, Calls::FuzzLane(16), limits);
    assert_eq!(hang.into_iter().collect::<Vec<_>>(), [1]);
    let kept = sample
        .without(&[1].into_iter().collect())
        .expect("a sample");
    assert_eq!(kept.files.len(), 2);
    assert_eq!(kept.files[1].0, b"User-agent: *\nAllow: /\n");
}
