//! Where the corpus, the ledger and the reports live.

use crate::cli::Usage;
use std::path::PathBuf;

pub fn root() -> PathBuf {
    let p = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    p.canonicalize().unwrap_or(p)
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
