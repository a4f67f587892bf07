//! The agreement signature of one query: which oracles gave which answer.
//!
//! One type, so that the runner, the census, fuzz triage and the reports
//! cannot disagree on what a signature is or how it is written. Its text,
//! `{a,b}=allowed | {c}=disallowed`, is what every stored file (compat.json,
//! census.json, fuzz/known-signatures.json) holds; [`Signature`]'s
//! `FromStr` is the one reader of that text.

use crate::oracle::Outcome;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

/// Between two classes of the text.
const SEP: &str = " | ";

/// One agreement class: the oracles that gave one answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Class {
    /// The answer's outcome label ([`Outcome::label`]).
    pub label: String,
    /// In name order.
    pub oracles: Vec<String>,
}

/// The agreement classes of one query, ordered by label, each class's
/// oracles by name; no class when no oracle could answer.
///
/// Equality, order and hash are those of the text: stored maps keyed by
/// signatures keep the order they had when signatures were strings, and a
/// signature read back from a file is the one that was written.
#[derive(Debug, Clone, Default)]
pub struct Signature {
    classes: Vec<Class>,
    /// The canonical text, kept so comparisons (census maps, sorted tops)
    /// cost no formatting.
    text: String,
}

impl Signature {
    /// The signature of one query's row of (oracle, outcome). Unsupported
    /// answers are left out: they say nothing about the file.
    pub fn of<'a>(row: impl IntoIterator<Item = (&'a str, &'a Outcome)>) -> Signature {
        let mut by_label: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
        for (name, outcome) in row {
            if matches!(outcome, Outcome::Unsupported { .. }) {
                continue;
            }
            by_label.entry(outcome.label()).or_default().insert(name);
        }
        Signature::from_classes(
            by_label
                .into_iter()
                .map(|(label, names)| Class {
                    label,
                    oracles: names.into_iter().map(str::to_string).collect(),
                })
                .collect(),
        )
    }

    fn from_classes(classes: Vec<Class>) -> Signature {
        let text = classes
            .iter()
            .map(|c| format!("{{{}}}={}", c.oracles.join(","), c.label))
            .collect::<Vec<_>>()
            .join(SEP);
        Signature { classes, text }
    }

    /// The classes, in label order.
    pub fn classes(&self) -> &[Class] {
        &self.classes
    }

    /// No class: no oracle could answer (or the query was never asked).
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// More than one class: the oracles disagree.
    pub fn disagrees(&self) -> bool {
        self.classes.len() > 1
    }

    /// The oracles that answer otherwise than `reference`, in class then
    /// name order; empty when `reference` is in no class (it gave no
    /// answer, so nothing departs from it).
    pub fn departing(&self, reference: &str) -> Vec<&str> {
        let in_class = |c: &Class| c.oracles.iter().any(|o| o == reference);
        if !self.classes.iter().any(in_class) {
            return Vec::new();
        }
        self.classes
            .iter()
            .filter(|c| !in_class(c))
            .flat_map(|c| c.oracles.iter().map(String::as_str))
            .collect()
    }

    /// The text, as files store it.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl PartialEq for Signature {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for Signature {}

impl PartialOrd for Signature {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Signature {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.text.cmp(&other.text)
    }
}

impl Hash for Signature {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

/// Why a stored signature could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseSignatureError {
    pub text: String,
    pub why: &'static str,
}

impl fmt::Display for ParseSignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "not an agreement signature ({}): {:?}",
            self.why, self.text
        )
    }
}

impl std::error::Error for ParseSignatureError {}

/// An oracle name as a signature can hold it: the class syntax's own
/// characters would make the text ambiguous.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && !name
            .chars()
            .any(|c| matches!(c, '{' | '}' | ',' | '=') || c.is_whitespace())
}

/// `{a,b}=` at the start of `s`: the names and the rest after `=`.
fn class_head(s: &str) -> Option<(Vec<String>, &str)> {
    let (names, rest) = s.strip_prefix('{')?.split_once("}=")?;
    let names: Vec<String> = names.split(',').map(str::to_string).collect();
    names.iter().all(|n| valid_name(n)).then_some((names, rest))
}

impl FromStr for Signature {
    type Err = ParseSignatureError;

