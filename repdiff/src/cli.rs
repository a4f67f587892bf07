//! The product's command line, as clap types that both binaries embed:
//! `repdiff` uses them as its whole CLI, xtask flattens them next to its
//! tooling commands so both run the same commands.

use clap::{Args, Subcommand};
use std::path::PathBuf;

// The binaries (and xtask) name these through `cli`; inside the library
// every module takes them from `shared`, below the commands.
pub use crate::error::Error;
pub use crate::shared::{Host, Usage, EXIT_NOT_RUN};

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
    pub fn apply(&self) -> Result<(), Error> {
        crate::logging::init(crate::logging::level(self.quiet, self.verbose));
        for (var, dir) in [("REPDIFF_ROOT", &self.root), ("REPDIFF_CACHE", &self.cache)] {
            if let Some(dir) = dir {
                let dir = std::path::absolute(dir)
                    .map_err(|e| Usage(format!("{}: {e}", dir.display())))?;
                if !dir.is_dir() {
                    return Err(Usage(format!("{}: not a directory", dir.display())).into());
                }
                if var == "REPDIFF_ROOT" && !dir.join("cases/corpus").is_dir() {
                    return Err(Usage(format!(
                        "{}: not a repdiff checkout (no cases/corpus); --root wants the \
                         checkout whose corpus, ledger and oracle registry to use",
                        dir.display()
                    ))
                    .into());
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

impl Product {
    pub fn run(self, host: &Host) -> Result<i32, Error> {
        match self {
            Product::Setup => Ok(crate::setup::main(host.program)),
            Product::Conformance(o) => crate::conformance::main(*o, host),
            Product::Check(o) => crate::check::main(*o, host),
            Product::Lint(o) => crate::lint::main(*o, host),
            Product::Serve(o) => crate::serve::main(o, host),
            Product::Report(o) => crate::report_site::main(o, host.program),
            Product::Oracles(o) => Ok(crate::select::list(&o)?),
            Product::Doctor(o) => crate::doctor::main(o, host.program),
            Product::Census(o) => crate::census_cmd::main(*o, host),
            Product::Suites(o) => crate::suites::main(o, host),
            Product::Findings(o) => crate::findings::main(o, host.program),
            Product::Triage { cmd } => crate::triage::main(cmd, host),
            Product::Worker { name } => Ok(crate::select::worker(&name)),
        }
    }
}

/// Say an error the way clap prints its own (`error: …`, the logger's
/// error line, shown under `-q` too), and give the status of its kind
/// ([`Error::exit_code`]): the one place either binary maps an error to
/// an exit status. The binaries install the logger before a command runs
/// ([`Global::apply`] does, first of all).
pub fn exit_code(result: Result<i32, Error>) -> i32 {
    match result {
        Ok(code) => code,
        Err(e) => {
            log::error!("{e}");
            e.exit_code()
        }
    }
}
