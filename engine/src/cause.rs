//! A ledger entry's root cause as one type. The engine knows no catalogue
//! (it names no parser behaviour): it knows the two forms a cause takes, a
//! catalogue name (`strip-bom`) or `uncatalogued: <reason>`, and reads and
//! writes them here alone. Whether a name is in the catalogue is the
//! `cause` crate's to say (its tests check every ledger entry).

use std::fmt;
use std::str::FromStr;

/// The ledger's word for a cause the catalogue does not name.
pub const UNCATALOGUED: &str = "uncatalogued";

/// A catalogue name: kebab-case ASCII, e.g. `strip-bom`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CauseName(String);

impl CauseName {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for CauseName {
    type Err = String;

    // String: a token that does not parse; its message is the whole error, and
    // the loader that read it adds the file and line.
    fn from_str(s: &str) -> Result<Self, String> {
        let kebab = !s.is_empty()
            && !s.starts_with('-')
            && !s.ends_with('-')
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if kebab && s != UNCATALOGUED {
            Ok(CauseName(s.to_string()))
        } else {
            Err(format!(
                "`{s}` is not a catalogue name (kebab-case, docs/causes.md)"
            ))
        }
    }
}

impl fmt::Display for CauseName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<str> for CauseName {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

/// A ledger entry's `cause:`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cause {
    /// The classifier named it with a catalogue transformation.
    Named(CauseName),
    /// No transformation names it; the reason says why (an HTTP case, a
    /// behaviour no rewrite of the input removes).
    Uncatalogued { reason: String },
}

impl Cause {
    /// The catalogue name, if the cause has one.
    pub fn name(&self) -> Option<&CauseName> {
        match self {
            Cause::Named(n) => Some(n),
            Cause::Uncatalogued { .. } => None,
        }
    }
}

impl FromStr for Cause {
    type Err = String;

    // String: a token that does not parse; its message is the whole error, and
    // the loader that read it adds the file and line.
    fn from_str(s: &str) -> Result<Self, String> {
        if let Some(rest) = s.strip_prefix(UNCATALOGUED) {
            return match rest.strip_prefix(':').map(str::trim) {
                Some(reason) if !reason.is_empty() => Ok(Cause::Uncatalogued {
                    reason: reason.to_string(),
                }),
                _ => Err(format!(
                    "cause `{s}` is neither a catalogue name (docs/causes.md) nor `uncatalogued: <reason>`"
                )),
            };
        }
        s.parse().map(Cause::Named).map_err(|_| {
            format!(
                "cause `{s}` is neither a catalogue name (docs/causes.md) nor `uncatalogued: <reason>`"
            )
        })
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Named(n) => n.fmt(f),
            Cause::Uncatalogued { reason } => write!(f, "{UNCATALOGUED}: {reason}"),
        }
    }
}

// Both serialise as their text, the ledger's spelling.
crate::serde_as_text!(CauseName);
crate::serde_as_text!(Cause);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_forms_and_writes_them_back() {
        for text in [
            "strip-bom",
            "lowercase-agent",
            "uncatalogued: an HTTP status case",
        ] {
            let c: Cause = text.parse().unwrap();
            assert_eq!(c.to_string(), text);
            let yaml = serde_yaml::to_string(&c).unwrap();
            assert_eq!(serde_yaml::from_str::<Cause>(&yaml).unwrap(), c);
        }
        assert_eq!(
            "uncatalogued:  spaced  ".parse::<Cause>().unwrap(),
            Cause::Uncatalogued {
                reason: "spaced".into()
            }
        );
        assert!(matches!("strip-bom".parse(), Ok(Cause::Named(n)) if n == *"strip-bom"));
    }

    #[test]
    fn refuses_malformed_causes() {
        for bad in [
            "",
            "uncatalogued",
            "uncatalogued:  ",
            "Strip BOM",
            "-a",
            "a-",
            "a_b",
        ] {
            assert!(bad.parse::<Cause>().is_err(), "{bad:?}");
        }
        assert!("uncatalogued".parse::<CauseName>().is_err());
        assert!(serde_yaml::from_str::<Cause>("\"Strip BOM\"").is_err());
    }
}
