//! Runner semantics: comparison, signatures, `either` splits, triage and
//! stale ledger entries, with tiny in-test oracles that answer by rule.

use engine::case::{parse_file, Corpus};
use engine::oracle::{Answer, Capabilities, Oracle, Outcome, Query};
use engine::run::{run, Status};
use std::path::Path;

/// Answers a fixed outcome to every query: enough to drive the runner.
struct Fixed(&'static str, Outcome);

impl Oracle for Fixed {
    fn name(&self) -> &str {
        self.0
    }
    fn about(&self) -> engine::oracle::About {
        engine::oracle::About {
            library: "fixed".into(),
            version: "1".into(),
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
            .map(|_| Answer::from(self.1.clone()))
            .collect()
    }
}

const CASES: &str = r#"
cases:
  - id: c1
    title: t
    tags: [grouping]
    source: s
    robots: "User-agent: *\nDisallow: /\n"
    queries:
      - {agent: A, url: "http://e/x", expect: disallowed, rfc: "§2.2.2"}
      - {agent: A, url: "http://e/x", expect: either, why: "open", rfc: "§2.2.2"}
      - {ask: crawl_delay, agent: A, expect: 1, convention: c}
"#;

fn corpus() -> Corpus {
    Corpus {
        cases: parse_file(Path::new("c.yaml"), CASES).unwrap(),
        hash: "h".into(),
    }
}

fn ledger(corpus: &Corpus, text: &str) -> engine::ledger::Ledger {
    engine::ledger::parse(Path::new("l.yaml"), text, corpus, &["a", "b", "c"]).unwrap()
}

fn oracles() -> Vec<Box<dyn Oracle>> {
    vec![
        Box::new(Fixed("a", Outcome::Disallowed)),
        Box::new(Fixed("b", Outcome::Allowed)),
        Box::new(Fixed("c", Outcome::Disallowed)),
    ]
}

#[test]
fn compare_signature_split_and_triage() {
    let corpus = corpus();
    let cases: Vec<_> = corpus.cases.iter().collect();
    let l = ledger(&corpus, "entries: []\n");
    let r = run(&cases, oracles(), vec![], &l, &|_| None, &mut |_| {});
    let cell = |o: &str, q: usize| {
        r.cells
            .iter()
            .find(|c| c.oracle == o && c.query == q)
            .unwrap()
            .status
    };
    assert_eq!(cell("a", 0), Status::Match);
    assert_eq!(cell("b", 0), Status::Deviate);
    // `either`: any verdict matches, but b is alone against a and c.
    assert_eq!(cell("a", 1), Status::Match);
    assert_eq!(cell("b", 1), Status::Split);
    // crawl_delay is not a capability of these oracles.
    assert_eq!(cell("a", 2), Status::Unsupported);
    assert_eq!(
        r.signatures[0].signature.as_str(),
        "{b}=allowed | {a,c}=disallowed"
    );
    assert_eq!(r.untriaged().count(), 2);
}

#[test]
fn ledger_explains_cells_and_stale_entries_are_reported() {
    let corpus = corpus();
    let cases: Vec<_> = corpus.cases.iter().collect();
    let text = r#"entries:
  - {id: b-allows, title: t, oracles: [b], outcomes: {b: allowed}, classification: bug, rfc: x, upstream: none known, cases: [c1], explanation: x}
  - {id: never, title: t, oracles: [c], outcomes: {c: disallowed}, classification: bug, rfc: x, upstream: none known, cases: ["c1#1"], explanation: x}
"#;
    let l = ledger(&corpus, text);
    let r = run(&cases, oracles(), vec![], &l, &|_| None, &mut |_| {});
    assert_eq!(r.untriaged().count(), 0);
    assert_eq!(r.stale, vec!["never".to_string()]);
    // Out of scope (oracle c not run): not stale.
    let two: Vec<Box<dyn Oracle>> = oracles().into_iter().take(2).collect();
    let r = run(&cases, two, vec![], &l, &|_| None, &mut |_| {});
    assert!(r.stale.is_empty());
}

/// The ledger pins outcomes (issue 11): an entry explains a cell only while
/// the oracle still answers what the entry says it answers.
#[test]
fn a_changed_answer_on_an_explained_cell_is_untriaged() {
    let corpus = corpus();
    let cases: Vec<_> = corpus.cases.iter().collect();
    let text = r#"entries:
  - {id: b-allows, title: t, oracles: [b], outcomes: {b: allowed}, classification: bug, rfc: x, upstream: none known, cases: ["c1#1", "c1#2"], explanation: x}
"#;
    let l = ledger(&corpus, text);
    let with_b = |b: Outcome| -> Vec<Box<dyn Oracle>> {
        vec![
            Box::new(Fixed("a", Outcome::Disallowed)),
            Box::new(Fixed("b", b)),
            Box::new(Fixed("c", Outcome::Disallowed)),
        ]
    };
    // As pinned: explained.
    let r = run(
        &cases,
        with_b(Outcome::Allowed),
        vec![],
        &l,
        &|_| None,
        &mut |_| {},
    );
    assert_eq!(r.untriaged().count(), 0);
    let cell = r
        .cells
        .iter()
        .find(|c| c.oracle == "b" && c.query == 0)
        .unwrap();
    assert_eq!(cell.triaged_by.as_deref(), Some("b-allows"));
    // The deviation turns into an error: untriaged, and the entry is stale.
    let error = Outcome::Error {
        kind: "ValueError".into(),
        message: "m".into(),
    };
    let r = run(&cases, with_b(error), vec![], &l, &|_| None, &mut |_| {});
    let untriaged: Vec<_> = r
        .untriaged()
        .map(|c| (c.oracle.as_str(), c.query))
        .collect();
    assert_eq!(untriaged, vec![("b", 0), ("b", 1)]);
    assert_eq!(r.stale, vec!["b-allows".to_string()]);
    // A crash is not the pinned verdict either.
    let crash = Outcome::Crash {
        detail: "boom".into(),
    };
    let r = run(&cases, with_b(crash), vec![], &l, &|_| None, &mut |_| {});
    assert_eq!(r.untriaged().count(), 2);
}

#[test]
fn pins_can_differ_per_query_and_the_opposite_verdict_is_untriaged() {
    let corpus = corpus();
    let cases: Vec<_> = corpus.cases.iter().collect();
    // b answers allowed on both queries, but the entry says it disallows #2.
    let text = r#"entries:
  - {id: e, title: t, oracles: [b], outcomes: {b: {"c1#1": allowed, "c1#2": disallowed}}, classification: bug, rfc: x, upstream: none known, cases: [c1], explanation: x}
"#;
    let l = ledger(&corpus, text);
    let r = run(&cases, oracles(), vec![], &l, &|_| None, &mut |_| {});
    let untriaged: Vec<_> = r
        .untriaged()
        .map(|c| (c.oracle.as_str(), c.query))
        .collect();
    assert_eq!(untriaged, vec![("b", 1)]);
}

#[test]
fn the_loader_rejects_bad_pins() {
    let corpus = corpus();
    let bad = [
        ("oracles: [b], outcomes: {}", "no pinned outcome for `b`"),
        (
            "oracles: [b], outcomes: {b: allowd}",
            "`allowd` is not an outcome",
        ),
        (
            "oracles: [b], outcomes: {b: allowed, c: allowed}",
            "`c`, which is not in oracles",
        ),
        (
            r#"oracles: [b], outcomes: {b: {"c2#1": allowed}}"#,
            "not in cases",
        ),
    ];
    for (fields, message) in bad {
        let text = format!(
            "entries:\n  - {{id: e, title: t, {fields}, classification: bug, rfc: x, upstream: none known, cases: [c1], explanation: x}}\n"
        );
        let err = engine::ledger::parse(Path::new("l.yaml"), &text, &corpus, &["a", "b", "c"])
            .expect_err(fields);
        assert!(err.to_string().contains(message), "{fields}: {err}");
        assert!(err.line.is_some(), "{fields}");
    }
}

#[test]
fn failures_are_never_verdicts() {
    let corpus = corpus();
    let cases: Vec<_> = corpus.cases.iter().collect();
    let l = ledger(&corpus, "entries: []\n");
    let crashing: Vec<Box<dyn Oracle>> = vec![Box::new(Fixed(
        "a",
        Outcome::Crash {
            detail: "boom".into(),
        },
    ))];
    let r = run(&cases, crashing, vec![], &l, &|_| None, &mut |_| {});
    assert_eq!(r.cells[0].status, Status::Failed);
    assert_eq!(r.cells[1].status, Status::Failed);
    assert_eq!(r.untriaged().count(), 2);
}

#[test]
fn writes_are_atomic() {
    let dir = std::env::temp_dir().join(format!("repdiff-atomic-{}", std::process::id()));
    let path = dir.join("compat.md");
    engine::write_atomic(&path, b"old").unwrap();
    // A write into a directory that cannot take the temp file fails and
    // leaves the old report in place.
    let blocked = dir.join(".compat.md.".to_string() + &std::process::id().to_string() + ".tmp");
    std::fs::create_dir_all(&blocked).unwrap();
    assert!(engine::write_atomic(&path, b"new").is_err());
    assert_eq!(std::fs::read(&path).unwrap(), b"old");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Each call's body and the time cap in force.
type CallLog = std::sync::Arc<std::sync::Mutex<Vec<(String, Option<std::time::Duration>)>>>;

/// Records each call in its log, and "hangs" (answers `Timeout`) on bodies
/// holding `hang`.
struct Recorder {
    name: &'static str,
    cap: Option<std::time::Duration>,
    calls: CallLog,
}

impl Oracle for Recorder {
    fn name(&self) -> &str {
        self.name
    }
    fn about(&self) -> engine::oracle::About {
        engine::oracle::About {
            library: "recorder".into(),
            version: "1".into(),
            ..Default::default()
        }
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            can_fetch: true,
            ..Capabilities::default()
        }
    }
    fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
        let body = String::from_utf8_lossy(body).into_owned();
        let hangs = body.contains("hang");
        self.calls.lock().unwrap().push((body, self.cap));
        let outcome = if hangs {
            Outcome::Timeout
        } else {
            Outcome::Disallowed
        };
        queries
            .iter()
            .map(|_| Answer::from(outcome.clone()))
            .collect()
    }
    fn cap_call_time(&mut self, cap: Option<std::time::Duration>) {
        self.cap = cap;
    }
}

/// A case the ledger pins as `timeout` for an oracle is a known hang: that
/// oracle asks it last, under `KNOWN_HANG_CAP`, and every other case under
/// its own limit; an oracle the entry does not name asks it in order.
#[test]
fn known_hangs_are_asked_last_under_the_cap() {
    let text = r#"
cases:
  - id: h1
    title: t
    tags: [robustness]
    source: s
    robots: "hang\n"
    queries:
      - {agent: A, url: "http://e/x", expect: disallowed, rfc: "§2.5"}
  - id: h2
    title: t
    tags: [robustness]
    source: s
    robots: "fine\n"
    queries:
      - {agent: A, url: "http://e/x", expect: disallowed, rfc: "§2.5"}
"#;
    let corpus = Corpus {
        cases: parse_file(Path::new("c.yaml"), text).unwrap(),
        hash: "h".into(),
    };
    let cases: Vec<_> = corpus.cases.iter().collect();
    let l = engine::ledger::parse(
        Path::new("l.yaml"),
        r#"entries:
  - {id: a-hangs, title: t, oracles: [a], outcomes: {a: timeout}, classification: bug, rfc: x, upstream: none known, cases: [h1], explanation: x}
  - {id: b-hangs-too, title: t, oracles: [b], outcomes: {b: timeout}, classification: bug, rfc: x, upstream: none known, cases: [h1], explanation: x}
"#,
        &corpus,
        &["a", "b"],
    )
    .unwrap();
    let log = |_: ()| -> CallLog { std::sync::Arc::new(std::sync::Mutex::new(Vec::new())) };
    let (a_calls, b_calls) = (log(()), log(()));
    let oracles: Vec<Box<dyn Oracle>> = vec![
        Box::new(Recorder {
            name: "a",
            cap: None,
            calls: a_calls.clone(),
        }),
        Box::new(Recorder {
            name: "b",
            cap: None,
            calls: b_calls.clone(),
        }),
    ];
    let r = run(&cases, oracles, vec![], &l, &|_| None, &mut |_| {});
    assert_eq!(r.untriaged().count(), 0);
    let cap = Some(engine::run::KNOWN_HANG_CAP);
    for calls in [&a_calls, &b_calls] {
        assert_eq!(
            *calls.lock().unwrap(),
            vec![("fine\n".to_string(), None), ("hang\n".to_string(), cap)]
        );
    }
    // Without the entries the same cases are asked in corpus order, uncapped.
    let l = engine::ledger::parse(Path::new("l.yaml"), "entries: []\n", &corpus, &["a"]).unwrap();
    let calls = log(());
    let oracles: Vec<Box<dyn Oracle>> = vec![Box::new(Recorder {
        name: "a",
        cap: None,
        calls: calls.clone(),
    })];
    let r = run(&cases, oracles, vec![], &l, &|_| None, &mut |_| {});
    assert_eq!(r.untriaged().count(), 1);
    assert_eq!(
        *calls.lock().unwrap(),
        vec![("hang\n".to_string(), None), ("fine\n".to_string(), None)]
    );
}
