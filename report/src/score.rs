//! Scoring: the one place cells become counts, for compat.md, the site,
//! the badges, `report diff`, the history and the console summary alike.

pub use crate::compat::Score;
use crate::compat::{section_of, section_order, CaseRec, CellRec, Report, Status, RFC9309};
use std::collections::BTreeMap;

impl Report {
    /// A run as its report, counted. Case files are named relative to
    /// `base` (the repository root), so the same corpus run from two
    /// checkouts gives the same bytes.
    pub fn from_run(
        result: &engine::run::RunResult,
        cases: &[&engine::case::Case],
        ledger: &engine::ledger::Ledger,
        corpus_hash: &str,
        base: &std::path::Path,
    ) -> Report {
        let mut report = Report::unscored(result, cases, ledger, corpus_hash, base);
        report.scores = cards(&report)
            .into_iter()
            .map(|(name, card)| (name, card.all))
            .collect();
        report.profile_matrix = profile_matrix(&report);
        report.closest_profile = closest_profiles(&report, &report.profile_matrix);
        report
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

/// The oracle × profile matrix: per oracle, per profile, how the oracle's
/// answers compare with what that profile expects. It shows which standard
/// a parser follows, which a single RFC 9309 score cannot.
///
/// Counting rules (compat.md says the same):
/// - `rfc9309`: the corpus's own expectations, counted exactly as the
///   scorecard counts them, so this column is the RFC 9309 score: a matched
///   `either` query and a split are not scored.
/// - every other profile: only the queries it has an expectation for (its
///   hand pin, else its reference's `allowed` / `disallowed`; what the
///   reference cannot decide, such as `crawl_delay`, is not counted). Its
///   expectation is always definite, so RFC 9309's `either` queries count
///   like any other. The same verdict is `matched`, the other one
///   `deviated`, an error, crash or timeout `failed`, and `unsupported`
///   (the oracle cannot ask, e.g. no HTTP fetcher) is not scored.
///
/// In both, the share is matched / (matched + deviated + failed)
/// ([`Score::share`]); profiles are never triaged, so `triaged` and
/// `untriaged` stay 0 outside the `rfc9309` column.
pub fn profile_matrix(report: &Report) -> BTreeMap<String, BTreeMap<String, Score>> {
    let profiles = report.profile_names();
    if profiles.is_empty() {
        return BTreeMap::new();
    }
    let all = cards(report);
    let mut out: BTreeMap<String, BTreeMap<String, Score>> = report
        .oracles
        .iter()
        .map(|o| {
            let mut row: BTreeMap<String, Score> = profiles
                .iter()
                .map(|p| (p.clone(), Score::default()))
                .collect();
            row.insert(
                RFC9309.to_string(),
                all.get(&o.name).map(|c| c.all).unwrap_or_default(),
            );
            (o.name.clone(), row)
        })
        .collect();
    let cases: BTreeMap<&str, &CaseRec> = report.cases.iter().map(|c| (c.id.as_str(), c)).collect();
    for cell in &report.cells {
        let Some(q) = cases
            .get(cell.case.as_str())
            .and_then(|c| c.queries.get(cell.query))
        else {
            continue;
        };
        let Some(row) = out.get_mut(&cell.oracle) else {
            continue;
        };
        for (profile, want) in &q.profiles {
            if let Some(score) = row.get_mut(profile) {
                score.count_status(against(cell, &want.expect), true);
            }
        }
    }
    out
}

/// How one cell compares with a profile's verdict: failures and
/// unsupported keep their status (they are what the oracle did, whatever
/// was expected), a verdict matches or deviates.
fn against(cell: &CellRec, expect: &str) -> Status {
    match cell.status {
        Status::Failed | Status::Unsupported => cell.status,
        _ if cell.label() == expect => Status::Match,
        _ => Status::Deviate,
    }
}

/// The profile each oracle is closest to: the highest share in its row of
/// `matrix`; a tie goes to more matched queries, then to the earlier
/// profile in [`Report::profile_names`] (`rfc9309` first). An oracle
/// scored under no profile has none.
pub fn closest_profiles(
    report: &Report,
    matrix: &BTreeMap<String, BTreeMap<String, Score>>,
) -> BTreeMap<String, String> {
    let order = report.profile_names();
    let mut out = BTreeMap::new();
    for (oracle, row) in matrix {
        let mut best: Option<(&str, f64, usize)> = None;
        for p in &order {
            let Some(share) = row.get(p).and_then(Score::share) else {
                continue;
            };
            let matched = row[p].matched;
            let better = match best {
                None => true,
                Some((_, s, m)) => share > s || (share == s && matched > m),
            };
            if better {
                best = Some((p, share, matched));
            }
        }
        if let Some((p, _, _)) = best {
            out.insert(oracle.clone(), p.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compat::{OracleRec, ProfileExpect, QueryRec};
    use engine::oracle::{Answer, Outcome};

    fn oracle(name: &str) -> OracleRec {
        OracleRec {
            name: name.into(),
            identity: "lib 1".parse().unwrap(),
            about: Default::default(),
            capabilities: Default::default(),
            millis: 0,
        }
    }

    fn query(index: usize, expect: &str, pin: Option<&str>) -> QueryRec {
        QueryRec {
            index,
            ask: engine::oracle::Ask::CanFetch,
            agent: "bot".into(),
            url: "http://example.test/x".into(),
            expect: serde_json::from_value(expect.into()).expect("a verdict"),
            basis: "RFC 9309 §2.2.2".into(),
            why: None,
            signature: Default::default(),
            profiles: pin
                .map(|v| {
                    let e = ProfileExpect {
                        expect: v.into(),
                        cite: None,
                    };
                    BTreeMap::from([("robots-1996".to_string(), e)])
                })
                .unwrap_or_default(),
        }
    }

    fn cell(oracle: &str, query: usize, outcome: Outcome, status: Status) -> CellRec {
        CellRec {
            case: "c".into(),
            query,
            oracle: oracle.into(),
            answer: Answer::from(outcome),
            status,
            triaged_by: None,
        }
    }

    /// Two oracles, one profile, three queries: a pinned query the profile
    /// and RFC 9309 answer differently, an `either` query the profile
    /// decides, a query the profile leaves undecided.
    fn small_run() -> Report {
        let err = || Outcome::Error {
            kind: "E".into(),
            message: "m".into(),
        };
        let unsup = || Outcome::Unsupported { reason: "r".into() };
        Report {
            format: crate::compat::FORMAT.into(),
            generated_unix: 0,
            corpus_hash: "h".into(),
            millis: 0,
            oracles: vec![oracle("a"), oracle("b")],
            unavailable: Vec::new(),
            scores: BTreeMap::new(),
            profiles: vec![oracle("robots-1996")],
            profile_matrix: BTreeMap::new(),
            closest_profile: BTreeMap::new(),
            cases: vec![CaseRec {
                id: "c".into(),
                title: "t".into(),
                tags: Vec::new(),
                source: String::new(),
                file: String::new(),
                line: 0,
                family: None,
                http: None,
                body_hex: String::new(),
                queries: vec![
                    query(1, "allowed", Some("disallowed")),
                    query(2, "either", Some("allowed")),
                    query(3, "disallowed", None),
                ],
            }],
            cells: vec![
                cell("a", 0, Outcome::Allowed, Status::Match),
                cell("a", 1, Outcome::Allowed, Status::Match),
                cell("a", 2, Outcome::Disallowed, Status::Match),
                cell("b", 0, Outcome::Disallowed, Status::Deviate),
                cell("b", 1, err(), Status::Failed),
                cell("b", 2, unsup(), Status::Unsupported),
            ],
            stale: Vec::new(),
            ledger: Vec::new(),
        }
    }

    fn counts(s: &Score) -> (usize, usize, usize, usize, usize) {
        (s.matched, s.deviated, s.failed, s.unsupported, s.untriaged)
    }

    #[test]
    fn the_profile_matrix_counts_each_cell_against_each_profile() {
        let r = small_run();
        let m = profile_matrix(&r);
        assert_eq!(r.profile_names(), ["rfc9309", "robots-1996"]);
        // rfc9309 is the scorecard: the matched either query is not scored.
        assert_eq!(counts(&m["a"]["rfc9309"]), (2, 0, 0, 0, 0));
        assert_eq!(m["a"]["rfc9309"], cards(&r)["a"].all);
        // robots-1996: q1 the other verdict, q2 its verdict, q3 undecided.
        assert_eq!(counts(&m["a"]["robots-1996"]), (1, 1, 0, 0, 0));
        // b: rfc9309 deviate + failed (untriaged), unsupported not scored.
        assert_eq!(counts(&m["b"]["rfc9309"]), (0, 1, 1, 1, 2));
        // robots-1996: q1 matches the pin, the error fails; never triaged.
        assert_eq!(counts(&m["b"]["robots-1996"]), (1, 0, 1, 0, 0));
        assert_eq!(m["b"]["robots-1996"].share(), Some(50.0));
        let closest = closest_profiles(&r, &m);
        assert_eq!(closest["a"], "rfc9309");
        assert_eq!(closest["b"], "robots-1996");
    }

    #[test]
    fn without_profiles_there_is_no_matrix_and_ties_go_to_the_earlier_profile() {
        let mut r = small_run();
        r.profiles.clear();
        assert!(profile_matrix(&r).is_empty());
        let r = small_run();
        let mut m = profile_matrix(&r);
        let a = m.get_mut("a").unwrap();
        a.insert("robots-1996".into(), a["rfc9309"]);
        assert_eq!(closest_profiles(&r, &m)["a"], "rfc9309");
    }
}
