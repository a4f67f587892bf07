//! The Python suites: CPython 3.11.7's own `test_robotparser.py` (from the
//! runtime's `test` package, the very interpreter the `cpython-3.11` oracle
//! embeds), protego 0.7.0's, robotspy 0.13.0's and robotexclusionrulesparser
//! 1.7.1's tests (from their PyPI sdists). Each runs under pytest in
//! `.cache/venv-suites` with the `capture_py` plugin, importing the parser
//! from the oracle's own install.

use super::{io_err, read_raw, shared_shim, tail, Prepared, PIECE};
use crate::setup::{python::pyo3_python, run, verified, verify, Ctx, Result};
use crate::suites::model::Raw;
use std::path::{Path, PathBuf};
use std::process::Command;

/// pytest and its dependencies, pinned (`pip --require-hashes --no-deps`).
const PYTEST_REQUIREMENTS: &str = "\
pytest==8.3.4 --hash=sha256:50e16d954148559c9a74109af1eaf0c945ba2d8f30f0a3d3335edde19788b6f6
pluggy==1.7.0 --hash=sha256:7dd7b0d8832ba3cb632c306926ded123429211b83641b35dc5c41ad2d34f9bec
iniconfig==2.3.1 --hash=sha256:9121e2c1fdb355232495be3194c8dfe87ccc2d5dee45947b78e68f499790d7a7
packaging==26.4 --hash=sha256:81383611a09c1bc0b08b76e0fd5829d7c6824c65b27a6aee339da133f4233ea2
";
const VENV: &str = "venv-suites";

/// CPython 3.11.7's `Lib/test/test_robotparser.py`, as installed by pyenv.
const CPYTHON_TEST_SHA256: &str =
    "98f9a9b46735fbe1f08c8fc7b455408977cb6f3ece63bec64adefd45bac6fc67";
const PROTEGO_SDIST: (&str, &str, &str) = (
    "protego",
    "0.7.0",
    "2c032d9736a1f4f0c4318f3558353ae34da5cd038f1a5e064ded7548df315e5a",
);
const ROBOTSPY_SDIST: (&str, &str, &str) = (
    "robotspy",
    "0.13.0",
    "dfd60d49647eeeb88b401ff21fd3a7c62aea5c43f6ffd9c4b883e780ef1361bb",
);

/// The sdist of robotexclusionrulesparser 1.7.1 (PyPI has no wheel), the
/// very file the `robotexclusionrulesparser` oracle's registry entry builds
/// its venv from; `prepare_rerp` refuses if the two pins part.
const RERP_SDIST: (&str, &str, &str) = (
    "robotexclusionrulesparser",
    "1.7.1",
    "d23aa14ae8145c13c95612d696736bad52a4bd0819ce8c9437ee745098fb8388",
);
const RERP_ORACLE: &str = "robotexclusionrulesparser";
const RERP_VENV: &str = "venv-robotexclusionrulesparser";

fn runtime() -> String {
    "CPython 3.11.7 (pyenv), pytest 8.3.4".into()
}

pub fn prepare_cpython(ctx: &Ctx, verbose: bool) -> Result<Prepared> {
    ensure_pytest(ctx, verbose)?;
    let python = pyo3_python(ctx)?;
    let test = python
        .parent()
        .and_then(Path::parent)
        .map(|p| p.join("lib/python3.11/test/test_robotparser.py"))
        .unwrap_or_default();
    verify(ctx, PIECE, &test, CPYTHON_TEST_SHA256)?;
    Ok(Prepared {
        files: vec![(
            "CPython 3.11.7 Lib/test/test_robotparser.py".into(),
            test,
            CPYTHON_TEST_SHA256.into(),
        )],
        shims: vec![shared_shim(ctx, "capture_py.py")],
        source: "CPython 3.11.7's own Lib/test/test_robotparser.py (the runtime's `test` package)"
            .into(),
        runtime: runtime(),
        notes: vec!["tests that read robots.txt from a local HTTP server decide by status code; their calls are skipped".into()],
    })
}

