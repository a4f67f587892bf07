//! The census's default input: the robots.txt files real websites served
//! that protego's sdist ships in `tests/test_data/` (named by host).
//! `repdiff setup` (step `census-data`) fetches the sdist from PyPI
//! pinned by this hash and extracts the folder to [`dir`];
//! the data is third-party and never committed.

use std::path::{Path, PathBuf};

pub const SDIST_NAME: &str = "protego";
pub const SDIST_VERSION: &str = "0.7.0";
pub const SDIST_FILE: &str = "protego-0.7.0.tar.gz";
/// As `pip download` fetched and checked it from PyPI on 2026-11-30 (the
/// JSON API was not reachable from here to cross-check).
pub const SDIST_SHA256: &str = "2c032d9736a1f4f0c4318f3558353ae34da5cd038f1a5e064ded7548df315e5a";
/// The sdist member extracted.
pub const MEMBER: &str = "protego-0.7.0/tests/test_data";
/// Files in `tests/test_data/`; fewer after extraction means a broken cache.
pub const FILES: usize = 4231;

/// Where setup extracts the data under a cache directory.
pub fn dir(cache: &Path) -> PathBuf {
    cache.join("census").join("protego-0.7.0-test-data")
}

/// Written next to the data, not in it (the census reads every file of the
/// folder): the sdist hash the folder was extracted from.
pub fn marker(dir: &Path) -> PathBuf {
    let mut name = dir.as_os_str().to_owned();
    name.push(".sha256");
    PathBuf::from(name)
}

/// Whether the default data is extracted from the pinned sdist.
pub fn present(dir: &Path) -> bool {
    std::fs::read_to_string(marker(dir)).is_ok_and(|m| m.trim() == SDIST_SHA256)
}
