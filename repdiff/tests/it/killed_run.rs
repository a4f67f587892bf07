//! Issue 29, "a killed run loses nothing": SIGINT or SIGTERM in the middle
//! of `conformance`, `census`, `report` and `report --publish` leaves the
//! previous outputs byte for byte (no temporary left, no half-written or
//! mixed set), exits 128 + the signal, says what was not written, and
//! leaves no process running.
//!
//! "The middle" is reached without timing: a `--oracle-cmd` harness that
//! holds its answers after the first (conformance), or a FIFO the run must
//! read (census input, report history) that the test holds open.

use crate::common;

use common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const SIGINT: i32 = 2;
const SIGTERM: i32 = 15;

fn s(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|p| p.to_string()).collect()
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// What every killed run must show: killed status, the message naming
/// `named`, the folder as it was, nothing running.
fn assert_lost_nothing(
    what: &str,
    r: &mut Running,
    sig: i32,
    folder: &Path,
    before: &BTreeMap<String, Node>,
    named: &Path,
    mark: &Path,
) {
    let status = r.wait(30);
    let err = r.stderr();
    assert_eq!(status.code(), Some(128 + sig), "{what}: {status:?}\n{err}");
    assert!(
        err.contains("not written") && err.contains(&path(named)),
        "{what}: stderr does not say what was not written\n{err}"
    );
    let after = snapshot(folder);
    assert!(
        *before == after,
        "{what}: the folder changed:\n{}\n{err}",
        differences(before, &after).join("\n")
    );
    assert_nothing_left(mark, what);
}

fn conformance_killed(tag: &str, sig: i32) {
    let t = scratch(tag);
    let outs = t.join("outs");
    let out = outs.join("conformance");
    let mut first = s(&["conformance", "--no-setup", "--oracle", "rfc9309"]);
    first.extend(s(&["--case", "seed-01", "--out", &path(&out)]));
    let (status, text) = run_to_end(&first, &t);
    assert!(out.join("compat.json").is_file(), "{status:?}\n{text}");
    let before = snapshot(&outs);

    let stall = stall_harness(&t);
    let mut args = s(&["conformance", "--no-setup", "--timeout", "60"]);
    args.extend([
        "--oracle-cmd".into(),
        format!("stall={}", stall.script.display()),
    ]);
    args.extend(s(&["--oracle", "stall", "--oracle", "rfc9309"]));
    args.extend(s(&["--case", "seed-*", "--out", &path(&out)]));
    let mut r = start(&args, &t, &[]);
    assert!(
        wait_until(30, || stall.started.exists()),
        "the stalling harness never answered:\n{}",
        r.stderr()
    );
    r.signal(sig);
    assert_lost_nothing("conformance", &mut r, sig, &outs, &before, &out, &t);
    let _ = std::fs::remove_dir_all(&t);
}

#[test]
fn conformance_stopped_by_sigterm_keeps_the_last_outputs() {
    conformance_killed("killed-conf-term", SIGTERM);
}

#[test]
fn conformance_stopped_by_sigint_keeps_the_last_outputs() {
    conformance_killed("killed-conf-int", SIGINT);
}

/// Files sorted before the FIFO outnumber the reader's read-ahead (64), so
/// the census has asked its oracles about some of them when the FIFO opens.
const CENSUS_FILES: usize = 100;

#[test]
fn census_stopped_by_sigterm_keeps_the_last_outputs() {
    let t = scratch("killed-census");
    let input = t.join("input");
    census_input(&input, CENSUS_FILES);
    let outs = t.join("outs");
    let out = outs.join("census");
    let mut args = s(&["census", "--no-setup", "--oracle", "rfc9309"]);
    args.extend(s(&["--oracle", "texting-robots", "--out", &path(&out)]));
    args.push(path(&input));
    let (status, text) = run_to_end(&args, &t);
    assert!(status.success(), "{text}");
    assert!(out.join("census.json").is_file(), "{text}");
    let before = snapshot(&outs);

    let fifo = input.join("zz-held.example");
    mkfifo(&fifo);
    let mut r = start(&args, &t, &[]);
    let held = fifo_reader_arrived(&fifo, 60);
    assert!(
        held.is_some(),
        "the census never read the FIFO:\n{}",
        r.stderr()
    );
    r.signal(SIGTERM);
    assert_lost_nothing("census", &mut r, SIGTERM, &outs, &before, &out, &t);
    drop(held);
    let _ = std::fs::remove_dir_all(&t);
}

/// A run's compat.json: the checkout's published one (a full run).
fn published_run() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/latest")
}

