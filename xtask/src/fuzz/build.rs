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
//!   speed; every target. Compare tracing is off in both languages
//!   (`--no-trace-compares`, `-fno-sanitize-coverage=trace-cmp`): Rust's cost
//!   about 40% of the differential loop's CPU in one profile, the C++
//!   parser's 30% in another. Edge counters stay on everywhere in scope.
//! - AddressSanitizer (`-s address`, robots.cc with `-fsanitize=address` too,
//!   `fuzz/target/asan/<triple>/release`): `robust`, run for the oracles
//!   with C++ inside ([`under_asan`]: memory errors), and `differential` for
//!   the coverage report (ASan's runtime symbolises libFuzzer's
//!   `-print_coverage`).
//!
//! Both go through `fuzz/tools/coverage-scope` (a `RUSTC_WRAPPER`), which
//! keeps the coverage instrumentation only in the crates that parse
//! robots.txt (ours, texting-robots, robotstxt): the counters of pyo3, serde
//! and regex compilation cost libFuzzer more bookkeeping per run than the
//! parsers themselves took. The `robust` target is built a second time,
//! into `fuzz/target/robust`, with the generator in scope as well. Cargo does not
//! rebuild when a wrapper changes, so a stamp of the wrapper's content sits
//! in each target directory and a mismatch empties it first.

use super::fuzz_dir;
use repdiff::paths::root;
use std::path::PathBuf;
use std::process::Command;

pub const TRIPLE: &str = "x86_64-unknown-linux-gnu";

/// The targets built with AddressSanitizer.
pub const ASAN_TARGETS: &[&str] = &[fuzzcore::ROBUST_BIN, "differential"];

/// Is `oracle` fuzzed alone under AddressSanitizer? The oracles whose
/// runtime is neither Rust nor Python: native code, where memory
/// errors are what ASan finds (for Rust the compiler rules them out, and
/// CPython's allocator under ASan only slows the run).
pub fn under_asan(oracle: &str) -> bool {
    use oracles::Runtime;
    oracles::registry()
        .iter()
        .any(|e| e.name == oracle && !matches!(e.runtime, Runtime::Rust | Runtime::Python))
}

/// The `robust` binary that fuzzes `oracle`: the AddressSanitizer build
/// ([`under_asan`]) or the plain one with the generator (`fuzzcore`) in the
/// coverage scope: a Python parser is not instrumented, so for CPython and
/// Protego the generator's edges are the only guidance there is (without
/// them their corpora stalled near 115 inputs, against about 650).
pub fn robust_bin(oracle: &str) -> PathBuf {
    if under_asan(oracle) {
        asan_bin(fuzzcore::ROBUST_BIN)
    } else {
        fuzz_dir()
            .join("target/robust")
            .join(TRIPLE)
            .join("release")
            .join(fuzzcore::ROBUST_BIN)
    }
}

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

/// The `RUSTC_WRAPPER` that scopes coverage instrumentation.
pub fn scope_wrapper() -> PathBuf {
    fuzz_dir().join("tools/coverage-scope")
}

/// Empty `dir/<triple>` when it was built with another wrapper (or none),
/// or with another `add` to its scope.
fn check_scope_stamp(dir: &std::path::Path, add: &str) -> Result<(), String> {
    let wrapper = scope_wrapper();
    let mut text =
        std::fs::read(&wrapper).map_err(|e| format!("cannot read {}: {e}", wrapper.display()))?;
    // The wrapper reads this too: a different scope is a different build.
    text.extend(
        std::env::var("REPDIFF_FUZZ_SCOPE")
            .unwrap_or_default()
            .bytes(),
    );
    text.extend(b"\n+");
    text.extend(add.bytes());
    let want = repdiff::setup::sha256_hex(&text);
    let stamp = dir.join("repdiff-coverage-scope.sha256");
    let have = std::fs::read_to_string(&stamp).unwrap_or_default();
    if have.trim() == want {
        return Ok(());
    }
    let triple_dir = dir.join(TRIPLE);
    if triple_dir.exists() {
        log::info!(
            "fuzz build: {} changed since {} was built; rebuilding from scratch",
            wrapper.display(),
            triple_dir.display()
        );
        std::fs::remove_dir_all(&triple_dir)
            .map_err(|e| format!("cannot empty {}: {e}", triple_dir.display()))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    std::fs::write(&stamp, want).map_err(|e| format!("cannot write {}: {e}", stamp.display()))
}

/// One `cargo fuzz build` into `target_dir`; `add` goes to the coverage
/// scope (REPDIFF_FUZZ_SCOPE_ADD).
fn cargo_fuzz_build(
    clang: &str,
    asan: bool,
    target_dir: &std::path::Path,
    add: &str,
    targets: &[&str],
) -> Result<(), String> {
    check_scope_stamp(target_dir, add)?;
    let env_triple = TRIPLE.replace('-', "_");
    // The plain build drops clang's compare tracing as it drops rustc's
    // (--no-trace-compares): in a profile of `differential`, libFuzzer's
    // handlers for the C++ parser's byte compares took 30% of the CPU.
    let flags = if asan {
        "-fsanitize=fuzzer-no-link,address"
    } else {
        "-fsanitize=fuzzer-no-link -fno-sanitize-coverage=trace-cmp"
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
        if target_dir != fuzz_dir().join("target") {
            cmd.arg("--target-dir").arg(target_dir);
        }
        if !asan {
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
            .env(format!("CXXFLAGS_{env_triple}"), flags)
            .env("RUSTC_WRAPPER", scope_wrapper())
            .env("REPDIFF_FUZZ_SCOPE_ADD", add);
        log::info!(
            "fuzz build: RUSTC_WRAPPER=fuzz/tools/coverage-scope REPDIFF_FUZZ_SCOPE_ADD={add:?} CXX={clang} CXXFLAGS={flags} cargo +nightly fuzz build -O --sanitizer {} --target-dir {}{} {}",
            if asan { "address" } else { "none" },
            target_dir.strip_prefix(root()).unwrap_or(target_dir).display(),
            if asan { "" } else { " --no-trace-compares" },
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

/// The differential targets, parsing crates only in scope, then `robust`
/// with the generator in scope as well.
pub fn build_plain(clang: &str) -> Result<(), String> {
    let target = fuzz_dir().join("target");
    cargo_fuzz_build(clang, false, &target, "", fuzzcore::DIFFERENTIAL_TARGETS)?;
    cargo_fuzz_build(
        clang,
        false,
        &fuzz_dir().join("target/robust"),
        "fuzzcore",
        &[fuzzcore::ROBUST_BIN],
    )
}

pub fn build_asan(clang: &str, targets: &[&str]) -> Result<(), String> {
    cargo_fuzz_build(clang, true, &fuzz_dir().join("target/asan"), "", targets)
}

pub fn build_all(clang: &str) -> Result<(), String> {
    build_plain(clang)?;
    build_asan(clang, ASAN_TARGETS)
}
