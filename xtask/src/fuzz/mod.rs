//! `cargo xtask fuzz`: the nightly differential-fuzzing job and its tools,
//! over the cargo-fuzz crate in `fuzz/` and the fuzzing core it wraps,
//! `fuzzcore` (see fuzz/README.md).
//!
//! - `cargo xtask fuzz --minutes N [--jobs J]`: set up, build, fuzz every
//!   target for about N minutes on the persistent corpus (`differential` as
//!   J plain libFuzzer processes, each started again for the time left when
//!   it stops early, so its workers start once per process; the other
//!   targets with libFuzzer `-fork=J`), merge, measure speed and coverage,
//!   minimise new findings, write `reports/fuzz/<date>.{md,json}` (the
//!   whole run's rate against its speed mode's and each against its
//!   ceiling); exit 1 on a new untriaged signature.
//! - `cargo xtask fuzz setup | build | speed | coverage`: the pieces alone.
//! - `cargo xtask fuzz lane-cost`: every lane's added cost per input, the
//!   library's own loop against its worker over fuzz-shaped inputs.
//!
//! What reads the fuzzers' output without their toolchain (the corpus
//! sweep, minimisation, the known list, the findings folder) is the
//! product's: `repdiff triage sweep|minimize|known`, `repdiff::triage`.

mod build;
mod figures;
mod lane_cost;
mod nightly;
mod report;
mod runner;
mod throughput;
mod tools;
pub use fuzzcore::triage;
pub use repdiff::triage::fuzzed::{
    all_findings, derive_known, findings_dir, fuzz_dir, known_path, seed_findings, write_known,
    Finding,
};

use repdiff::cli::Usage;
use std::num::NonZeroUsize;

pub const HELP: &str = "\
The nightly differential fuzz job and its tools (see fuzz/README.md).

Without a subcommand: set up, build, fuzz every target for about --minutes
on fuzz/corpus/ (`differential` as J plain libFuzzer processes, each started
again for the time left after a crash, timeout or OOM; the other targets
with libFuzzer -fork=J), merge, minimise new findings and write
reports/run/fuzz/<date>.md and .json, with the whole run's rate against its
speed mode's and both against their ceiling, and every lane's added cost per
input (its worker's CPU minus its library's own loop's, over the merged
corpus); exit 1 when a finding is new and untriaged. (`repdiff triage causes` names the root cause of every
ledger entry's cells with the catalogue of neutralising transformations,
docs/causes.md.) `speed` measures exec/s in five modes (every oracle, then
the built-ins with the Python lane, without it, -jobs=2, Rust/C++ oracles
only); `lane-cost` measures the added cost alone; `targets` lists the differential targets, then robust_<oracle> for
each registered oracle (the `robust` binary with
REPDIFF_FUZZ_ORACLE=<oracle>).";

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Opts {
    #[command(subcommand)]
    sub: Option<Sub>,
    #[command(flatten)]
    nightly: NightlyOpts,
}

/// The nightly job's options (no subcommand).
#[derive(Debug, clap::Args)]
struct NightlyOpts {
    /// Minutes of fuzzing, shared by all targets
    #[arg(long, default_value_t = 10.0, value_parser = positive_minutes)]
    minutes: f64,
    /// `differential`: J plain libFuzzer processes side by side, each
    /// restarted when it stops early; the other targets: libFuzzer -fork=J
    #[arg(long, default_value_t = NonZeroUsize::MIN)]
    jobs: NonZeroUsize,
    /// Skip `cargo fuzz build` (use the binaries already built)
    #[arg(long)]
    no_build: bool,
    /// Seconds per mode of the speed measurement [default: scaled to --minutes]
    #[arg(long, value_name = "S")]
    speed_seconds: Option<u64>,
    /// One more oracle for the loop, any program speaking docs/protocol.md
    /// (repeatable), as `repdiff conformance --oracle-cmd` takes it
    #[arg(long, value_name = "NAME=COMMAND")]
    oracle_cmd: Vec<String>,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// Copy the corpus bodies into fuzz/corpus/differential_bytes
    Seed,
    /// Check/install nightly, cargo-fuzz and clang
    Setup,
    /// cargo fuzz build (plain and AddressSanitizer builds)
    Build,
    /// exec/s of `differential` in four modes, one after the other in one run
    Speed {
        /// Seconds per mode
        #[arg(long, default_value_t = 60)]
        seconds: u64,
    },
    /// Edges covered by fuzz/corpus/differential, and how many in googlebot::
    Coverage,
    /// Every fuzzing run, one per line (differential targets, then `robust_<oracle>`)
    Targets,
    /// Every lane's added cost per input: each oracle's own loop against its
    /// worker over fuzz-shaped inputs (the corpus, else generated ones);
    /// prints the table and writes `reports/run/fuzz/lane-cost-<time>.json`
    LaneCost {
        /// Fuzz-shaped inputs to time
        #[arg(long, default_value_t = 2000)]
        inputs: usize,
        /// Only these oracles (repeatable) [default: every registered one]
        #[arg(long, value_name = "X")]
        oracle: Vec<String>,
    },
}

