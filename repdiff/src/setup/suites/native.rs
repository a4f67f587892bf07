//! The compiled suites.
//!
//! - Google's `robots_test.cc` (from the `jwm-robotstxt` 1.0.8 sdist the
//!   google setup fetches and pins): compiled as `verify-google` does, with
//!   `capture_google.h` force-included into the test file only, so the
//!   suite's `RobotsMatcher` is a subclass that records each answer while
//!   robots.cc is the oracle's file, compiled unchanged. Our own gtest main
//!   (`capture_google.cc`) writes the calls and each test's result.
//! - `texting_robots` 0.2.2 (its crate source, which cargo unpacks for the
//!   `texting-robots` oracle; Cargo.lock pins its checksum): a copy of the
//!   crate whose `Robot::allowed` records each answer, tested with its own
//!   Cargo.lock (`--locked`). libtest names each test's thread after the
//!   test, which is how a call finds its test.

use super::{io_err, read_raw, shim, tail, Prepared, PIECE};
use crate::setup::{google, run, verify, Ctx, Result};
use crate::suites::model::{Raw, RawCall};
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn prepare_google(ctx: &Ctx, _verbose: bool) -> Result<Prepared> {
    let dir = google::dir(ctx);
    let mut files = Vec::new();
    for (name, sha) in oracles::google::pins::FILES {
        let path = dir.join(name);
        verify(ctx, PIECE, &path, sha)?;
        files.push((
            format!("jwm-robotstxt 1.0.8 sdist: {name}"),
            path,
            sha.to_string(),
        ));
    }
    Ok(Prepared {
        files,
        shims: vec![
            shim(ctx, "google", "capture_google.h"),
            shim(ctx, "google", "capture_google.cc"),
        ],
        source: "robots_test.cc of google/robotstxt a732377 (PyPI sdist jwm-robotstxt 1.0.8)"
            .into(),
        runtime: "c++ -std=c++17, Debian gtest and abseil".into(),
        notes: vec![
            "parse-callback tests (line numbers, BOM, sitemap), IsValidUserAgentToObey and the \
             internal GetPathParamsQuery/MaybeEscapePattern are recorded as skipped calls"
                .into(),
        ],
    })
}

pub fn capture_google(ctx: &Ctx, _p: &Prepared, work: &Path) -> Result<Raw> {
    let dir = google::dir(ctx);
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let fix = "apt-get install -y g++ libabsl-dev libgtest-dev";
    let objects = [
        ("robots.o", dir.join("robots.cc"), false, "-O2"),
        ("robots_test.o", dir.join("robots_test.cc"), true, "-O1"),
        (
            "capture.o",
            shim(ctx, "google", "capture_google.cc"),
            false,
            "-O1",
        ),
    ];
    for (obj, src, force, opt) in &objects {
        let mut cmd = Command::new(&cxx);
        cmd.args(["-std=c++17", opt, "-I"])
            .arg(&dir)
            .arg("-I")
            .arg(shim(ctx, "google", ""));
        if *force {
            cmd.args(["-include", "capture_google.h"]);
        }
        cmd.arg("-c").arg(src).arg("-o").arg(work.join(obj));
        run(ctx, PIECE, &mut cmd, fix)?;
    }
    let exe = work.join("robots_test_capture");
    run(
        ctx,
        PIECE,
        Command::new(&cxx)
            .args(objects.iter().map(|(o, ..)| work.join(o)))
            .arg("-o")
            .arg(&exe)
            .args([
                "-labsl_strings",
                "-labsl_strings_internal",
                "-labsl_int128",
                "-labsl_raw_logging_internal",
                "-labsl_throw_delegate",
                "-lgtest",
                "-pthread",
            ]),
        fix,
    )?;
    let out_file = work.join("capture.json");
    let out = Command::new(&exe)
        .arg(&out_file)
        .output()
        .map_err(|e| io_err(ctx, &exe, e))?;
    read_raw(ctx, &out_file, "robots_test (capture build)", &tail(&out))
}

