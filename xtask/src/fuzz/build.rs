//! `cargo fuzz build`, with Google's robots.cc compiled by clang under
//! `-fsanitize=fuzzer-no-link`, so libFuzzer is guided by the C++ parser's
//! edges as well as the Rust code's.
//!
//! The oracles' build script compiles robots.cc with the `cc` crate, which
//! reads `CXX_<triple>` and `CXXFLAGS_<triple>`: setting them for the fuzz
//! build only changes nothing else in the repository. Two builds, in two
//! target directories so neither evicts the other:
//!
//! - plain (`-s none --no-trace-compares`, `fuzz/target/<triple>/release`):
//!   speed; every target. Rust compare tracing cost about 40% of the
//!   differential loop's CPU in a profile; the C++ keeps clang's
//!   `-fsanitize=fuzzer-no-link` tracing.
//! - AddressSanitizer (`-s address`, robots.cc with `-fsanitize=address` too,
//!   `fuzz/target/asan/<triple>/release`): `robust_google` (memory errors in
//!   the C++) and `differential` for the coverage report (ASan's runtime
//!   symbolises libFuzzer's `-print_coverage`).

use super::{fuzz_dir, root};
use std::path::PathBuf;
use std::process::Command;

pub const TRIPLE: &str = "x86_64-unknown-linux-gnu";

/// The targets built with AddressSanitizer.
pub const ASAN_TARGETS: &[&str] = &["robust_google", "differential"];

pub fn plain_bin(target: &str) -> PathBuf {
    fuzz_dir()
        .join("target")
        .join(TRIPLE)
        .join("release")
        .join(target)
}

pub fn asan_bin(target: &str) -> PathBuf {
    fuzz_dir()
        .join("target/asan")
        .join(TRIPLE)
        .join("release")
        .join(target)
}

fn cargo_fuzz_build(clang: &str, asan: bool, targets: &[&str]) -> Result<(), String> {
    let env_triple = TRIPLE.replace('-', "_");
    let flags = if asan {
        "-fsanitize=fuzzer-no-link,address"
    } else {
        "-fsanitize=fuzzer-no-link"
    };
    let runs: Vec<Option<&str>> = if targets.is_empty() {
        vec![None]
    } else {
        targets.iter().map(|t| Some(*t)).collect()
    };
    for t in runs {
        let mut cmd = Command::new("cargo");
        cmd.current_dir(root())
            .args(["+nightly", "fuzz", "build", "-O", "--sanitizer"])
            .arg(if asan { "address" } else { "none" });
        if asan {
            cmd.arg("--target-dir").arg(fuzz_dir().join("target/asan"));
        } else {
            cmd.arg("--no-trace-compares");
        }
        if let Some(t) = t {
            cmd.arg(t);
        }
        // What the outer `cargo xtask` set for itself must not leak into
        // the nightly build.
        for v in [
            "RUSTUP_TOOLCHAIN",
            "RUSTC",
            "RUSTDOC",
            "CARGO",
            "CARGO_TARGET_DIR",
            "RUSTFLAGS",
        ] {
            cmd.env_remove(v);
        }
        cmd.env(format!("CXX_{env_triple}"), clang)
            .env(format!("CXXFLAGS_{env_triple}"), flags);
        eprintln!(
            "fuzz build: CXX={clang} CXXFLAGS={flags} cargo +nightly fuzz build -O --sanitizer {}{} {}",
            if asan { "address" } else { "none" },
            if asan { " --target-dir fuzz/target/asan" } else { " --no-trace-compares" },
            t.unwrap_or("(all targets)")
        );
        let status = cmd
            .status()
            .map_err(|e| format!("cannot run cargo +nightly fuzz: {e}"))?;
        if !status.success() {
            return Err(format!(
                "cargo +nightly fuzz build ({}) failed with {status}",
                if asan { "address" } else { "none" }
            ));
        }
    }
    Ok(())
}

pub fn build_plain(clang: &str) -> Result<(), String> {
    cargo_fuzz_build(clang, false, &[])
}

pub fn build_asan(clang: &str, targets: &[&str]) -> Result<(), String> {
    cargo_fuzz_build(clang, true, targets)
}

pub fn build_all(clang: &str) -> Result<(), String> {
    build_plain(clang)?;
    build_asan(clang, ASAN_TARGETS)
}