#[test]
fn report_stopped_by_sigint_keeps_the_last_site() {
    let t = scratch("killed-report");
    let outs = t.join("outs");
    let site = outs.join("site");
    std::fs::create_dir_all(&site).expect("site");
    std::fs::write(site.join("index.html"), "the previous site\n").expect("old site");
    std::fs::write(site.join("only-in-the-old.html"), "old\n").expect("old site");
    let before = snapshot(&outs);
    let history = t.join("history.jsonl");
    mkfifo(&history);
    let json = published_run().join("compat.json");
    let mut args = s(&["report", "--no-screenshot", "--json", &path(&json)]);
    args.extend(s(&["--history", &path(&history), "--out", &path(&site)]));
    let mut r = start(&args, &t, &[]);
    let held = fifo_reader_arrived(&history, 60);
    assert!(
        held.is_some(),
        "report never read the history:\n{}",
        r.stderr()
    );
    r.signal(SIGINT);
    assert_lost_nothing("report", &mut r, SIGINT, &outs, &before, &site, &t);
    drop(held);
    let _ = std::fs::remove_dir_all(&t);
}

/// A checkout to publish into: the corpus, the ledger and the harness
/// manifests (what publish reads), an old published set (with an old
/// reports/RESULTS.md), and a full run in reports/run/latest/ (the checkout's
/// published run, so the refusal of a partial run is not bypassed).
fn publish_root(dir: &Path) {
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    copy_dir(&checkout.join("cases"), &dir.join("cases"));
    copy_dir(
        &checkout.join("oracles/harness"),
        &dir.join("oracles/harness"),
    );
    let latest = dir.join("reports/latest");
    std::fs::create_dir_all(&latest).expect("latest");
    std::fs::write(dir.join("reports/RESULTS.md"), "the old results\n").expect("old results");
    std::fs::write(latest.join("compat.json"), "{\"old\": true}\n").expect("old json");
    std::fs::write(latest.join("compat.md"), "# the old snapshot\n").expect("old md");
    let site = dir.join("reports/site");
    std::fs::create_dir_all(&site).expect("site");
    std::fs::write(site.join("index.html"), "the old site\n").expect("old site");
    let run = dir.join("reports/run/latest");
    std::fs::create_dir_all(&run).expect("run");
    for name in ["compat.json", "compat.md"] {
        std::fs::copy(published_run().join(name), run.join(name)).expect("run");
    }
}

fn publish_args() -> Vec<String> {
    s(&["report", "--publish", "--no-screenshot"])
}

#[test]
fn publish_stopped_by_sigterm_keeps_the_published_set() {
    let t = scratch("killed-publish");
    let root = t.join("root");
    publish_root(&root);
    let history = root.join("reports/history.jsonl");
    mkfifo(&history);
    let before = snapshot(&root);
    let mut r = start(&publish_args(), &t, &[("REPDIFF_ROOT", &root)]);
    let held = fifo_reader_arrived(&history, 60);
    assert!(
        held.is_some(),
        "publish never read the history:\n{}",
        r.stderr()
    );
    r.signal(SIGTERM);
    let latest = root.join("reports/latest");
    assert_lost_nothing("publish", &mut r, SIGTERM, &root, &before, &latest, &t);
    drop(held);
    let _ = std::fs::remove_dir_all(&t);
}

/// The other half: a publish that runs to the end replaces every part of
/// the set (snapshot, history, site, results page) and leaves nothing
/// staged behind.
#[test]
fn publish_replaces_the_whole_set_and_leaves_nothing_staged() {
    let t = scratch("publish-whole");
    let root = t.join("root");
    publish_root(&root);
    let history = root.join("reports/history.jsonl");
    std::fs::write(&history, "").expect("history");
    let mut r = start(&publish_args(), &t, &[("REPDIFF_ROOT", &root)]);
    let status = r.wait(120);
    let err = r.stderr();
    assert!(status.success(), "{status:?}\n{}{err}", r.stdout());
    for name in ["compat.json", "compat.md"] {
        assert_eq!(
            std::fs::read(root.join("reports/latest").join(name)).expect("published"),
            std::fs::read(published_run().join(name)).expect("run"),
            "{name}"
        );
    }
    let records = std::fs::read_to_string(&history).expect("history");
    assert!(records.lines().count() > 0, "no history records\n{err}");
    let index = std::fs::read_to_string(root.join("reports/site/index.html")).expect("site");
    assert_ne!(index, "the old site\n");
    let results = std::fs::read_to_string(root.join("reports/RESULTS.md")).expect("results");
    let report = report::compat::Report::load(&published_run().join("compat.json")).expect("run");
    assert_eq!(
        results,
        repdiff::report_site::results_page(&report, None),
        "publish wrote another results page\n{err}"
    );
    for dir in [
        root.clone(),
        root.join("reports"),
        root.join("reports/latest"),
    ] {
        let staged: Vec<String> = std::fs::read_dir(&dir)
            .expect("listing")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(staged.is_empty(), "{}: {staged:?}", dir.display());
    }
    let _ = std::fs::remove_dir_all(&t);
}

