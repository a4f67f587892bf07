//! Building the compiled reproducers for `findings --verify`: the Rust
//! ones as binaries of one cargo project per crate (its dependencies
//! compile once; spider's reuse the tree setup built for its harness), the
//! C++ ones against Google's robots.cc as setup fetched it.

use super::Reproducer;
use crate::shared::Usage;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One binary per reproducer in `idx`, in that order.
pub fn rust(
    krate: &str,
    idx: &[usize],
    repros: &[Reproducer],
    work: &Path,
    cache: &Path,
) -> Result<Vec<PathBuf>, Usage> {
    let dir = work.join(format!("rust-{krate}"));
    std::fs::create_dir_all(&dir).map_err(|e| Usage(format!("{}: {e}", dir.display())))?;
    let root = crate::paths::root();
    let spec = super::run_spec(krate).map_err(Usage)?;
    let target = if let Some(target) = &spec.cargo_target {
        // The harness's own manifest and lock: the same versions and
        // features, so nothing but the reproducers compiles (under another
        // package name, beside the harness's own binary).
        let harness = root.join("oracles/harness").join(krate);
        let manifest = read(&harness.join("Cargo.toml"))?;
        let manifest = manifest.replacen("\"\nversion", "-repro\"\nversion", 1);
        write(&dir.join("Cargo.toml"), &manifest)?;
        copy(&harness.join("Cargo.lock"), &dir.join("Cargo.lock"))?;
        cache.join(target)
    } else {
        let dep = spec.cargo_dependency.as_deref().ok_or_else(|| {
            Usage(format!(
                "{krate}: no `reproducer.run.cargo_dependency` or `cargo_target` in its manifest"
            ))
        })?;
        write(
            &dir.join("Cargo.toml"),
            &format!(
                "[package]\nname = \"repro-{krate}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
publish = false\n\n[workspace]\n\n[dependencies]\n{dep}\n"
            ),
        )?;
        // The workspace's lock pins the crate's own dependencies as the
        // oracle built them.
        copy(&root.join("Cargo.lock"), &dir.join("Cargo.lock"))?;
        cache.join("repro-target")
    };
    let bin = dir.join("src/bin");
    std::fs::create_dir_all(&bin).map_err(|e| Usage(format!("{}: {e}", bin.display())))?;
    for &i in idx {
        write(&bin.join(format!("r{i:03}.rs")), &repros[i].program.source)?;
    }
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.args(["build", "--release", "--quiet", "--bins"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", &target);
    log::info!("building {} {krate} reproducer(s)", idx.len());
    run(
        cmd,
        &format!(
            "cargo build of the {krate} reproducers in {}",
            dir.display()
        ),
    )?;
    Ok(idx
        .iter()
        .map(|i| target.join(format!("release/r{i:03}")))
        .collect())
}

/// One binary per C++ reproducer in `idx`, linked with robots.cc and
/// Debian's Abseil as the `google` oracle is.
pub fn cpp(
    idx: &[usize],
    repros: &[Reproducer],
    work: &Path,
    cache: &Path,
) -> Result<Vec<PathBuf>, Usage> {
    let dir = work.join("cpp");
    std::fs::create_dir_all(&dir).map_err(|e| Usage(format!("{}: {e}", dir.display())))?;
    let google = cache.join("google");
    let object = dir.join("robots.o");
    let mut cc = Command::new("g++");
    cc.args(["-std=c++17", "-O1", "-c"])
        .arg(google.join("robots.cc"))
        .arg("-I")
        .arg(&google)
        .arg("-o")
        .arg(&object);
    run(cc, "g++ -c robots.cc")?;
    let mut out = Vec::new();
    for &i in idx {
        let src = dir.join(format!("r{i:03}.cc"));
        let exe = dir.join(format!("r{i:03}"));
        write(&src, &repros[i].program.source)?;
        let mut cmd = Command::new("g++");
        cmd.arg("-std=c++17")
            .arg("-I")
            .arg(&google)
            .arg(&src)
            .arg(&object)
            .args([
                "-labsl_strings",
                "-labsl_strings_internal",
                "-labsl_int128",
                "-labsl_raw_logging_internal",
                "-labsl_throw_delegate",
                "-o",
            ])
            .arg(&exe);
        run(cmd, &format!("g++ {}", src.display()))?;
        out.push(exe);
    }
    Ok(out)
}

fn run(mut cmd: Command, what: &str) -> Result<(), Usage> {
    let out = cmd
        .output()
        .map_err(|e| Usage(format!("{what}: cannot start: {e}")))?;
    if out.status.success() {
        return Ok(());
    }
    Err(Usage(format!(
        "{what} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    )))
}

fn read(p: &Path) -> Result<String, Usage> {
    std::fs::read_to_string(p).map_err(|e| Usage(format!("{}: {e}", p.display())))
}

fn write(p: &Path, text: &str) -> Result<(), Usage> {
    std::fs::write(p, text).map_err(|e| Usage(format!("{}: {e}", p.display())))
}

fn copy(from: &Path, to: &Path) -> Result<(), Usage> {
    std::fs::copy(from, to)
        .map(drop)
        .map_err(|e| Usage(format!("{} -> {}: {e}", from.display(), to.display())))
}
