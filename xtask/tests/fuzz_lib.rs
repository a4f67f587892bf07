//! The fuzz crate sits outside the workspace (cargo-fuzz wants a crate of
//! its own, built by nightly with libFuzzer). Its library's tests (the
//! generator, the triage, the Python lane's ordering) need neither, so they
//! run from here, with the toolchain running this test, and `cargo test
//! --workspace` covers them.

use std::path::Path;
use std::process::Command;

#[test]
fn fuzz_crate_library_tests_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest = root.join("fuzz/Cargo.toml");
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(&root)
        .args(["test", "--release", "--lib", "--manifest-path"])
        .arg(&manifest);
    // This test's own build settings are not the fuzz crate's.
    for v in [
        "CARGO_TARGET_DIR",
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTC_WRAPPER",
        "CARGO_BUILD_TARGET",
    ] {
        cmd.env_remove(v);
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo test for {}: {e}", manifest.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "fuzz crate tests failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // Not vacuous: the lane's ordering test is among those that ran.
    assert!(
        stdout.contains("lane::tests::answers_come_back_in_order_with_their_records ... ok"),
        "the lane test did not run:\n{stdout}"
    );
}
