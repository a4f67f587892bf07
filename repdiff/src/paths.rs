//! Where the corpus, the ledger and the reports live.

use crate::cli::Usage;
use std::path::PathBuf;

/// The checkout whose corpus, ledger and reports a command uses: the one
/// this binary was built in, or `REPDIFF_ROOT` (a second checkout of the
/// same commit; the tests use it to prove a run is the same from any path;
/// `--root DIR` sets it, so an installed `repdiff` can run anywhere).
pub fn root() -> PathBuf {
    let p = std::env::var_os("REPDIFF_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/..")));
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

/// The published census: written only by `cargo xtask census --publish`.
pub fn published_census_dir() -> PathBuf {
    root().join("reports/census")
}

/// The published suites scoreboard: written only by `cargo xtask suites --publish`.
pub fn published_suites() -> PathBuf {
    root().join("reports/suites/suites.json")
}

pub fn corpus_dir() -> PathBuf {
    root().join("cases/corpus")
}

pub fn ledger() -> PathBuf {
    root().join("cases/divergences.yaml")
}

pub fn load_corpus() -> Result<engine::case::Corpus, Usage> {
    let dir = corpus_dir();
    if !dir.is_dir() {
        return Err(Usage(format!(
            "no corpus at {}: pass --root DIR (a repdiff checkout) or set REPDIFF_ROOT",
            dir.display()
        )));
    }
    engine::case::load_dir(&dir).map_err(|e| Usage(e.to_string()))
}
