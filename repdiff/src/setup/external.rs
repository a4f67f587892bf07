//! Setup of the external oracles (`oracles/harness/<name>/oracle.yaml`): each
//! entry's `install` pins what it needs from a registry (npm, PyPI, Debian,
//! crates.io through a Cargo.lock); this step fetches and checks it.
//! Idempotent like the rest of setup.

use super::{run, Ctx, Result};
use crate::registry::{self, AptPin, CargoPin, NpmPin, PipPin};
use std::process::Command;

const PIECE: &str = "external";

pub fn ensure(ctx: &Ctx, verbose: bool) -> Result<()> {
    let externals =
        registry::externals().map_err(|e| ctx.err(PIECE, e.0, "fix the oracle.yaml it names"))?;
    let apt: Vec<&AptPin> = externals.iter().flat_map(|e| &e.install.apt).collect();
    ensure_apt(ctx, verbose, &apt)?;
    let mut errors = Vec::new();
    for e in &externals {
        let i = &e.install;
        let r = i
            .npm
            .as_ref()
            .map_or(Ok(()), |p| ensure_npm(ctx, verbose, p))
            .and_then(|()| {
                i.pip
                    .as_ref()
                    .map_or(Ok(()), |p| ensure_pip(ctx, verbose, p))
            })
            .and_then(|()| {
                i.cargo
                    .as_ref()
                    .map_or(Ok(()), |p| ensure_cargo(ctx, verbose, &e.name, p))
            })
            .and_then(|()| {
                i.maven.as_ref().map_or(Ok(()), |p| {
                    super::jvm_go::ensure_maven(ctx, verbose, &e.name, p)
                })
            })
            .and_then(|()| {
                i.go.as_ref().map_or(Ok(()), |p| {
                    super::jvm_go::ensure_go(ctx, verbose, &e.name, p)
                })
            });
        if let Err(err) = r {
            errors.push(err);
        }
    }
    // One error is enough to say what to fix; the rest are printed.
    let mut errors = errors.into_iter();
    match errors.next() {
        None => Ok(()),
        Some(first) => {
            for e in errors {
                log::error!("{e}");
            }
            Err(first)
        }
    }
}

/// `dpkg-query`'s version of an installed package, if any.
fn installed_version(package: &str) -> Option<String> {
    let out = Command::new("dpkg-query")
        .args(["-W", "-f=${Status}|${Version}", package])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (status, version) = text.split_once('|')?;
    status.ends_with(" installed").then(|| version.to_string())
}

/// Debian packages at their pinned versions (as root; otherwise the command).
fn ensure_apt(ctx: &Ctx, verbose: bool, pins: &[&AptPin]) -> Result<()> {
    let missing: Vec<String> = pins
        .iter()
        .filter(|p| installed_version(&p.package).as_deref() != Some(p.version.as_str()))
        .map(|p| format!("{}={}", p.package, p.version))
        .collect();
    if missing.is_empty() {
        if verbose {
            log::info!("setup: external: Debian packages present at their pinned versions");
        }
        return Ok(());
    }
    let fix = format!(
        "apt-get update && apt-get install -y --no-install-recommends {}",
        missing.join(" ")
    );
    if !super::is_root() {
        return Err(ctx.err(PIECE, format!("missing: {}", missing.join(", ")), fix));
    }
    log::info!("setup: external: apt-get install {}", missing.join(" "));
    super::apt_install(ctx, PIECE, &["--no-install-recommends"], &missing, &fix)
}

/// The integrity npm recorded for `package` in the cache's hidden lockfile.
fn npm_locked_integrity(ctx: &Ctx, package: &str) -> Option<String> {
    let lock = ctx.cache.join("npm/node_modules/.package-lock.json");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(lock).ok()?).ok()?;
    let entry = &v["packages"][format!("node_modules/{package}")];
    Some(entry["integrity"].as_str()?.to_string())
}

