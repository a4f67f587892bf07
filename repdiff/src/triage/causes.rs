//! `repdiff triage causes`: run the root-cause classifier
//! (the `cause` crate) over the cells every ledger entry explains, and print
//! which catalogue transformation neutralises each, per entry. This is how
//! the `cause:` of a ledger entry is found, never by hand: an entry takes a
//! catalogue name only when the classifier gives it.

use cause::{Input, OraclePair, REFERENCE};
use engine::case::Corpus;
use engine::ledger::{Entry, Ledger};
use engine::oracle::{Ask, Oracle};
use std::collections::BTreeMap;
use std::fmt;

/// `repdiff triage causes` options.
#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Only this ledger entry (repeatable)
    #[arg(long)]
    entry: Vec<String>,
    /// Only this oracle's departures (repeatable)
    #[arg(long)]
    oracle: Vec<String>,
    /// Print each minimised pair (not `--verbose`, which is the global
    /// log level every command takes)
    #[arg(long)]
    pairs: bool,
}

/// What one cell of an entry came to, for one of its oracles: the key of
/// the per-entry tally (printed as `oracle: cause`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum CellCause {
    /// The classifier's cause for the pair (reference, oracle): a catalogue
    /// name, new, or two stacked names.
    Named {
        oracle: String,
        cause: cause::Diagnosis,
    },
    /// The pair agrees on the cell: nothing to name.
    Agrees { oracle: String },
    /// The oracle did not start.
    NotRunning { oracle: String },
}

impl fmt::Display for CellCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CellCause::Named { oracle, cause } => write!(f, "{oracle}: {cause}"),
            CellCause::Agrees { oracle } => write!(f, "{oracle}: (agrees with the reference)"),
            CellCause::NotRunning { oracle } => write!(f, "({oracle} not running)"),
        }
    }
}

/// The (case, query index) cells an entry names: `case#N`, or every query.
fn cells(entry: &Entry, corpus: &Corpus) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for r in &entry.cases {
        let Some(case) = corpus.get(&r.case) else {
            continue;
        };
        if case.http.is_some() {
            continue;
        }
        for (qi, q) in case.queries.iter().enumerate() {
            if r.names(&case.id, qi) && q.query.ask == Ask::CanFetch {
                out.push((case.id.clone(), qi));
            }
        }
    }
    out
}

/// Classify every cell of `entry` for each of its oracles; one line per
/// cell, and a tally of causes.
fn classify_entry(
    entry: &Entry,
    corpus: &Corpus,
    all: &mut [Box<dyn Oracle>],
    verbose: bool,
) -> BTreeMap<CellCause, usize> {
    let mut tally: BTreeMap<CellCause, usize> = BTreeMap::new();
    for oracle in &entry.oracles {
        if oracle == REFERENCE {
            continue;
        }
        for (case_id, qi) in cells(entry, corpus) {
            let Some(case) = corpus.get(&case_id) else {
                continue;
            };
            let q = &case.queries[qi].query;
            let input = Input {
                body: case.body.clone(),
                agent: q.agent.clone(),
                url: q.url.clone(),
            };
            let oracle = oracle.clone();
            let Some(mut pair) = OraclePair::of(all, REFERENCE, &oracle) else {
                *tally.entry(CellCause::NotRunning { oracle }).or_default() += 1;
                continue;
            };
            let key = match cause::name_cause(&mut pair, &input) {
                None => CellCause::Agrees { oracle },
                Some(n) => {
                    if verbose {
                        crate::out!(
                            "  {oracle} {case_id}#{} {}->{} => {}  [min: {:?} agent {:?} url {:?}]",
                            qi + 1,
                            n.answers.0,
                            n.answers.1,
                            n.cause,
                            String::from_utf8_lossy(&n.minimised.body),
                            n.minimised.agent,
                            n.minimised.url
                        );
                    }
                    CellCause::Named {
                        oracle,
                        cause: stacked_or(&mut pair, &n),
                    }
                }
            };
            *tally.entry(key).or_default() += 1;
        }
    }
    tally
}

/// The cell's cause as the sweep names the same departure: a `new` one
/// that two catalogue transformations neutralise together is that stacked
/// pair, so an entry explaining such a cell makes the sweep's `a+b` pair
/// known for the oracle, as one explaining a single cause does for it.
fn stacked_or(pair: &mut OraclePair<'_>, n: &cause::Named) -> cause::Diagnosis {
    if !n.cause.is_new() {
        return n.cause;
    }
    cause::stacked_causes(pair, &n.minimised).unwrap_or(n.cause)
}

