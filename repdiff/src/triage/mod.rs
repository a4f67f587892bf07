//! `repdiff triage`: the analysis a maintainer runs on the ledger, with the
//! cause catalogue (the `cause` crate, docs/causes.md). `causes` names
//! every ledger entry's cells. The passes over the fuzzers' own output
//! (`fuzz sweep`, `fuzz minimize`, `fuzz known`) stay in `cargo xtask fuzz`:
//! they decode libFuzzer's corpora and findings with fuzzcore's generator,
//! which the product does not link.

pub mod causes;

use crate::cli::Usage;

/// `repdiff triage` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Cmd {
    /// Classify every ledger entry's cells with the cause catalogue (docs/causes.md)
    Causes(causes::Opts),
}

pub fn main(cmd: Cmd) -> Result<i32, Usage> {
    match cmd {
        Cmd::Causes(o) => causes::main(&o),
    }
}
