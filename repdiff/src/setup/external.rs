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
    // The cargo builds (spider's: minutes of CPU on a first run) go on
    // beside the registry fetches (Maven, npm, PyPI, the Go proxy). On the
    // project's 2-core machines the fetches are CPU-bound too (javac, go
    // build), so the step went only from 236.6 s to 230.3 s on a fresh
    // clone (issue 51); the overlap pays where the network is the wait.
    let mut errors = std::thread::scope(|scope| {
        let builds = scope.spawn(|| {
            externals
                .iter()
                .filter_map(|e| {
                    let pin = e.install.cargo.as_ref()?;
                    ensure_cargo(ctx, verbose, &e.name, pin).err()
                })
                .collect::<Vec<_>>()
        });
        let mut errors: Vec<_> = externals
            .iter()
            .filter_map(|e| fetch(ctx, verbose, e).err())
            .collect();
        match builds.join() {
            Ok(more) => errors.extend(more),
            Err(_) => errors.push(ctx.err(
                PIECE,
                "the cargo builds' thread panicked",
                "run setup again",
            )),
        }
        errors
    })
    .into_iter();
    // One error is enough to say what to fix; the rest are printed.
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

/// One external oracle's registry pieces, in order (its cargo build runs
/// apart, in [`ensure`]).
fn fetch(ctx: &Ctx, verbose: bool, e: &registry::External) -> Result<()> {
    let i = &e.install;
    i.npm
        .as_ref()
        .map_or(Ok(()), |p| ensure_npm(ctx, verbose, p))
        .and_then(|()| {
            i.pip
                .as_ref()
                .map_or(Ok(()), |p| ensure_pip(ctx, verbose, p))
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
        })
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

/// The cache's hidden lockfile (`node_modules/.package-lock.json`).
fn npm_lock(ctx: &Ctx) -> Option<serde_json::Value> {
    let lock = ctx.cache.join("npm/node_modules/.package-lock.json");
    serde_json::from_slice(&std::fs::read(lock).ok()?).ok()
}

/// The integrity npm recorded for `package` in the cache's hidden lockfile.
fn npm_locked_integrity(lock: Option<&serde_json::Value>, package: &str) -> Option<String> {
    let entry = &lock?["packages"][format!("node_modules/{package}")];
    Some(entry["integrity"].as_str()?.to_string())
}

/// The packages of a pin, the main one first: (package, version, integrity).
fn npm_packages(pin: &NpmPin) -> Vec<(&str, &str, &str)> {
    std::iter::once((
        pin.package.as_str(),
        pin.version.as_str(),
        pin.integrity.as_str(),
    ))
    .chain(
        pin.deps
            .iter()
            .map(|d| (d.package.as_str(), d.version.as_str(), d.integrity.as_str())),
    )
    .collect()
}

/// A pinned package's dependency that the pin does not list, or that npm
/// installed as a nested copy of another version (empty: the tree is
/// exactly the pins).
fn npm_unpinned(lock: Option<&serde_json::Value>, pin: &NpmPin) -> Vec<String> {
    let packages = npm_packages(pin);
    let names: Vec<&str> = packages.iter().map(|p| p.0).collect();
    let Some(entries) = lock.and_then(|l| l["packages"].as_object()) else {
        return Vec::new();
    };
    let mut bad = Vec::new();
    for name in &names {
        let deps = entries
            .get(&format!("node_modules/{name}"))
            .and_then(|e| e["dependencies"].as_object());
        for dep in deps.into_iter().flat_map(|d| d.keys()) {
            if !names.contains(&dep.as_str()) {
                bad.push(format!("{name} needs {dep}, which is not pinned"));
            } else if entries.contains_key(&format!("node_modules/{name}/node_modules/{dep}")) {
                bad.push(format!(
                    "{name} got its own copy of {dep}, not the pinned one"
                ));
            }
        }
    }
    bad
}

/// `npm install package@version` (and each pinned dependency at its
/// version) into `<cache>/npm`; npm checks each tarball against the
/// registry's integrity, and we check that integrity against the pin.
pub(super) fn ensure_npm(ctx: &Ctx, verbose: bool, pin: &NpmPin) -> Result<()> {
    let dir = ctx.cache.join("npm");
    let piece = format!("{PIECE}: npm {}@{}", pin.package, pin.version);
    let fix = format!("rm -rf {} && {} setup", dir.display(), ctx.program);
    let packages = npm_packages(pin);
    let version_ok = |package: &str, version: &str| {
        std::fs::read(dir.join("node_modules").join(package).join("package.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .is_some_and(|v| v["version"] == version)
    };
    let lock = npm_lock(ctx);
    let present = packages.iter().all(|(package, version, integrity)| {
        version_ok(package, version)
            && npm_locked_integrity(lock.as_ref(), package).as_deref() == Some(*integrity)
    });
    if present && npm_unpinned(lock.as_ref(), pin).is_empty() {
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
            .args(packages.iter().map(|(p, v, _)| format!("{p}@{v}"))),
        &format!("check that node/npm work and the npm registry is reachable, then {fix}"),
    )?;
    let lock = npm_lock(ctx);
    for (package, _, integrity) in &packages {
        match npm_locked_integrity(lock.as_ref(), package) {
            Some(i) if i == *integrity => {}
            got => {
                let _ = std::fs::remove_dir_all(dir.join("node_modules").join(package));
                return Err(ctx.err(
                    &piece,
                    format!(
                        "{package}: integrity mismatch: pinned {integrity}, npm installed {got:?}"
                    ),
                    fix,
                ));
            }
        }
    }
    let unpinned = npm_unpinned(lock.as_ref(), pin);
    if !unpinned.is_empty() {
        let _ = std::fs::remove_dir_all(dir.join("node_modules").join(&pin.package));
        return Err(ctx.err(
            &piece,
            format!("its tree is not the pinned one: {}", unpinned.join("; ")),
            format!(
                "pin every package of its tree in the oracle's `install: npm: deps:`, then {fix}"
            ),
        ));
    }
    log::info!(
        "setup: external: npm installed {}@{} (integrity {}){}",
        pin.package,
        pin.version,
        pin.integrity,
        if pin.deps.is_empty() {
            String::new()
        } else {
            format!(" with {} pinned packages", pin.deps.len())
        }
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
