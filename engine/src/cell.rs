//! The cell key: how one oracle departed from the reference on one query,
//! as fuzz triage files it (`cpython-3.11: allowed->disallowed @
//! disallow/star`, `protego: ->error UnicodeEncodeError`).
//!
//! One type, so the fuzz loop, the known list and the minimiser cannot
//! disagree on what a key is, and asking a key for its oracle reads a
//! field instead of cutting text. Its text is what the fuzz files
//! (`finding.json`, `minimized.json`, `known-signatures.json`) hold, and
//! [`CellKey`]'s `FromStr` is the one reader of that text.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

/// What the oracle did where the reference answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Departure {
    /// Another answer: the reference's and the oracle's outcome labels, and
    /// the deciding feature under the reference's reading (flags left out).
    Answer {
        reference: String,
        answer: String,
        feature: String,
    },
    /// It raised: keyed by the error's kind alone, since what raises is the
    /// input's bytes, not the rule that decided the reference's verdict.
    Error {
        kind: String,
    },
    Crash,
    Timeout,
}

/// One oracle's departure on one query. Equality, order and hash are those
/// of the text, so sets of keys keep the order they had as strings.
#[derive(Debug, Clone)]
pub struct CellKey {
    oracle: String,
    departure: Departure,
    /// The canonical text, kept so set lookups in the fuzz loop cost no
    /// formatting.
    text: String,
}

/// Between a departure's two labels, and before an error's kind.
const ARROW: &str = "->";
/// Before the feature.
const AT: &str = " @ ";

impl CellKey {
    /// The key of `departure` by `oracle`. An oracle name holds no `:` or
    /// whitespace (a registry name), which keeps the text readable back.
    pub fn new(oracle: &str, departure: Departure) -> CellKey {
        let text = match &departure {
            Departure::Answer {
                reference,
                answer,
                feature,
            } => format!("{oracle}: {reference}{ARROW}{answer}{AT}{feature}"),
            Departure::Error { kind } => format!("{oracle}: {ARROW}error {kind}"),
            Departure::Crash => format!("{oracle}: {ARROW}crash"),
            Departure::Timeout => format!("{oracle}: {ARROW}timeout"),
        };
        CellKey {
            oracle: oracle.to_string(),
            departure,
            text,
        }
    }

    /// The oracle that departed.
    pub fn oracle(&self) -> &str {
        &self.oracle
    }

    pub fn departure(&self) -> &Departure {
        &self.departure
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The same oracle departing the same way, whatever feature decided
    /// the reference's verdict: one new departure seen on another rule.
    pub fn same_but_feature(&self, other: &CellKey) -> bool {
        let unfeatured = |d: &Departure| match d {
            Departure::Answer {
                reference, answer, ..
            } => Some((reference.clone(), answer.clone())),
            _ => None,
        };
        self.oracle == other.oracle
            && match (unfeatured(&self.departure), unfeatured(&other.departure)) {
                (Some(a), Some(b)) => a == b,
                (None, None) => self.departure == other.departure,
                _ => false,
            }
    }
}

impl fmt::Display for CellKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl PartialEq for CellKey {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for CellKey {}

impl PartialOrd for CellKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for CellKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.text.cmp(&other.text)
    }
}

impl Hash for CellKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

/// A text that is not a cell key, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseCellKeyError {
    pub text: String,
    pub why: &'static str,
}

impl fmt::Display for ParseCellKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a cell key ({}): {:?}", self.why, self.text)
    }
}

impl std::error::Error for ParseCellKeyError {}

impl FromStr for CellKey {
    type Err = ParseCellKeyError;

