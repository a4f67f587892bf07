//! The Go parsers' own tests, from the module zips the Go module proxy
//! served for the oracles (their go.sum pins each zip): grobotstxt v1.0.3's
//! ginkgo specs and temoto/robotstxt v1.1.2's `go test` tests, each run by a
//! capture script (`oracles/harness/<oracle>/suite/capture_<suite>.py`) against a
//! recording copy of the library in the work folder. The test modules' own
//! dependencies (ginkgo and gomega; testify) are pinned by the go.sum beside
//! each script and downloaded here first, so the capture itself runs offline.

use super::{read_raw, shim, tail, Prepared, PIECE};
use crate::setup::{verify, Ctx, Result};
use crate::suites::model::Raw;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One Go suite: its module in the cache, its test files with their
/// sha256, and the capture script with its Go folder (`suite/go/` of the
/// oracle's directory).
struct GoSuite {
    /// The oracle whose directory holds the capture.
    oracle: &'static str,
    module: &'static str,
    version: &'static str,
    tests: &'static [(&'static str, &'static str)],
    script: &'static str,
}

const GROBOTSTXT: GoSuite = GoSuite {
    oracle: "grobotstxt",
    module: "github.com/jimsmart/grobotstxt",
    version: "v1.0.3",
    tests: &[
        (
            "robots_test.go",
            "ff982045b5ebfd7280d30c9e226f3e90f13a7f21358e3434e15fbc414ff551b4",
        ),
        (
            "robots_private_test.go",
            "4cdf6896d8a80b37671ead665cce555357bb762950c96c581eafd5762bc867d6",
        ),
        (
            "robots_export_test.go",
            "1cbbc5429511fe53b4ec3f76882c3a7dcfdb30d11a8b4e8fad8a914ec69a36d8",
        ),
        (
            "grobotstxt_suite_test.go",
            "48ce2b7b08ddfe5127553f47df520728b6254f0584476f3977d35dea3dda17f8",
        ),
        (
            "examples_test.go",
            "cde958ed89514f31751a253e64b18dd518256a43445f1ff3a307bcc6adae4df7",
        ),
    ],
    script: "capture_grobotstxt.py",
};

const TEMOTO_ROBOTSTXT: GoSuite = GoSuite {
    oracle: "temoto-robotstxt",
    module: "github.com/temoto/robotstxt",
    version: "v1.1.2",
    tests: &[
        (
            "robotstxt_test.go",
            "ccd5a9fab5f1d2ebba9fa86577cefbe5f91ac162a9e5212a6147bbc0d605cb0f",
        ),
        (
            "google_test.go",
            "204e3c064c80bb6692ffd154c4355c0f0c4be91b8731096d03ca471b4c847151",
        ),
        (
            "scanner_test.go",
            "e5a8752e4ef65980de13550c848d65bb5ea26fe9572fb82a0f34c42b8e0bc30e",
        ),
    ],
    script: "capture_temoto_robotstxt.py",
};

fn module_dir(ctx: &Ctx, s: &GoSuite) -> PathBuf {
    ctx.cache
        .join("gomod")
        .join(format!("{}@{}", s.module, s.version))
}

fn go_env<'a>(cmd: &'a mut Command, ctx: &Ctx) -> &'a mut Command {
    cmd.env("GOFLAGS", "-mod=readonly")
        .env("GOMODCACHE", ctx.cache.join("gomod"))
        .env("GOCACHE", ctx.cache.join("gobuild"))
        .env("GOSUMDB", "off")
        .env("GOTOOLCHAIN", "local")
}

fn prepare(ctx: &Ctx, s: &GoSuite) -> Result<Prepared> {
    let dir = module_dir(ctx, s);
    let shim_dir = shim(ctx, s.oracle, "go");
    let fix = format!(
        "{} setup (the Go oracles' build fetches the module)",
        ctx.program
    );
    let fix = fix.as_str();
    // The test modules' dependencies, pinned by the shim's go.sum.
    super::super::run(
        ctx,
        PIECE,
        go_env(
            Command::new("go")
                .current_dir(&shim_dir)
                .args(["mod", "download"]),
            ctx,
        ),
        &format!(
            "check that go works and the Go module proxy is reachable, then {} setup",
            ctx.program
        ),
    )?;
    let mut files = Vec::new();
    for (name, sha) in s.tests {
        let path = dir.join(name);
        verify(ctx, PIECE, &path, sha).map_err(|mut e| {
            e.fix = fix.into();
            e
        })?;
        files.push((
            format!("Go module {}@{} {name}", s.module, s.version),
            path,
            sha.to_string(),
        ));
    }
    let mut shims = vec![
        shim(ctx, s.oracle, s.script),
        super::shared_shim(ctx, "go_capture.py"),
    ];
    let mut go_files: Vec<PathBuf> = std::fs::read_dir(&shim_dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    go_files.sort();
    shims.extend(go_files);
    Ok(Prepared {
        files,
        shims,
        source: format!(
            "the tests of the Go module {}@{} (the zip the Go module proxy serves, pinned by the oracle's go.sum)",
            s.module, s.version
        ),
        runtime: go_version(),
        notes: vec![format!(
            "{}'s tests call the library directly with a path or URL; the oracle feeds it as its crawler does",
            s.module
        )],
    })
}

fn capture(ctx: &Ctx, s: &GoSuite, work: &Path) -> Result<Raw> {
    let out_file = work.join("capture.json");
    let mut cmd = Command::new("python3");
    cmd.arg(shim(ctx, s.oracle, s.script))
        .arg(module_dir(ctx, s))
        .arg(work.join("run"))
        .arg(&out_file)
        // The script imports go_capture.py from the checkout: no
        // __pycache__ may be left there.
        .env("PYTHONDONTWRITEBYTECODE", "1");
    let out = go_env(&mut cmd, ctx)
        .output()
        .map_err(|e| ctx.err(PIECE, format!("cannot run python3: {e}"), "install python3"))?;
    read_raw(ctx, &out_file, s.script, &tail(&out))
}

fn go_version() -> String {
    Command::new("go")
        .arg("version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

pub fn prepare_grobotstxt(ctx: &Ctx, _verbose: bool) -> Result<Prepared> {
    prepare(ctx, &GROBOTSTXT)
}

pub fn capture_grobotstxt(ctx: &Ctx, _p: &Prepared, work: &Path) -> Result<Raw> {
    capture(ctx, &GROBOTSTXT, work)
}

pub fn prepare_temoto_robotstxt(ctx: &Ctx, _verbose: bool) -> Result<Prepared> {
    prepare(ctx, &TEMOTO_ROBOTSTXT)
}

pub fn capture_temoto_robotstxt(ctx: &Ctx, _p: &Prepared, work: &Path) -> Result<Raw> {
    capture(ctx, &TEMOTO_ROBOTSTXT, work)
}
