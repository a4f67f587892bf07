//! `cargo xtask verify-google`: build Google's own `robots_test.cc` against
//! the very robots.cc the `google` oracle compiles (same cache folder, same
//! `-std=c++17 -O2`, same Debian abseil), link Debian's gtest, run it, and
//! fail unless every test passes. This is the proof that our build of the
//! library is faithful: upstream's expectations hold on this machine.

use oracles::google::pins;
use repdiff::cli::Usage;
use repdiff::setup::{self, google, verify, Ctx, SetupError};
use std::process::Command;

pub const HELP: &str = "\
Compiles Google's own robots_test.cc against the robots.cc that the `google`
oracle is built from (.cache/google, same -std=c++17 -O2, Debian abseil), links
Debian's gtest, runs it into .cache/google/build/ and fails unless all 21 tests
pass. Needs `cargo xtask setup`.";

const PIECE: &str = "verify-google";
/// How many tests the pinned robots_test.cc defines.
const EXPECTED_TESTS: usize = 21;

pub fn main() -> Result<i32, Usage> {
    Ok(match verify_google(&Ctx::new()) {
        Ok(()) => 0,
        Err(e) => {
            log::error!("{e}");
            1
        }
    })
}

fn verify_google(ctx: &Ctx) -> Result<(), SetupError> {
    let dir = google::dir(ctx);
    if !google::present(ctx) {
        return Err(ctx.err(
            PIECE,
            format!("Google's sources are not in {}", dir.display()),
            "cargo xtask setup",
        ));
    }
    // Check again, naming the file that is off.
    for (name, sha) in pins::FILES {
        verify(ctx, PIECE, &dir.join(name), sha)?;
    }

    let build = dir.join("build");
    std::fs::create_dir_all(&build).map_err(|e| {
        ctx.err(
            PIECE,
            format!("cannot create {}: {e}", build.display()),
            "check permissions on the cache folder (or set REPDIFF_CACHE)",
        )
    })?;
    let exe = build.join("robots_test");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    log::info!(
        "verify-google: compiling robots_test.cc + robots.cc with {cxx} -std=c++17 -O2 (gtest, abseil from Debian)"
    );
    setup::run(
        ctx,
        PIECE,
        Command::new(&cxx)
            .args(["-std=c++17", "-O2", "-I"])
            .arg(&dir)
            .arg(dir.join("robots.cc"))
            .arg(dir.join("robots_test.cc"))
            .arg("-o")
            .arg(&exe)
            .args([
                "-labsl_strings",
                "-labsl_strings_internal",
                "-labsl_int128",
                "-labsl_raw_logging_internal",
                "-labsl_throw_delegate",
                "-lgtest_main",
                "-lgtest",
                "-pthread",
            ]),
        "apt-get install -y g++ libabsl-dev libgtest-dev",
    )?;

    log::info!("verify-google: running {}", exe.display());
    let out = Command::new(&exe).output().map_err(|e| {
        ctx.err(
            PIECE,
            format!("cannot run {}: {e}", exe.display()),
            "cargo xtask verify-google",
        )
    })?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let passed = count_after(&stdout, "[  PASSED  ] ");
    let failed: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("[  FAILED  ] RobotsUnittest."))
        .collect();
    if !out.status.success() || !failed.is_empty() || passed != Some(EXPECTED_TESTS) {
        let tail: Vec<&str> = stdout.lines().rev().take(30).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(ctx.err(
            PIECE,
            format!(
                "Google's robots_test.cc did not pass {EXPECTED_TESTS}/{EXPECTED_TESTS} (exit {}, passed {}, failed {}):\n    {}",
                out.status,
                passed.map_or("?".into(), |n| n.to_string()),
                failed.len(),
                tail.join("\n    ")
            ),
            "our build of robots.cc is not faithful: check the compiler and abseil versions",
        ));
    }
    crate::output::line(format_args!(
        "verify-google: Google's robots_test.cc against robots.cc sha256 {}",
        pins::ROBOTS_CC_SHA256
    ));
    crate::output::line(format_args!(
        "verify-google: {EXPECTED_TESTS} passed, 0 failed"
    ));
    Ok(())
}

/// gtest's `[  PASSED  ] 21 tests.` line, as a number.
fn count_after(stdout: &str, prefix: &str) -> Option<usize> {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}
