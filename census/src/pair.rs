//! Two oracles compared: the key of the census's pair and headline maps.
//!
//! census.json stores the pair as the text `a vs b` (a JSON map key), so
//! [`Pair`] serialises as that string and `FromStr` is its one reader;
//! everything else takes the names from the fields.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// Between the names in the text.
const VS: &str = " vs ";

/// `a` before `b` in the run's oracle order.
///
/// Ordered as its text is, so maps keyed by pairs keep the order they had
/// when the keys were strings and census.json stays byte for byte.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Pair {
    pub a: String,
    pub b: String,
}

impl Pair {
    pub fn new(a: &str, b: &str) -> Pair {
        Pair {
            a: a.to_string(),
            b: b.to_string(),
        }
    }

    fn text_bytes(&self) -> impl Iterator<Item = u8> + '_ {
        self.a.bytes().chain(VS.bytes()).chain(self.b.bytes())
    }
}

impl fmt::Display for Pair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{VS}{}", self.a, self.b)
    }
}

impl PartialOrd for Pair {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Pair {
    fn cmp(&self, other: &Self) -> Ordering {
        // The fields break a tie of texts (names holding ` vs `), so the
        // order agrees with the derived equality.
        self.text_bytes()
            .cmp(other.text_bytes())
            .then_with(|| (&self.a, &self.b).cmp(&(&other.a, &other.b)))
    }
}

/// Why a stored pair key could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsePairError(pub String);

impl fmt::Display for ParsePairError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not an oracle pair `a vs b`: {:?}", self.0)
    }
}

impl std::error::Error for ParsePairError {}

impl FromStr for Pair {
    type Err = ParsePairError;

    fn from_str(s: &str) -> Result<Pair, ParsePairError> {
        match s.split_once(VS) {
            Some((a, b)) if !a.is_empty() && !b.is_empty() && !b.contains(VS) => {
                Ok(Pair::new(a, b))
            }
            _ => Err(ParsePairError(s.to_string())),
        }
    }
}

engine::serde_as_text!(Pair);

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn text_round_trips_as_a_map_key() {
        let p = Pair::new("cpython-3.11", "google");
        assert_eq!(p.to_string(), "cpython-3.11 vs google");
        assert_eq!("cpython-3.11 vs google".parse::<Pair>(), Ok(p.clone()));
        let map = BTreeMap::from([(p.clone(), 1u8)]);
        let json = serde_json::to_string(&map).expect("serialises");
        assert_eq!(json, r#"{"cpython-3.11 vs google":1}"#);
        let back: BTreeMap<Pair, u8> = serde_json::from_str(&json).expect("deserialises");
        assert_eq!(back, map);
    }

    #[test]
    fn malformed_text_is_an_error() {
        for bad in ["google", " vs google", "google vs ", "a vs b vs c", "a vs"] {
            assert!(bad.parse::<Pair>().is_err(), "{bad:?} parsed");
        }
        assert!(serde_json::from_str::<BTreeMap<Pair, u8>>(r#"{"google":1}"#).is_err());
    }

    #[test]
    fn order_is_the_texts() {
        let names = ["go", "go-x", "go x", "g", "a b", "a"];
        let mut pairs = Vec::new();
        for a in names {
            for b in names {
                pairs.push(Pair::new(a, b));
            }
        }
        let mut by_text = pairs.clone();
        by_text.sort_by_key(Pair::to_string);
        pairs.sort();
        assert_eq!(pairs, by_text);
    }
}
