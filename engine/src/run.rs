//! The runner: cases x oracles, then per-cell comparison, agreement-class
//! signatures and triage against the ledger.

use crate::case::{Case, Expect, Verdict};
use crate::ledger::{Label, Ledger, Pin};
use crate::oracle::{
    unsupported_all, About, Answer, Capabilities, Identity, Oracle, Outcome, Unavailable,
};
use crate::signature::Signature;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How one cell compares with its expectation.
/// Also what the report crate writes into and reads back out of a
/// `compat.json` (`report::compat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Matches the expectation.
    Match,
    /// A different answer than RFC 9309 says.
    Deviate,
    /// Error, crash or timeout: no answer.
    Failed,
    /// On an `either` query, in a minority agreement class.
    Split,
    /// The oracle cannot answer this kind of query.
    Unsupported,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Match => "match",
            Status::Deviate => "deviate",
            Status::Failed => "failed",
            Status::Split => "split",
            Status::Unsupported => "unsupported",
        }
    }

    pub fn needs_triage(self) -> bool {
        matches!(self, Status::Deviate | Status::Failed | Status::Split)
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Status {
    type Err = String;
    // String: a token that does not parse; its message is the whole error, and
    // the loader that read it adds the file and line.
    fn from_str(s: &str) -> Result<Self, String> {
        [
            Status::Match,
            Status::Deviate,
            Status::Failed,
            Status::Split,
            Status::Unsupported,
        ]
        .into_iter()
        .find(|st| st.as_str() == s)
        .ok_or_else(|| format!("`{s}` is not a cell status"))
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub case: String,
    /// 0-based query index (reports and refs show it 1-based).
    pub query: usize,
    pub oracle: String,
    pub answer: Answer,
    pub status: Status,
    /// The ledger entry that explains this cell, when it needs one.
    pub triaged_by: Option<String>,
}

impl Cell {
    pub fn untriaged(&self) -> bool {
        self.status.needs_triage() && self.triaged_by.is_none()
    }
    /// The query this cell answers (written `case#N`, 1-based).
    pub fn query_ref(&self) -> crate::query_ref::QueryRef {
        crate::query_ref::QueryRef::one(&self.case, self.query)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct OracleInfo {
    pub name: String,
    pub identity: Identity,
    pub about: About,
    pub capabilities: Capabilities,
    /// Wall time spent in this oracle's calls.
    pub millis: u128,
    /// The cases that took this oracle longest, slowest first (at most
    /// [`SLOWEST_KEPT`]), so a slow run says where its time went. Not in
    /// reports: timings differ run to run and reports must not.
    #[serde(skip)]
    pub slowest: Vec<(String, Duration)>,
}

/// How many of each oracle's slowest cases a run keeps.
pub const SLOWEST_KEPT: usize = 3;

#[derive(Debug, Clone, Serialize)]
pub struct QuerySignature {
    pub case: String,
    pub query: usize,
    pub signature: Signature,
}

/// A reference asked every query beside the parsers (an expectation
/// profile): its answers are expectations, never compared, split or
/// triaged, so they cannot move a parser's cells or the ledger.
#[derive(Debug, Clone, Serialize)]
pub struct ReferenceRun {
    pub info: OracleInfo,
    /// `answers[case][query]`, in the run's case order.
    pub answers: Vec<Vec<Outcome>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    pub oracles: Vec<OracleInfo>,
    /// The references asked beside the oracles (empty unless
    /// [`run_with_references`] was given some).
    pub references: Vec<ReferenceRun>,
    pub unavailable: Vec<Unavailable>,
    pub cells: Vec<Cell>,
    pub signatures: Vec<QuerySignature>,
    /// Ledger entries in scope of this run that explained no cell.
    pub stale: Vec<String>,
    pub millis: u128,
}

impl RunResult {
    pub fn untriaged(&self) -> impl Iterator<Item = &Cell> {
        self.cells.iter().filter(|c| c.untriaged())
    }
}

/// Progress events, so a command line can show a long run moving.
pub enum Progress<'a> {
    CaseDone {
        oracle: &'a str,
        done: usize,
        total: usize,
    },
}

/// How the runner reaches a case's robots.txt over HTTP, for oracles that own
/// a fetcher. `None` when no server is running: such cases are then
/// `Unsupported` for every oracle, never guessed.
pub type HttpUrlFor<'a> = &'a (dyn Fn(&Case) -> Option<String> + Sync);

/// Run every case through every oracle (one thread per oracle, so a slow
/// oracle does not hold the others), then compare and triage.
pub fn run(
    cases: &[&Case],
    oracles: Vec<Box<dyn Oracle>>,
    unavailable: Vec<Unavailable>,
    ledger: &Ledger,
    http_url: HttpUrlFor<'_>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> RunResult {
    run_with_references(
        cases,
        oracles,
        Vec::new(),
        unavailable,
        ledger,
        http_url,
        progress,
    )
}

/// [`run`], with `references` asked every query once the oracles are done
/// (each on its own thread): asked alongside, they took CPU from the
/// oracles on a loaded 2-core machine and pushed robotstxt-rs's slowest
/// case past its timeout. Their answers come back as [`ReferenceRun`]s and
/// take no part in cells, signatures, splits or triage. Progress is
/// reported for the oracles only.
pub fn run_with_references(
    cases: &[&Case],
    oracles: Vec<Box<dyn Oracle>>,
    references: Vec<Box<dyn Oracle>>,
    unavailable: Vec<Unavailable>,
    ledger: &Ledger,
    http_url: HttpUrlFor<'_>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> RunResult {
    let started = Instant::now();
    let subjects = oracles.len();
    let all: Vec<Box<dyn Oracle>> = oracles.into_iter().chain(references).collect();
    let mut infos: Vec<(String, Identity, Capabilities)> = all
        .iter()
        .map(|o| (o.name().to_string(), o.identity(), o.capabilities()))
        .collect();
    let abouts: Vec<About> = all.iter().map(|o| o.about()).collect();
    let mut all = all;
    let refs = all.split_off(subjects);
    let hangs: Vec<BTreeSet<usize>> = infos[..subjects]
        .iter()
        .map(|(name, _, _)| known_hangs(cases, ledger, name))
        .collect();
    let ref_infos = &infos[subjects..];
    let ((mut answers, mut times), (ref_answers, ref_times)) = std::thread::scope(|scope| {
        // The references start once few oracles are left running, so they
        // take no CPU from the busy start of the run yet overlap its tail.
        let (gate, wait) = mpsc::channel::<()>();
        let refs_run = scope.spawn(move || {
            let _ = wait.recv();
            ask_all(cases, refs, ref_infos, &[], http_url, &mut |_| {})
        });
        let mut finished = 0;
        let mut open = Some(gate);
        let mut open_when_few_left = |finished: usize| {
            if subjects.saturating_sub(finished) <= REFERENCES_JOIN_AT {
                if let Some(g) = open.take() {
                    let _ = g.send(());
                }
            }
        };
        open_when_few_left(0);
        let subject_answers = ask_all(
            cases,
            all,
            &infos[..subjects],
            &hangs,
            http_url,
            &mut |p: Progress<'_>| {
                let Progress::CaseDone { done, total, .. } = p;
                if done == total {
                    finished += 1;
                    open_when_few_left(finished);
                }
                progress(p);
            },
        );
        // No case, or fewer progress events than expected: start them now.
        if let Some(g) = open.take() {
            let _ = g.send(());
        }
        let ref_answers = refs_run
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (subject_answers, ref_answers)
    });
    answers.extend(ref_answers);
    times.extend(ref_times);
    let mut infos_all: Vec<OracleInfo> = infos
        .iter()
        .cloned()
        .zip(times)
        .zip(abouts)
        .map(|(((name, identity, capabilities), t), about)| OracleInfo {
            name,
            identity,
            about,
            capabilities,
            millis: t.total.as_millis(),
            slowest: t
                .slowest
                .into_iter()
                .map(|(ci, d)| (cases[ci].id.clone(), d))
                .collect(),
        })
        .collect();
    let reference_answers = answers.split_off(subjects);
    infos.truncate(subjects);
    let references: Vec<ReferenceRun> = infos_all
        .split_off(subjects)
        .into_iter()
        .zip(reference_answers)
        .map(|(info, per_case)| ReferenceRun {
            info,
            answers: per_case
                .into_iter()
                .map(|qs| qs.into_iter().map(|a| a.outcome).collect())
                .collect(),
        })
        .collect();
    let (cells, signatures) = compare_all(cases, &infos, &answers, ledger);
    let stale = stale_entries(ledger, &cells, cases, &infos);
    RunResult {
        oracles: infos_all,
        references,
        unavailable,
        cells,
        signatures,
        stale,
        millis: started.elapsed().as_millis(),
    }
}

/// `answers[oracle][case]`: one answer per query.
type Answers = Vec<Vec<Vec<Answer>>>;

/// One oracle's time: in all, and its slowest cases (case index, time).
#[derive(Default)]
struct Timing {
    total: Duration,
    slowest: Vec<(usize, Duration)>,
}

impl Timing {
    fn add(&mut self, case: usize, took: Duration) {
        self.total += took;
        self.slowest.push((case, took));
        if self.slowest.len() > SLOWEST_KEPT * 8 {
            self.trim();
        }
    }

    fn trim(&mut self) {
        self.slowest.sort_by_key(|s| std::cmp::Reverse(s.1));
        self.slowest.truncate(SLOWEST_KEPT);
    }
}

/// The references join the run when this many oracles or fewer are still
/// asking: by then the CPUs are no longer all busy (the 2-core machine this
/// was tuned on runs 13 oracles), and the references' own slow case (an
/// HTTP response that takes 1 s to arrive) overlaps the slowest oracles.
const REFERENCES_JOIN_AT: usize = 3;

/// How long a case the ledger pins as `timeout` for an oracle may take
/// (when the oracle's own limit is longer). Such a case is a known hang
/// (webrobots' regexp backtracking ran for 9 CPU-minutes), so a shorter
/// wait gives the same outcome; a fix that makes it answer within the cap
/// still shows as a changed cell. Those cases also run last, so the worker
/// killed on them is not restarted for the rest of the run.
pub const KNOWN_HANG_CAP: Duration = Duration::from_millis(500);

/// The cases (indices into `cases`) on which the ledger pins `oracle`'s
/// outcome as `timeout` for some query.
fn known_hangs(cases: &[&Case], ledger: &Ledger, oracle: &str) -> BTreeSet<usize> {
    // Only the few entries that pin a timeout for this oracle at all.
    let pinning: Vec<_> = ledger
        .entries
        .iter()
        .filter(|e| match e.outcomes.get(oracle) {
            Some(Pin::All(label)) => *label == Label::Timeout,
            Some(Pin::PerCase(map)) => map.values().any(|label| *label == Label::Timeout),
            None => false,
        })
        .collect();
    cases
        .iter()
        .enumerate()
        .filter(|(_, case)| {
            (0..case.queries.len()).any(|qi| {
                pinning
                    .iter()
                    .any(|e| e.covers(oracle, &case.id, qi, &Outcome::Timeout))
            })
        })
        .map(|(ci, _)| ci)
        .collect()
}

/// Answers per oracle per case (`answers[oracle][case]`, one per query)
/// and each oracle's time: every oracle on its own thread, progress
/// reported as each case completes for the oracles that have an entry in
/// `hangs` (the subjects; `hangs[k]` are oracle k's known hangs, asked
/// last under [`KNOWN_HANG_CAP`]).
fn ask_all(
    cases: &[&Case],
    oracles: Vec<Box<dyn Oracle>>,
    infos: &[(String, Identity, Capabilities)],
    hangs: &[BTreeSet<usize>],
    http_url: HttpUrlFor<'_>,
    progress: &mut dyn FnMut(Progress<'_>),
) -> (Answers, Vec<Timing>) {
    let subjects = hangs.len();
    let total = cases.len();
    // answers[oracle][case] = one answer per query
    let mut answers: Answers = vec![Vec::new(); oracles.len()];
    let mut times: Vec<Timing> = (0..oracles.len()).map(|_| Timing::default()).collect();
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, Vec<Vec<Answer>>, Timing)>();
        let (ptx, prx) = mpsc::channel::<usize>();
        for (k, mut oracle) in oracles.into_iter().enumerate() {
            let tx = tx.clone();
            let ptx = ptx.clone();
            let hang = hangs.get(k).cloned().unwrap_or_default();
            scope.spawn(move || {
                let caps = oracle.capabilities();
                let mut out = vec![Vec::new(); cases.len()];
                let mut timing = Timing::default();
                let order = (0..cases.len())
                    .filter(|ci| !hang.contains(ci))
                    .chain(hang.iter().copied());
                for ci in order {
                    if hang.contains(&ci) {
                        oracle.cap_call_time(Some(KNOWN_HANG_CAP));
                    }
                    let t0 = Instant::now();
                    out[ci] = run_one(oracle.as_mut(), caps, cases[ci], http_url);
                    timing.add(ci, t0.elapsed());
                    let _ = ptx.send(k);
                }
                oracle.cap_call_time(None);
                timing.trim();
                let _ = tx.send((k, out, timing));
            });
        }
        drop(tx);
        drop(ptx);
        let mut done = vec![0usize; infos.len()];
        for k in prx.into_iter().filter(|&k| k < subjects) {
            done[k] += 1;
            progress(Progress::CaseDone {
                oracle: &infos[k].0,
                done: done[k],
                total,
            });
        }
        for (k, out, took) in rx {
            answers[k] = out;
            times[k] = took;
        }
    });
    (answers, times)
}