/// `npm install package@version` into `<cache>/npm`; npm checks the
/// tarball against the registry's integrity, and we check that integrity
/// against the pin.
pub(super) fn ensure_npm(ctx: &Ctx, verbose: bool, pin: &NpmPin) -> Result<()> {
    let dir = ctx.cache.join("npm");
    let piece = format!("{PIECE}: npm {}@{}", pin.package, pin.version);
    let fix = format!(
        "rm -rf {} && {} setup",
        dir.display(),
        crate::cli::program()
    );
    let version_ok = std::fs::read(
        dir.join("node_modules")
            .join(&pin.package)
            .join("package.json"),
    )
    .ok()
    .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
    .is_some_and(|v| v["version"] == pin.version.as_str());
    if version_ok && npm_locked_integrity(ctx, &pin.package).as_deref() == Some(&pin.integrity) {
        if verbose {
            log::info!(
                "setup: external: npm {}@{} present",
                pin.package,
                pin.version
            );
        }
        return Ok(());
    }
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
        Command::new("npm")
            .current_dir(&dir)
            .args([
                "install",
                "--no-audit",
                "--no-fund",
                "--save-exact",
                "--prefix",
            ])
            .arg(&dir)
            .arg(format!("{}@{}", pin.package, pin.version)),
        &format!("check that node/npm work and the npm registry is reachable, then {fix}"),
    )?;
    match npm_locked_integrity(ctx, &pin.package) {
        Some(i) if i == pin.integrity => {}
        got => {
            let _ = std::fs::remove_dir_all(dir.join("node_modules").join(&pin.package));
            return Err(ctx.err(
                &piece,
                format!(
                    "integrity mismatch: pinned {}, npm installed {got:?}",
                    pin.integrity
                ),
                fix,
            ));
        }
    }
    log::info!(
        "setup: external: npm installed {}@{} (integrity {})",
        pin.package,
        pin.version,
        pin.integrity
    );
    Ok(())
}

/// A venv of the same CPython as the embedded oracles, holding the pin.
fn ensure_pip(ctx: &Ctx, verbose: bool, pin: &PipPin) -> Result<()> {
    let python = super::python::pyo3_python(ctx)?;
    super::python::ensure_venv(ctx, verbose, &python, pin)
}

/// A Rust harness with its own Cargo.lock, built `--locked` into the cache
/// (`REPDIFF_CACHE` set, so a build script that reads setup's sources, as
/// Google's does, finds this cache).
pub(super) fn ensure_cargo(ctx: &Ctx, verbose: bool, name: &str, pin: &CargoPin) -> Result<()> {
    let manifest = ctx.root.join(&pin.manifest);
    let binary = ctx.cache.join(&pin.binary);
    let piece = format!("{PIECE}: {name} (cargo build of {})", pin.manifest);
    let target = binary
        .parent()
        .and_then(|p| p.parent())
        .map(std::path::Path::to_path_buf)
        .unwrap_or_else(|| ctx.cache.join("target"));
    let fix = format!(
        "cargo build --release --locked --manifest-path {} --target-dir {}",
        manifest.display(),
        target.display()
    );
    let first = !binary.is_file();
    if verbose || first {
        log::info!("setup: building {name} (cargo, --locked; the first build takes minutes)");
    }
    // Always ask cargo: it rebuilds only when the harness changed. Its
    // progress goes to the terminal: the first build takes minutes.
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--locked", "--manifest-path"])
        .arg(&manifest)
        .args(if first { None } else { Some("--quiet") })
        .arg("--target-dir")
        .arg(&target)
        .env("REPDIFF_CACHE", &ctx.cache)
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| ctx.err(&piece, format!("cannot run cargo: {e}"), &fix))?;
    if !status.success() {
        return Err(ctx.err(&piece, format!("cargo build exited with {status}"), fix));
    }
    if !binary.is_file() {
        return Err(ctx.err(
            &piece,
            format!("{} is missing after the build", binary.display()),
            fix,
        ));
    }
    Ok(())
}