fn positive_minutes(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a positive number of minutes")),
    }
}

/// Print a step's errors and give the exit status.
fn status<E: std::fmt::Display>(result: Result<(), Vec<E>>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(errors) => {
            for e in errors {
                log::error!("{e}");
            }
            1
        }
    }
}

pub fn main(opts: Opts) -> Result<i32, Usage> {
    seed_findings();
    let Some(sub) = opts.sub else {
        // Checked here as every command checks them; the fuzz processes
        // parse them again through the same roster code.
        repdiff::select::oracle_cmds(&opts.nightly.oracle_cmd)?;
        if !opts.nightly.oracle_cmd.is_empty() {
            // Read by every fuzz process and by the known list's
            // derivation here (fuzzcore::Settings::oracle_cmds).
            std::env::set_var(
                "REPDIFF_FUZZ_ORACLE_CMD",
                opts.nightly.oracle_cmd.join("\n"),
            );
        }
        return Ok(nightly::run(&nightly::Options {
            minutes: opts.nightly.minutes,
            jobs: opts.nightly.jobs.get(),
            build: !opts.nightly.no_build,
            speed_seconds: opts.nightly.speed_seconds,
        }));
    };
    match sub {
        Sub::Targets => {
            for t in fuzzcore::DIFFERENTIAL_TARGETS {
                crate::output::line(format_args!("{t}"));
            }
            for (t, _) in fuzzcore::robust_runs() {
                crate::output::line(format_args!("{t}"));
            }
            Ok(0)
        }
        Sub::LaneCost { inputs, oracle } => {
            repdiff::select::validate(&oracle, &[])?;
            let names = if oracle.is_empty() {
                repdiff::select::known_names()
            } else {
                oracle
            };
            let t = lane_cost::measure(&names, inputs).map_err(Usage)?;
            crate::output::text(&t.to_markdown());
            let path = lane_cost::save(&t).map_err(Usage)?;
            log::info!("wrote {}", path.display());
            Ok(0)
        }
        Sub::Seed => {
            let n = nightly::seed();
            log::info!("seeded {n} new corpus bodies into fuzz/corpus/differential_bytes");
            Ok(0)
        }
        Sub::Setup => Ok(status(tools::ensure().map(drop))),
        Sub::Build => {
            let clang = ensure_tools()?;
            Ok(status(
                build::build_all(&clang).map(drop).map_err(|e| vec![e]),
            ))
        }
        Sub::Speed { seconds } => {
            let clang = ensure_tools()?;
            build::build_plain(&clang).map_err(Usage)?;
            let known = derive_known().map_err(Usage)?;
            write_known(&known);
            let s = nightly::speed(seconds).map_err(Usage)?;
            crate::output::line(format_args!("{}", s.describe()));
            Ok(0)
        }
        Sub::Coverage => {
            let clang = ensure_tools()?;
            build::build_asan(&clang, &["differential"]).map_err(Usage)?;
            let known = derive_known().map_err(Usage)?;
            write_known(&known);
            let c = nightly::coverage().map_err(Usage)?;
            crate::output::line(format_args!("{}", c.describe()));
            Ok(0)
        }
    }
}

fn ensure_tools() -> Result<String, Usage> {
    repdiff::setup::ensure(repdiff::shared::Needs::Oracles);
    tools::ensure().map_err(|p| Usage(p.join("\n")))
}