/// Each answer compared with its query's expectation, split minorities
/// marked, untriaged cells matched against the ledger; and each query's
/// agreement signature.
fn compare_all(
    cases: &[&Case],
    infos: &[(String, Identity, Capabilities)],
    answers: &Answers,
    ledger: &Ledger,
) -> (Vec<Cell>, Vec<QuerySignature>) {
    let mut cells = Vec::new();
    let mut signatures = Vec::new();
    for (ci, case) in cases.iter().enumerate() {
        for (qi, cq) in case.queries.iter().enumerate() {
            let row: Vec<(&str, &Answer)> = infos
                .iter()
                .enumerate()
                .map(|(k, info)| (info.0.as_str(), &answers[k][ci][qi]))
                .collect();
            signatures.push(QuerySignature {
                case: case.id.clone(),
                query: qi,
                signature: Signature::of(row.iter().map(|(n, a)| (*n, &a.outcome))),
            });
            let minority = split_minority(&cq.expect, &row, |name, outcome| {
                ledger
                    .entries
                    .iter()
                    .any(|e| e.covers(name, &case.id, qi, outcome))
            });
            for (name, answer) in row {
                let mut status = compare(&cq.expect, &answer.outcome);
                if status == Status::Match && minority.contains(name) {
                    status = Status::Split;
                }
                let triaged_by = if status.needs_triage() {
                    ledger
                        .entries
                        .iter()
                        .find(|e| e.covers(name, &case.id, qi, &answer.outcome))
                        .map(|e| e.id.clone())
                } else {
                    None
                };
                cells.push(Cell {
                    case: case.id.clone(),
                    query: qi,
                    oracle: name.to_string(),
                    answer: answer.clone(),
                    status,
                    triaged_by,
                });
            }
        }
    }
    (cells, signatures)
}

