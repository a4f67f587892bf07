//! repdiff's engine: the case model and loader, the `Oracle` trait, the
//! runner and triage against the divergence ledger. Reports (compat.json,
//! compat.md, the site, the history) live in the `report` crate, which
//! depends on this one and never the other way round.
//!
//! It names no parser. Oracles implement [`oracle::Oracle`] in their own
//! crate; the command line (xtask) and the fuzz targets wire them in.

pub mod calendar;
pub mod case;
pub mod cause;
pub mod cell;
pub mod ledger;
pub mod oracle;
pub mod output;
pub mod query_ref;
pub mod read_error;
pub mod rng;
pub mod run;
pub mod signature;
pub mod worker;

/// Stores a type as its `Display` text and reads it back with its
/// `FromStr`: how every value of "one type per idea" (a signature, a cell
/// key, a cause, an identity) is written to JSON and YAML, so the stored
/// text is the type's own and only the type parses it.
#[macro_export]
macro_rules! serde_as_text {
    ($t:ty) => {
        impl ::serde::Serialize for $t {
            fn serialize<S: ::serde::Serializer>(
                &self,
                s: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $t {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                d: D,
            ) -> ::std::result::Result<Self, D::Error> {
                let text = <::std::string::String as ::serde::Deserialize>::deserialize(d)?;
                text.parse().map_err(::serde::de::Error::custom)
            }
        }
    };
}

/// Hex sha256, used for corpus hashes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The one atomic writer of every output (see [`output`]: staged, renamed,
/// safe from a signal).
pub use output::write_atomic;
