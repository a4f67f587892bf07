//! Down-weighting inputs that only re-trigger a known error.
//!
//! Why: in a nightly run protego and CPython 3.11 raise on tens of
//! thousands of inputs, nearly all for causes the ledger already names
//! (invalid UTF-8 in a rule, say), and libFuzzer keeps mutating those
//! inputs because the native parsers' coverage on them is new. The Python
//! oracles answer on the lane thread after the target has returned, so the
//! input itself cannot be judged in time; its classes can
//! ([`crate::classes`], cheap and computed from the rendered input).
//!
//! Each class keeps a tally of the triaged inputs that carry it; once at
//! least [`MIN_SEEN`] have been seen and [`SHARE`] of them did nothing but
//! raise an already-known error (a failure answer, and no new part in any
//! query), the class is *down*, and three inputs in four that carry a down
//! class are rejected before any oracle runs: libFuzzer neither spends the
//! oracles' time on them nor adds them to the corpus. One in four (by the
//! input's hash, so a replay decides the same way) still runs, so a class
//! whose behaviour changes is seen to change.
//!
//! The tally was first kept per class *set* (the whole combination an input
//! carries): an A/B run showed it rejected 594 of 3.5 million inputs,
//! because combinations are too many for any one to reach [`MIN_SEEN`] with
//! a clear share. One class (invalid UTF-8 inside a rule, say) is what
//! decides a known error, so the tally is per class.

use crate::classes::InputClass;
use std::collections::BTreeSet;

/// Inputs carrying a class triaged before it can be down-weighted.
pub const MIN_SEEN: u32 = 200;
/// Share of those that only re-triggered a known error.
pub const SHARE: f64 = 0.9;
/// Of inputs carrying a down class, one in this many still runs.
pub const KEEP_ONE_IN: u64 = 4;

#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    seen: u32,
    known_error_only: u32,
}

impl Tally {
    fn down(&self) -> bool {
        self.seen >= MIN_SEEN && f64::from(self.known_error_only) >= SHARE * f64::from(self.seen)
    }
}

/// Tallies per class, and what was rejected.
#[derive(Debug)]
pub struct DownWeight {
    classes: [Tally; BITS],
    /// Inputs rejected so far.
    pub rejected: u64,
}

impl Default for DownWeight {
    fn default() -> Self {
        DownWeight {
            classes: [Tally::default(); BITS],
            rejected: 0,
        }
    }
}

/// Bits of a class set: one per [`InputClass`]. A set once held 64 bits
/// and the classes outgrew it (79 with the rule relations), so classes past
/// the 64th shared a tally with the first ones; the assertion below stops
/// the build before that can happen again.
const BITS: usize = 128;
const _: () = assert!(
    InputClass::ALL.len() <= BITS,
    "more input classes than bits"
);

/// An input's classes as a bit set, one bit per class.
pub fn key(classes: &BTreeSet<InputClass>) -> u128 {
    classes.iter().fold(0u128, |k, &c| k | 1u128 << (c as u32))
}

/// The bits set in `key`.
fn bits(key: u128) -> impl Iterator<Item = usize> {
    (0..BITS).filter(move |b| key & (1u128 << b) != 0)
}

impl DownWeight {
    /// One triaged input carrying the classes of `key`.
    pub fn record(&mut self, key: u128, known_error_only: bool) {
        for b in bits(key) {
            let t = &mut self.classes[b];
            t.seen = t.seen.saturating_add(1);
            t.known_error_only = t
                .known_error_only
                .saturating_add(u32::from(known_error_only));
        }
    }

    /// Whether an input carrying the classes of `key` is down-weighted now.
    pub fn weighted_down(&self, key: u128) -> bool {
        bits(key).any(|b| self.classes[b].down())
    }

    /// Reject this input (hash `input_hash`, classes `key`)? Counts it.
    pub fn reject(&mut self, key: u128, input_hash: u64) -> bool {
        let no = self.weighted_down(key) && !input_hash.is_multiple_of(KEEP_ONE_IN);
        self.rejected += u64::from(no);
        no
    }

    /// Per class bit, how many triaged inputs carried it and how many of
    /// those only re-triggered a known error (the tally the rule reads).
    pub fn known_error_only(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.classes
            .iter()
            .enumerate()
            .filter(|(_, t)| t.seen > 0)
            .map(|(b, t)| (b, t.known_error_only))
    }

    /// Classes down now.
    pub fn classes_down(&self) -> usize {
        self.classes.iter().filter(|t| t.down()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A class's bit is its place in `InputClass::ALL` (the report names a
    /// tally by it), and no two classes share a bit.
    #[test]
    fn every_class_has_its_own_bit_named_by_its_place() {
        for (i, &c) in InputClass::ALL.iter().enumerate() {
            assert_eq!(c as usize, i, "{}", c.name());
            assert_eq!(key(&BTreeSet::from([c])), 1u128 << i);
        }
        let all: BTreeSet<InputClass> = InputClass::ALL.iter().copied().collect();
        assert_eq!(bits(key(&all)).count(), InputClass::ALL.len());
    }

    fn set(c: &[InputClass]) -> u128 {
        key(&c.iter().copied().collect())
    }

    #[test]
    fn a_class_of_known_errors_loses_three_inputs_in_four() {
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
        assert_eq!(d.classes_down(), 1);
        // Any input carrying the class is down-weighted, whatever else it carries.
        assert!(d.weighted_down(set(&[InputClass::InvalidUtf8, InputClass::Nul])));
        assert!(!d.weighted_down(set(&[InputClass::Nul])));
    }

    #[test]
    fn new_behaviour_in_a_tenth_keeps_a_class_running() {
        let mut d = DownWeight::default();
        let k = set(&[InputClass::Nul, InputClass::InvalidUtf8]);
        for i in 0..1000 {
            d.record(k, i % 10 >= 2); // 80% known errors only
        }
        assert!(!d.weighted_down(k));
        assert!((0..100).all(|h| !d.reject(k, h)));
        // Each class is judged on its own tally.
        let other = set(&[InputClass::Nul]);
        assert!(!d.weighted_down(other));
        for _ in 0..MIN_SEEN {
            d.record(set(&[InputClass::InvalidUtf8]), true);
        }
        // InvalidUtf8: 1000 + 200 seen, 800 + 200 known only = 83%: still up.
        assert!(!d.weighted_down(k));
    }
}