/// One oracle, one case: ask only what the oracle can answer; HTTP cases go
/// through the oracle's own fetcher or are `Unsupported`.
pub fn run_one(
    oracle: &mut dyn Oracle,
    caps: Capabilities,
    case: &Case,
    http_url: HttpUrlFor<'_>,
) -> Vec<Answer> {
    let queries = case.oracle_queries();
    let supported: Vec<usize> = (0..queries.len())
        .filter(|&i| caps.supports(queries[i].ask))
        .collect();
    let mut out: Vec<Answer> = queries
        .iter()
        .map(|q| {
            Answer::from(Outcome::Unsupported {
                reason: format!("{} cannot answer {}", oracle.name(), q.ask.as_str()),
            })
        })
        .collect();
    if supported.is_empty() {
        return out;
    }
    let asked: Vec<_> = supported.iter().map(|&i| queries[i].clone()).collect();
    let got = if case.http.is_some() {
        match (caps.http_fetch, http_url(case)) {
            (true, Some(url)) => oracle.run_fetch(&url, &asked),
            (false, _) => {
                unsupported_all(&asked, "no HTTP fetcher: the status matrix does not apply")
            }
            (true, None) => unsupported_all(&asked, "no HTTP server in this run"),
        }
    } else {
        oracle.run(&case.body, &asked)
    };
    if got.len() != asked.len() {
        let detail = format!(
            "adapter returned {} answers for {} queries",
            got.len(),
            asked.len()
        );
        for &i in &supported {
            out[i] = Answer::from(Outcome::Crash {
                detail: detail.clone(),
            });
        }
        return out;
    }
    for (&i, a) in supported.iter().zip(got) {
        out[i] = a;
    }
    out
}

