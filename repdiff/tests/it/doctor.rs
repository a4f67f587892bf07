//! `repdiff doctor`: every registered oracle, really started, said ready
//! or missing with the runtime it needs and the package that fixes it. Run
//! after `cargo xtask setup`: on a set-up machine every oracle is ready, and
//! on a PATH without `ruby` webrobots (and only it) is not.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

/// One doctor at a time: each starts every oracle (three JVMs among them)
/// and the machine may have two cores.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// A folder standing in for PATH: a symlink to every program PATH finds
/// (the first of each name, as a shell would), except `without`.
fn path_without(without: &str) -> PathBuf {
    let bin = common::scratch(&format!("doctor-no-{without}"));
    let path = std::env::var_os("PATH").expect("PATH is set");
    let mut seen = 0;
    for dir in std::env::split_paths(&path) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            let link = bin.join(&name);
            if name == without || link.symlink_metadata().is_ok() {
                continue;
            }
            std::os::unix::fs::symlink(e.path(), &link).expect("symlink");
            seen +=
                usize::from(["sh", "java", "node", "perl"].contains(&name.to_str().unwrap_or("")));
        }
    }
    assert_eq!(
        seen, 4,
        "sh, java, node and perl must be on PATH: run `cargo xtask setup` first"
    );
    assert!(!bin.join(without).exists());
    bin
}

/// `repdiff doctor ARGS` from outside the checkout, with `path` as PATH
/// (the test's own when `None`).
fn doctor(args: &[&str], path: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_repdiff"));
    cmd.arg("doctor")
        .args(args)
        .current_dir(std::env::temp_dir())
        .env_remove("REPDIFF_ROOT");
    if let Some(path) = path {
        cmd.env("PATH", path);
    }
    cmd.output().expect("repdiff runs")
}

fn rows(out: &Output) -> Vec<serde_json::Value> {
    let text = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "doctor --json printed no JSON ({e}):\n{text}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let rows = v.as_array().expect("one JSON array").clone();
    for r in &rows {
        for key in [
            "name", "runtime", "program", "found", "ready", "reason", "fix",
        ] {
            assert!(r.get(key).is_some(), "no `{key}` in {r}");
        }
    }
    rows
}

fn names(rows: &[serde_json::Value]) -> Vec<String> {
    rows.iter()
        .map(|r| r["name"].as_str().expect("a name").to_string())
        .collect()
}

/// Every registered oracle, one row each, in the registry's order.
fn assert_every_oracle_listed(rows: &[serde_json::Value]) {
    let registered: Vec<String> = common::registered::all()
        .into_iter()
        .map(|o| o.name)
        .collect();
    assert_eq!(names(rows), registered);
}

#[test]
fn a_set_up_machine_has_every_oracle_ready() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let out = doctor(&["--json"], None);
    let rows = rows(&out);
    assert_every_oracle_listed(&rows);
    let not_ready: Vec<String> = rows
        .iter()
        .filter(|r| r["ready"] != true)
        .map(|r| r.to_string())
        .collect();
    assert!(
        not_ready.is_empty(),
        "not ready after setup:\n{}",
        not_ready.join("\n")
    );
    for r in &rows {
        assert_eq!(r["found"], true, "{r}");
        assert!(r["reason"].is_null() && r["fix"].is_null(), "{r}");
    }
    let by_name = |n: &str| rows.iter().find(|r| r["name"] == n).cloned();
    let webrobots = by_name("webrobots").expect("webrobots is registered");
    assert_eq!(webrobots["runtime"], "ruby");
    assert_eq!(webrobots["program"], "ruby");
    let rfc = by_name("rfc9309").expect("rfc9309 is registered");
    assert_eq!(rfc["program"], "built in");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The text form says the same, one line per oracle.
    let out = doctor(&[], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(&format!("{0} of {0} oracles ready", rows.len())),
        "{text}"
    );
    for r in &rows {
        let name = r["name"].as_str().unwrap_or_default();
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("{name} ")) && l.trim_end().ends_with("ready")),
            "no ready line for {name}:\n{text}"
        );
    }
    assert!(text.contains("embedded python:"), "{text}");
}

#[test]
fn without_ruby_webrobots_is_missing_and_the_fix_is_debians_ruby() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let bin = path_without("ruby");
    let out = doctor(&["--json"], Some(&bin));
    let rows = rows(&out);
    assert_every_oracle_listed(&rows);
    let webrobots = rows
        .iter()
        .find(|r| r["name"] == "webrobots")
        .expect("webrobots is listed");
    assert_eq!(webrobots["ready"], false, "{webrobots}");
    assert_eq!(webrobots["program"], "ruby", "{webrobots}");
    assert_eq!(webrobots["runtime"], "ruby", "{webrobots}");
    assert_eq!(webrobots["found"], false, "{webrobots}");
    assert!(
        webrobots["reason"].as_str().is_some_and(|r| !r.is_empty()),
        "{webrobots}"
    );
    let fix = webrobots["fix"].as_str().unwrap_or_default();
    assert!(
        fix.contains("apt-get install") && fix.split_whitespace().any(|w| w == "ruby"),
        "the fix names no Debian package `ruby`: {fix}"
    );
    // Nothing else needs ruby: every other oracle still starts (java, node
    // and perl, and the programs the harnesses run, are all there).
    let not_ready: Vec<String> = rows
        .iter()
        .filter(|r| r["ready"] != true)
        .map(|r| r["name"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(not_ready, ["webrobots"], "{rows:#?}");
    assert_eq!(
        out.status.code(),
        Some(3),
        "an oracle that cannot start is exit 3"
    );
    let _ = std::fs::remove_dir_all(&bin);
}