pub fn capture_cpython(ctx: &Ctx, p: &Prepared, work: &Path) -> Result<Raw> {
    let test = &p.files[0].1;
    let copy = work.join("test_robotparser.py");
    std::fs::copy(test, &copy).map_err(|e| io_err(ctx, &copy, e))?;
    // Relative to the work folder, so test ids do not name the checkout.
    let args = [
        "--rootdir".to_string(),
        ".".into(),
        "test_robotparser.py".into(),
    ];
    pytest(ctx, "cpython", work, &args, None)
}

pub fn prepare_protego(ctx: &Ctx, verbose: bool) -> Result<Prepared> {
    sdist_prepared(ctx, verbose, PROTEGO_SDIST)
}

pub fn capture_protego(ctx: &Ctx, p: &Prepared, work: &Path) -> Result<Raw> {
    let tests = extract(ctx, &p.files[0].1, work, "protego-0.7.0")?;
    let site = site_packages(&ctx.cache.join(oracles::python::pins::PROTEGO_VENV));
    pytest(
        ctx,
        "protego",
        work,
        &[tests.display().to_string()],
        Some(&site),
    )
}

pub fn prepare_robotspy(ctx: &Ctx, verbose: bool) -> Result<Prepared> {
    let mut p = sdist_prepared(ctx, verbose, ROBOTSPY_SDIST)?;
    p.notes.push(
        "the sdist lacks tests/core.py, which five of its seven test files import: \
         those files cannot be collected and are listed as not passed"
            .into(),
    );
    Ok(p)
}

pub fn capture_robotspy(ctx: &Ctx, p: &Prepared, work: &Path) -> Result<Raw> {
    let tests = extract(ctx, &p.files[0].1, work, "robotspy-0.13.0")?;
    let site = site_packages(&ctx.cache.join("venv-robotspy"));
    pytest(
        ctx,
        "robotspy",
        work,
        &[
            "--continue-on-collection-errors".into(),
            tests.display().to_string(),
        ],
        Some(&site),
    )
}

fn sdist_prepared(ctx: &Ctx, verbose: bool, pin: (&str, &str, &str)) -> Result<Prepared> {
    let python = ensure_pytest(ctx, verbose)?;
    let file = fetch_sdist(ctx, &python, &[], pin)?;
    Ok(sdist_record(ctx, pin, file))
}

/// The pinned sdist in `.cache/suites/sdist`, downloaded (not installed) by
/// `python`'s pip with `extra` arguments unless already there and verified.
fn fetch_sdist(
    ctx: &Ctx,
    python: &Path,
    extra: &[&str],
    pin: (&str, &str, &str),
) -> Result<PathBuf> {
    let (package, version, sha) = pin;
    let file = ctx
        .cache
        .join("suites/sdist")
        .join(format!("{package}-{version}.tar.gz"));
    if verified(&file, sha) {
        return Ok(file);
    }
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    std::fs::create_dir_all(&dir).map_err(|e| io_err(ctx, &dir, e))?;
    let req = dir.join(format!("{package}.requirements.txt"));
    std::fs::write(&req, format!("{package}=={version} --hash=sha256:{sha}\n"))
        .map_err(|e| io_err(ctx, &req, e))?;
    run(
        ctx,
        PIECE,
        Command::new(python)
            .args(["-m", "pip", "download", "--quiet", "--no-deps"])
            .args(["--disable-pip-version-check"])
            .args(extra)
            .args(["--no-binary", ":all:", "--require-hashes", "-d"])
            .arg(&dir)
            .arg("-r")
            .arg(&req),
        &format!("check that PyPI is reachable, then {} setup", ctx.program),
    )?;
    verify(ctx, PIECE, &file, sha)?;
    log::info!("setup: suites: fetched the {package} {version} sdist (sha256 {sha})");
    Ok(file)
}

