//! repdiff's engine: the case model and loader, the `Oracle` trait, the
//! runner and triage against the divergence ledger. Reports (compat.json,
//! compat.md, the site, the history) live in the `report` crate, which
//! depends on this one and never the other way round.
//!
//! It names no parser. Oracles implement [`oracle::Oracle`] in their own
//! crate; the command line (xtask) and the fuzz targets wire them in.

pub mod case;
pub mod ledger;
pub mod oracle;
pub mod rng;
pub mod run;
pub mod worker;

/// Hex sha256, used for corpus hashes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Write `bytes` to `path` via a temporary file in the same directory and a
/// rename, so readers see the old file or the new one, never a torn one.
pub fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("report"),
        std::process::id()
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
