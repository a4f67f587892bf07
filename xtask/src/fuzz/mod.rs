//! `cargo xtask fuzz`: the nightly differential-fuzzing job and its tools,
//! over the cargo-fuzz crate in `fuzz/` and the fuzzing core it wraps,
//! `fuzzcore` (see fuzz/README.md).
//!
//! - `cargo xtask fuzz --minutes N [--jobs J]`: set up, build, fuzz every
//!   target for about N minutes on the persistent corpus (libFuzzer
//!   `-fork=J`), merge, measure speed and coverage, minimise new findings,
//!   write `reports/fuzz/<date>.{md,json}`; exit 1 on a new untriaged
//!   signature.
//! - `cargo xtask fuzz minimize <finding>`: shrink one finding.
//! - `cargo xtask fuzz known`: derive the known-signature list.
//! - `cargo xtask fuzz setup | build | speed | coverage`: the pieces alone.

mod build;
mod minimize;
mod nightly;
mod report;
mod runner;
pub mod sweep;
mod tools;
pub use fuzzcore::triage;

use engine::oracle::{Answer, Ask, Oracle, Outcome, Query};
use fuzzcore::record::FindingRecord;
use oracles::rfc9309::{Readings, Robots};
use repdiff::cli::Usage;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

pub const HELP: &str = "\
The nightly differential fuzz job and its tools (see fuzz/README.md).

Without a subcommand: set up, build, fuzz every target for about --minutes
on fuzz/corpus/ with libFuzzer -fork=J, merge, minimise new findings and
write reports/fuzz/<date>.md and .json; exit 1 when a finding is new and
untriaged. (`repdiff triage causes` names the root cause of every ledger
entry's cells with the catalogue of neutralising transformations,
docs/causes.md.) `speed` measures exec/s in four modes (Python lane, no lane,
-jobs=2, Rust/C++ oracles only); `targets` lists the differential targets,
then robust_<oracle> for each registered oracle (the `robust` binary with
REPDIFF_FUZZ_ORACLE=<oracle>).";

pub fn root() -> PathBuf {
    crate::paths::root()
}

pub fn fuzz_dir() -> PathBuf {
    root().join("fuzz")
}

/// Where a run's findings live: the committed ones (`fuzz/findings/`,
/// copied in by [`seed_findings`]) plus what this run found, with hit
/// counts. Ignored by git, so a fuzz run changes no tracked file; a finding
/// worth keeping is copied to `fuzz/findings/` in a commit of its own.
pub fn findings_dir() -> PathBuf {
    crate::paths::run_dir().join("fuzz/findings")
}

/// The committed findings, kept in git as results.
pub fn committed_findings_dir() -> PathBuf {
    fuzz_dir().join("findings")
}

/// Copy every committed finding into the run's folder (those already there
/// keep their run's hit counts), so known findings stay known.
pub fn seed_findings() {
    let Ok(entries) = std::fs::read_dir(committed_findings_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let to = findings_dir().join(e.file_name());
        if to.exists() || !e.path().is_dir() {
            continue;
        }
        let _ = std::fs::create_dir_all(&to);
        if let Ok(files) = std::fs::read_dir(e.path()) {
            for f in files.flatten().filter(|f| f.path().is_file()) {
                let _ = std::fs::copy(f.path(), to.join(f.file_name()));
            }
        }
    }
}

pub fn known_path() -> PathBuf {
    fuzz_dir().join("known-signatures.json")
}

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
    /// libFuzzer -fork=J
    #[arg(long, default_value_t = NonZeroUsize::MIN)]
    jobs: NonZeroUsize,
    /// Skip `cargo fuzz build` (use the binaries already built)
    #[arg(long)]
    no_build: bool,
    /// Seconds per mode of the speed measurement [default: scaled to --minutes]
    #[arg(long, value_name = "S")]
    speed_seconds: Option<u64>,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// Shrink a finding while its new part holds; writes case.yaml and ledger-draft.yaml beside it
    Minimize {
        /// A finding directory (with finding.json) or a finding hash
        finding: String,
        /// Keep the whole signature, not only its new part
        #[arg(long)]
        exact: bool,
    },
    /// Derive fuzz/known-signatures.json from the corpus and the ledger
    Known,
    /// Replay the merged fuzz corpora through every oracle (worker-run ones
    /// too) and name the cause of each departure; lists the (oracle, cause)
    /// pairs the ledger does not name
    Sweep {
        /// Time budget in seconds (the pass stops between inputs)
        #[arg(long, default_value_t = 600)]
        seconds: u64,
        /// Departures minimised per (oracle, answers, deciding feature, unminimised cause)
        #[arg(long, default_value_t = 2)]
        per_bucket: usize,
        /// Only these oracles (repeatable; rfc9309 is always in) [default: every registered one]
        #[arg(long)]
        oracle: Vec<String>,
        /// Add any program that speaks docs/protocol.md (repeatable)
        #[arg(long = "oracle-cmd", value_name = "NAME='COMMAND'")]
        oracle_cmds: Vec<String>,
        /// Write `reports/fuzz/<stamp>-sweep.{md,json}` (default: reports/run/fuzz/sweep.*)
        #[arg(long)]
        write_report: bool,
    },
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
                eprintln!("error: {e}");
            }
            1
        }
    }
}

