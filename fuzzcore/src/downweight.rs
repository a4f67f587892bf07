//! Down-weighting inputs that only re-trigger a known error.
//!
//! Why: in a nightly run protego and CPython 3.11 raise on tens of
//! thousands of inputs, nearly all for causes the ledger already names
//! (invalid UTF-8 in a rule, say), and libFuzzer keeps mutating those
//! inputs because the native parsers' coverage on them is new. The Python
//! oracles answer on the lane thread after the target has returned, so the
//! input itself cannot be judged in time; its *class set* can
//! ([`crate::classes`], cheap and computed from the rendered input). Each
//! class set keeps a tally of the inputs triaged with it; once at least
//! [`MIN_SEEN`] have been seen and [`SHARE`] of them did nothing but raise
//! an already-known error (a failure answer, and no new part in any
//! query), three inputs in four of that class set are rejected before any
//! oracle runs: libFuzzer neither spends the oracles' time on them nor adds
//! them to the corpus. One in four (by the input's hash, so a replay decides
//! the same way) still runs, so a class set whose behaviour changes is seen
//! to change.

use crate::classes::InputClass;
use std::collections::{BTreeSet, HashMap};

/// Inputs of a class set triaged before it can be down-weighted.
pub const MIN_SEEN: u32 = 200;
/// Share of those that only re-triggered a known error.
pub const SHARE: f64 = 0.9;
/// Of a down-weighted class set, one input in this many still runs.
pub const KEEP_ONE_IN: u64 = 4;

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    seen: u32,
    known_error_only: u32,
}

/// Tallies per class set, and what was rejected.
#[derive(Debug, Default)]
pub struct DownWeight {
    sets: HashMap<u64, Tally>,
    /// Inputs rejected so far.
    pub rejected: u64,
}

/// A class set as a bit set (the classes are fewer than 64).
pub fn key(classes: &BTreeSet<InputClass>) -> u64 {
    classes
        .iter()
        .fold(0u64, |k, &c| k | 1u64 << ((c as u32) % 64))
}

impl DownWeight {
    /// One triaged input of class set `key`.
    pub fn record(&mut self, key: u64, known_error_only: bool) {
        let t = self.sets.entry(key).or_default();
        t.seen = t.seen.saturating_add(1);
        t.known_error_only = t
            .known_error_only
            .saturating_add(u32::from(known_error_only));
    }

    /// Whether the class set is down-weighted now.
    pub fn weighted_down(&self, key: u64) -> bool {
        self.sets.get(&key).is_some_and(|t| {
            t.seen >= MIN_SEEN && f64::from(t.known_error_only) >= SHARE * f64::from(t.seen)
        })
    }

    /// Reject this input (hash `input_hash`, class set `key`)? Counts it.
    pub fn reject(&mut self, key: u64, input_hash: u64) -> bool {
        let no = self.weighted_down(key) && !input_hash.is_multiple_of(KEEP_ONE_IN);
        self.rejected += u64::from(no);
        no
    }

    /// Class sets down-weighted now.
    pub fn sets_down(&self) -> usize {
        self.sets.keys().filter(|&&k| self.weighted_down(k)).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(c: &[InputClass]) -> u64 {
        key(&c.iter().copied().collect())
    }

    #[test]
    fn a_class_set_of_known_errors_loses_three_inputs_in_four() {
        let mut d = DownWeight::default();
        let k = set(&[InputClass::InvalidUtf8]);
        for h in 0..(MIN_SEEN as u64 - 1) {
            d.record(k, true);
            assert!(
                !d.reject(k, h * 4 + 1),
                "down-weighted before {MIN_SEEN} inputs"
            );
        }
        d.record(k, true);
        let rejected = (0..400u64).filter(|&h| d.reject(k, h)).count();
        assert_eq!(rejected, 300);
        assert_eq!(d.rejected, 300);
        assert_eq!(d.sets_down(), 1);
    }

    #[test]
    fn new_behaviour_in_a_tenth_keeps_a_class_set_running() {
        let mut d = DownWeight::default();
        let k = set(&[InputClass::Nul, InputClass::InvalidUtf8]);
        for i in 0..1000 {
            d.record(k, i % 10 >= 2); // 80% known errors only
        }
        assert!(!d.weighted_down(k));
        assert!((0..100).all(|h| !d.reject(k, h)));
        // Another class set is judged on its own.
        let other = set(&[InputClass::Nul]);
        assert!(!d.weighted_down(other));
        assert_ne!(k, other);
    }
}
