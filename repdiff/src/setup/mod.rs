//! `setup`: fetch every third-party parser from its registry,
//! pinned by version and sha256, into the ignored cache folder.
//!
//! Idempotent: a piece whose files are present with the right hashes is not
//! fetched again. On failure the error names the missing piece and the
//! command that fixes it.

pub mod ai_crawlers;
pub mod external;
pub mod google;
pub mod jvm_go;
pub mod protego_sdist;
pub mod python;
pub mod runtimes;
pub mod suites;
pub mod timings;
pub mod tools;
pub mod warc_sample;

use crate::shared::Needs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A setup failure, phrased for the person who has to fix it.
#[derive(Debug)]
pub struct SetupError {
    pub piece: String,
    pub reason: String,
    pub fix: String,
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "setup of `{}` failed: {}\n  fix: {}",
            self.piece, self.reason, self.fix
        )
    }
}

pub type Result<T> = std::result::Result<T, SetupError>;

pub struct Ctx {
    /// Workspace root.
    pub root: PathBuf,
    /// `.cache/` (or `REPDIFF_CACHE`).
    pub cache: PathBuf,
    /// How fix lines name the program that runs setup (`repdiff`,
    /// `cargo xtask`).
    pub program: &'static str,
}

impl Default for Ctx {
    fn default() -> Ctx {
        Ctx::new()
    }
}

impl Ctx {
    /// The checkout and cache in use, fix lines naming
    /// [`DEFAULT_PROGRAM`](crate::shared::DEFAULT_PROGRAM).
    pub fn new() -> Ctx {
        Ctx::for_program(crate::shared::DEFAULT_PROGRAM)
    }

    /// The checkout and cache in use, fix lines naming `program`.
    pub fn for_program(program: &'static str) -> Ctx {
        Ctx {
            root: crate::paths::root(),
            cache: oracles::cache_dir(),
            program,
        }
    }

    pub fn err(
        &self,
        piece: &str,
        reason: impl Into<String>,
        fix: impl Into<String>,
    ) -> SetupError {
        SetupError {
            piece: piece.into(),
            reason: reason.into(),
            fix: fix.into(),
        }
    }
}

pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    Ok(sha256_hex(&bytes))
}

/// The engine's hex sha256 (one hash helper for the whole workspace).
pub use engine::sha256_hex;

/// True when `path` exists and hashes to `sha256`.
pub fn verified(path: &Path, sha256: &str) -> bool {
    matches!(sha256_file(path), Ok(h) if h == sha256)
}

/// Check a file's hash, naming the piece on mismatch.
pub fn verify(ctx: &Ctx, piece: &str, path: &Path, sha256: &str) -> Result<()> {
    let got = sha256_file(path).map_err(|e| {
        ctx.err(
            piece,
            format!("cannot read {}: {e}", path.display()),
            format!("{} setup", ctx.program),
        )
    })?;
    if got != sha256 {
        return Err(ctx.err(
            piece,
            format!(
                "sha256 mismatch for {}: expected {sha256}, got {got}",
                path.display()
            ),
            format!("rm -rf {} && {} setup", path.display(), ctx.program),
        ));
    }
    Ok(())
}