const SIGKILL: i32 = 9;

const SLEEPY_GREETING: &str = r#"{"v":2,"hello":{"name":"sleepy","library":"sleepy","version":"0","language":"sh","runtime":{"name":"sh","version":"0"},"provenance":{"registry":"local","package":"sleepy","version":"0"},"capabilities":{"can_fetch":true,"crawl_delay":false,"request_rate":false,"sitemaps":false,"http_fetch":false}}}"#;

/// Issue 52: nothing of a SIGKILLed repdiff runs a second later, however
/// busy its workers were: poll for up to 1 s after it is reaped.
fn assert_gone_within_a_second(r: &mut Running, mark: &Path, what: &str) {
    let status = r.wait(30);
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(SIGKILL),
        "{what}: {status:?}"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
    loop {
        let left = survivors(mark);
        if left.is_empty() {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{what}: still running 1 s after repdiff was SIGKILLed:\n{}",
            left.join("\n")
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// conformance with a harness busy inside a request (not reading its
/// stdin), a JVM and a Ruby worker beside it.
#[test]
fn conformance_sigkilled_leaves_no_worker_running() {
    let t = scratch("sigkill-conf");
    let stall = stall_harness(&t);
    let mut args = s(&["conformance", "--no-setup", "--timeout", "60"]);
    args.extend([
        "--oracle-cmd".into(),
        format!("stall={}", stall.script.display()),
    ]);
    args.extend(s(&["--oracle", "stall", "--oracle", "crawler-commons"]));
    args.extend(s(&["--oracle", "webrobots", "--case", "seed-*"]));
    args.extend(s(&["--out", &path(&t.join("out"))]));
    let mut r = start(&args, &t, &[]);
    assert!(
        wait_until(60, || stall.started.exists()),
        "the stalling harness never answered:\n{}",
        r.stderr()
    );
    r.signal(SIGKILL);
    assert_gone_within_a_second(&mut r, &t, "conformance");
    let _ = std::fs::remove_dir_all(&t);
}

/// check with a `--oracle-cmd` harness that greets and then sleeps inside
/// its first request: `sh -c` forks it, so the shell and its `sleep` are
/// two processes of the worker's group.
#[test]
fn check_sigkilled_mid_request_leaves_no_worker_running() {
    let t = scratch("sigkill-check");
    let greeted = t.join("greeted");
    let harness = t.join("sleepy.sh");
    let greeting = t.join("greeting.json");
    std::fs::write(&greeting, format!("{SLEEPY_GREETING}\n")).expect("greeting");
    script(
        &harness,
        &format!(
            "cat '{}'\nIFS= read -r line\ntouch '{}'\nsleep 1000\n",
            greeting.display(),
            greeted.display()
        ),
    );
    let robots = t.join("robots.txt");
    std::fs::write(&robots, "User-agent: *\nDisallow: /\n").expect("robots");
    let mut args = s(&["check", "--no-setup", "--timeout", "60", "--oracle-cmd"]);
    args.push(format!("sleepy={}", harness.display()));
    args.extend(s(&["--oracle", "sleepy", "--robots", &path(&robots)]));
    args.extend(s(&["--agent", "bot", "--url", "https://example.com/x"]));
    let mut r = start(&args, &t, &[]);
    assert!(
        wait_until(60, || greeted.exists()),
        "the harness never got its request:\n{}",
        r.stderr()
    );
    r.signal(SIGKILL);
    assert_gone_within_a_second(&mut r, &t, "check");
    let _ = std::fs::remove_dir_all(&t);
}

/// census held on a FIFO mid-input, with a JVM, a Perl and a Ruby worker
/// (each started with its census helpers).
#[test]
fn census_sigkilled_leaves_no_worker_running() {
    let t = scratch("sigkill-census");
    let input = t.join("input");
    census_input(&input, CENSUS_FILES);
    let fifo = input.join("zz-held.example");
    mkfifo(&fifo);
    let mut args = s(&["census", "--no-setup", "--oracle", "rfc9309"]);
    args.extend(s(&[
        "--oracle",
        "crawler-commons",
        "--oracle",
        "www-robotrules",
    ]));
    args.extend(s(&[
        "--oracle",
        "webrobots",
        "--out",
        &path(&t.join("out")),
    ]));
    args.push(path(&input));
    let mut r = start(&args, &t, &[]);
    let held = fifo_reader_arrived(&fifo, 60);
    assert!(
        held.is_some(),
        "the census never read the FIFO:\n{}",
        r.stderr()
    );
    r.signal(SIGKILL);
    assert_gone_within_a_second(&mut r, &t, "census");
    drop(held);
    let _ = std::fs::remove_dir_all(&t);
}
