//! Real robots.txt parsers behind `engine::Oracle`, one file per oracle.
//!
//! Each oracle is registered once in [`registry`]; every caller starts
//! them through the [`roster`], which also reads the external oracles'
//! manifests. An oracle that cannot be built here (setup missing) is still
//! registered: its constructor returns [`Unavailable`] saying what to run.

use engine::oracle::{Oracle, Unavailable};
use std::path::PathBuf;

#[cfg(feature = "python")]
pub mod cpython;
#[cfg(feature = "python")]
pub mod protego;
#[cfg(feature = "python")]
pub mod python;
#[cfg(feature = "rust-crates")]
pub mod robotstxt_rs;
#[cfg(feature = "rust-crates")]
pub mod texting_robots;

pub mod google;
pub mod panic_guard;
pub mod profiles;
pub mod rfc9309;
pub mod roster;

/// The manifests' model, under its old path: it is the roster's.
pub use roster::manifest;
pub use roster::{Checkout, ManifestError, Roster, Runtime};

/// How long an oracle's own HTTP fetcher waits on its socket (connect, each
/// read): `REPDIFF_FETCH_TIMEOUT` seconds, 1 by default. One setting for
/// every fetcher (both CPythons' `read()`, rfc9309's client), so the status
/// matrix's slow response (3 s, `repdiff/src/http.rs`) is a network error for
/// all of them, well inside a worker's 5 s per-query limit.
pub fn fetch_timeout() -> std::time::Duration {
    std::env::var("REPDIFF_FETCH_TIMEOUT")
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|t| *t > 0.0)
        .and_then(|t| std::time::Duration::try_from_secs_f64(t).ok())
        .unwrap_or(DEFAULT_FETCH_TIMEOUT)
}

/// See [`fetch_timeout`].
pub const DEFAULT_FETCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);

/// `version` and `checksum` of a crates.io package in a Cargo.lock text.
pub fn locked(lock: &str, krate: &str) -> Option<(String, String)> {
    let mut blocks = lock.split("[[package]]");
    blocks.find_map(|b| {
        let field = |k: &str| {
            b.lines().find_map(|l| {
                l.strip_prefix(k)
                    .and_then(|r| r.trim_start().strip_prefix('='))
                    .map(|v| v.trim().trim_matches('"').to_string())
            })
        };
        (field("name").as_deref() == Some(krate)).then(|| {
            (
                field("version").unwrap_or_default(),
                field("checksum").unwrap_or_default(),
            )
        })
    })
}

/// The About of a crates.io parser linked into this binary: its pin and
/// checksum from the Cargo.lock it was built with.
pub fn crate_about(krate: &str, library: &str) -> engine::oracle::About {
    use engine::oracle::{About, Provenance, Runtime};
    let (version, sha256) = locked(include_str!("../../Cargo.lock"), krate).unwrap_or_default();
    About {
        library: library.to_string(),
        version: version.clone(),
        language: "rust".into(),
        runtime: Runtime {
            name: "rustc".into(),
            version: String::new(),
        },
        provenance: Provenance {
            registry: "crates.io".into(),
            package: krate.to_string(),
            version,
            sha256,
            ..Provenance::default()
        },
        feeding: String::new(),
    }
}

/// How to construct one oracle.
pub struct Entry {
    pub name: &'static str,
    /// What the oracle's code runs on; its manifest's `builtin:` must say
    /// the same.
    pub runtime: Runtime,
    pub make: fn() -> Result<Box<dyn Oracle>, Unavailable>,
    /// The program that serves it as a worker when that is not this
    /// crate's own code: Google's C++ is linked only into its harness
    /// binary (and the fuzz targets), so the product starts that binary
    /// directly instead of `<itself> worker NAME`.
    pub harness: Option<fn() -> PathBuf>,
}