/// Run a command, failing with its stderr tail.
pub fn run(ctx: &Ctx, piece: &str, cmd: &mut Command, fix: &str) -> Result<String> {
    let shown = format!("{cmd:?}");
    let out = cmd
        .output()
        .map_err(|e| ctx.err(piece, format!("cannot run {shown}: {e}"), fix))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(ctx.err(
            piece,
            format!(
                "{shown} exited with {}:\n    {}",
                out.status,
                tail.join("\n    ")
            ),
            fix,
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// One setup step: fetch, verify, or install one piece.
type Step = fn(&Ctx, bool) -> Result<()>;

/// Steps named in this variable (comma-separated) are skipped, by `setup`
/// and by the setup every other command runs first. The ClusterFuzzLite build
/// skips what fuzzing does not use (`suites`, `census-data`, `warc-sample`): its image has
/// only a nightly toolchain, on which the texting-robots suite's locked
/// proc-macro2 does not compile.
pub const SKIP_VAR: &str = "REPDIFF_SETUP_SKIP";

/// Every setup step, in order. Each prints what it fetched; a step with
/// nothing to do prints nothing unless `verbose`.
pub fn run_all(ctx: &Ctx, verbose: bool) -> Vec<SetupError> {
    run_steps(ctx, verbose, "setup (every step)", &|_| true)
}

/// The steps `wanted` keeps, in order.
/// `label` names the run in the step record ([`timings`]).
fn run_steps(
    ctx: &Ctx,
    verbose: bool,
    label: &str,
    wanted: &dyn Fn(For) -> bool,
) -> Vec<SetupError> {
    let skip_list = std::env::var(SKIP_VAR).unwrap_or_default();
    let skip: Vec<&str> = skip_list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let steps = steps();
    if let Some(bad) = skip.iter().find(|s| !steps.iter().any(|(n, _, _)| n == *s)) {
        let names: Vec<&str> = steps.iter().map(|(n, _, _)| *n).collect();
        return vec![ctx.err(
            "setup",
            format!("{SKIP_VAR} names `{bad}`, which is no setup step"),
            format!("use some of: {}", names.join(", ")),
        )];
    }
    let mut errors = Vec::new();
    let mut times = timings::SetupTimes {
        started: engine::calendar::stamps(std::time::SystemTime::now()).1,
        run: label.to_string(),
        steps: Vec::new(),
    };
    for (name, step, who) in steps {
        if !wanted(who) {
            continue;
        }
        if skip.contains(&name) {
            if verbose {
                log::info!("setup: {name} skipped ({SKIP_VAR})");
            }
            times.steps.push(step_time(name, Duration::ZERO, "skipped"));
            continue;
        }
        if verbose {
            log::info!("setup: {name}");
        }
        let started = std::time::Instant::now();
        let outcome = match step(ctx, verbose) {
            Ok(()) => "ok",
            Err(e) => {
                errors.push(e);
                "failed"
            }
        };
        // A step that had work to do says how long it took, so a first run
        // shows where its minutes went; one with nothing to do stays quiet.
        let took = started.elapsed();
        if verbose || took >= timings::SLOW_STEP {
            log::info!("setup: {name} done in {:.1} s", took.as_secs_f64());
        }
        times.steps.push(step_time(name, took, outcome));
    }
    timings::record(&times);
    errors
}

/// One step's line in the record, its work judged by its time (the steps
/// themselves do not say whether they found their pieces cached).
fn step_time(name: &str, took: Duration, outcome: &str) -> timings::StepTime {
    timings::StepTime {
        name: name.to_string(),
        seconds: took.as_secs_f64(),
        outcome: outcome.to_string(),
        did_work: took >= timings::SLOW_STEP,
    }
}

/// Who a step is for: the commands that need it ([`Needs::Oracles`]: every
/// command that starts oracles), or only `setup` itself (the tools and
/// sample files the tests use).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum For {
    Needs(Needs),
    Tests,
}

fn steps() -> Vec<(&'static str, Step, For)> {
    vec![
        ("runtimes", runtimes::ensure, For::Needs(Needs::Oracles)),
        ("apt", apt_packages, For::Needs(Needs::Oracles)),
        ("python", python::ensure, For::Needs(Needs::Oracles)),
        ("google", google::ensure, For::Needs(Needs::Oracles)),
        ("external", external::ensure, For::Needs(Needs::Oracles)),
        ("suites", suites::ensure, For::Needs(Needs::Suites)),
        (
            "census-data",
            protego_sdist::ensure,
            For::Needs(Needs::Census),
        ),
        ("warc-sample", warc_sample::ensure, For::Tests),
        // Small, and read by lint, serve and the site as well as the census.
        (
            "ai-crawlers",
            ai_crawlers::ensure,
            For::Needs(Needs::Oracles),
        ),
        ("test-tools", tools::ensure, For::Tests),
    ]
}

pub const HELP: &str = "Fetch and verify every third-party parser, test suite and data set \
(idempotent), pinned by version and sha256, into the setup cache (.cache/ or --cache DIR). Steps: \
runtimes (the oracles' java, node, ruby, perl and setup's mvn, npm, go; installed from Debian's \
packages as root), apt, python, google, external, suites, census-data, warc-sample, ai-crawlers, \
test-tools; \
other commands run first only the steps they need (suites only for `suites`, census-data only for \
`census`, warc-sample and test-tools never: the test command runs `setup`). \
REPDIFF_SETUP_SKIP=step,step skips \
some (here and in the setup other commands run first). An installed repdiff sets up the checkout \
given by --root.";

/// `setup`: every step, verbosely; status 1 when one failed.
pub fn main(program: &'static str) -> i32 {
    let errors = run_all(&Ctx::for_program(program), true);
    for e in &errors {
        log::error!("{e}");
    }
    i32::from(!errors.is_empty())
}

/// Setup before a command that starts oracles: the steps it [`Needs`],
/// quietly unless `-v` (a step with work to do still says how long it
/// took); a step that fails is reported and the command goes on (its
/// oracles then say they are unavailable and what to run). Nothing needs
/// a rebuild afterwards: the one native library setup fetches, Google's,
/// is linked into its own harness binary, which the `google` step builds.
/// Fix lines name [`DEFAULT_PROGRAM`](crate::shared::DEFAULT_PROGRAM).
pub fn ensure(needs: Needs) {
    ensure_as(crate::shared::DEFAULT_PROGRAM, needs)
}

/// [`ensure`], fix lines naming `program` ([`crate::shared::Host`]).
pub fn ensure_as(program: &'static str, needs: Needs) {
    let ctx = Ctx::for_program(program);
    let wanted = |f: For| f == For::Needs(Needs::Oracles) || f == For::Needs(needs);
    let label = format!("before a command, the steps it needs ({needs:?})");
    for e in run_steps(&ctx, crate::logging::debug(), &label, &wanted) {
        log::error!("{e}");
    }
}

/// Debian packages the native oracles build against, and the browser the
/// site test (`repdiff/tests/it/site_browser.rs`) and `report`'s
/// screenshot run headless, and the load generator of the bench's serve
/// row (`wrk`).
pub const APT_PACKAGES: &[&str] = &["libabsl-dev", "libgtest-dev", "chromium", "wrk"];

/// Install missing Debian packages when running as root (CI, a fresh
/// machine); otherwise name the command that installs them.
fn apt_packages(ctx: &Ctx, verbose: bool) -> Result<()> {
    let missing: Vec<&str> = APT_PACKAGES
        .iter()
        .copied()
        .filter(|p| {
            !Command::new("dpkg")
                .args(["-s", p])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
        .collect();
    if missing.is_empty() {
        if verbose {
            log::info!("  apt: {} present", APT_PACKAGES.join(", "));
        }
        return Ok(());
    }
    let fix = format!("apt-get update && apt-get install -y {}", missing.join(" "));
    if !is_root() {
        return Err(ctx.err(
            "apt",
            format!("missing Debian packages: {}", missing.join(", ")),
            fix,
        ));
    }
    log::info!("  apt: installing {}", missing.join(", "));
    let missing: Vec<String> = missing.into_iter().map(String::from).collect();
    apt_install(ctx, "apt", &[], &missing, &fix)
}

/// Whether this process runs as root, so `apt-get install` works as it is.
pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

/// `apt-get update`, then `apt-get install -y -qq FLAGS PACKAGES`
/// non-interactively (as root), failing as `piece` with `fix`.
pub fn apt_install(
    ctx: &Ctx,
    piece: &str,
    flags: &[&str],
    packages: &[String],
    fix: &str,
) -> Result<()> {
    run(
        ctx,
        piece,
        Command::new("apt-get").args(["update", "-qq"]),
        fix,
    )?;
    run(
        ctx,
        piece,
        Command::new("apt-get")
            .args(["install", "-y", "-qq"])
            .args(flags)
            .args(packages)
            .env("DEBIAN_FRONTEND", "noninteractive"),
        fix,
    )?;
    Ok(())
}
