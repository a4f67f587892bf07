//! Issue 29's table, through the installed command: a `--oracle-cmd`
//! harness that never greets, floods stdout, traps every signal, exits at
//! once, or leaves a grandchild behind costs `check` and `conformance` one
//! oracle for at most the greeting timeout, is named with what it did, and
//! leaves no process running. The engine's own tests (engine/tests/it/hostile.rs)
//! cover the worker; these cover the commands users type.

use crate::common;

use common::assert_nothing_left;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The hostile harnesses: name, shell script (each carries the test's
/// token in its path, so survivors can be found), what the error must say.
const HARNESSES: &[(&str, &str, &str)] = &[
    (
        "nogreet",
        "while read line; do echo garbage; done",
        "did not greet within",
    ),
    (
        "flood",
        "yes AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA | tr -d '\\n'",
        "longer than the 16 MiB message limit",
    ),
    (
        "trap",
        "trap '' TERM INT HUP\nsleep 1000 &\nwait\nsleep 1000",
        "did not greet within",
    ),
    (
        "exit3",
        "echo 'no module named robots' >&2\nexit 3",
        "exit status: 3: no module named robots",
    ),
    (
        "grandchild",
        "(trap '' TERM; sleep 1000) &\nsleep 1000",
        "did not greet within",
    ),
];

/// A folder of scripts unique to this test process.
fn scripts(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("repdiff-hostile-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (name, body, _) in HARNESSES {
        let path = dir.join(format!("{name}.sh"));
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("script");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    dir
}

fn run(args: &[String], dir: &Path) -> (Output, Duration) {
    let t = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args(args)
        // Every process a harness starts inherits this, so a survivor is
        // found even when its command line names nothing of ours.
        .env(common::MARK, dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("repdiff runs");
    (out, t.elapsed())
}

fn check_each(command: &str, extra: &[&str]) {
    let dir = scripts(command);
    let robots = dir.join("robots.txt");
    std::fs::write(&robots, "User-agent: bot\nDisallow: /\n").expect("robots");
    for (name, _, said) in HARNESSES {
        let script = dir.join(format!("{name}.sh"));
        let mut args: Vec<String> = vec![
            command.into(),
            "--no-setup".into(),
            "--oracle-cmd".into(),
            format!("h={}", script.display()),
            "--oracle".into(),
            "h".into(),
            "--oracle".into(),
            "rfc9309".into(),
        ];
        args.extend(
            extra
                .iter()
                .map(|a| a.replace("ROBOTS", &robots.to_string_lossy())),
        );
        if command == "conformance" {
            args.push("--out".into());
            args.push(dir.join(format!("out-{name}")).display().to_string());
        }
        let (out, took) = run(&args, &dir);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            took < Duration::from_secs(10),
            "{command} with {name}: {took:?}\n{text}"
        );
        assert!(
            text.contains(said),
            "{command} with {name}: no {said:?}\n{text}"
        );
        assert!(
            text.contains("docs/protocol.md"),
            "{command} with {name}: the fix line names the protocol\n{text}"
        );
        // Exit 3: a parser was not asked (README, "Exit status").
        assert_eq!(out.status.code(), Some(3), "{command} with {name}\n{text}");
        assert_nothing_left(&dir, &format!("{command} with {name}"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_survives_every_hostile_harness_and_leaves_nothing() {
    check_each(
        "check",
        &[
            "--robots",
            "ROBOTS",
            "--agent",
            "MyBot",
            "--url",
            "http://example.test/x",
        ],
    );
}

#[test]
fn conformance_survives_every_hostile_harness_and_leaves_nothing() {
    check_each("conformance", &["--case", "seed-01"]);
}