/// The files of texting_robots 0.2.2 that hold its tests, and the two the
/// capture patches or builds with, pinned.
const TEXTING_FILES: &[(&str, &str)] = &[
    (
        "src/lib.rs",
        "8876180435c07e4507581c03130a94dc3353cb65e5176e8d2553fabe4e0ced2e",
    ),
    (
        "src/test.rs",
        "0f4e36f1c75e30a307f50efd83cec27c2af54fe16ed6c169116a05e35e17b8f6",
    ),
    (
        "src/test_repcpp.rs",
        "b1e3249b9541b8331bd2591324a1d9867889b71c96b6cc411e80caf38c31c13c",
    ),
    (
        "src/test_get_robots_url.rs",
        "f80796fa5a72c641cd165ffd43877d827f62d5071ca0baeb79469b5a31ea4058",
    ),
    (
        "tests/integration_test.rs",
        "259ef7fdfcbf27428fad4455e9b4568221a68f1a36d8c1bfc94483d2e7e1cfc8",
    ),
    (
        "Cargo.lock",
        "61599ce403d25b8245c06c839b3c2c10638e6b4f6abe9d42d617ab319da6eeb0",
    ),
];

/// cargo's unpacked source of the crate (CARGO_HOME or ~/.cargo).
fn texting_source(ctx: &Ctx) -> Result<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_default();
    let src = home.join("registry/src");
    let found = std::fs::read_dir(&src).ok().and_then(|entries| {
        entries
            .flatten()
            .map(|e| e.path().join("texting_robots-0.2.2"))
            .find(|p| p.join("Cargo.toml").is_file())
    });
    found.ok_or_else(|| {
        ctx.err(
            PIECE,
            format!(
                "texting_robots 0.2.2's source is not under {}",
                src.display()
            ),
            format!(
                "cargo fetch (the workspace's Cargo.lock pins the crate), then {} setup",
                ctx.program
            ),
        )
    })
}

pub fn prepare_texting(ctx: &Ctx, _verbose: bool) -> Result<Prepared> {
    let src = texting_source(ctx)?;
    let mut files = Vec::new();
    for (name, sha) in TEXTING_FILES {
        let path = src.join(name);
        verify(ctx, PIECE, &path, sha)?;
        files.push((
            format!("crate texting_robots 0.2.2: {name}"),
            path,
            sha.to_string(),
        ));
    }
    Ok(Prepared {
        files,
        shims: vec![shim(ctx, "texting-robots", "texting_robots_record.rs")],
        source:
            "the unit and integration tests of the crate texting_robots 0.2.2 (crates.io source)"
                .into(),
        runtime: "cargo test --locked (the crate's own Cargo.lock), debug build".into(),
        notes: vec![
            "`delay` and `sitemaps` are fields, read without a call: those assertions are not \
             seen, so not counted; doctests are not run"
                .into(),
        ],
    })
}

/// Each patch: the text to find in lib.rs (exactly once) and its replacement.
const TEXTING_PATCHES: &[(&str, &str)] = &[
    (
        "    pub sitemaps: Vec<String>,\n}",
        "    pub sitemaps: Vec<String>,\n    #[doc(hidden)]\n    pub repdiff_source: (String, Vec<u8>),\n}",
    ),
    (
        "pub fn new(agent: &str, txt: &[u8]) -> Result<Self, anyhow::Error> {",
        "pub fn new(agent: &str, txt: &[u8]) -> Result<Self, anyhow::Error> {\n        let repdiff_source = (agent.to_string(), txt.to_vec());",
    ),
    (
        "Ok(Robot { rules, delay, sitemaps })",
        "Ok(Robot { rules, delay, sitemaps, repdiff_source })",
    ),
    (
        "    pub fn allowed(&self, url: &str) -> bool {",
        "    pub fn allowed(&self, url: &str) -> bool {\n        let verdict = self.repdiff_allowed(url);\n        repdiff_record::record(&self.repdiff_source, url, verdict);\n        verdict\n    }\n\n    fn repdiff_allowed(&self, url: &str) -> bool {",
    ),
];

