//! What `cargo xtask fuzz` needs besides the repository's own setup: a
//! nightly toolchain, cargo-fuzz and clang. Each check says what it does;
//! what can be installed from a registry is installed, the rest is named.

use std::process::{Command, Stdio};

/// The C++ compiler for Google's robots.cc under libFuzzer (Debian 12's
/// `clang` package provides `clang++-14`; any `clang++` will do).
pub const CLANG_CANDIDATES: &[&str] = &["clang++-14", "clang++"];

fn quiet(cmd: &mut Command) -> bool {
    cmd.stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

/// The clang++ to use, if one is installed.
pub fn find_clang() -> Option<String> {
    CLANG_CANDIDATES
        .iter()
        .find(|c| quiet(Command::new(c).arg("--version")))
        .map(|c| c.to_string())
}

/// Make sure nightly, cargo-fuzz and clang are there. Returns the clang++
/// to use, or every problem with its fix.
pub fn ensure() -> Result<String, Vec<String>> {
    let mut problems = Vec::new();
    let nightly = Command::new("rustup")
        .args(["toolchain", "list"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .is_some_and(|l| l.lines().any(|t| t.starts_with("nightly")));
    if nightly {
        log::info!("fuzz setup: nightly toolchain present");
    } else {
        problems.push(
            "no nightly Rust toolchain (cargo-fuzz needs -Z flags); fix: rustup toolchain install nightly"
                .to_string(),
        );
    }
    if nightly {
        if quiet(Command::new("cargo").args(["+nightly", "fuzz", "--version"])) {
            log::info!("fuzz setup: cargo-fuzz present");
        } else {
            log::info!(
                "fuzz setup: installing cargo-fuzz from crates.io \
                 (`cargo install --locked cargo-fuzz`, about 30 s to 2 min)"
            );
            let ok = Command::new("cargo")
                .args(["install", "--locked", "cargo-fuzz"])
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                problems.push(
                    "cargo install --locked cargo-fuzz failed; fix: run it by hand and read its error"
                        .to_string(),
                );
            }
        }
    }
    let clang = match find_clang() {
        Some(c) => {
            log::info!("fuzz setup: {c} present");
            Some(c)
        }
        None if is_root() => {
            log::info!(
                "fuzz setup: installing Debian's clang (apt-get install -y clang) to compile \
                 Google's robots.cc with -fsanitize=fuzzer-no-link"
            );
            let _ = Command::new("apt-get").args(["update", "-qq"]).status();
            let ok = Command::new("apt-get")
                .args(["install", "-y", "-qq", "clang"])
                .env("DEBIAN_FRONTEND", "noninteractive")
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                problems.push("apt-get install -y clang failed".to_string());
            }
            find_clang()
        }
        None => {
            problems
                .push("no clang++; fix: apt-get update && apt-get install -y clang".to_string());
            None
        }
    };
    match clang {
        Some(c) if problems.is_empty() => Ok(c),
        _ => Err(problems),
    }
}
