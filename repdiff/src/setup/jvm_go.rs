//! Setup of the Java and Go harnesses (`install: maven` and `install: go` in
//! `oracles/harness/<name>/oracle.yaml`).
//!
//! Java: the harness's Maven project resolves its runtime jars from Maven
//! Central; every jar must be listed in the project's `jars.sha256` with
//! its hash, and nothing else may be there, so a changed or extra artifact
//! fails setup instead of becoming an oracle. The sources are then compiled
//! with `javac`, with no Maven build plugin in between.
//!
//! Go: the module's committed go.mod and go.sum pin every dependency;
//! `-mod=readonly` makes a go.sum that does not cover the build an error,
//! and `GOSUMDB=off` because the checksum database is not a registry this
//! project reaches (go.sum is the pin). Both builds go under the cache with
//! their own module and build caches.

use super::{sha256_file, sha256_hex, Ctx, Result};
use crate::registry::{GoPin, MavenPin};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const PIECE: &str = "external";

/// The pinned jars of a Maven project: file name -> sha256.
fn jar_pins(ctx: &Ctx, piece: &str, file: &Path) -> Result<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        ctx.err(
            piece,
            format!("cannot read {}: {e}", file.display()),
            "restore it from git",
        )
    })?;
    let mut pins = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (hash, name) = line
            .split_once(char::is_whitespace)
            .map(|(h, n)| (h, n.trim()))
            .filter(|(h, _)| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| {
                ctx.err(
                    piece,
                    format!(
                        "{}:{}: not `<sha256>  <jar>`: {line:?}",
                        file.display(),
                        n + 1
                    ),
                    "fix the pin file",
                )
            })?;
        pins.insert(name.to_string(), hash.to_ascii_lowercase());
    }
    Ok(pins)
}

/// What differs between the jars in `lib` and the pins (empty: all match).
fn jar_mismatches(lib: &Path, pins: &BTreeMap<String, String>) -> Vec<String> {
    let mut found = BTreeMap::new();
    if let Ok(dir) = std::fs::read_dir(lib) {
        for entry in dir.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let hash = sha256_file(&entry.path()).unwrap_or_default();
            found.insert(name, hash);
        }
    }
    let mut bad = Vec::new();
    for (name, want) in pins {
        match found.get(name) {
            None => bad.push(format!("{name} missing")),
            Some(got) if got != want => bad.push(format!("{name}: sha256 {got}, pinned {want}")),
            Some(_) => {}
        }
    }
    for name in found.keys().filter(|n| !pins.contains_key(*n)) {
        bad.push(format!("{name} is not pinned"));
    }
    bad
}

/// A hash of everything the compiled classes depend on: the pins and the
/// sources (so an edited harness is recompiled, an unchanged one is not).
fn source_stamp(project: &Path) -> String {
    let mut all = Vec::new();
    for name in ["pom.xml", "jars.sha256"] {
        all.extend(std::fs::read(project.join(name)).unwrap_or_default());
    }
    for src in java_sources(project) {
        // The name within the project, not the whole path: two checkouts
        // sharing one cache (a worktree beside the main one) would
        // otherwise rebuild the classes for each other on every setup,
        // leaving whichever ran last in the cache.
        let name = src.strip_prefix(project).unwrap_or(&src);
        all.extend(name.display().to_string().into_bytes());
        all.extend(std::fs::read(&src).unwrap_or_default());
    }
    sha256_hex(&all)
}

fn java_sources(project: &Path) -> Vec<PathBuf> {
    let mut srcs: Vec<PathBuf> = std::fs::read_dir(project.join("src"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "java"))
        .collect();
    srcs.sort();
    srcs
}

fn java_tool(pin: &MavenPin, tool: &str) -> PathBuf {
    match &pin.java_home {
        Some(home) => Path::new(home).join("bin").join(tool),
        None => PathBuf::from(tool),
    }
}