pub fn capture_texting(ctx: &Ctx, _p: &Prepared, work: &Path) -> Result<Raw> {
    let src = texting_source(ctx)?;
    let copy = work.join("texting_robots-0.2.2");
    run(
        ctx,
        PIECE,
        Command::new("cp").arg("-r").arg(&src).arg(&copy),
        &format!("{} setup", ctx.program),
    )?;
    let lib = copy.join("src/lib.rs");
    let mut text = std::fs::read_to_string(&lib).map_err(|e| io_err(ctx, &lib, e))?;
    for (find, replace) in TEXTING_PATCHES {
        if text.matches(find).count() != 1 {
            return Err(ctx.err(
                PIECE,
                format!("texting_robots: `{find}` is not in lib.rs once"),
                "update TEXTING_PATCHES",
            ));
        }
        text = text.replacen(find, replace, 1);
    }
    text.push_str("\n#[path = \"repdiff_record.rs\"]\nmod repdiff_record;\n");
    let write = |path: PathBuf, bytes: &[u8]| {
        std::fs::write(&path, bytes).map_err(|e| io_err(ctx, &path, e))
    };
    write(lib, text.as_bytes())?;
    let record =
        std::fs::read(shim(ctx, "texting-robots", "texting_robots_record.rs")).map_err(|e| {
            io_err(
                ctx,
                &shim(ctx, "texting-robots", "texting_robots_record.rs"),
                e,
            )
        })?;
    write(copy.join("src/repdiff_record.rs"), &record)?;
    // Its own workspace, so cargo does not attach it to ours.
    let manifest = copy.join("Cargo.toml");
    let mut toml = std::fs::read_to_string(&manifest).map_err(|e| io_err(ctx, &manifest, e))?;
    toml.push_str("\n[workspace]\n");
    write(manifest.clone(), toml.as_bytes())?;
    let calls = work.join("calls.jsonl");
    let build = run(
        ctx,
        PIECE,
        Command::new("cargo")
            .current_dir(&copy)
            .args(["test", "--locked", "--lib", "--tests", "--no-run"])
            .args(["--message-format=json-render-diagnostics", "--target-dir"])
            .arg(ctx.cache.join("suites/texting-target")),
        &format!("check that crates.io is reachable (the crate's Cargo.lock is used as is), then {} setup", ctx.program),
    )?;
    let mut raw = Raw::default();
    for exe in test_executables(&build) {
        let out = Command::new(&exe)
            .current_dir(&copy)
            .stdin(std::process::Stdio::null())
            .env("REPDIFF_SUITE_OUT", &calls)
            .output()
            .map_err(|e| io_err(ctx, &exe, e))?;
        record_results(&mut raw, &exe, &out);
    }
    let text = std::fs::read_to_string(&calls).map_err(|e| {
        ctx.err(
            PIECE,
            format!("the tests recorded no call ({e})"),
            format!("{} setup", ctx.program),
        )
    })?;
    for line in text.lines() {
        let call: RawCall = serde_json::from_str(line).map_err(|e| {
            ctx.err(
                PIECE,
                format!("{}: {e}", calls.display()),
                format!("{} setup", ctx.program),
            )
        })?;
        raw.calls.push(call);
    }
    Ok(raw)
}

/// The test programs cargo built, from its JSON messages.
fn test_executables(messages: &str) -> Vec<PathBuf> {
    messages
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        // Not the crate's own binary (built for the integration test), which reads stdin.
        .filter(|v| v["profile"]["test"] == true)
        .filter_map(|v| v["executable"].as_str().map(PathBuf::from))
        .collect()
}

/// libtest's `test NAME ... ok` lines, keyed by test binary like the calls
/// (the file stem without cargo's hash).
fn record_results(raw: &mut Raw, exe: &Path, out: &std::process::Output) {
    let stem = exe
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let binary = stem.rsplit_once('-').map_or(stem.as_str(), |(b, _)| b);
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some(rest) = line.strip_prefix("test ") else {
            continue;
        };
        let Some((name, result)) = rest.rsplit_once(" ... ") else {
            continue;
        };
        let status = if result == "ok" {
            "passed".to_string()
        } else {
            result.to_lowercase()
        };
        raw.tests.insert(format!("{binary}::{name}"), status);
    }
}
