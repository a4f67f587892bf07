//! Where the corpus, the ledger and the reports live.

use crate::cli::Usage;
use std::path::PathBuf;

pub fn root() -> PathBuf {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    p.canonicalize().unwrap_or(p)
}

/// Where plain runs write (`conformance`, `report`, `fuzz`, `bench`):
/// ignored by git, so a run changes no tracked file. Only
/// `cargo xtask report --publish` writes the published snapshot.
pub fn run_dir() -> PathBuf {
    root().join("reports/run")
}

/// The published snapshot: written only by `cargo xtask report --publish`.
pub fn published_dir() -> PathBuf {
    root().join("reports/latest")
}

pub fn corpus_dir() -> PathBuf {
    root().join("cases/corpus")
}

pub fn ledger() -> PathBuf {
    root().join("cases/divergences.yaml")
}

pub fn load_corpus() -> Result<engine::case::Corpus, Usage> {
    engine::case::load_dir(&corpus_dir()).map_err(|e| Usage(e.to_string()))
}
