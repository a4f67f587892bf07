//! Real WARC files from a registry package, so the census's WARC reader is
//! tested on bytes other tools wrote (wget, wpull, pywb's own recorder)
//! and not only on records its own tests build, and the real `warcio` to
//! say what those files hold (`repdiff/tests/it/census_warc_sample.rs`).
//!
//! warcio's sdists (1.7.4 to 1.8.1 checked) ship no `test/data/`; pywb's
//! sdist ships the same sample archive in `sample_archive/warcs/`, so that
//! is where the bytes come from, and warcio (newest release) is the
//! reference reader. `repdiff setup` (step `warc-sample`) fetches both
//! pinned by sha256; third-party, so never committed.

use std::path::{Path, PathBuf};

pub const SDIST_NAME: &str = "pywb";
pub const SDIST_VERSION: &str = "2.10.0";
pub const SDIST_FILE: &str = "pywb-2.10.0.tar.gz";
/// As `pip download --no-binary :all: pywb==2.10.0` fetched it from PyPI
/// on 2026-12-02 (pip checks PyPI's own hash of the file).
pub const SDIST_SHA256: &str = "5ae43c9b2a5321e39b9c8e16538bfbc0146eeb6fe26713232e45378b774a1a96";
/// The sdist member extracted.
pub const MEMBER: &str = "pywb-2.10.0/sample_archive/warcs";
/// The WARC files of [`MEMBER`] extracted. Left out: the two ARC files
/// (the census reads no ARC), `bad.arc`, and `example-bad.warc.gz.bad`
/// (one gzip member for the whole file, which warcio refuses and so
/// cannot be the reference for).
pub const FILES: &[&str] = &[
    "dupes.warc.gz",
    "example-extra.warc",
    "example-url-agnostic-orig.warc.gz",
    "example-url-agnostic-revisit.warc.gz",
    "example-wget-1-14.warc.gz",
    "example-wpull.warc.gz",
    "example.warc",
    "example.warc.gz",
    "example2.warc.gz",
    "httpbin-resource.warc.gz",
    "iana.warc.gz",
    "missing-status-text.warc",
    "post-test.warc.gz",
];

/// The reference reader, installed from wheels with `--require-hashes`
/// (hashes as pip fetched them from PyPI on 2026-12-02). warcio imports
/// `six` and declares it as its only dependency.
pub const WARCIO_VERSION: &str = "1.8.1";
pub const WARCIO_WHEEL_SHA256: &str =
    "82345c5914d36cb5e0513210dbf759e3db348bf8d0f7762996ccce3a5ce6e87b";
pub const SIX_VERSION: &str = "1.17.0";
pub const SIX_WHEEL_SHA256: &str =
    "4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274";

/// Setup's folder under a cache directory: the sdist, its requirements
/// file, the extracted files and their marker, apart from the census's
/// default data beside it.
pub fn base_dir(cache: &Path) -> PathBuf {
    cache.join("census").join("warc-sample")
}

/// Where setup extracts [`FILES`] under a cache directory.
pub fn data_dir(cache: &Path) -> PathBuf {
    base_dir(cache).join(format!("{SDIST_NAME}-{SDIST_VERSION}-sample-warcs"))
}

/// Written next to the data, not in it: the sdist hash it came from.
pub fn marker(dir: &Path) -> PathBuf {
    super::census_data::marker(dir)
}

/// Whether the files are extracted from the pinned sdist.
pub fn present(dir: &Path) -> bool {
    std::fs::read_to_string(marker(dir)).is_ok_and(|m| m.trim() == SDIST_SHA256)
        && FILES.iter().all(|f| dir.join(f).is_file())
}

/// The venv holding warcio, under a cache directory.
pub fn warcio_venv(cache: &Path) -> PathBuf {
    cache.join(format!("venv-warcio-{WARCIO_VERSION}"))
}

/// The requirements file setup installs the venv from.
pub fn warcio_requirements() -> String {
    format!(
        "warcio=={WARCIO_VERSION} --hash=sha256:{WARCIO_WHEEL_SHA256}\n\
         six=={SIX_VERSION} --hash=sha256:{SIX_WHEEL_SHA256}\n"
    )
}
