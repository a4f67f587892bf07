//! The cross-suite scoreboard (issue 13 parts 4-5): `repdiff suites
//! --json` captures each parser's own suite (setup's step, run here by the
//! command) and scores every registered oracle on each.
//!
//! Six suites are captured on this machine: google, texting-robots,
//! cpython, protego, robotspy, robots-parser (webrobots, WWW::RobotRules
//! and spider ship no tests in the artifacts setup fetches). Fails, never
//! skips, when a suite or an oracle is missing: run `repdiff setup`.

use crate::common;

use serde_json::Value;
use std::process::Command;

use repdiff::suites::SUITES;

fn run_suites() -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args(["suites", "--json"])
        .output()
        .expect("repdiff runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "repdiff suites failed (an oracle or a suite is missing?):\n{stderr}"
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not one JSON object: {e}\n{stderr}"))
}

#[test]
fn every_oracle_runs_on_every_suite_and_each_passes_its_own() {
    let report = run_suites();
    let suites = report["suites"].as_object().expect("suites is an object");
    assert!(suites.len() >= 5, "only {} suites captured", suites.len());
    for (name, _) in SUITES {
        assert!(suites.contains_key(*name), "suite {name} missing");
    }
    let oracles: Vec<String> = common::registered::all()
        .into_iter()
        .map(|o| o.name)
        .collect();
    assert!(oracles.len() >= 12, "{} oracles registered", oracles.len());
    for (name, own) in SUITES {
        let s = &suites[*name];
        let assertions = s["assertions"].as_u64().expect("assertions: N");
        assert!(s["skipped"].is_u64(), "{name}: skipped: N");
        assert!(assertions > 0, "{name}: no assertion captured");
        let scores = s["scores"].as_object().expect("scores is an object");
        for o in &oracles {
            let passed = scores.get(o).and_then(Value::as_u64);
            let passed = passed.unwrap_or_else(|| panic!("{name}: no score for oracle {o}"));
            assert!(passed <= assertions, "{name}/{o}: {passed} > {assertions}");
        }
        // The suite's own parser passes all of it, or every miss is listed.
        let own_score = scores[*own].as_u64().unwrap_or(0);
        let misses = s["own_misses"].as_array().expect("own_misses is a list");
        assert_eq!(
            own_score + misses.len() as u64,
            assertions,
            "{name}: {own} passed {own_score}/{assertions} but {} misses are listed",
            misses.len()
        );
        for m in misses {
            assert!(m["id"]
                .as_str()
                .is_some_and(|id| id.starts_with(&format!("{name}:"))));
            assert!(m["got"].is_string() && m["expected"].is_string(), "{m}");
        }
    }
    assert!(report["contradictions"].is_array());
}

#[test]
fn an_unknown_oracle_is_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args([
            "suites",
            "--json",
            "--no-setup",
            "--oracle",
            "no-such-parser",
        ])
        .output()
        .expect("repdiff runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}
