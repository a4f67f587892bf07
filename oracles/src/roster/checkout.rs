//! The checkout an oracle is started from: where its manifests and ledger
//! live, and where setup put what it fetched. One value instead of two
//! environment look-ups scattered over the callers, so a caller that
//! works on another checkout (a test's copy, `--root DIR`) says so once.

use std::path::{Path, PathBuf};

/// A checkout and its setup cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    /// The repository: `REPDIFF_ROOT`, else the one this crate was built
    /// in (canonical where it exists, so two spellings of one checkout
    /// compare equal).
    pub root: PathBuf,
    /// Where setup puts what it fetched from the registries (never
    /// committed): `REPDIFF_CACHE`, else `.cache/` at the workspace root.
    pub cache: PathBuf,
}

impl Checkout {
    /// The checkout this process works on. Read from the environment on
    /// every call, not once: `--root DIR` sets `REPDIFF_ROOT`, and a
    /// packaged fuzz run sets `REPDIFF_CACHE`, after the process started.
    pub fn current() -> Checkout {
        Checkout::at(root_from_env())
    }

    /// The checkout at `root`, with the current setup cache.
    pub fn at(root: PathBuf) -> Checkout {
        let cache = match std::env::var_os("REPDIFF_CACHE") {
            Some(dir) => PathBuf::from(dir),
            None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.cache")),
        };
        Checkout { root, cache }
    }

    /// `{root}` and `{cache}` in a manifest's argv or environment filled in.
    pub fn expand(&self, s: &str) -> String {
        s.replace("{root}", &self.root.display().to_string())
            .replace("{cache}", &self.cache.display().to_string())
    }

    /// Every oracle's manifest: one directory per parser,
    /// `oracles/harness/<name>/oracle.yaml` beside everything else about it
    /// (its harness or adapter's build, direct-call program, ledger file),
    /// in name order.
    pub fn manifests(&self) -> std::io::Result<Vec<PathBuf>> {
        manifests_under(&self.root)
    }
}

fn root_from_env() -> PathBuf {
    let p = std::env::var_os("REPDIFF_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/..")));
    p.canonicalize().unwrap_or(p)
}

/// [`Checkout::manifests`] of the checkout at `root`.
pub(crate) fn manifests_under(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(root.join("oracles/harness"))? {
        let manifest = entry?.path().join("oracle.yaml");
        if manifest.is_file() {
            found.push(manifest);
        }
    }
    found.sort();
    Ok(found)
}
