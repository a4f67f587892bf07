//! The third-party data sets setup fetches from registries: their pins
//! and where each lands in the cache. At the bottom of the crate: `setup`
//! writes them, `census`, `speed`, `lint` and `serve` read them, and none
//! of those needs the others to find them.

use std::path::{Path, PathBuf};

pub mod census_data;
pub mod warc_sample;

/// Where setup writes the AI-crawler list (PyPI's `ai-crawler-index`,
/// pinned in `census::ai_crawlers`) under a cache directory.
pub fn ai_crawler_list(cache: &Path) -> PathBuf {
    use census::ai_crawlers::{PACKAGE, VERSION};
    cache
        .join("ai-crawlers")
        .join(format!("{PACKAGE}-{VERSION}.json"))
}
