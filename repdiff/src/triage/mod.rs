//! `repdiff triage`: the analysis a maintainer runs on the ledger and on
//! what the fuzzers left, with the cause catalogue (the `cause` crate,
//! docs/causes.md). `causes` names every ledger entry's cells; `sweep`
//! replays the fuzz corpora through every oracle and names each departure's
//! cause; `minimize` shrinks one fuzz finding into a corpus case and a
//! ledger draft; `known` derives the list of signatures the ledger explains.
//! None of them needs the fuzzing toolchain: the corpora and findings are
//! plain files, decoded with fuzzcore's types. `cargo xtask fuzz` keeps
//! only what does (build, the nightly job, speed, coverage).

pub mod causes;
pub mod fuzzed;
pub mod minimize;
pub mod reasons;
pub mod sweep;

use crate::shared::{Host, Usage};

/// `repdiff triage` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Cmd {
    /// Classify every ledger entry's cells with the cause catalogue (docs/causes.md)
    Causes(causes::Opts),
    /// Replay the fuzz corpora through every oracle (worker-run ones too)
    /// and name the cause of each departure; lists the (oracle, cause)
    /// pairs the ledger does not name
    Sweep(sweep::Opts),
    /// Shrink a fuzz finding while its new part holds; writes case.yaml and
    /// ledger-draft.yaml beside it
    Minimize {
        /// A finding directory (with finding.json) or a finding hash
        finding: String,
        /// Keep the whole signature, not only its new part
        #[arg(long)]
        exact: bool,
    },
    /// Derive fuzz/known-signatures.json from the corpus and the ledger
    Known,
}

pub fn main(cmd: Cmd, host: &Host) -> Result<i32, crate::error::Error> {
    match cmd {
        Cmd::Causes(o) => causes::main(&o, host.program),
        Cmd::Sweep(o) => {
            host.ensure(crate::shared::Needs::Oracles);
            sweep::main(&o, host.program)
        }
        Cmd::Minimize { finding, exact } => {
            host.ensure(crate::shared::Needs::Oracles);
            minimize_cmd(&finding, exact)
        }
        Cmd::Known => {
            host.ensure(crate::shared::Needs::Oracles);
            known_cmd()
        }
    }
}

/// `triage minimize <finding> [--exact]`.
fn minimize_cmd(which: &str, exact: bool) -> Result<i32, crate::error::Error> {
    fuzzed::seed_findings();
    let dir = fuzzed::resolve_finding(which)?;
    let known = fuzzed::derive_known().map_err(Usage)?;
    fuzzed::write_known(&known);
    match minimize::minimize(&dir, &known, exact) {
        Ok(summary) => {
            crate::out!("{summary}");
            Ok(0)
        }
        Err(e) => {
            log::error!("{e}");
            Ok(1)
        }
    }
}

/// `triage known`.
fn known_cmd() -> Result<i32, crate::error::Error> {
    let known = fuzzed::derive_known().map_err(Usage)?;
    fuzzed::write_known(&known);
    crate::out!(
        "{}: {} signatures, {} cell keys from {} corpus queries ({} left out: unexplained cells)",
        fuzzed::known_path().display(),
        known.signatures.len(),
        known.cells.len(),
        known.queries,
        known.unexplained_queries
    );
    Ok(0)
}