pub fn main(opts: Opts) -> Result<i32, Usage> {
    seed_findings();
    let Some(sub) = opts.sub else {
        return Ok(nightly::run(&nightly::Options {
            minutes: opts.nightly.minutes,
            jobs: opts.nightly.jobs.get(),
            build: !opts.nightly.no_build,
            speed_seconds: opts.nightly.speed_seconds,
        }));
    };
    match sub {
        Sub::Minimize { finding, exact } => minimize_cmd(&finding, exact),
        Sub::Known => known_cmd(),
        Sub::Sweep {
            seconds,
            per_bucket,
            oracle,
            oracle_cmds,
            write_report,
        } => sweep::main(&sweep::Options {
            seconds,
            per_bucket: per_bucket.max(1),
            oracles: oracle,
            oracle_cmds,
            write_report,
        }),
        Sub::Targets => {
            for t in fuzzcore::DIFFERENTIAL_TARGETS {
                println!("{t}");
            }
            for (t, _) in fuzzcore::robust_runs() {
                println!("{t}");
            }
            Ok(0)
        }
        Sub::Seed => {
            let n = nightly::seed();
            println!("seeded {n} new corpus bodies into fuzz/corpus/differential_bytes");
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
            println!("{}", s.describe());
            Ok(0)
        }
        Sub::Coverage => {
            let clang = ensure_tools()?;
            build::build_asan(&clang, &["differential"]).map_err(Usage)?;
            let known = derive_known().map_err(Usage)?;
            write_known(&known);
            let c = nightly::coverage().map_err(Usage)?;
            println!("{}", c.describe());
            Ok(0)
        }
    }
}

/// `cargo xtask fuzz minimize <finding> [--exact]`.
fn minimize_cmd(which: &str, exact: bool) -> Result<i32, Usage> {
    crate::setup::ensure();
    let dir = resolve_finding(which)?;
    let known = derive_known().map_err(Usage)?;
    write_known(&known);
    match minimize::minimize(&dir, &known, exact) {
        Ok(summary) => {
            println!("{summary}");
            Ok(0)
        }
        Err(e) => {
            eprintln!("error: {e}");
            Ok(1)
        }
    }
}

/// `cargo xtask fuzz known`.
fn known_cmd() -> Result<i32, Usage> {
    crate::setup::ensure();
    let known = derive_known().map_err(Usage)?;
    write_known(&known);
    println!(
        "{}: {} signatures, {} cell keys from {} corpus queries ({} left out: unexplained cells)",
        known_path().display(),
        known.signatures.len(),
        known.cells.len(),
        known.queries,
        known.unexplained_queries
    );
    Ok(0)
}

fn ensure_tools() -> Result<String, Usage> {
    crate::setup::ensure();
    tools::ensure().map_err(|p| Usage(p.join("\n")))
}

/// A finding named by its directory or its hash.
fn resolve_finding(which: &str) -> Result<PathBuf, Usage> {
    let p = PathBuf::from(which);
    let dir = if p.join("finding.json").is_file() {
        p
    } else {
        findings_dir().join(which)
    };
    if dir.join("finding.json").is_file() {
        Ok(dir)
    } else {
        Err(Usage(format!(
            "no finding `{which}` (neither a directory with finding.json nor a hash under {})",
            findings_dir().display()
        )))
    }
}

/// Every oracle, in process, in registry order; an unavailable one is an
/// error naming its fix (as everywhere in repdiff: never silently skipped).
pub fn make_oracles() -> Result<Vec<Box<dyn Oracle>>, String> {
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for e in oracles::registry() {
        match (e.make)() {
            Ok(o) => out.push(o),
            Err(u) => missing.push(u.to_string()),
        }
    }
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(missing.join("\n"))
    }
}

/// The known list from a corpus run through every in-process oracle.
pub fn derive_known() -> Result<triage::Known, String> {
    let corpus = engine::case::load_dir(&crate::paths::corpus_dir()).map_err(|e| e.to_string())?;
    let ledger_text = crate::paths::ledger_text().map_err(|u| u.0)?;
    // The ledger may name external oracles too (as in `conformance`).
    let names = crate::select::known_names();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let ledger = crate::paths::load_ledger(&corpus, &names).map_err(|u| u.0)?;
    let oracles = make_oracles()?;
    let names: Vec<String> = oracles.iter().map(|o| o.name().to_string()).collect();
    let stamp = triage::stamp(&corpus, &ledger_text, &names);
    let cases: Vec<&engine::case::Case> = corpus.cases.iter().collect();
    let result = engine::run::run(&cases, oracles, Vec::new(), &ledger, &|_| None, &mut |_| {});
    Ok(triage::derive_known(&corpus, &ledger, &result, stamp))
}

