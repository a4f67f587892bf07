//! A reference to a case or to one of its queries, as the ledger, the
//! findings and `check --case` write it: `seed-18` (every query of the case)
//! or `seed-18#2` (its second query, 1-based). Read once, where the text is
//! read, so no code splits `case#N` again; its text is its one form
//! ([`FromStr`] reads what [`Display`](std::fmt::Display) writes, and serde
//! goes through both).

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct QueryRef {
    pub case: String,
    /// 0-based; `None`: every query of the case.
    pub query: Option<usize>,
}

impl QueryRef {
    /// Every query of `case`.
    pub fn case(case: &str) -> QueryRef {
        QueryRef {
            case: case.to_string(),
            query: None,
        }
    }

    /// Query `index` (0-based) of `case`.
    pub fn one(case: &str, index: usize) -> QueryRef {
        QueryRef {
            case: case.to_string(),
            query: Some(index),
        }
    }

    /// Does it name query `index` (0-based) of `case`?
    pub fn names(&self, case: &str, index: usize) -> bool {
        self.case == case && self.query.is_none_or(|q| q == index)
    }
}

impl fmt::Display for QueryRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.query {
            None => f.write_str(&self.case),
            Some(q) => write!(f, "{}#{}", self.case, q + 1),
        }
    }
}

impl FromStr for QueryRef {
    type Err = String;
    // String: a token that does not parse; its message is the whole error, and
    // the loader that read it adds the file and line.
    fn from_str(s: &str) -> Result<QueryRef, String> {
        let Some((case, n)) = s.split_once('#') else {
            return match s.is_empty() {
                true => Err("an empty case reference".into()),
                false => Ok(QueryRef::case(s)),
            };
        };
        match n.parse::<usize>() {
            Ok(k) if k >= 1 && !case.is_empty() => Ok(QueryRef::one(case, k - 1)),
            _ => Err(format!(
                "`{s}`: a case reference is `CASE` or `CASE#N`, N from 1"
            )),
        }
    }
}

impl TryFrom<String> for QueryRef {
    type Error = String;
    // String: a token that does not parse; its message is the whole error, and
    // the loader that read it adds the file and line.
    fn try_from(s: String) -> Result<QueryRef, String> {
        s.parse()
    }
}

impl From<QueryRef> for String {
    fn from(r: QueryRef) -> String {
        r.to_string()
    }
}

/// In the order of their text, as the files and reports have always listed
/// them (`a#10` before `a#2`), so output written from a sorted map of
/// references keeps its bytes.
impl Ord for QueryRef {
    fn cmp(&self, other: &QueryRef) -> Ordering {
        // Compared as the bytes of their text, without writing it: the
        // history's maps of off cells hold thousands of references.
        let (mut a, mut b) = ([0u8; 24], [0u8; 24]);
        let text = |r: &'_ QueryRef, buf: &'_ mut [u8; 24]| -> usize {
            use std::io::Write;
            let mut at = &mut buf[..];
            if let Some(q) = r.query {
                let _ = write!(at, "#{}", q + 1);
            }
            24 - at.len()
        };
        let (na, nb) = (text(self, &mut a), text(other, &mut b));
        let left = self.case.as_bytes().iter().chain(&a[..na]);
        left.cmp(other.case.as_bytes().iter().chain(&b[..nb]))
    }
}

impl PartialOrd for QueryRef {
    fn partial_cmp(&self, other: &QueryRef) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn its_text_is_its_one_form() {
        for text in ["seed-18", "seed-18#2", "a#10"] {
            let r: QueryRef = text.parse().expect(text);
            assert_eq!(r.to_string(), text);
        }
        let r: QueryRef = "seed-18#2".parse().unwrap();
        assert_eq!(r, QueryRef::one("seed-18", 1));
        assert!(r.names("seed-18", 1) && !r.names("seed-18", 0) && !r.names("seed-1", 1));
        assert!(QueryRef::case("x").names("x", 7));
    }

    #[test]
    fn a_malformed_reference_is_refused() {
        for bad in ["", "x#0", "x#", "x#two", "#1", "x#-1"] {
            assert!(bad.parse::<QueryRef>().is_err(), "{bad}");
        }
    }

    #[test]
    fn sorted_as_text() {
        let mut refs: Vec<QueryRef> = ["a#2", "a#10", "a", "a-b"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        refs.sort();
        let text: Vec<String> = refs.iter().map(ToString::to_string).collect();
        assert_eq!(text, ["a", "a#10", "a#2", "a-b"]);
        // The same order as their text, pair by pair.
        for x in &refs {
            for y in &refs {
                assert_eq!(x.cmp(y), x.to_string().cmp(&y.to_string()), "{x} {y}");
            }
        }
    }
}
