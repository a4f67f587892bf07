//! Every write-up's direct reproducer, run in its own runtime against the
//! library setup installed, prints the outcome its ledger entry pins
//! (`repdiff findings --verify`). A reproducer a maintainer runs and sees
//! answer otherwise would be worse than none. Runtimes and libraries come
//! from setup; a missing one fails the test, it is never skipped.

use std::process::Command;

#[test]
fn every_direct_reproducer_prints_its_pinned_outcome() {
    let out = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args(["findings", "--verify"])
        .output()
        .expect("cannot run repdiff");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "repdiff findings --verify: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // Every runtime took part: a template that stopped producing programs
    // must not make the check pass by running fewer.
    let summary = stdout.lines().last().unwrap_or_default();
    let run: usize = summary
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no summary line: {stdout}"));
    assert!(run >= 150, "only {run} reproducers ran: {summary}");
}