pub fn write_known(known: &triage::Known) {
    let _ = engine::write_atomic(&known_path(), known.to_json().as_bytes());
}

/// Every oracle in process, for replaying one (body, agent, URL).
pub struct Probe {
    oracles: Vec<Box<dyn Oracle>>,
    readings: Readings,
    scratch: Vec<u8>,
}

/// One replay: every oracle's answer, and the triage when they disagree.
pub struct Replay {
    pub answers: Vec<(String, Answer)>,
    pub triaged: Option<triage::Triaged>,
}

impl Probe {
    pub fn new() -> Result<Probe, String> {
        Ok(Probe {
            oracles: make_oracles()?,
            readings: Readings::default(),
            scratch: Vec::new(),
        })
    }

    /// The pair (reference, `oracle`) for root-cause triage.
    pub fn pair(&mut self, oracle: &str) -> Option<cause::OraclePair<'_>> {
        cause::OraclePair::of(&mut self.oracles, triage::REFERENCE, oracle)
    }

    pub fn replay(&mut self, body: &[u8], agent: &str, url: &str) -> Replay {
        let q = [Query {
            ask: Ask::CanFetch,
            agent: agent.to_string(),
            url: url.to_string(),
        }];
        let answers: Vec<(String, Answer)> = self
            .oracles
            .iter_mut()
            .map(|o| {
                let a = o.run(body, &q).pop().unwrap_or_else(|| {
                    Answer::from(Outcome::Crash {
                        detail: "no answer".into(),
                    })
                });
                (o.name().to_string(), a)
            })
            .collect();
        let row: Vec<(&str, &Outcome)> = answers
            .iter()
            .map(|(n, a)| (n.as_str(), &a.outcome))
            .collect();
        let triaged = if triage::disagrees(&row) {
            let robots = Robots::parse(body, &self.readings);
            let f = triage::feature(&robots, agent, url, &mut self.scratch);
            Some(triage::triage_row(&row, &f))
        } else {
            None
        };
        Replay { answers, triaged }
    }
}

/// A finding on disk.
#[derive(Debug, Clone)]
pub struct Finding {
    pub dir: PathBuf,
    pub hash: String,
    pub record: FindingRecord,
    pub body: Vec<u8>,
}

impl Finding {
    /// The finding in `dir`; `Ok(None)` when `dir` holds no `finding.json`
    /// (not a finding, or one a fuzz process is still writing), an error
    /// when it holds one that does not parse or has no `robots.txt`.
    pub fn load(dir: &Path) -> Result<Option<Finding>, String> {
        let path = dir.join("finding.json");
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(None);
        };
        let record: FindingRecord =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let body = std::fs::read(dir.join("robots.txt"))
            .map_err(|e| format!("{}: {e}", dir.join("robots.txt").display()))?;
        Ok(Some(Finding {
            dir: dir.to_path_buf(),
            hash: record.hash.clone(),
            record,
            body,
        }))
    }

    pub fn new_part(&self) -> &[triage::Novel] {
        &self.record.new
    }

    /// Total hits: the compacted count plus every process's count file.
    pub fn hits(&self) -> u64 {
        let mut n: u64 = std::fs::read_to_string(self.dir.join("hits.total"))
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        if let Ok(rd) = std::fs::read_dir(self.dir.join("hits")) {
            for e in rd.flatten() {
                n += std::fs::read_to_string(e.path())
                    .ok()
                    .and_then(|s| s.trim().parse::<u64>().ok())
                    .unwrap_or(0);
            }
        }
        n
    }

    /// Fold the per-process hit files into `hits.total`.
    pub fn compact_hits(&self) {
        let total = self.hits();
        if std::fs::write(self.dir.join("hits.total"), format!("{total}\n")).is_ok() {
            let _ = std::fs::remove_dir_all(self.dir.join("hits"));
        }
    }

    /// Is its new part still unexplained by `known`?
    pub fn untriaged(&self, known: &triage::Known) -> bool {
        self.new_part().iter().any(|n| !n.known_by(known))
            && !known.signatures.contains(&self.record.signature)
    }
}

/// Every finding of the run's findings folder, oldest first; a malformed
/// one is an error naming it.
pub fn all_findings() -> Result<Vec<Finding>, String> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(findings_dir()) {
        for e in rd.flatten() {
            out.extend(Finding::load(&e.path())?);
        }
    }
    out.sort_by_key(|f| (f.record.found_unix, f.hash.clone()));
    Ok(out)
}
