//! The product's command line, as clap types that both binaries embed:
//! `repdiff` uses them as its whole CLI, xtask flattens them next to its
//! tooling commands so both run the same commands.

use clap::{Args, Subcommand};
use std::path::PathBuf;

/// A bad command line or unusable input: exit status 2, nothing written.
#[derive(Debug)]
pub struct Usage(pub String);

/// The exit status of a run in which some parser was not asked or did not
/// answer: an oracle that could not start (and was not left out with
/// `--skip-oracle`), or, in `check`, a `timeout` or `crash` cell. Neither 0
/// (a pass) nor 1 (the parsers disagree): a script must not read a run that
/// is missing parsers as either.
pub const EXIT_NOT_RUN: i32 = 3;

/// What differs between the binaries that run the product commands.
pub struct Host {
    /// How the help and the hints name the program (`repdiff`, `repdiff`).
    pub program: &'static str,
    /// Make the setup cache usable before oracles start: both binaries run
    /// setup ([`crate::setup::ensure`]); neither links a library setup
    /// fetches, so neither has to be rebuilt afterwards.
    pub ensure_setup: fn(),
}

/// Options every command takes: where the checkout and the setup cache are.
/// They are exported as `REPDIFF_ROOT` / `REPDIFF_CACHE`, so workers and
/// external harnesses (whose commands expand `{root}` and `{cache}`) see the
/// same paths as this process.
#[derive(Debug, Clone, Default, Args)]
pub struct Global {
    /// The checkout whose corpus (cases/corpus), ledger (cases/divergences.yaml),
    /// oracle registry and reports are used [default: $REPDIFF_ROOT, else the
    /// checkout this binary was built from]
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        help_heading = "Global options"
    )]
    pub root: Option<PathBuf>,
    /// The setup cache (what `repdiff setup` fetched: Python venvs,
    /// Google's robots.cc, external harnesses) [default: $REPDIFF_CACHE, else
    /// .cache/ of the checkout this binary was built from]
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        help_heading = "Global options"
    )]
    pub cache: Option<PathBuf>,
    /// Say only errors and warnings on stderr (no notes, no progress)
    #[arg(
        short,
        long,
        global = true,
        conflicts_with = "verbose",
        help_heading = "Global options"
    )]
    pub quiet: bool,
    /// Say more on stderr: debug detail, such as each setup step that had
    /// nothing to do
    #[arg(
        short,
        long,
        global = true,
        action = clap::ArgAction::Count,
        help_heading = "Global options"
    )]
    pub verbose: u8,
}

impl Global {
    /// Set the log level and export the paths before any thread or
    /// worker starts.
    pub fn apply(&self) -> Result<(), Usage> {
        crate::logging::init(crate::logging::level(self.quiet, self.verbose));
        for (var, dir) in [("REPDIFF_ROOT", &self.root), ("REPDIFF_CACHE", &self.cache)] {
            if let Some(dir) = dir {
                let dir = std::path::absolute(dir)
                    .map_err(|e| Usage(format!("{}: {e}", dir.display())))?;
                if !dir.is_dir() {
                    return Err(Usage(format!("{}: not a directory", dir.display())));
                }
                if var == "REPDIFF_ROOT" && !dir.join("cases/corpus").is_dir() {
                    return Err(Usage(format!(
                        "{}: not a repdiff checkout (no cases/corpus); --root wants the \
                         checkout whose corpus, ledger and oracle registry to use",
                        dir.display()
                    )));
                }
                std::env::set_var(var, dir);
            }
        }
        Ok(())
    }
}

