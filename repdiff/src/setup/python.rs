//! Setup of the Python oracles (`cpython-3.11`, `cpython-3.15`, `protego`,
//! `protego-0.6.1`):
//!
//! - `.cache/venv`: a venv of the interpreter PyO3 links (pyenv's python3,
//!   recorded at build time as `oracles::python::PYO3_PYTHON`) with
//!   `protego==0.7.0` installed `--require-hashes`;
//! - `.cache/venv-protego-0.6.1`: the same with `protego==0.6.1`;
//! - `.cache/pyodide/`: the npm package `pyodide@315.0.0-alpha.2` (CPython
//!   3.15.0rc1 compiled to wasm; its tarball pinned by sha256), kept whole
//!   for `cargo xtask verify-cpython315`;
//! - `.cache/cpython-3.15.0rc1/urllib/robotparser.py`, extracted from its
//!   `python_stdlib.zip` and pinned by sha256.
//!
//! Idempotent: a piece already present with the right version and hash is
//! left alone.

use super::{run, verified, verify, Ctx, Result};
use oracles::python::pins;
use std::path::{Path, PathBuf};
use std::process::Command;

const PIECE: &str = "python";

pub fn ensure(ctx: &Ctx, verbose: bool) -> Result<()> {
    let python = pyo3_python(ctx)?;
    ensure_venv(
        ctx,
        verbose,
        &python,
        &crate::registry::PipPin {
            venv: pins::PROTEGO_VENV.into(),
            package: "protego".into(),
            version: pins::PROTEGO_VERSION.into(),
            sha256: pins::PROTEGO_WHEEL_SHA256.into(),
            sdist_build: None,
            deps: Vec::new(),
        },
    )?;
    ensure_venv(
        ctx,
        verbose,
        &python,
        &crate::registry::PipPin {
            venv: pins::PROTEGO_061_VENV.into(),
            package: "protego".into(),
            version: pins::PROTEGO_061_VERSION.into(),
            sha256: pins::PROTEGO_061_WHEEL_SHA256.into(),
            sdist_build: None,
            deps: Vec::new(),
        },
    )?;
    let zip = ensure_pyodide(ctx, verbose)?;
    ensure_robotparser_315(ctx, verbose, &python, &zip)
}

/// The interpreter PyO3 was built against: the venvs must be made with it.
pub fn pyo3_python(ctx: &Ctx) -> Result<PathBuf> {
    let python = PathBuf::from(oracles::python::PYO3_PYTHON);
    if oracles::python::PYO3_PYTHON.is_empty() || !python.is_file() {
        return Err(ctx.err(
            PIECE,
            format!(
                "the interpreter PyO3 was built against ({:?}) is not there",
                oracles::python::PYO3_PYTHON
            ),
            "install pyenv's CPython 3.11 (`pyenv install 3.11.7`), set PYO3_PYTHON to its \
             bin/python3 if python3 on PATH is another one, then rebuild and \
             run setup again",
        ));
    }
    Ok(python)
}

fn show(ctx: &Ctx, path: &Path) -> String {
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    path.strip_prefix(&ctx.root)
        .unwrap_or(&path)
        .display()
        .to_string()
}

/// The `home` line of a venv's pyvenv.cfg: the directory of its interpreter.
fn venv_home(venv: &Path) -> Option<PathBuf> {
    let cfg = std::fs::read_to_string(venv.join("pyvenv.cfg")).ok()?;
    cfg.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "home").then(|| PathBuf::from(value.trim()))
    })
}

