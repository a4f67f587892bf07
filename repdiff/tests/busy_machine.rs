//! Issue 52, "slow is not dead": with two CPU-bound processes per core
//! running beside it, `conformance` over every oracle runs all of them.
//! On a loaded 2-core machine six working oracles (two JVMs, Heritrix,
//! node, Python, Ruby) used to be "NOT RUN: worker did not greet within
//! 5 s"; the greeting's deadline now moves with the time a worker spends
//! busy or waiting for a CPU (engine/src/worker/starting.rs).

// The shared helpers of the `it` binary; this test stays a binary of its own
// (see its doc above: its load would slow every other test in one process).
#[path = "it/common/mod.rs"]
mod common;

use common::*;
use std::process::{Child, Command};

/// CPU-bound processes, stopped when dropped (a failed assert included).
struct Load(Vec<Child>);

impl Load {
    fn per_core(n: usize) -> Load {
        let cores = std::thread::available_parallelism().map_or(2, |c| c.get());
        Load(
            (0..n * cores)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .spawn()
                        .expect("a spinning shell")
                })
                .collect(),
        )
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

#[test]
fn every_oracle_runs_with_both_cores_busy() {
    let t = scratch("busy-machine");
    let out = t.join("out");
    // A greeting timeout of 1 s: with two spinners per core the JVMs and
    // Ruby take about 2 s of wall time to greet (1.2 s idle; measured on
    // the 2-core machine), so a wall-time deadline fails this test, while
    // one that counts only idle time waits for them.
    let args: Vec<String> = [
        "conformance",
        "--no-setup",
        "--greeting-timeout",
        "1",
        "--case",
        "seed-0*",
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([out.display().to_string()])
    .collect();
    let load = Load::per_core(2);
    let mut r = start(&args, &t, &[]);
    let status = r.wait(600);
    drop(load);
    let err = r.stderr();
    assert!(
        !err.contains("did not greet") && !err.contains("NOT RUN"),
        "a working oracle was not run on the busy machine:\n{err}"
    );
    assert_eq!(status.code(), Some(0), "{}\n{err}", r.stdout());
    let compat = std::fs::read_to_string(out.join("compat.json")).expect("compat.json");
    let report: serde_json::Value = serde_json::from_str(&compat).expect("compat.json parses");
    let oracles = report["oracles"].as_array().map_or(0, Vec::len);
    let registered = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args(["oracles", "--json"])
        .output()
        .expect("repdiff oracles");
    let registered: serde_json::Value =
        serde_json::from_slice(&registered.stdout).expect("oracles --json");
    assert_eq!(
        oracles,
        registered.as_array().map_or(0, Vec::len),
        "compat.json does not hold every registered oracle"
    );
    let _ = std::fs::remove_dir_all(&t);
}
