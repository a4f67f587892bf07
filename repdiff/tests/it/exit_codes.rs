//! Issue 50 item 3: each kind of failure exits with the status README.md's
//! "Exit status" documents (`repdiff/src/error.rs`) and says what failed:
//! a bad flag 2, a bad case file 2 naming its file and line, an unknown
//! oracle 2 naming it, an oracle that cannot start 3 naming it, a ledger
//! that does not load 4 naming its file and line, an unreadable robots.txt
//! 2 naming it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repdiff(args: &[&str], root: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_repdiff"));
    if let Some(root) = root {
        cmd.arg("--root").arg(root);
    }
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("repdiff runs");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all(b"User-agent: *\nDisallow: /private\n");
    }
    child.wait_with_output().expect("repdiff runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// A checkout of this one's corpus, ledger and harnesses under a temporary
/// folder (removed on drop), for a test to break one file of.
struct Checkout(PathBuf);

impl Checkout {
    fn new(name: &str) -> Checkout {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let dir =
            std::env::temp_dir().join(format!("repdiff-exit-codes-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        copy_dir(&root.join("cases"), &dir.join("cases"));
        copy_dir(&root.join("oracles/harness"), &dir.join("oracles/harness"));
        Checkout(dir)
    }
}

impl Drop for Checkout {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_bad_flag_exits_2_with_its_message() {
    // Refused by the product (clap accepts the number), not by clap.
    let out = repdiff(
        &[
            "check",
            "--no-setup",
            "--robots",
            "-",
            "--agent",
            "a",
            "--url",
            "not a url",
        ],
        None,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("error: --url \"not a url\""), "{err}");
}

#[test]
fn a_bad_case_file_exits_2_naming_file_and_line() {
    let checkout = Checkout::new("case");
    let bad = checkout.0.join("cases/corpus/zz-bad.yaml");
    std::fs::write(
        &bad,
        "cases:\n  - id: zz-bad\n    robots: |\n      User-agent: *\n    queries: [\n",
    )
    .unwrap();
    let out = repdiff(&["conformance", "--no-setup"], Some(&checkout.0));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("error: "), "{err}");
    assert!(err.contains("zz-bad.yaml:"), "no file:line in {err}");
    let line = err
        .split("zz-bad.yaml:")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.parse::<usize>().ok());
    assert!(line.is_some_and(|n| n >= 1), "no line number in {err}");
    // Nothing was run: no report was written.
    assert!(!checkout.0.join("reports/run").exists(), "{err}");
}

#[test]
fn a_ledger_that_does_not_load_exits_4_naming_file_and_line() {
    let checkout = Checkout::new("ledger");
    let ledger = checkout.0.join("cases/divergences.yaml");
    let mut text = std::fs::read_to_string(&ledger).unwrap();
    text.push_str("\n  - id: [this is not an id\n");
    std::fs::write(&ledger, text).unwrap();
    let out = repdiff(&["conformance", "--no-setup"], Some(&checkout.0));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(err.contains("divergences.yaml:"), "{err}");
}

#[test]
fn an_unknown_oracle_exits_2_naming_it() {
    let out = repdiff(
        &[
            "check",
            "--no-setup",
            "--robots",
            "-",
            "--agent",
            "a",
            "--url",
            "https://example.com/",
            "--oracle",
            "no-such-oracle",
        ],
        None,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("unknown oracle `no-such-oracle`"), "{err}");
}

#[test]
fn an_oracle_that_cannot_start_exits_3_naming_it_and_the_fix() {
    let out = repdiff(
        &[
            "check",
            "--no-setup",
            "--robots",
            "-",
            "--agent",
            "a",
            "--url",
            "https://example.com/",
            "--oracle-cmd",
            "ghost=/nonexistent/repdiff-ghost-harness",
            "--oracle",
            "ghost",
        ],
        None,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("oracle `ghost` is unavailable"), "{err}");
    assert!(err.contains("fix: "), "{err}");
}

#[test]
fn a_robots_file_that_cannot_be_read_exits_2_naming_it() {
    let out = repdiff(
        &[
            "check",
            "--no-setup",
            "--robots",
            "/nonexistent/repdiff-robots.txt",
            "--agent",
            "a",
            "--url",
            "https://example.com/",
        ],
        None,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("error: /nonexistent/repdiff-robots.txt: cannot read the robots file"),
        "{err}"
    );
}
