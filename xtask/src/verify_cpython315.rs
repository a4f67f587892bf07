//! `cargo xtask verify-cpython315`: the `cpython-3.15` oracle runs CPython
//! 3.15.0rc1's robotparser.py on the 3.11 runtime with two hand-written
//! `urllib.parse` helpers. This runs the same generated cases through the
//! real CPython 3.15.0rc1 interpreter (pyodide 315.0.0-alpha.2 under node,
//! offline, from the setup cache) and fails on any difference.

use oracles::python::crosscheck::{self, Case};
use oracles::python::pins;
use repdiff::cli::Usage;
use repdiff::setup::Ctx;
use std::process::Command;

pub const HELP: &str = "\
Generates N robots.txt cases (default 500) from seed S (default 315), asks the
cpython-3.15 oracle, asks CPython 3.15.0rc1 itself (pyodide under node, from
.cache/pyodide), and fails on any difference. Needs `cargo xtask setup` and
node >= 20.";

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// How many cases to generate
    #[arg(long, value_name = "N", default_value_t = 500)]
    cases: usize,
    /// The generator's seed
    #[arg(long, value_name = "S", default_value_t = 315)]
    seed: u64,
}

pub fn main(opts: Opts) -> Result<i32, Usage> {
    Ok(match verify(&Ctx::new(), opts.cases, opts.seed) {
        Ok(0) => 0,
        Ok(_) => 1,
        Err(message) => {
            log::error!("verify-cpython315: {message}");
            1
        }
    })
}

fn node_major() -> Option<u32> {
    let out = Command::new("node").arg("--version").output().ok()?;
    let v = String::from_utf8_lossy(&out.stdout);
    v.trim()
        .trim_start_matches('v')
        .split('.')
        .next()?
        .parse()
        .ok()
}

/// pyodide from the setup cache and a node that can run it.
fn prerequisites(ctx: &Ctx) -> Result<std::path::PathBuf, String> {
    let pyodide = ctx.cache.join(pins::PYODIDE_DIR);
    if !pyodide.join("pyodide.mjs").is_file() {
        return Err(format!(
            "pyodide {} is not in {} (fix: cargo xtask setup)",
            pins::PYODIDE_VERSION,
            pyodide.display()
        ));
    }
    match node_major() {
        Some(major) if major >= 20 => {}
        Some(major) => {
            return Err(format!(
                "node {major} is too old for pyodide (fix: install node >= 20)"
            ))
        }
        None => {
            return Err("node is not on PATH (fix: apt-get install nodejs, version >= 20)".into())
        }
    }
    Ok(pyodide)
}

/// Number of differences, or why the check could not run.
fn verify(ctx: &Ctx, n: usize, seed: u64) -> Result<usize, String> {
    let mut oracle = oracles::cpython::make_315().map_err(|u| u.to_string())?;
    let pyodide = prerequisites(ctx)?;

    let cases: Vec<Case> = crosscheck::generate(seed, n);
    let queries: usize = cases.iter().map(|c| c.queries.len()).sum();
    let ours: Vec<_> = cases
        .iter()
        .map(|c| oracle.run(&c.body, &c.queries))
        .collect();

    let work = ctx.cache.join("tmp").join("verify-cpython315");
    std::fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let write = |name: &str, text: &str| -> Result<std::path::PathBuf, String> {
        let path = work.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(path)
    };
    let script = write("run.mjs", include_str!("verify_cpython315.mjs"))?;
    let runner = write("direct_runner.py", crosscheck::DIRECT_RUNNER)?;
    let request = write(
        "request.json",
        &crosscheck::request("cpython", serde_json::json!({"kind": "stdlib"}), &cases),
    )?;
    let reply_path = work.join("reply.json");
    let _ = std::fs::remove_file(&reply_path);

    log::info!(
        "verify-cpython315: {n} cases, {queries} queries (seed {seed}); starting CPython 3.15.0rc1 in pyodide {} under node",
        pins::PYODIDE_VERSION
    );
    let started = std::time::Instant::now();
    let out = Command::new("node")
        .arg(&script)
        .arg(&pyodide)
        .arg(&runner)
        .arg(&request)
        .arg(&reply_path)
        .output()
        .map_err(|e| format!("cannot run node: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "node exited with {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let reply = std::fs::read_to_string(&reply_path)
        .map_err(|e| format!("cannot read {}: {e}", reply_path.display()))?;
    let sha = serde_json::from_str::<serde_json::Value>(&reply)
        .ok()
        .and_then(|v| v["robotparser_sha256"].as_str().map(str::to_string))
        .unwrap_or_default();
    let theirs = crosscheck::parse_direct(&reply)?;
    if !theirs.sys_version.starts_with(pins::CPYTHON_315_RELEASE) {
        return Err(format!(
            "pyodide runs CPython {}, expected {}",
            theirs.sys_version,
            pins::CPYTHON_315_RELEASE
        ));
    }
    if sha != pins::ROBOTPARSER_315_SHA256 {
        return Err(format!(
            "pyodide's urllib/robotparser.py has sha256 {sha}, the oracle's is pinned to {}",
            pins::ROBOTPARSER_315_SHA256
        ));
    }
    let diffs = crosscheck::compare(&cases, &ours, &theirs.results);
    crate::output::line(format_args!(
        "adapter:   {} — {}",
        oracle.name(),
        oracle.identity()
    ));
    crate::output::line(format_args!(
        "reference: CPython {} (pyodide {}, {:.1} s), robotparser.py sha256 {sha}",
        theirs.sys_version,
        pins::PYODIDE_VERSION,
        started.elapsed().as_secs_f64()
    ));
    crate::output::line(format_args!(
        "verify-cpython315: {n} cases, {queries} queries, {} differences",
        diffs.len()
    ));
    for d in diffs.iter().take(10) {
        crate::output::line(format_args!("{d}"));
    }
    Ok(diffs.len())
}
