//! Issue 29, "two runs started at once in one checkout": the second
//! `conformance` (or `census`) into the same folder waits for the first,
//! says so, and then writes its own whole outputs; both complete and the
//! folder ends with the second run's set, never a mix. Without the lock
//! the second (fast) run would finish first and the held one overwrite it.

use crate::common;

use common::*;
use std::path::Path;

fn s(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|p| p.to_string()).collect()
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

const WAITING: &str = "waiting: another repdiff run is writing";

/// The second run is waiting on the lock (and has not finished).
fn assert_waits(second: &mut Running, first: &Running) {
    assert!(
        wait_until(30, || second.stderr().contains(WAITING)),
        "the second run did not say it waits:\n{}\nfirst:\n{}",
        second.stderr(),
        first.stderr()
    );
    assert!(!second.has_exited(), "{}", second.stderr());
}

#[test]
fn two_conformance_runs_into_one_folder_do_not_interleave() {
    let t = scratch("two-conformance");
    let out = t.join("outs/conformance");
    let stall = stall_harness(&t);
    let mut a = s(&["conformance", "--no-setup", "--timeout", "60"]);
    a.extend([
        "--oracle-cmd".into(),
        format!("stall={}", stall.script.display()),
    ]);
    a.extend(s(&["--oracle", "stall", "--oracle", "rfc9309"]));
    a.extend(s(&["--case", "seed-0*", "--out", &path(&out)]));
    let mut first = start(&a, &t, &[]);
    assert!(
        wait_until(30, || stall.started.exists()),
        "the stalling harness never answered:\n{}",
        first.stderr()
    );
    let mut b = s(&["conformance", "--no-setup", "--oracle", "rfc9309"]);
    b.extend(s(&["--case", "seed-01", "--out", &path(&out)]));
    let mut second = start(&b, &t, &[]);
    assert_waits(&mut second, &first);
    std::fs::write(&stall.release, "").expect("release");
    for (what, r) in [("first", &mut first), ("second", &mut second)] {
        let status = r.wait(120);
        assert!(
            matches!(status.code(), Some(0 | 1)),
            "{what}: {status:?}\n{}",
            r.stderr()
        );
        assert!(r.stdout().contains("report: "), "{what}: {}", r.stdout());
    }
    let json = std::fs::read_to_string(out.join("compat.json")).expect("compat.json");
    let v: serde_json::Value = serde_json::from_str(&json).expect("whole JSON");
    let names: Vec<&str> = v["oracles"]
        .as_array()
        .expect("oracles")
        .iter()
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert_eq!(names, ["rfc9309"], "not the second run's compat.json");
    let md = std::fs::read_to_string(out.join("compat.md")).expect("compat.md");
    assert!(!md.contains("stall"), "compat.md is the first run's");
    assert_nothing_left(&t, "two conformance runs");
    let _ = std::fs::remove_dir_all(&t);
}

#[test]
fn two_census_runs_into_one_folder_do_not_interleave() {
    let t = scratch("two-census");
    let out = t.join("outs/census");
    let (held_input, plain_input) = (t.join("held"), t.join("plain"));
    census_input(&held_input, 100);
    census_input(&plain_input, 100);
    let fifo = held_input.join("zz-held.example");
    mkfifo(&fifo);
    let census = |input: &Path| {
        let mut v = s(&["census", "--no-setup", "--oracle", "rfc9309"]);
        v.extend(s(&["--out", &path(&out), &path(input)]));
        v
    };
    let mut first = start(&census(&held_input), &t, &[]);
    let held = fifo_reader_arrived(&fifo, 60);
    assert!(held.is_some(), "never read the FIFO:\n{}", first.stderr());
    let mut second = start(&census(&plain_input), &t, &[]);
    assert_waits(&mut second, &first);
    if let Some(mut w) = held {
        use std::io::Write as _;
        w.write_all(b"User-agent: *\nDisallow: /held\n")
            .expect("FIFO");
    }
    for (what, r, files) in [("first", &mut first, 101), ("second", &mut second, 100)] {
        let status = r.wait(120);
        assert!(status.success(), "{what}: {status:?}\n{}", r.stderr());
        let said = format!("census: {files} files");
        assert!(r.stdout().contains(&said), "{what}: {}", r.stdout());
    }
    let json = std::fs::read_to_string(out.join("census.json")).expect("census.json");
    let v: serde_json::Value = serde_json::from_str(&json).expect("whole JSON");
    assert_eq!(
        v["written"]["tally"]["files"], 100,
        "not the second run's census.json"
    );
    let md = std::fs::read_to_string(out.join("census.md")).expect("census.md");
    assert!(
        md.contains("Input: `plain`; 100 files asked"),
        "census.md is not the second run's:\n{md}"
    );
    assert_nothing_left(&t, "two census runs");
    let _ = std::fs::remove_dir_all(&t);
}