    fn from_str(s: &str) -> Result<CellKey, ParseCellKeyError> {
        let err = |why| ParseCellKeyError {
            text: s.to_string(),
            why,
        };
        let (oracle, rest) = s
            .split_once(": ")
            .ok_or_else(|| err("no `oracle: ` before the departure"))?;
        if oracle.is_empty() || oracle.contains(':') || oracle.contains(char::is_whitespace) {
            return Err(err("the oracle is not a registry name"));
        }
        let departure = match rest.strip_prefix(ARROW) {
            Some("crash") => Departure::Crash,
            Some("timeout") => Departure::Timeout,
            Some(after) => match after.strip_prefix("error ") {
                Some(kind) if !kind.is_empty() => Departure::Error {
                    kind: kind.to_string(),
                },
                _ => return Err(err("`->` is followed by neither error, crash nor timeout")),
            },
            None => {
                let (reference, after) = rest
                    .split_once(ARROW)
                    .ok_or_else(|| err("no `reference->answer`"))?;
                // A feature never holds ` @ `; an answer label might.
                let (answer, feature) = after
                    .rsplit_once(AT)
                    .ok_or_else(|| err("no ` @ feature`"))?;
                Departure::Answer {
                    reference: reference.to_string(),
                    answer: answer.to_string(),
                    feature: feature.to_string(),
                }
            }
        };
        let key = CellKey::new(oracle, departure);
        if key.text != s {
            return Err(err("not in its canonical form"));
        }
        Ok(key)
    }
}

crate::serde_as_text!(CellKey);

#[cfg(test)]
mod tests {
    use super::*;

    fn every_kind() -> Vec<CellKey> {
        vec![
            CellKey::new(
                "cpython-3.11",
                Departure::Answer {
                    reference: "allowed".into(),
                    answer: "disallowed".into(),
                    feature: "disallow/star".into(),
                },
            ),
            CellKey::new(
                "google",
                Departure::Answer {
                    reference: "?".into(),
                    answer: "allowed".into(),
                    feature: "/robots.txt".into(),
                },
            ),
            CellKey::new(
                "protego",
                Departure::Error {
                    kind: "UnicodeEncodeError".into(),
                },
            ),
            CellKey::new(
                "google",
                Departure::Error {
                    kind: "c++ exception".into(),
                },
            ),
            CellKey::new("spider", Departure::Crash),
            CellKey::new("webrobots", Departure::Timeout),
        ]
    }

    #[test]
    fn keys_round_trip_through_text_and_serde() {
        for key in every_kind() {
            let back: CellKey = key.to_string().parse().expect("parses");
            assert_eq!(back.departure(), key.departure(), "{key}");
            assert_eq!(back.oracle(), key.oracle(), "{key}");
            let json = serde_json::to_string(&key).expect("serialises");
            assert_eq!(json, format!("{:?}", key.as_str()));
            let again: CellKey = serde_json::from_str(&json).expect("deserialises");
            assert_eq!(again, key);
        }
    }

    #[test]
    fn the_text_is_the_stored_form() {
        let keys = every_kind();
        assert_eq!(
            keys[0].as_str(),
            "cpython-3.11: allowed->disallowed @ disallow/star"
        );
        assert_eq!(keys[2].as_str(), "protego: ->error UnicodeEncodeError");
        assert_eq!(keys[4].as_str(), "spider: ->crash");
        assert_eq!(keys[5].as_str(), "webrobots: ->timeout");
    }

    #[test]
    fn malformed_keys_are_refused() {
        for bad in [
            "",
            "cpython-3.11",
            ": allowed->disallowed @ x",
            "my bot: ->crash",
            "google: ->explode",
            "google: ->error ",
            "google: allowed disallowed @ x",
            "google: allowed->disallowed",
            "{google}=allowed @ disallow/star",
        ] {
            assert!(bad.parse::<CellKey>().is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn the_same_departure_on_another_feature_is_alike() {
        let keys = every_kind();
        let moved = CellKey::new(
            "cpython-3.11",
            Departure::Answer {
                reference: "allowed".into(),
                answer: "disallowed".into(),
                feature: "no-match/exact".into(),
            },
        );
        assert!(keys[0].same_but_feature(&moved));
        assert!(!keys[0].same_but_feature(&keys[1]));
        assert!(keys[2].same_but_feature(&keys[2]));
        assert!(!keys[2].same_but_feature(&keys[3]));
        assert!(!keys[4].same_but_feature(&keys[5]));
    }

    #[test]
    fn order_is_the_texts() {
        let mut keys = every_kind();
        keys.sort();
        let texts: Vec<&str> = keys.iter().map(CellKey::as_str).collect();
        let mut sorted = texts.clone();
        sorted.sort();
        assert_eq!(texts, sorted);
    }
}
