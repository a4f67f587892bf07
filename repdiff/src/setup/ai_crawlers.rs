//! Setup step `ai-crawlers`: the AI-crawler list the census, `lint
//! --ai-crawlers` and `serve` ask by, PyPI's `ai-crawler-index` (pinned in
//! `census::ai_crawlers`), its `data.json` extracted to
//! `<cache>/ai-crawlers/ai-crawler-index-<version>.json`.
//!
//! Third-party data, so never committed: fetched with pip pinned by
//! `--require-hashes`, the wheel checked again here, the member read out
//! of it with Python's own `zipfile`.

use super::{run, verified, verify, Ctx, Result};
use census::ai_crawlers::{MEMBER, PACKAGE, VERSION, WHEEL, WHEEL_SHA256};
use std::process::Command;

const PIECE: &str = "ai-crawlers";

pub fn ensure(ctx: &Ctx, verbose: bool) -> Result<()> {
    let list = crate::datasets::ai_crawler_list(&ctx.cache);
    let base = ctx.cache.join("ai-crawlers");
    let wheel = base.join(WHEEL);
    if list.is_file() && verified(&wheel, WHEEL_SHA256) {
        if verbose {
            log::info!("ai-crawlers: {} present", list.display());
        }
        return Ok(());
    }
    let fix = format!("rm -rf {} && {} setup", base.display(), ctx.program);
    std::fs::create_dir_all(&base).map_err(|e| {
        ctx.err(
            PIECE,
            format!("cannot create {}: {e}", base.display()),
            "check permissions on the cache folder (or set REPDIFF_CACHE)",
        )
    })?;
    let python = std::env::var("REPDIFF_SETUP_PYTHON").unwrap_or_else(|_| "python3".into());
    if !verified(&wheel, WHEEL_SHA256) {
        let req = base.join("requirements.txt");
        std::fs::write(
            &req,
            format!("{PACKAGE}=={VERSION} --hash=sha256:{WHEEL_SHA256}\n"),
        )
        .map_err(|e| ctx.err(PIECE, format!("cannot write {}: {e}", req.display()), &fix))?;
        run(
            ctx,
            PIECE,
            Command::new(&python)
                .args([
                    "-m",
                    "pip",
                    "download",
                    "--quiet",
                    "--disable-pip-version-check",
                ])
                .args([
                    "--no-deps",
                    "--only-binary",
                    ":all:",
                    "--require-hashes",
                    "-r",
                ])
                .arg(&req)
                .arg("-d")
                .arg(&base),
            &format!("check that PyPI is reachable, then {fix}"),
        )?;
        log::info!("ai-crawlers: fetched {PACKAGE}=={VERSION} from PyPI (sha256 {WHEEL_SHA256})");
    }
    verify(ctx, PIECE, &wheel, WHEEL_SHA256)?;
    let partial = base.join(".data.json.partial");
    run(
        ctx,
        PIECE,
        Command::new(&python)
            .args([
                "-c",
                "import sys, zipfile; open(sys.argv[3], 'wb').write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))",
            ])
            .arg(&wheel)
            .arg(MEMBER)
            .arg(&partial),
        &fix,
    )?;
    std::fs::rename(&partial, &list)
        .map_err(|e| ctx.err(PIECE, format!("cannot move the list into place: {e}"), &fix))?;
    census::ai_crawlers::load(&list).map_err(|why| ctx.err(PIECE, why.to_string(), &fix))?;
    log::info!("ai-crawlers: the list is {}", list.display());
    Ok(())
}
