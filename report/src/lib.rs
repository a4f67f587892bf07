//! repdiff's reports: what a run looks like once it is over.
//!
//! [`compat`] is the one `compat.json` schema (written by `conformance`, read
//! by everything else), [`score`] the one way cells are counted,
//! [`markdown`] renders `compat.md`, [`site`] the static site and badges,
//! [`history`] the `reports/history.jsonl` records, [`suites`] the
//! `suites.json` schema.
//!
//! It reads the engine's run and case model; the engine never reads this
//! crate, so a report format change cannot reach the runner or the oracles.

pub mod compat;
pub mod error;
pub mod history;
pub mod markdown;
pub mod score;
pub mod site;
pub mod suites;

/// The one-line command that replays a cell.
pub fn reproducer(case: &str, query: usize, oracle: &str) -> String {
    format!(
        "repdiff check --case {case}#{} --oracle {oracle}",
        query + 1
    )
}
