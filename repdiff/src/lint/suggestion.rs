//! What a rewrite is, apart from how one is found (`rewrite.rs`): a
//! group holds its suggestion, and the renderers and the server show it,
//! without knowing the search.

use super::attribute::Apart;

/// One changed run of lines: the old lines from `old_start` (0-based in
/// the original) replaced by `new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: usize,
    pub old: Vec<Vec<u8>>,
    pub new: Vec<Vec<u8>>,
}

/// A rewrite that makes every oracle agree on a group's questions.
#[derive(Debug, Clone)]
pub struct Suggestion {
    /// The catalogue transformation it comes from.
    pub transformation: &'static str,
    pub hunks: Vec<Hunk>,
    /// A `rewrite::REPAIRS` rewrite after which the RFC 9309 reference reads
    /// some question otherwise (it now reads the mended line).
    pub changes_reference: bool,
    /// How many of the group's questions every oracle then agrees on
    /// (a group may hold splits that other causes keep open).
    pub settles: usize,
    /// Oracles still in the minority on some of the group's questions
    /// afterwards: a rewrite that brings most parsers together is offered
    /// even when a few stay apart, naming them.
    pub remaining: Vec<String>,
    /// Why each of `remaining` still reads otherwise, in its order.
    pub apart: Vec<Apart>,
    /// The group's dissent afterwards: per question, the parsers on the
    /// smaller side, summed (`rewrite::dissent`); lower is better.
    pub dissent: usize,
}
