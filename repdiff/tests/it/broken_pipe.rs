//! A reader that stops early (`repdiff check … | head -1`) is no error:
//! the output module (src/output.rs) ends the process quietly with status
//! 0 where `println!` panicked on the broken pipe (status 101 and a
//! "failed printing to stdout" panic on stderr).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn root() -> String {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .canonicalize()
        .expect("checkout")
        .to_str()
        .expect("utf-8 path")
        .to_string()
}

/// `check`'s text answer from one worker: several lines, after a worker
/// started (which the quiet exit stops).
fn check_args(root: &str) -> Vec<String> {
    [
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
    ]
    .map(String::from)
    .to_vec()
}

/// The commands tried: a list, a script written whole, an answer after a
/// worker ran.
fn commands() -> Vec<Vec<String>> {
    let root = root();
    vec![
        vec!["oracles".into(), "--root".into(), root.clone()],
        vec!["completions".into(), "bash".into()],
        check_args(&root),
    ]
}

fn assert_quiet(args: &[String], out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked") && !stderr.contains("failed printing"),
        "{args:?}: a panic on the broken pipe:\n{stderr}"
    );
    assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
}

/// stdout is a pipe whose reader is gone before the command starts, so
/// its first write fails: deterministic, whatever the pipe's buffer.
#[test]
fn a_pipe_closed_before_the_answer_ends_the_command_quietly() {
    for args in commands() {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let mut child = Command::new(env!("CARGO_BIN_EXE_repdiff"))
            .args(&args)
            .current_dir(std::env::temp_dir())
            .stdin(Stdio::piped())
            .stdout(writer)
            .stderr(Stdio::piped())
            .spawn()
            .expect("repdiff starts");
        if let Some(mut input) = child.stdin.take() {
            let _ = input.write_all(b"User-agent: bot\nDisallow: /\n");
        }
        let out = child.wait_with_output().expect("repdiff runs");
        assert_quiet(&args, &out);
    }
}

/// `| head -1`: the reader takes one line and goes.
#[test]
fn a_reader_that_takes_one_line_and_goes_is_no_error() {
    for args in commands() {
        let mut child = Command::new(env!("CARGO_BIN_EXE_repdiff"))
            .args(&args)
            .current_dir(std::env::temp_dir())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("repdiff starts");
        if let Some(mut input) = child.stdin.take() {
            let _ = input.write_all(b"User-agent: bot\nDisallow: /\n");
        }
        let mut line = String::new();
        let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
        reader.read_line(&mut line).expect("one line");
        assert!(!line.is_empty(), "{args:?}: no line");
        drop(reader);
        let out = child.wait_with_output().expect("repdiff runs");
        assert_quiet(&args, &out);
    }
}