/// The product commands.
#[derive(Debug, Subcommand)]
pub enum Product {
    /// Fetch and verify every third-party parser, test suite and data set (idempotent)
    #[command(long_about = crate::setup::HELP)]
    Setup,
    /// Run the corpus through every oracle and triage against the ledger
    ///
    /// Runs every case of cases/corpus/ through every oracle (or those named),
    /// compares each answer with the case's RFC 9309 expectation, and explains
    /// every deviation or disagreement by an entry of cases/divergences.yaml.
    Conformance(Box<crate::conformance::Opts>),
    /// Ask every oracle about one robots.txt, agent and URL (or one case)
    ///
    /// Asks every available oracle (or those named) whether UA may fetch URL
    /// under the robots.txt in FILE (read as raw bytes; `-` reads stdin), or
    /// replays the queries of one corpus case (`--case ID[#N]`).
    Check(Box<crate::check::Opts>),
    /// Which lines of a robots.txt do the parsers read differently, why, and a rewrite
    ///
    /// Asks every available oracle (or those named) the questions a crawler
    /// would ask about FILE (`-` reads stdin): `/`, common paths and the
    /// paths its rules name, for the agents it names, Googlebot, a crawler
    /// it does not name and each --agent; reports each question on which
    /// parsers disagree, grouped by the line(s) that make the difference,
    /// with the cause and, where one exists, a rewrite that makes them agree.
    Lint(Box<crate::lint::Opts>),
    /// The multi-parser tester in a browser, and its JSON API, on loopback
    ///
    /// Starts every available oracle (or those named) once, as supervised
    /// workers shared by all requests, and serves a page where one pastes a
    /// robots.txt and sees every parser's verdict per question side by side,
    /// with lint's findings (docs/serve.md).
    Serve(crate::serve::Opts),
    /// Render the published site (reports/site/) from a run; `report diff OLD NEW`
    Report(crate::report_site::Opts),
    /// List every registered oracle and how it is started (--json)
    Oracles(crate::select::ListOpts),
    /// Which oracles can run here, what each needs, and the fix for the rest (--json)
    ///
    /// Starts every registered oracle once and says, one line each, the
    /// runtime program it needs (java, node, ruby, perl, or built in),
    /// whether that program is there, whether the oracle is ready, and for
    /// one that is not, why and what fixes it (the Debian package of a
    /// missing runtime). Installs nothing: `setup` does. Exit status 0 when
    /// every oracle is ready, else 3.
    Doctor(crate::doctor::Opts),
    /// Every oracle over real robots.txt files (protego's test data, a tar, WARC); `census merge DIR...`
    #[command(long_about = crate::census_cmd::HELP)]
    Census(Box<crate::census_cmd::Opts>),
    /// Write reports/findings/: one upstream-ready write-up per `bug` ledger entry (--check: verify)
    #[command(long_about = crate::findings::HELP)]
    Findings(crate::findings::Opts),
    /// Root-cause analysis: `triage causes` (the ledger), `triage sweep|minimize|known` (the fuzzers' output)
    Triage {
        #[command(subcommand)]
        cmd: crate::triage::Cmd,
    },
    /// Every oracle on every parser's own test suite (--json)
    #[command(long_about = crate::suites::HELP)]
    Suites(crate::suites::Opts),
    /// Serve one built-in oracle over stdin/stdout (how supervised workers start)
    #[command(hide = true)]
    Worker {
        /// The oracle's name
        name: String,
    },
}

/// The program name hints give (`repdiff` or `repdiff`), set once by
/// [`Product::run`]: messages deep in selection and reports name the
/// command the user actually typed.
static PROGRAM: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// How hints name this program; `repdiff` until a command has started.
pub fn program() -> &'static str {
    PROGRAM.get().copied().unwrap_or("repdiff")
}

impl Product {
    pub fn run(self, host: &Host) -> Result<i32, Usage> {
        let _ = PROGRAM.set(host.program);
        match self {
            Product::Setup => Ok(crate::setup::main()),
            Product::Conformance(o) => crate::conformance::main(*o, host),
            Product::Check(o) => crate::check::main(*o, host),
            Product::Lint(o) => crate::lint::main(*o, host),
            Product::Serve(o) => crate::serve::main(o, host),
            Product::Report(o) => crate::report_site::main(o),
            Product::Oracles(o) => crate::select::list(&o),
            Product::Doctor(o) => crate::doctor::main(o),
            Product::Census(o) => crate::census_cmd::main(*o, host),
            Product::Suites(o) => crate::suites::main(o, host),
            Product::Findings(o) => crate::findings::main(o),
            Product::Triage { cmd } => crate::triage::main(cmd, host),
            Product::Worker { name } => Ok(crate::select::worker(&name)),
        }
    }
}

