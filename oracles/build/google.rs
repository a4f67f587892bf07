//! Build-script half of the `google` oracle: compile Google's robots.cc (from
//! the setup cache, never committed) plus our C shim, link Debian's abseil,
//! and tell the crate what it was built from.
//!
//! Always emits `REPDIFF_GOOGLE_*` rustc-envs so `src/google.rs` can say either
//! exactly what it runs or exactly why it cannot run. `cfg(repdiff_google)`
//! is set only when the pinned source was compiled.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Set to build from a robots.cc whose hash is not the pinned one (e.g. a
/// newer upstream checkout copied into the cache); its version then says so.
const ALLOW_UNPINNED: &str = "REPDIFF_GOOGLE_ALLOW_UNPINNED";

pub fn build() {
    println!("cargo::rustc-check-cfg=cfg(repdiff_google)");
    println!("cargo::rerun-if-env-changed=REPDIFF_CACHE");
    println!("cargo::rerun-if-env-changed={ALLOW_UNPINNED}");
    println!("cargo::rerun-if-changed=src/google/shim.cc");
    println!("cargo::rerun-if-changed=build/google.rs");

    match try_build() {
        Ok(built) => {
            println!("cargo::rustc-cfg=repdiff_google");
            env("REPDIFF_GOOGLE_ROBOTS_CC_SHA256", &built.robots_cc_sha256);
            env("REPDIFF_GOOGLE_CXX", &built.cxx);
            env("REPDIFF_GOOGLE_ABSL", &built.absl);
            env("REPDIFF_GOOGLE_UNAVAILABLE", "");
            env("REPDIFF_GOOGLE_FIX", "");
        }
        Err((reason, fix)) => {
            env("REPDIFF_GOOGLE_ROBOTS_CC_SHA256", "");
            env("REPDIFF_GOOGLE_CXX", "");
            env("REPDIFF_GOOGLE_ABSL", "");
            env("REPDIFF_GOOGLE_UNAVAILABLE", &reason);
            env("REPDIFF_GOOGLE_FIX", &fix);
        }
    }
}

struct Built {
    robots_cc_sha256: String,
    cxx: String,
    absl: String,
}

fn env(key: &str, value: &str) {
    // rustc-env values end at the newline.
    println!("cargo::rustc-env={key}={}", value.replace('\n', " "));
}

fn cache_dir() -> PathBuf {
    match std::env::var_os("REPDIFF_CACHE") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
            let root = manifest.join("..");
            root.canonicalize().unwrap_or(root).join(".cache")
        }
    }
}

fn sha256_file(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    Some(
        Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
    )
}

fn try_build() -> Result<Built, (String, String)> {
    if std::env::var_os("CARGO_FEATURE_GOOGLE").is_none() {
        return Err((
            "repdiff-oracles was built without its `google` feature".into(),
            "cargo build --features repdiff-oracles/google".into(),
        ));
    }
    let dir = cache_dir().join("google");
    let robots_cc = dir.join("robots.cc");
    let robots_h = dir.join("robots.h");
    // A missing file counts as changed on every build, so once setup has
    // fetched the sources the next build picks them up by itself.
    println!("cargo::rerun-if-changed={}", robots_cc.display());
    println!("cargo::rerun-if-changed={}", robots_h.display());

    let Some(sha) = sha256_file(&robots_cc) else {
        return Err((
            format!(
                "{} is missing (setup has not fetched it)",
                robots_cc.display()
            ),
            String::new(),
        ));
    };
    if !robots_h.exists() {
        return Err((
            format!(
                "{} is missing (setup has not fetched it)",
                robots_h.display()
            ),
            String::new(),
        ));
    }
    let pinned =
        super::pins::row("google", "files", "robots.cc").map_err(|e| (e, String::new()))?;
    if sha != pinned && std::env::var_os(ALLOW_UNPINNED).is_none() {
        return Err((
            format!(
                "{} has sha256 {sha}, not the pinned {pinned}",
                robots_cc.display(),
            ),
            format!("rm -rf {}", dir.display()),
        ));
    }

    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .opt_level(2)
        .include(&dir)
        .file(&robots_cc)
        .file("src/google/shim.cc")
        // Third-party code: its warnings are not ours to fix.
        .warnings(false);
    let compiler = build.get_compiler();
    build.try_compile("repdiff_google").map_err(|e| {
        (
            format!("compiling robots.cc + shim.cc failed: {e}"),
            "apt-get install -y g++ libabsl-dev libgtest-dev".into(),
        )
    })?;
    // Shared libraries from Debian's libabsl-dev (libabsl20220623 at run time).
    for lib in [
        "absl_strings",
        "absl_strings_internal",
        "absl_int128",
        "absl_raw_logging_internal",
        "absl_throw_delegate",
    ] {
        println!("cargo::rustc-link-lib=dylib={lib}");
    }

    Ok(Built {
        robots_cc_sha256: sha,
        cxx: probe_cxx(&compiler),
        absl: probe_absl(),
    })
}

/// The compiler's own first `--version` line, named by its family rather
/// than by how it was invoked (`c++` is g++ on Debian), e.g.
/// `g++ (Debian 12.2.0-14+deb12u1) 12.2.0`.
fn probe_cxx(tool: &cc::Tool) -> String {
    let path = tool.path();
    let line = Command::new(path)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(str::to_string)
        });
    match line {
        // GCC prints `<argv0> (<vendor version>) <version>`.
        Some(line) if tool.is_like_gnu() && !tool.is_like_clang() => match line.find(" (") {
            Some(i) => format!("g++{}", &line[i..]),
            None => format!("g++ {line}"),
        },
        Some(line) => line,
        None => format!("{} (version unknown)", path.display()),
    }
}

/// Debian's package version if dpkg knows it, else the LTS date from the
/// headers, else say we do not know.
fn probe_absl() -> String {
    let dpkg = Command::new("dpkg-query")
        .args(["-W", "-f=${Version}", "libabsl-dev"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|v| !v.is_empty());
    if let Some(v) = dpkg {
        return format!("Debian libabsl-dev {v}");
    }
    let header = std::fs::read_to_string("/usr/include/absl/base/options.h").unwrap_or_default()
        + &std::fs::read_to_string("/usr/include/absl/base/config.h").unwrap_or_default();
    header
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("#define ABSL_LTS_RELEASE_VERSION ")
                .map(|v| format!("abseil LTS {}", v.trim()))
        })
        .unwrap_or_else(|| "abseil of unknown version".into())
}