    /// A label is free text (a sitemap list may hold anything), so a class
    /// ends only where ` | ` is followed by a well-formed `{names}=`.
    fn from_str(s: &str) -> Result<Signature, ParseSignatureError> {
        let err = |why| ParseSignatureError {
            text: s.to_string(),
            why,
        };
        let mut classes = Vec::new();
        let mut rest = s;
        while !rest.is_empty() {
            let (oracles, after) =
                class_head(rest).ok_or_else(|| err("a class is not `{names}=label`"))?;
            let end = after
                .match_indices(SEP)
                .map(|(i, _)| i)
                .find(|&i| class_head(&after[i + SEP.len()..]).is_some());
            let (label, next) = match end {
                Some(i) => (&after[..i], &after[i + SEP.len()..]),
                None => (after, ""),
            };
            classes.push(Class {
                label: label.to_string(),
                oracles,
            });
            rest = next;
        }
        let ascending = |v: Vec<&String>| v.windows(2).all(|w| w[0] < w[1]);
        if !ascending(classes.iter().map(|c| &c.label).collect())
            || !classes
                .iter()
                .all(|c| ascending(c.oracles.iter().collect()))
        {
            return Err(err("classes or names out of order"));
        }
        Ok(Signature::from_classes(classes))
    }
}

crate::serde_as_text!(Signature);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::Value;

    fn sample() -> Signature {
        let (a, d) = (Outcome::Allowed, Outcome::Disallowed);
        let u = Outcome::Unsupported {
            reason: String::new(),
        };
        Signature::of([("c", &d), ("b", &a), ("x", &u), ("a", &a)])
    }

    #[test]
    fn text_is_the_classes_in_label_then_name_order() {
        let s = sample();
        assert_eq!(s.to_string(), "{a,b}=allowed | {c}=disallowed");
        assert!(s.disagrees());
        assert_eq!(s.departing("a"), vec!["c"]);
        assert_eq!(s.departing("c"), vec!["a", "b"]);
        assert!(s.departing("x").is_empty(), "x gave no answer");
    }

    #[test]
    fn display_and_parse_round_trip() {
        let list = Outcome::Value {
            value: Value::List(vec!["http://e.test/a | {b}".into(), "x}=y".into()]),
        };
        let none = Outcome::Value { value: Value::None };
        let odd = Signature::of([("p", &list), ("q", &none), ("r", &Outcome::Timeout)]);
        for s in [sample(), odd, Signature::default()] {
            let text = s.to_string();
            let back: Signature = text.parse().expect("own text parses");
            assert_eq!(back, s);
            assert_eq!(back.classes(), s.classes(), "{text}");
            let json = serde_json::to_string(&s).expect("serialises");
            assert_eq!(json, serde_json::to_string(&text).expect("a string"));
            let from_json: Signature = serde_json::from_str(&json).expect("deserialises");
            assert_eq!(from_json.classes(), s.classes());
        }
    }

    #[test]
    fn malformed_text_is_an_error() {
        for bad in [
            "a=allowed",
            "{a}allowed",
            "{}=allowed",
            "{a,}=allowed",
            " {a}=allowed",
            "{b,a}=allowed",
            "{b}=disallowed | {a}=allowed",
            "{a}=x | {b}=x",
        ] {
            assert!(bad.parse::<Signature>().is_err(), "{bad:?} parsed");
        }
        assert!(serde_json::from_str::<Signature>("\"{a}allowed\"").is_err());
        // A label is free text: what follows `|` is only a new class when
        // it reads as one.
        let one: Signature = "{a}=allowed | b=x".parse().expect("one class");
        assert_eq!(one.classes().len(), 1);
    }

    #[test]
    fn order_is_the_texts() {
        let mut v: Vec<Signature> = ["{b}=allowed", "{a}=disallowed", "{a}=allowed | {b}=none"]
            .iter()
            .map(|s| s.parse().expect("well formed"))
            .collect();
        v.sort();
        let texts: Vec<&str> = v.iter().map(Signature::as_str).collect();
        assert_eq!(
            texts,
            ["{a}=allowed | {b}=none", "{a}=disallowed", "{b}=allowed"]
        );
    }
}