pub fn compare(expect: &Expect, outcome: &Outcome) -> Status {
    match outcome {
        Outcome::Unsupported { .. } => return Status::Unsupported,
        o if o.is_failure() => return Status::Failed,
        _ => {}
    }
    let ok = match (expect, outcome) {
        (Expect::Verdict(Verdict::Either), Outcome::Allowed | Outcome::Disallowed) => true,
        (Expect::Verdict(Verdict::Allowed), Outcome::Allowed) => true,
        (Expect::Verdict(Verdict::Disallowed), Outcome::Disallowed) => true,
        (Expect::Value(want), Outcome::Value { value }) => want.same_as(value),
        _ => false,
    };
    if ok {
        Status::Match
    } else {
        Status::Deviate
    }
}

/// On an `either` query any verdict is acceptable, but a split between
/// oracles is still a divergence. The side the ledger explains whole is the
/// one that departs (with oracles left out it can be the larger side);
/// otherwise the oracles outside the largest class are the ones that need
/// explaining (ties go to `allowed`, RFC 9309 §2.2.2's default when nothing
/// matches).
fn split_minority<'a>(
    expect: &Expect,
    row: &[(&'a str, &Answer)],
    explained: impl Fn(&str, &Outcome) -> bool,
) -> BTreeSet<&'a str> {
    if *expect != Expect::Verdict(Verdict::Either) {
        return BTreeSet::new();
    }
    let side = |want: &Outcome| -> Vec<&'a str> {
        row.iter()
            .filter(|(_, a)| a.outcome == *want)
            .map(|(n, _)| *n)
            .collect()
    };
    let (allowed, disallowed) = (side(&Outcome::Allowed), side(&Outcome::Disallowed));
    if allowed.is_empty() || disallowed.is_empty() {
        return BTreeSet::new();
    }
    let whole = |names: &[&str], outcome: &Outcome| names.iter().all(|n| explained(n, outcome));
    let allowed_splits = match (
        whole(&allowed, &Outcome::Allowed),
        whole(&disallowed, &Outcome::Disallowed),
    ) {
        (true, false) => true,
        (false, true) => false,
        _ => disallowed.len() > allowed.len(),
    };
    let split = if allowed_splits { allowed } else { disallowed };
    split.into_iter().collect()
}