fn sdist_record(ctx: &Ctx, pin: (&str, &str, &str), file: PathBuf) -> Prepared {
    let (package, version, sha) = pin;
    Prepared {
        files: vec![(
            format!("PyPI sdist {package}-{version}.tar.gz"),
            file,
            sha.into(),
        )],
        shims: vec![shared_shim(ctx, "capture_py.py")],
        source: format!("the tests/ of the PyPI sdist {package} {version}"),
        runtime: runtime(),
        notes: Vec::new(),
    }
}

/// robotexclusionrulesparser's sdist. pip cannot download an sdist without
/// preparing its metadata, which needs a build backend: it runs from the
/// oracle's own venv, where setup installed the registry's pinned
/// setuptools wheel, with `--no-build-isolation`, so nothing unpinned is
/// fetched.
pub fn prepare_rerp(ctx: &Ctx, verbose: bool) -> Result<Prepared> {
    ensure_pytest(ctx, verbose)?;
    let pin = rerp_registry_pin(ctx)?;
    let venv = ctx.cache.join(RERP_VENV);
    let builder = pin.sdist_build.as_ref().map(|b| {
        site_packages(&venv)
            .join(format!("{}-{}.dist-info", b.package, b.version))
            .join("RECORD")
    });
    if !builder.as_deref().is_some_and(Path::is_file) {
        return Err(ctx.err(
            PIECE,
            format!(
                "{RERP_ORACLE}: {} has no pinned build backend to prepare the sdist with",
                venv.display()
            ),
            format!("rm -rf {} && {} setup", venv.display(), ctx.program),
        ));
    }
    let python = venv.join("bin/python");
    let file = fetch_sdist(ctx, &python, &["--no-build-isolation"], RERP_SDIST)?;
    let mut p = sdist_record(ctx, RERP_SDIST, file);
    p.notes = vec![
        "the oracle is fed as Scrapy's RerpRobotParser, which asks is_allowed with the default \
         GYM2008 syntax: test_classic_syntax's two MK1996-syntax calls are skipped"
            .into(),
        "test_fetch.py reads robots.txt from a local HTTP server (or decides by its status \
         code) and checks expiration dates: its calls are skipped, as are crawl-delay and \
         sitemap reads"
            .into(),
    ];
    Ok(p)
}

/// The oracle's pip pin from the registry, which must be this suite's
/// sdist in this venv: the tests have to be those of the library they run.
fn rerp_registry_pin(ctx: &Ctx) -> Result<crate::registry::PipPin> {
    let fix = format!(
        "make oracles/harness/robotexclusionrulesparser/oracle.yaml and \
               RERP_SDIST in repdiff/src/setup/suites/python.rs agree, then {} setup",
        ctx.program
    );
    let externals = crate::registry::externals()
        .map_err(|e| ctx.err(PIECE, e.0, "fix the oracle.yaml it names"))?;
    let pin = externals
        .iter()
        .find(|e| e.name == RERP_ORACLE)
        .and_then(|e| e.install.pip.clone())
        .ok_or_else(|| {
            ctx.err(
                PIECE,
                format!("no pip install for {RERP_ORACLE}"),
                fix.clone(),
            )
        })?;
    let (package, version, sha) = RERP_SDIST;
    let same = pin.venv == RERP_VENV
        && pin.package == package
        && pin.version == version
        && pin.sha256 == sha;
    if !same {
        return Err(ctx.err(
            PIECE,
            format!(
                "{RERP_ORACLE}: the oracle runs {} {} (sha256 {}) from {}, the suite pins \
                 {package} {version} (sha256 {sha}) from {RERP_VENV}",
                pin.package, pin.version, pin.sha256, pin.venv
            ),
            fix,
        ));
    }
    Ok(pin)
}

pub fn capture_rerp(ctx: &Ctx, p: &Prepared, work: &Path) -> Result<Raw> {
    let tests = extract(ctx, &p.files[0].1, work, "robotexclusionrulesparser-1.7.1")?;
    let site = site_packages(&ctx.cache.join(RERP_VENV));
    pytest(
        ctx,
        "rerp",
        work,
        &[tests.display().to_string()],
        Some(&site),
    )
}

