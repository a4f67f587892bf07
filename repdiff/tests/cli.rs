//! The installed command's contract: usable from any directory given
//! `--root`, a generated help per command, usage errors as status 2, and
//! workers that are this binary (`repdiff worker NAME`).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn checkout() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// `repdiff ARGS` run from outside the checkout, with no path variable set.
fn repdiff(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args(args)
        .current_dir(std::env::temp_dir())
        .env_remove("REPDIFF_ROOT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("repdiff starts");
    if let Some(mut input) = child.stdin.take() {
        input.write_all(stdin).expect("stdin");
    }
    child.wait_with_output().expect("repdiff runs")
}

#[test]
fn every_command_has_a_help() {
    for cmd in ["conformance", "check", "report", "oracles", "completions"] {
        let out = repdiff(&[cmd, "--help"], b"");
        assert!(out.status.success(), "{cmd} --help");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("Usage: repdiff"), "{cmd}: {text}");
    }
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["conformance", "--no-such-flag"][..],
        &["check", "--agent", "a"][..],
        &["conformance", "--timeout", "soon"][..],
        &["check", "--root", "/", "--case", "seed-18"][..],
    ] {
        let out = repdiff(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn checks_from_outside_the_checkout_through_a_worker() {
    let root = checkout().canonicalize().expect("checkout");
    let root = root.to_str().expect("utf-8 path");
    let out = repdiff(
        &[
            "check",
            "--root",
            root,
            "--no-setup",
            "--oracle",
            "rfc9309",
            "--robots",
            "-",
            "--agent",
            "MyBot",
            "--url",
            "http://example.test/x",
            "--json",
        ],
        b"User-agent: bot\nDisallow: /\n",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON object");
    assert_eq!(doc["oracles"]["rfc9309"]["outcome"], "allowed", "{doc}");
}

#[test]
fn prints_completions() {
    let out = repdiff(&["completions", "bash"], b"");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("conformance"));
}

/// Issue 13's example: the 1996 draft searches the robot's name token inside
/// the line's value, so `User-agent: MyBotPro` applies to MyBot and
/// `User-agent: bot` does not; RFC 9309 says allowed to both. The profiles
/// run as workers of this binary, and conformance refuses them.
#[test]
fn profiles_answer_check_and_are_no_conformance_subjects() {
    let root = checkout().canonicalize().expect("checkout");
    let root = root.to_str().expect("utf-8 path");
    let ask = |body: &[u8]| {
        let out = repdiff(
            &[
                "check",
                "--root",
                root,
                "--robots",
                "-",
                "--agent",
                "MyBot",
                "--url",
                "http://example.test/x",
                "--oracle",
                "robots-1996",
                "--oracle",
                "rfc9309",
                "--json",
            ],
            body,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        let outcome = |o: &str| {
            doc["oracles"][o]["outcome"]
                .as_str()
                .unwrap_or("")
                .to_string()
        };
        (outcome("robots-1996"), outcome("rfc9309"))
    };
    assert_eq!(
        ask(b"User-agent: MyBotPro\nDisallow: /\n"),
        ("disallowed".into(), "allowed".into())
    );
    assert_eq!(
        ask(b"User-agent: bot\nDisallow: /\n"),
        ("allowed".into(), "allowed".into())
    );
    let out = repdiff(
        &["conformance", "--root", root, "--oracle", "robots-1996"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expectation profile"));
}