/// How far a worker may go before it is cut off, for the commands that
/// start oracles (`check`, `conformance`, `census`); the per-call timeout
/// stays each command's own `--timeout`.
#[derive(Debug, Clone, Args)]
pub struct WorkerFlags {
    /// Seconds a starting worker may be idle before it greets (a harness
    /// that cannot start is told within this, naming what it printed); time
    /// it spends busy, or waiting for a CPU, does not count, up to 12 times
    /// this in all
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = seconds)]
    pub greeting_timeout: std::time::Duration,
    /// Each worker's data-segment limit in MiB, 0 for none (a worker past
    /// it dies as one crash cell instead of taking the machine's memory)
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    pub memory_limit: u64,
    /// Leave this oracle out (repeatable): the run says it was not asked,
    /// instead of failing because it cannot start
    #[arg(long = "skip-oracle", value_name = "NAME")]
    pub skip_oracles: Vec<String>,
}

impl WorkerFlags {
    /// The oracles to start for `--oracle` names `names` (empty: every
    /// registered one and every `--oracle-cmd` one), without the skipped
    /// ones. Says on stderr which were left out.
    pub fn wanted(
        &self,
        names: &[String],
        extra: &[crate::registry::External],
    ) -> Result<Vec<String>, Usage> {
        if self.skip_oracles.is_empty() {
            return Ok(names.to_vec());
        }
        crate::select::validate(&self.skip_oracles, extra)?;
        let all: Vec<String> = if names.is_empty() {
            let mut all = crate::select::known_names();
            all.extend(extra.iter().map(|e| e.name.clone()));
            all
        } else {
            names.to_vec()
        };
        let kept: Vec<String> = all
            .into_iter()
            .filter(|n| !self.skip_oracles.contains(n))
            .collect();
        if kept.is_empty() {
            return Err(Usage("--skip-oracle left no oracle to ask".into()));
        }
        log::warn!(
            "not asked (--skip-oracle): {}",
            self.skip_oracles.join(", ")
        );
        Ok(kept)
    }

    /// The engine's limits with this call timeout and these flags.
    pub fn limits(&self, timeout: std::time::Duration) -> engine::worker::Limits {
        engine::worker::Limits {
            timeout,
            greeting_timeout: self.greeting_timeout,
            memory_limit: self.memory_limit.saturating_mul(1 << 20),
            ..engine::worker::Limits::default()
        }
    }
}

/// Print a usage error the way clap prints its own, and give its status.
pub fn exit_code(result: Result<i32, Usage>) -> i32 {
    match result {
        Ok(code) => code,
        Err(Usage(message)) => {
            eprintln!("error: {message}");
            2
        }
    }
}

/// `--timeout SECS`: a finite, non-negative number of seconds (a negative
/// or NaN one would make `Duration::from_secs_f64` panic).
pub fn seconds(s: &str) -> Result<std::time::Duration, String> {
    let v: f64 = s.parse().map_err(|_| format!("not a number: {s:?}"))?;
    std::time::Duration::try_from_secs_f64(v).map_err(|e| format!("{s:?}: {e}"))
}

/// Glob over case ids: `*` any run, `?` one character.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Iterative wildcard match with one backtrack point: linear-ish, no blow-up.
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("seed-*", "seed-18"));
        assert!(glob_match("*18", "seed-18"));
        assert!(glob_match("seed-1?", "seed-18"));
        assert!(!glob_match("seed-1?", "seed-1"));
        assert!(!glob_match("rfc-*", "seed-18"));
        assert!(glob_match("*", ""));
    }

    #[test]
    fn timeouts() {
        assert_eq!(seconds("2.5"), Ok(std::time::Duration::from_millis(2500)));
        assert!(seconds("-1").is_err());
        assert!(seconds("NaN").is_err());
        assert!(seconds("five").is_err());
    }
}
