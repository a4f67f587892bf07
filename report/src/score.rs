//! Scoring: the one place cells become counts, for compat.md, the site,
//! the badges, `report diff`, the history and the console summary alike.

use crate::compat::{section_of, section_order, CaseRec, CellRec, Report, Status};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Counts of one oracle's cells: an `either` query that matched is not
/// scored (any verdict would do).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Score {
    pub matched: usize,
    pub deviated: usize,
    pub failed: usize,
    pub split: usize,
    pub unsupported: usize,
    #[serde(default)]
    pub triaged: usize,
    #[serde(default)]
    pub untriaged: usize,
}

impl Score {
    fn add(&mut self, cell: &CellRec, definite: bool) {
        self.count(cell.status, cell.triaged_by.is_some(), definite);
    }

    /// Count one cell of `status`; `triaged`: a ledger entry explains it;
    /// `definite`: its query's expectation is not `either`.
    pub fn count(&mut self, status: Status, triaged: bool, definite: bool) {
        match status {
            Status::Match if definite => self.matched += 1,
            Status::Match => {}
            Status::Deviate => self.deviated += 1,
            Status::Failed => self.failed += 1,
            Status::Split => self.split += 1,
            Status::Unsupported => self.unsupported += 1,
        }
        if status.needs_triage() {
            if triaged {
                self.triaged += 1;
            } else {
                self.untriaged += 1;
            }
        }
    }

    /// Cells with a definite expectation that the oracle answered.
    pub fn scored(&self) -> usize {
        self.matched + self.deviated + self.failed
    }

    /// Matched share of the scored cells; `None` when nothing was scored.
    pub fn share(&self) -> Option<f64> {
        (self.scored() > 0).then(|| 100.0 * self.matched as f64 / self.scored() as f64)
    }

    /// [`Score::share`], 0 when nothing was scored.
    pub fn percent(&self) -> f64 {
        self.share().unwrap_or(0.0)
    }
}

/// One oracle's tallies: overall, per tag, per RFC section.
#[derive(Debug, Clone, Default)]
pub struct Card {
    pub all: Score,
    pub tags: BTreeMap<String, Score>,
    pub sections: BTreeMap<String, Score>,
}

/// Scorecards of every oracle of a report.
pub fn cards(report: &Report) -> BTreeMap<String, Card> {
    let mut out: BTreeMap<String, Card> = report
        .oracles
        .iter()
        .map(|o| (o.name.clone(), Card::default()))
        .collect();
    let cases: BTreeMap<&str, &CaseRec> = report.cases.iter().map(|c| (c.id.as_str(), c)).collect();
    for cell in &report.cells {
        let Some(case) = cases.get(cell.case.as_str()) else {
            continue;
        };
        let Some(q) = case.queries.get(cell.query) else {
            continue;
        };
        let definite = q.definite();
        let card = out.entry(cell.oracle.clone()).or_default();
        card.all.add(cell, definite);
        for t in &case.tags {
            card.tags.entry(t.clone()).or_default().add(cell, definite);
        }
        card.sections
            .entry(section_of(&q.basis))
            .or_default()
            .add(cell, definite);
    }
    out
}

/// Every tag of the report, sorted.
pub fn tags(report: &Report) -> Vec<String> {
    let mut t: Vec<String> = report.cases.iter().flat_map(|c| c.tags.clone()).collect();
    t.sort();
    t.dedup();
    t
}

/// Every section cited by the report, in document order.
pub fn sections(report: &Report) -> Vec<String> {
    let mut s: Vec<String> = report
        .cases
        .iter()
        .flat_map(|c| c.queries.iter().map(|q| section_of(&q.basis)))
        .collect();
    s.sort_by_key(|x| section_order(x));
    s.dedup();
    s
}