/// A venv of `python` under the cache holding `package==version`, the
/// wheel checked by pip against `sha256`.
pub fn ensure_venv(
    ctx: &Ctx,
    verbose: bool,
    python: &Path,
    pin: &crate::registry::PipPin,
) -> Result<()> {
    let (venv, package, version, sha256) = (&pin.venv, &pin.package, &pin.version, &pin.sha256);
    let sdist_build = pin.sdist_build.as_ref();
    let dir = ctx.cache.join(venv);
    let piece = format!("{PIECE}: {venv} ({package} {version})");
    let fix = format!("rm -rf {} && {} setup", dir.display(), ctx.program);
    let home_ok = venv_home(&dir).as_deref() == python.parent();
    let dist_info =
        |package: &str, version: &str| format!("{}-{version}.dist-info", package.replace('-', "_"));
    let installed = oracles::python::site_packages(&dir).is_some_and(|site| {
        std::iter::once((package.as_str(), version.as_str()))
            .chain(
                pin.deps
                    .iter()
                    .map(|d| (d.package.as_str(), d.version.as_str())),
            )
            .all(|(p, v)| site.join(dist_info(p, v)).join("RECORD").is_file())
    });
    if home_ok && installed {
        if verbose {
            log::info!("setup: python: {} has {package} {version}", show(ctx, &dir));
        }
        return Ok(());
    }
    std::fs::create_dir_all(&ctx.cache).map_err(|e| {
        ctx.err(
            &piece,
            format!("cannot create {}: {e}", ctx.cache.display()),
            &fix,
        )
    })?;
    run(
        ctx,
        &piece,
        Command::new(python)
            .args(["-m", "venv", "--clear"])
            .arg(&dir),
        &fix,
    )?;
    let pip = |file: &str, line: String, binary_only: bool| -> Result<()> {
        let requirements = dir.join(file);
        std::fs::write(&requirements, line).map_err(|e| {
            ctx.err(
                &piece,
                format!("cannot write {}: {e}", requirements.display()),
                &fix,
            )
        })?;
        let mut cmd = Command::new(dir.join("bin").join("python"));
        cmd.args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-deps",
        ]);
        if binary_only {
            cmd.args(["--only-binary", ":all:"]);
        } else {
            // An sdist, built with the pinned build dependency installed
            // just before: no unpinned download of a build backend.
            cmd.arg("--no-build-isolation");
        }
        cmd.args(["--require-hashes", "-r"]).arg(&requirements);
        run(
            ctx,
            &piece,
            &mut cmd,
            &format!("check that PyPI is reachable, then {fix}"),
        )
        .map(|_| ())
    };
    if let Some(b) = sdist_build {
        pip(
            "repdiff-build-requirements.txt",
            format!("{}=={} --hash=sha256:{}\n", b.package, b.version, b.sha256),
            true,
        )?;
    }
    // The package and its pinned dependencies in one step (--no-deps: pip
    // resolves nothing beyond these lines).
    let mut requirements = format!("{package}=={version} --hash=sha256:{sha256}\n");
    for d in &pin.deps {
        requirements.push_str(&format!(
            "{}=={} --hash=sha256:{}\n",
            d.package, d.version, d.sha256
        ));
    }
    pip(
        "repdiff-requirements.txt",
        requirements,
        sdist_build.is_none(),
    )?;
    log::info!(
        "setup: python: made {} with {} and installed {package}=={version} from PyPI (sha256 {sha256}){}",
        show(ctx, &dir),
        python.display(),
        if pin.deps.is_empty() {
            String::new()
        } else {
            format!(" with {} pinned dependencies", pin.deps.len())
        }
    );
    Ok(())
}

/// The pyodide package, extracted; returns its python_stdlib.zip.
fn ensure_pyodide(ctx: &Ctx, verbose: bool) -> Result<PathBuf> {
    let piece = format!("{PIECE}: pyodide {}", pins::PYODIDE_VERSION);
    let downloads = ctx.cache.join("downloads");
    let tarball = downloads.join(format!(
        "{}-{}.tgz",
        pins::PYODIDE_PACKAGE,
        pins::PYODIDE_VERSION
    ));
    let dir = ctx.cache.join(pins::PYODIDE_DIR);
    let zip = dir.join("python_stdlib.zip");
    let marker = dir.join(".repdiff-tarball-sha256");
    let fix = format!(
        "rm -rf {} {} && {} setup",
        tarball.display(),
        dir.display(),
        ctx.program
    );

    let extracted = std::fs::read_to_string(&marker)
        .is_ok_and(|m| m.trim() == pins::PYODIDE_TARBALL_SHA256)
        && verified(&zip, pins::PYODIDE_STDLIB_ZIP_SHA256);
    if extracted {
        if verbose {
            log::info!(
                "setup: python: {} is pyodide {}",
                show(ctx, &dir),
                pins::PYODIDE_VERSION
            );
        }
        return Ok(zip);
    }

    if !verified(&tarball, pins::PYODIDE_TARBALL_SHA256) {
        fetch_pyodide(ctx, &piece, &downloads, &tarball, &fix)?;
    }

    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| {
        ctx.err(
            &piece,
            format!("cannot create {}: {e}", dir.display()),
            &fix,
        )
    })?;
    run(
        ctx,
        &piece,
        Command::new("tar")
            .arg("-xzf")
            .arg(&tarball)
            .arg("-C")
            .arg(&dir)
            .arg("--strip-components=1"),
        &fix,
    )?;
    verify(ctx, &piece, &zip, pins::PYODIDE_STDLIB_ZIP_SHA256)?;
    std::fs::write(&marker, pins::PYODIDE_TARBALL_SHA256).map_err(|e| {
        ctx.err(
            &piece,
            format!("cannot write {}: {e}", marker.display()),
            &fix,
        )
    })?;
    log::info!(
        "setup: python: extracted pyodide {} into {}",
        pins::PYODIDE_VERSION,
        show(ctx, &dir)
    );
    Ok(zip)
}

