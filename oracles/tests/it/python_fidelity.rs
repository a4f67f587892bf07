//! Fidelity of the Python adapters: on generated robots.txt cases, every
//! answer of our adapter equals a direct run of the same library in a
//! separate `python3` process, called the way its users call it
//! (`oracles/src/python/direct_runner.py`, which shares no code with the glue).
//!
//! - cpython-3.11: the interpreter PyO3 links, run as a subprocess;
//! - cpython-3.15: the same robotparser.py loaded in a subprocess, its
//!   `_urlsplit`/`_urlunsplit` taken from CPython 3.15's own urllib/parse.py
//!   (pyodide's python_stdlib.zip), not from our hand-written helpers;
//! - protego, protego-0.6.1: each venv's own python.
//!
//! These tests FAIL (never skip) when `repdiff setup` has not run.

#![cfg(feature = "python")]

use engine::oracle::{Ask, Oracle, Outcome, Query};
use oracles::python::crosscheck::{self, Canon};
use oracles::python::{pins, PYO3_PYTHON, PYO3_SYS_VERSION};
use std::path::{Path, PathBuf};

/// Cases per oracle (each has 3 to 8 queries).
const CASES: usize = 1000;

fn oracle(name: &str) -> Box<dyn Oracle> {
    let entry = oracles::registry()
        .into_iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("oracle {name} is not registered"));
    match (entry.make)() {
        Ok(oracle) => oracle,
        Err(unavailable) => panic!("{unavailable}\n=> run `repdiff setup` first"),
    }
}

fn venv_python(venv: &str) -> PathBuf {
    let python = oracles::cache_dir().join(venv).join("bin").join("python");
    assert!(
        python.is_file(),
        "{} is missing: run `repdiff setup` first",
        python.display()
    );
    python
}

/// Run `name` and the direct runner on the same cases; fail on any difference.
fn check(
    name: &str,
    python: &Path,
    library: &str,
    loader: serde_json::Value,
    seed: u64,
) -> crosscheck::DirectRun {
    let mut oracle = oracle(name);
    let cases = crosscheck::generate(seed, CASES);
    let ours: Vec<_> = cases
        .iter()
        .map(|c| oracle.run(&c.body, &c.queries))
        .collect();
    let request = crosscheck::request(library, loader, &cases);
    let theirs = crosscheck::run_python(python, &request)
        .unwrap_or_else(|e| panic!("direct run of {name} failed: {e}"));
    let diffs = crosscheck::compare(&cases, &ours, &theirs.results);
    let queries: usize = cases.iter().map(|c| c.queries.len()).sum();

    // The generator must really exercise the library: both verdicts, values
    // and (for the CPython parsers) exceptions.
    let all: Vec<Canon> = theirs.results.iter().flatten().cloned().collect();
    let count = |f: &dyn Fn(&Canon) -> bool| all.iter().filter(|c| f(c)).count();
    let allowed = count(&|c| *c == Canon::Allowed);
    let disallowed = count(&|c| *c == Canon::Disallowed);
    let errors = count(&|c| matches!(c, Canon::Error { .. }));
    let values = count(&|c| {
        matches!(
            c,
            Canon::Int(_) | Canon::Float(_) | Canon::Rate(..) | Canon::List(_)
        )
    });
    let mut kinds = std::collections::BTreeMap::new();
    for c in &all {
        if let Canon::Error { kind, message } = c {
            let short: String = message.chars().take(40).collect();
            *kinds.entry(format!("{kind}: {short}")).or_insert(0) += 1;
        }
    }
    eprintln!("{name}: exceptions {kinds:?}");
    eprintln!(
        "{name}: {CASES} cases, {queries} queries: {allowed} allowed, {disallowed} disallowed, \
         {values} values, {errors} errors; {} differences vs {} ({})",
        diffs.len(),
        theirs.library,
        theirs.sys_version
    );
    assert!(
        allowed > 200 && disallowed > 100 && values > 50,
        "generator too narrow"
    );
    assert!(
        diffs.is_empty(),
        "{name}: {} of {queries} answers differ from the direct run; first ones:\n{}",
        diffs.len(),
        diffs
            .iter()
            .take(5)
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
    theirs
}

#[test]
fn cpython_311_adapter_matches_a_direct_run() {
    let theirs = check(
        "cpython-3.11",
        Path::new(PYO3_PYTHON),
        "cpython",
        serde_json::json!({"kind": "stdlib"}),
        311,
    );
    assert_eq!(theirs.sys_version, PYO3_SYS_VERSION);
}

#[test]
fn cpython_315_adapter_matches_the_file_loaded_in_a_subprocess() {
    let cache = oracles::cache_dir();
    let zip = cache.join(pins::PYODIDE_DIR).join("python_stdlib.zip");
    assert!(
        zip.is_file(),
        "{} is missing: run `repdiff setup` first",
        zip.display()
    );
    let theirs = check(
        "cpython-3.15",
        Path::new(PYO3_PYTHON),
        "cpython",
        serde_json::json!({
            "kind": "file315",
            "robotparser": cache.join(pins::ROBOTPARSER_315_PATH),
            "stdlib_zip": zip,
        }),
        315,
    );
    assert!(
        theirs.library.ends_with("robotparser.py"),
        "{}",
        theirs.library
    );
}

#[test]
fn protego_adapter_matches_a_direct_run() {
    let theirs = check(
        "protego",
        &venv_python(pins::PROTEGO_VENV),
        "protego",
        serde_json::json!(null),
        70,
    );
    assert!(
        theirs.library.starts_with("protego 0.7.0 "),
        "{}",
        theirs.library
    );
}

#[test]
fn protego_061_adapter_matches_a_direct_run() {
    let theirs = check(
        "protego-0.6.1",
        &venv_python(pins::PROTEGO_061_VENV),
        "protego",
        serde_json::json!(null),
        61,
    );
    assert!(
        theirs.library.starts_with("protego 0.6.1 "),
        "{}",
        theirs.library
    );
}

/// The brief's acceptance example: four parsers, two readings of `bot` vs `MyBot`.
#[test]
fn bot_versus_mybot() {
    let body = b"User-agent: bot\nDisallow: /\n";
    let query = Query {
        ask: Ask::CanFetch,
        agent: "MyBot".into(),
        url: "http://example.test/x".into(),
    };
    for (name, expected) in [
        ("cpython-3.11", Outcome::Disallowed),
        ("cpython-3.15", Outcome::Disallowed),
        ("protego", Outcome::Allowed),
        ("protego-0.6.1", Outcome::Disallowed),
    ] {
        let answers = oracle(name).run(body, std::slice::from_ref(&query));
        assert_eq!(answers[0].outcome, expected, "{name}");
    }
}