/// Every (oracle, cause) the classifier gives the corpus cells the ledger
/// explains, with how many cells: what "the ledger knows" means cell by
/// cell, finer than one `cause:` per entry.
pub fn ledger_cell_causes(
    ledger: &Ledger,
    corpus: &Corpus,
    all: &mut [Box<dyn Oracle>],
) -> BTreeMap<(String, cause::Diagnosis), usize> {
    let mut out = BTreeMap::new();
    for e in &ledger.entries {
        for (k, n) in classify_entry(e, corpus, all, false) {
            if let CellCause::Named { oracle, cause } = k {
                *out.entry((oracle, cause)).or_default() += n;
            }
        }
    }
    out
}

/// Every (oracle, cause) the classifier gives a verdict on an `either`
/// query that departs from the reference: a reading RFC 9309 permits (the
/// query's `why` cites where), so the behaviour is known even where no
/// ledger entry lists it (an entry pins only the minority of such a query,
/// and none when the reference itself is in the minority). Errors, crashes
/// and timeouts are no reading and stay unknown.
pub fn either_query_causes(
    corpus: &Corpus,
    all: &mut [Box<dyn Oracle>],
) -> BTreeMap<(String, cause::Diagnosis), usize> {
    let names: Vec<String> = all.iter().map(|o| o.name().to_string()).collect();
    let mut out = BTreeMap::new();
    for case in &corpus.cases {
        if case.http.is_some() {
            continue;
        }
        for cq in &case.queries {
            let q = &cq.query;
            let either = cq.expect == engine::case::Expect::Verdict(engine::case::Verdict::Either);
            if !either || q.ask != Ask::CanFetch {
                continue;
            }
            let input = Input {
                body: case.body.clone(),
                agent: q.agent.clone(),
                url: q.url.clone(),
            };
            for oracle in names.iter().filter(|n| n.as_str() != REFERENCE) {
                let Some(mut pair) = OraclePair::of(all, REFERENCE, oracle) else {
                    continue;
                };
                let Some(n) = cause::name_cause(&mut pair, &input) else {
                    continue;
                };
                let verdicts = [
                    engine::oracle::Label::Allowed,
                    engine::oracle::Label::Disallowed,
                ];
                if verdicts.contains(&n.answers.0) && verdicts.contains(&n.answers.1) {
                    *out.entry((oracle.clone(), stacked_or(&mut pair, &n)))
                        .or_default() += 1;
                }
            }
        }
    }
    out
}

/// The corpus and the ledger, every registered oracle name allowed in it
/// (external ones included), as `causes` and `sweep` read them.
pub fn load_corpus_and_ledger() -> Result<(Corpus, Ledger), crate::error::Error> {
    let corpus =
        engine::case::load_dir(&crate::paths::corpus_dir()).map_err(crate::error::Error::input)?;
    let names = crate::select::known_names();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let ledger = crate::paths::load_ledger(&corpus, &refs)?;
    Ok((corpus, ledger))
}

pub fn main(opts: &Opts, program: &'static str) -> Result<i32, crate::error::Error> {
    let (entries, only, verbose) = (&opts.entry, &opts.oracle, opts.pairs);
    let (corpus, ledger) = load_corpus_and_ledger()?;
    let wanted: Vec<&Entry> = ledger
        .entries
        .iter()
        .filter(|e| entries.is_empty() || entries.contains(&e.id))
        .filter(|e| only.is_empty() || e.oracles.iter().any(|o| only.contains(o)))
        .collect();
    let mut run: Vec<String> = vec![REFERENCE.to_string()];
    for e in &wanted {
        for o in &e.oracles {
            if !run.contains(o) && (only.is_empty() || only.contains(o)) {
                run.push(o.clone());
            }
        }
    }
    let sel = crate::select::start_for(program, &run, &[], true, engine::worker::Limits::default());
    for u in &sel.unavailable {
        log::warn!("{u}");
    }
    let mut all = sel.oracles;
    for e in wanted {
        crate::out!("{}", e.id);
        let tally = classify_entry(e, &corpus, &mut all, verbose);
        for (k, n) in tally {
            crate::out!("  = {k} x{n}");
        }
    }
    Ok(0)
}