/// The pyodide tarball from the npm registry (npm pack, else curl), pinned
/// by its sha256.
fn fetch_pyodide(
    ctx: &Ctx,
    piece: &str,
    downloads: &Path,
    tarball: &Path,
    fix: &str,
) -> Result<()> {
    std::fs::create_dir_all(downloads).map_err(|e| {
        ctx.err(
            piece,
            format!("cannot create {}: {e}", downloads.display()),
            fix,
        )
    })?;
    let _ = std::fs::remove_file(tarball);
    let spec = format!("{}@{}", pins::PYODIDE_PACKAGE, pins::PYODIDE_VERSION);
    // npm checks the registry's integrity (sha512) itself; without npm,
    // curl fetches the same tarball. Either way the sha256 pin decides.
    let via_npm = run(
        ctx,
        piece,
        Command::new("npm")
            .args(["pack", "--silent", &spec, "--pack-destination"])
            .arg(downloads),
        fix,
    );
    let how = match via_npm {
        Ok(_) => "npm pack",
        Err(npm_err) => {
            run(
                ctx,
                piece,
                Command::new("curl")
                    .args(["-fsSL", "-o"])
                    .arg(tarball)
                    .arg(pins::PYODIDE_TARBALL_URL),
                &format!(
                    "install npm (`apt-get install npm`) or curl, check that registry.npmjs.org \
                     is reachable, then {fix}"
                ),
            )
            .map_err(|curl_err| {
                ctx.err(
                    piece,
                    format!("{}\n  and then: {}", npm_err.reason, curl_err.reason),
                    curl_err.fix,
                )
            })?;
            "curl"
        }
    };
    verify(ctx, piece, tarball, pins::PYODIDE_TARBALL_SHA256)?;
    log::info!(
        "setup: python: fetched {spec} from the npm registry with {how} into {} (sha256 {}, integrity {})",
        show(ctx, tarball),
        pins::PYODIDE_TARBALL_SHA256,
        pins::PYODIDE_TARBALL_INTEGRITY
    );
    Ok(())
}

fn ensure_robotparser_315(ctx: &Ctx, verbose: bool, python: &Path, zip: &Path) -> Result<()> {
    let piece = format!(
        "{PIECE}: robotparser.py of CPython {}",
        pins::CPYTHON_315_RELEASE
    );
    let path = ctx.cache.join(pins::ROBOTPARSER_315_PATH);
    if verified(&path, pins::ROBOTPARSER_315_SHA256) {
        if verbose {
            log::info!("setup: python: {} verified", show(ctx, &path));
        }
        return Ok(());
    }
    let fix = format!("rm -rf {} && {} setup", path.display(), ctx.program);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| {
            ctx.err(
                &piece,
                format!("cannot create {}: {e}", parent.display()),
                &fix,
            )
        })?;
    }
    run(
        ctx,
        &piece,
        Command::new(python)
            .args([
                "-I",
                "-c",
                "import sys, zipfile\n\
                 data = zipfile.ZipFile(sys.argv[1]).read('urllib/robotparser.py')\n\
                 open(sys.argv[2], 'wb').write(data)",
            ])
            .arg(zip)
            .arg(&path),
        &fix,
    )?;
    verify(ctx, &piece, &path, pins::ROBOTPARSER_315_SHA256)?;
    log::info!(
        "setup: python: extracted urllib/robotparser.py of CPython {} from {} into {} (sha256 {})",
        pins::CPYTHON_315_RELEASE,
        show(ctx, zip),
        show(ctx, &path),
        pins::ROBOTPARSER_315_SHA256
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    /// xtask's own binaries link libpython: xtask/build.rs must give them the
    /// rpath to the LIBDIR of the interpreter PyO3 was built against.
    #[test]
    fn xtask_embeds_the_python_pyo3_was_built_against() {
        let (version, lib) = oracles::python::runtime().expect("glue loads");
        assert_eq!(
            version,
            oracles::python::PYO3_SYS_VERSION,
            "xtask loaded {lib}: xtask/build.rs lacks the rpath to {}",
            oracles::python::PYO3_LIBDIR
        );
    }
}