/// `.cache/venv-suites` with pytest, made with the interpreter the Python
/// oracles embed; returns its python.
fn ensure_pytest(ctx: &Ctx, verbose: bool) -> Result<PathBuf> {
    let venv = ctx.cache.join(VENV);
    let python = venv.join("bin/python");
    let marker = venv.join("repdiff-requirements.txt");
    if python.is_file() && std::fs::read_to_string(&marker).is_ok_and(|m| m == PYTEST_REQUIREMENTS)
    {
        return Ok(python);
    }
    if verbose {
        log::info!("setup: suites: creating {}", venv.display());
    }
    let base = pyo3_python(ctx)?;
    let fix = format!("rm -rf {} && {} setup", venv.display(), ctx.program);
    run(
        ctx,
        PIECE,
        Command::new(&base).args(["-m", "venv"]).arg(&venv),
        &fix,
    )?;
    let req = venv.join("requirements.txt");
    std::fs::write(&req, PYTEST_REQUIREMENTS).map_err(|e| io_err(ctx, &req, e))?;
    run(
        ctx,
        PIECE,
        Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-deps",
                "--require-hashes",
                "-r",
            ])
            .arg(&req),
        &format!("check that PyPI is reachable, then {fix}"),
    )?;
    std::fs::write(&marker, PYTEST_REQUIREMENTS).map_err(|e| io_err(ctx, &marker, e))?;
    log::info!(
        "setup: suites: installed pytest 8.3.4 into {}",
        venv.display()
    );
    Ok(python)
}

fn extract(ctx: &Ctx, sdist: &Path, work: &Path, top: &str) -> Result<PathBuf> {
    run(
        ctx,
        PIECE,
        Command::new("tar")
            .arg("xzf")
            .arg(sdist)
            .arg("-C")
            .arg(work),
        &format!("{} setup", ctx.program),
    )?;
    Ok(work.join(top).join("tests"))
}

fn site_packages(venv: &Path) -> PathBuf {
    venv.join("lib/python3.11/site-packages")
}

/// Run pytest with the capture plugin. pytest's own exit status is not an
/// error (a failing test is recorded as such); a missing capture is. The
/// import mode keeps the sdist's own copy of the library off `sys.path`, and
/// the capture must name the library file it patched: it has to be the
/// oracle's install (or, for CPython, the runtime's stdlib).
fn pytest(ctx: &Ctx, kind: &str, work: &Path, args: &[String], site: Option<&Path>) -> Result<Raw> {
    let python = ctx.cache.join(VENV).join("bin/python");
    let out_file = work.join("capture.json");
    let mut path = shared_shim(ctx, "").display().to_string();
    if let Some(site) = site {
        path = format!("{path}:{}", site.display());
    }
    let out = Command::new(&python)
        .current_dir(work)
        .args([
            "-m",
            "pytest",
            "-p",
            "capture_py",
            "-p",
            "no:cacheprovider",
            "-q",
        ])
        .args(["--import-mode=importlib", "-W", "ignore"])
        .args(args)
        .env("PYTHONPATH", path)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("REPDIFF_SUITE_KIND", kind)
        .env("REPDIFF_SUITE_OUT", &out_file)
        .output()
        .map_err(|e| {
            ctx.err(
                PIECE,
                format!("cannot run {}: {e}", python.display()),
                format!("{} setup", ctx.program),
            )
        })?;
    let raw = read_raw(ctx, &out_file, &format!("pytest ({kind})"), &tail(&out))?;
    let library = raw.library.clone().unwrap_or_default();
    let library = std::fs::canonicalize(&library).map_or(library, |p| p.display().to_string());
    let expected = site.map_or("/lib/python3.11/urllib/".to_string(), |s| {
        std::fs::canonicalize(s)
            .unwrap_or_else(|_| s.to_path_buf())
            .display()
            .to_string()
    });
    if !library.contains(&expected) {
        return Err(ctx.err(
            PIECE,
            format!("{kind}: the suite imported its parser from {library}, not from {expected}"),
            format!("{} setup", ctx.program),
        ));
    }
    Ok(raw)
}