/// Resolve, verify and compile one Java harness.
pub fn ensure_maven(ctx: &Ctx, verbose: bool, name: &str, pin: &MavenPin) -> Result<()> {
    let project = ctx.root.join(&pin.project);
    let out = ctx.cache.join(&pin.out);
    let lib = out.join("lib");
    let classes = out.join("classes");
    let stamp_file = out.join("stamp");
    let piece = format!("{PIECE}: {name} (maven, {})", pin.project);
    let fix = format!("rm -rf {} && {} setup", out.display(), ctx.program);
    let pins = jar_pins(ctx, &piece, &project.join("jars.sha256"))?;
    let stamp = source_stamp(&project);
    let current = std::fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp);
    if current && jar_mismatches(&lib, &pins).is_empty() {
        if verbose {
            log::info!("setup: external: {name}: jars verified, classes current");
        }
        return Ok(());
    }
    log::info!("setup: external: {name}: resolving its jars from Maven Central (mvn)");
    let fresh_lib = out.join("lib.new");
    let _ = std::fs::remove_dir_all(&fresh_lib);
    let mut mvn = Command::new("mvn");
    mvn.args(["-B", "-q", "-f"])
        .arg(project.join("pom.xml"))
        .arg(format!(
            "-Dmaven.repo.local={}",
            ctx.cache.join("m2").display()
        ))
        .args(["dependency:copy-dependencies", "-DincludeScope=runtime"])
        .arg(format!("-DoutputDirectory={}", fresh_lib.display()));
    if let Some(home) = &pin.java_home {
        mvn.env("JAVA_HOME", home);
    }
    super::run(
        ctx,
        &piece,
        &mut mvn,
        &format!("check that mvn works and Maven Central is reachable, then {fix}"),
    )?;
    let bad = jar_mismatches(&fresh_lib, &pins);
    if !bad.is_empty() {
        let _ = std::fs::remove_dir_all(&fresh_lib);
        return Err(ctx.err(
            &piece,
            format!("the resolved jars do not match {}/jars.sha256: {}", pin.project, bad.join("; ")),
            "if the pom changed on purpose, update jars.sha256 (sha256sum of each jar) after checking each artifact",
        ));
    }
    let _ = std::fs::remove_dir_all(&lib);
    std::fs::rename(&fresh_lib, &lib)
        .map_err(|e| ctx.err(&piece, format!("cannot move {}: {e}", lib.display()), &fix))?;
    let fresh_classes = out.join("classes.new");
    let _ = std::fs::remove_dir_all(&fresh_classes);
    super::run(
        ctx,
        &piece,
        Command::new(java_tool(pin, "javac"))
            .args(["--release", "17", "-encoding", "UTF-8", "-nowarn", "-cp"])
            .arg(format!("{}/*", lib.display()))
            .arg("-d")
            .arg(&fresh_classes)
            .args(java_sources(&project)),
        &fix,
    )?;
    let _ = std::fs::remove_dir_all(&classes);
    std::fs::rename(&fresh_classes, &classes).map_err(|e| {
        ctx.err(
            &piece,
            format!("cannot move {}: {e}", classes.display()),
            &fix,
        )
    })?;
    engine::write_atomic(&stamp_file, stamp.as_bytes()).map_err(|e| {
        ctx.err(
            &piece,
            format!("cannot write {}: {e}", stamp_file.display()),
            &fix,
        )
    })?;
    log::info!(
        "setup: external: {name}: {} jars verified against jars.sha256, harness compiled",
        pins.len()
    );
    Ok(())
}

/// Build one Go harness, its direct-call program and, when the module has
/// one, its speed loop (`./loop`, the manifest's `loop:`).
pub fn ensure_go(ctx: &Ctx, verbose: bool, name: &str, pin: &GoPin) -> Result<()> {
    let module = ctx.root.join(&pin.module);
    let out = ctx.cache.join(&pin.out);
    let piece = format!("{PIECE}: {name} (go build of {})", pin.module);
    let fix = format!("rm -rf {} && {} setup", out.display(), ctx.program);
    let first = !out.join("harness").is_file();
    if verbose || first {
        log::info!("setup: external: building {name} (go, modules from the Go module proxy, pinned by go.sum)");
    }
    let mut packages = vec![(".", "harness"), ("./direct", "direct")];
    if module.join("loop").is_dir() {
        packages.push(("./loop", "loop"));
    }
    for (package, binary) in packages {
        // Always ask go: it rebuilds only when something changed.
        super::run(
            ctx,
            &piece,
            Command::new("go")
                .current_dir(&module)
                .args(["build", "-trimpath", "-o"])
                .arg(out.join(binary))
                .arg(package)
                .env("GOFLAGS", "-mod=readonly")
                .env("GOMODCACHE", ctx.cache.join("gomod"))
                .env("GOCACHE", ctx.cache.join("gobuild"))
                .env("GOSUMDB", "off")
                .env("GOTOOLCHAIN", "local"),
            &format!("check that go works and the Go module proxy is reachable, then {fix}"),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::source_stamp;
    use std::path::Path;

    fn project(root: &Path, java: &str) {
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("pom.xml"), "<project/>").unwrap();
        std::fs::write(root.join("jars.sha256"), "").unwrap();
        std::fs::write(root.join("src/Oracle.java"), java).unwrap();
    }

    #[test]
    fn the_stamp_follows_the_sources_not_the_checkout_path() {
        let base = std::env::temp_dir().join(format!("repdiff-stamp-{}", std::process::id()));
        let (a, b, c) = (base.join("a/h"), base.join("b/h"), base.join("c/h"));
        project(&a, "class Oracle {}");
        project(&b, "class Oracle {}");
        project(&c, "class Oracle { int x; }");
        let (sa, sb, sc) = (source_stamp(&a), source_stamp(&b), source_stamp(&c));
        let _ = std::fs::remove_dir_all(&base);
        assert_eq!(sa, sb, "same sources at two paths: one stamp");
        assert_ne!(sa, sc, "an edited source: another stamp");
    }
}
