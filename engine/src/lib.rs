//! repdiff's engine: the case model and loader, the `Oracle` trait, the
//! runner, triage against the divergence ledger, and report rendering.
//!
//! It names no parser. Oracles implement [`oracle::Oracle`] in their own
//! crate; the command line (xtask) and the fuzz targets wire them in.

pub mod case;
pub mod ledger;
pub mod oracle;
pub mod report;
pub mod rng;
pub mod run;
pub mod site;
pub mod worker;

/// Hex sha256, used for corpus hashes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