/// An entry is in scope when one of its oracles ran and one of its cases was
/// run; in scope and explaining no cell, it is stale.
fn stale_entries(
    ledger: &Ledger,
    cells: &[Cell],
    cases: &[&Case],
    infos: &[(String, Identity, Capabilities)],
) -> Vec<String> {
    let ran_cases: BTreeSet<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    let ran_oracles: BTreeSet<&str> = infos.iter().map(|i| i.0.as_str()).collect();
    let needing: Vec<&Cell> = cells.iter().filter(|c| c.status.needs_triage()).collect();
    ledger
        .entries
        .iter()
        .filter(|e| {
            e.oracles.iter().any(|o| ran_oracles.contains(o.as_str()))
                && e.case_ids().iter().any(|c| ran_cases.contains(c))
                && !needing
                    .iter()
                    .any(|c| e.covers(&c.oracle, &c.case, c.query, &c.answer.outcome))
        })
        .map(|e| e.id.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timing_keeps_the_slowest_cases_and_the_total() {
        let mut t = Timing::default();
        // 0..50 ms in a shuffled order: trimming on the way must not lose
        // a slow case that came early.
        for i in (0..50u64).map(|i| (i * 37) % 50) {
            t.add(i as usize, Duration::from_millis(i));
        }
        t.trim();
        assert_eq!(t.total, Duration::from_millis((0..50).sum()));
        let kept: Vec<usize> = t.slowest.iter().map(|s| s.0).collect();
        assert_eq!(kept, vec![49, 48, 47]);
    }

    #[test]
    fn on_an_either_query_the_side_the_ledger_explains_is_the_split_one() {
        let (a, d) = (
            Answer::from(Outcome::Allowed),
            Answer::from(Outcome::Disallowed),
        );
        let row = [("p", &a), ("q", &a), ("r", &d), ("s", &d), ("t", &d)];
        let either = Expect::Verdict(Verdict::Either);
        // Nothing explained: the fewer are the split.
        let by_count = split_minority(&either, &row, |_, _| false);
        assert_eq!(by_count, BTreeSet::from(["p", "q"]));
        // The ledger explains the larger side whole (the smaller side's
        // usual company was left out of the run): that side is the split.
        let explained = split_minority(&either, &row, |n, _| ["r", "s", "t"].contains(&n));
        assert_eq!(explained, BTreeSet::from(["r", "s", "t"]));
        // A partly explained side does not move the split.
        let partly = split_minority(&either, &row, |n, _| n == "r");
        assert_eq!(partly, BTreeSet::from(["p", "q"]));
        // Not an either query: no split at all.
        let fixed = Expect::Verdict(Verdict::Allowed);
        assert!(split_minority(&fixed, &row, |_, _| true).is_empty());
    }
}
