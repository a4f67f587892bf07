//! `cargo xtask fuzz causes`: run the root-cause classifier
//! (`fuzzcore::cause`) over the cells every ledger entry explains, and print
//! which catalogue transformation neutralises each, per entry. This is how
//! the `cause:` of a ledger entry is found, never by hand: an entry takes a
//! catalogue name only when the classifier gives it.

use engine::case::Corpus;
use engine::ledger::{Entry, Ledger};
use engine::oracle::{Ask, Oracle};
use fuzzcore::cause::{self, Input, OraclePair};
use fuzzcore::triage::REFERENCE;
use repdiff::cli::Usage;
use std::collections::BTreeMap;

/// Two distinct oracles of `all` borrowed at once, by name.
pub fn pair_of<'a>(
    all: &'a mut [Box<dyn Oracle>],
    reference: &str,
    oracle: &str,
) -> Option<OraclePair<'a>> {
    let r = all.iter().position(|o| o.name() == reference)?;
    let o = all.iter().position(|o| o.name() == oracle)?;
    if r == o {
        return None;
    }
    let (lo, hi) = all.split_at_mut(r.max(o));
    let (first, second) = (&mut lo[r.min(o)], &mut hi[0]);
    let (rf, or) = if r < o {
        (first, second)
    } else {
        (second, first)
    };
    Some(OraclePair::new(rf.as_mut(), or.as_mut()))
}

/// The (case, query index) cells an entry names: `case#N`, or every query.
fn cells(entry: &Entry, corpus: &Corpus) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for r in &entry.cases {
        let (id, n) = r
            .split_once('#')
            .map_or((r.as_str(), None), |(c, n)| (c, Some(n)));
        let Some(case) = corpus.get(id) else { continue };
        if case.http.is_some() {
            continue;
        }
        for (qi, q) in case.queries.iter().enumerate() {
            let named = n.is_none_or(|n| n.parse::<usize>().ok() == Some(qi + 1));
            if named && q.query.ask == Ask::CanFetch {
                out.push((id.to_string(), qi));
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
) -> BTreeMap<String, usize> {
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
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
            let Some(mut pair) = pair_of(all, REFERENCE, oracle) else {
                *tally.entry(format!("({oracle} not running)")).or_default() += 1;
                continue;
            };
            let label = match cause::name_cause(&mut pair, &input) {
                None => "(agrees with the reference)".to_string(),
                Some(n) => {
                    if verbose {
                        println!(
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
                    n.cause.to_string()
                }
            };
            *tally.entry(format!("{oracle}: {label}")).or_default() += 1;
        }
    }
    tally
}

/// Every (oracle, cause) the classifier gives the corpus cells the ledger
/// explains, with how many cells: what "the ledger knows" means cell by
/// cell, finer than one `cause:` per entry.
pub fn ledger_cell_causes(
    ledger: &Ledger,
    corpus: &Corpus,
    all: &mut [Box<dyn Oracle>],
) -> BTreeMap<(String, String), usize> {
    let mut out = BTreeMap::new();
    for e in &ledger.entries {
        for (k, n) in classify_entry(e, corpus, all, false) {
            if let Some((o, c)) = k.split_once(": ").filter(|(_, c)| !c.starts_with('(')) {
                *out.entry((o.to_string(), c.to_string())).or_default() += n;
            }
        }
    }
    out
}

/// The corpus and the ledger, every registered oracle name allowed in it
/// (external ones included), as `causes` and `sweep` read them.
pub fn load_corpus_and_ledger() -> Result<(Corpus, Ledger), Usage> {
    let corpus =
        engine::case::load_dir(&crate::paths::corpus_dir()).map_err(|e| Usage(e.to_string()))?;
    let names = crate::select::known_names();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let ledger = crate::paths::load_ledger(&corpus, &refs)?;
    Ok((corpus, ledger))
}

pub fn main(entries: &[String], only: &[String], verbose: bool) -> Result<i32, Usage> {
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
    let sel = crate::select::start(&run, &[], true, engine::worker::Limits::default());
    for u in &sel.unavailable {
        eprintln!("warning: {u}");
    }
    let mut all = sel.oracles;
    for e in wanted {
        println!("{}", e.id);
        let tally = classify_entry(e, &corpus, &mut all, verbose);
        for (k, n) in tally {
            println!("  = {k} x{n}");
        }
    }
    Ok(0)
}