/// Every oracle repdiff knows, in report order.
pub fn registry() -> Vec<Entry> {
    let mut out = Vec::new();
    // The RFC 9309 reference reading: pure Rust, always built.
    out.push(Entry {
        name: rfc9309::NAME,
        runtime: Runtime::Rust,
        make: || Ok(Box::new(rfc9309::Rfc9309::default())),
        harness: None,
    });
    // Always registered: in process where this build links the C++ (the
    // fuzz targets), else through the harness binary setup builds; without
    // setup its constructor says what to run.
    out.push(Entry {
        name: google::NAME,
        runtime: Runtime::Google,
        make: google::make,
        harness: google::harness(),
    });
    #[cfg(feature = "rust-crates")]
    {
        out.push(Entry {
            name: texting_robots::NAME,
            runtime: Runtime::Rust,
            make: || Ok(Box::new(texting_robots::TextingRobots)),
            harness: None,
        });
        out.push(Entry {
            name: robotstxt_rs::NAME,
            runtime: Runtime::Rust,
            make: || Ok(Box::new(robotstxt_rs::RobotstxtRs)),
            harness: None,
        });
    }
    // Embedded CPython (PyO3): without setup their constructors say what to run.
    #[cfg(feature = "python")]
    {
        out.push(Entry {
            name: cpython::NAME_311,
            runtime: Runtime::Python,
            make: cpython::make_311,
            harness: None,
        });
        out.push(Entry {
            name: cpython::NAME_315,
            runtime: Runtime::Python,
            make: cpython::make_315,
            harness: None,
        });
        out.push(Entry {
            name: protego::NAME,
            runtime: Runtime::Python,
            make: protego::make,
            harness: None,
        });
        out.push(Entry {
            name: protego::NAME_061,
            runtime: Runtime::Python,
            make: protego::make_061,
            harness: None,
        });
    }
    out
}

/// The expectation profiles ([`mod@profiles`]): references a parser is
/// compared with, never parsers under test, so they are listed apart from
/// [`registry`] (whose every consumer, conformance's triage and the fuzz
/// targets, wants parsers). `rfc9309` is both: the reference parser and the
/// RFC 9309 profile.
pub fn profiles() -> Vec<Entry> {
    use profiles::classic::Edition;
    vec![
        Entry {
            name: profiles::ROBOTS_1996,
            runtime: Runtime::Rust,
            make: || Ok(Box::new(profiles::Classic::new(Edition::Y1996))),
            harness: None,
        },
        Entry {
            name: profiles::ROBOTS_1994,
            runtime: Runtime::Rust,
            make: || Ok(Box::new(profiles::Classic::new(Edition::Y1994))),
            harness: None,
        },
        Entry {
            name: profiles::aipref::NAME,
            runtime: Runtime::Rust,
            make: || Ok(Box::new(profiles::aipref::Aipref::new())),
            harness: None,
        },
        Entry {
            name: profiles::googlebot::NAME,
            runtime: Runtime::Google,
            make: profiles::googlebot::make,
            harness: None,
        },
    ]
}

/// The checkout's root ([`Checkout::current`]): a thin wrapper kept for
/// its many callers that want the path alone.
pub fn root() -> PathBuf {
    Checkout::current().root
}

/// The setup cache ([`Checkout::current`]): a thin wrapper kept for its
/// many callers that want the path alone.
pub fn cache_dir() -> PathBuf {
    Checkout::current().cache
}

/// Every oracle name a ledger entry may use: the built-in registry, then
/// the external oracles of the checkout at `root` ([`Roster::names`]).
pub fn oracle_names(root: &std::path::Path) -> Result<Vec<String>, ManifestError> {
    Ok(Roster::load(Checkout::at(root.to_path_buf()))?.names())
}

/// Every file of the known-divergence ledger under a checkout, in load
/// order: `cases/divergences.yaml` (entries about several oracles at once),
/// the `*.yaml` of `cases/divergences/` (such as the either-query splits),
/// then each oracle's own `oracles/harness/<name>/divergences.yaml`, beside
/// its manifest (entries about that oracle alone).
pub fn ledger_files(root: &std::path::Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = vec![root.join("cases/divergences.yaml")];
    let mut shared: Vec<PathBuf> = match std::fs::read_dir(root.join("cases/divergences")) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    shared.sort();
    files.extend(shared);
    for manifest in roster::checkout_manifests(root)? {
        let own = manifest.with_file_name("divergences.yaml");
        if own.is_file() {
            files.push(own);
        }
    }
    Ok(files)
}

/// Every ledger file's text, in load order: what a cache derived from the
/// ledger is keyed on, so an edit to any file makes it stale.
pub fn ledger_text(root: &std::path::Path) -> std::io::Result<String> {
    let mut text = String::new();
    for file in ledger_files(root)? {
        text.push_str(&std::fs::read_to_string(file)?);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_cargo_lock() {
        let lock = "[[package]]\nname = \"a\"\nversion = \"1.0.0\"\n\n[[package]]\nname = \"texting_robots\"\nversion = \"0.2.2\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"abc\"\n";
        assert_eq!(
            super::locked(lock, "texting_robots"),
            Some(("0.2.2".into(), "abc".into()))
        );
        assert_eq!(super::locked(lock, "nope"), None);
    }

    #[test]
    fn the_crates_carry_their_lockfile_checksum() {
        let about = super::crate_about("texting_robots", "texting_robots");
        assert_eq!(about.version, "0.2.2");
        assert_eq!(about.provenance.sha256.len(), 64, "{about:?}");
    }
}
