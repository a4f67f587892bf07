//! `repdiff triage sweep`: a replay pass over the merged fuzz corpora with
//! every registered oracle, the worker-run ones (node, Perl, Ruby, any
//! `--oracle-cmd`) included, and root-cause triage of every departure.
//!
//! The in-loop triage of the fuzz targets knows only the in-process oracles
//! and judges an input by its cell keys, so a second cause behind a known
//! cell key stays hidden there. Here each (reference, oracle) departure is
//! bucketed by (oracle, answers, deciding feature, unminimised cause), a few
//! of each bucket are minimised and named (`cause::name_cause`),
//! and every (oracle, cause) is checked against the ledger's `cause:`
//! fields: a cause the ledger does not name for that oracle is new work.
//! The bucket cap keeps the pass bounded: the oracles answer every input in
//! one batched call each, and only the sampled departures pay for
//! minimisation (hundreds of single questions).

use crate::shared::Usage;
use crate::slow::{self, SlowFinding};
use cause::{Diagnosis, Input};
use engine::oracle::{Ask, Oracle, Query};
use fuzzcore::triage::{self, REFERENCE};
use oracles::rfc9309::{Readings, Robots};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// `repdiff triage sweep` options.
#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Time budget in seconds (the pass stops between inputs)
    #[arg(long, default_value_t = 600)]
    pub seconds: u64,
    /// Departures minimised per (oracle, answers, deciding feature, unminimised cause)
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    pub per_bucket: u64,
    /// Only these oracles (repeatable; rfc9309 is always in) [default: every registered one]
    #[arg(long)]
    pub oracle: Vec<String>,
    /// Add any program that speaks docs/protocol.md (repeatable)
    #[arg(long = "oracle-cmd", value_name = "NAME='COMMAND'")]
    pub oracle_cmds: Vec<String>,
    /// Write `reports/fuzz/<stamp>-sweep.{md,json}` (default: reports/run/fuzz/sweep.*)
    #[arg(long)]
    pub write_report: bool,
}

/// One minimised departure.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, PartialOrd, Ord)]
struct Example {
    /// `reference->oracle` pin labels on the minimised input.
    answers: String,
    /// The minimised body, escaped as Rust byte strings are.
    body: String,
    agent: String,
    url: String,
    /// The corpus file it came from.
    source: String,
}

/// Everything the sweep found for one (oracle, cause).
#[derive(Debug, Default, Serialize)]
struct Found {
    /// Departures sampled and named with this cause.
    named: usize,
    /// The ledger names this cause for this oracle.
    in_ledger: bool,
    /// Distinct minimised inputs, shortest first (at most [`KEEP`]).
    examples: Vec<Example>,
}

const KEEP: usize = 6;

/// Name departures only where both oracles of the pair answered the input
/// in under this many ms: minimising asks hundreds of questions.
const NAME_UNDER_MS: f64 = 200.0;

/// Time allowed to minimise one slow input on its time: each probe of a
/// still-slow candidate costs that candidate's time.
const MINIMISE_BUDGET: Duration = Duration::from_secs(45);

/// Counts of the pass.
#[derive(Debug, Default, Serialize)]
struct Totals {
    inputs: usize,
    inputs_replayed: usize,
    queries: usize,
    departures: usize,
    departures_named: usize,
    /// Departures left unnamed because the pair was slow on the input (the
    /// slow-input table covers those).
    departures_slow: usize,
    seconds: f64,
}

struct Sweep {
    all: Vec<Box<dyn Oracle>>,
    known: BTreeSet<(String, Diagnosis)>,
    buckets: BTreeMap<String, usize>,
    found: BTreeMap<(String, Diagnosis), Found>,
    totals: Totals,
    readings: Readings,
    scratch: Vec<u8>,
    per_bucket: usize,
    deadline: Instant,
    /// ms of each oracle's batched call, per replayed input (index into the
    /// input list, then one time per oracle in `all`'s order).
    times: Vec<(usize, Vec<f64>)>,
}

pub fn main(o: &Opts, program: &'static str) -> Result<i32, crate::error::Error> {
    let (corpus, ledger) = super::causes::load_corpus_and_ledger()?;
    let reasons = super::reasons::Reasons::load(&crate::paths::root())?;
    let extra = crate::select::oracle_cmds(&o.oracle_cmds)?;
    let mut names = if o.oracle.is_empty() {
        let mut n = crate::select::known_names();
        n.extend(extra.iter().map(|e| e.name.clone()));
        n
    } else {
        o.oracle.clone()
    };
    if !names.iter().any(|n| n == REFERENCE) {
        names.insert(0, REFERENCE.to_string());
    }
    // A question a worker needs over a second for is a slow input (judged
    // from the timings below), not one to minimise with hundreds more.
    let limits = engine::worker::Limits {
        timeout: Duration::from_secs(1),
        ..engine::worker::Limits::default()
    };
    let sel = crate::select::start_for(program, &names, &extra, true, limits);
    // The sweep classifies every cell against every oracle: it does not
    // run short of one.
    if let Some((first, rest)) = sel.unavailable.split_first() {
        for u in rest {
            log::error!("{u}");
        }
        return Err(crate::error::Error::oracle_start(first, program));
    }
    let mut all = sel.oracles;
    log::info!(
        "triage sweep: classifying the ledger's corpus cells (what the ledger knows, cell by cell)"
    );
    let known = known_causes(&ledger, &corpus, &mut all);
    let inputs = corpus_inputs();
    if inputs.is_empty() {
        log::error!(
            "no corpus inputs under {} (differential, differential_bytes): run `cargo xtask fuzz` in a repdiff checkout first",
            super::fuzzed::fuzz_dir().join("corpus").display()
        );
        return Ok(1);
    }
    log::info!(
        "triage sweep: {} corpus inputs, {} oracles, {} s budget",
        inputs.len(),
        all.len(),
        o.seconds
    );
    let mut s = Sweep {
        all,
        known,
        buckets: BTreeMap::new(),
        found: BTreeMap::new(),
        totals: Totals {
            inputs: inputs.len(),
            ..Totals::default()
        },
        readings: Readings::default(),
        scratch: Vec::new(),
        per_bucket: usize::try_from(o.per_bucket).unwrap_or(usize::MAX),
        deadline: Instant::now() + Duration::from_secs(o.seconds),
        times: Vec::new(),
    };
    let t0 = Instant::now();
    for (i, (source, body, queries)) in inputs.iter().enumerate() {
        if Instant::now() >= s.deadline {
            log::info!("triage sweep: time budget spent after {i} inputs");
            break;
        }
        s.input(i, source, body, queries);
        if (i + 1) % 200 == 0 {
            log::info!(
                "triage sweep: {} / {} inputs, {} departures, {} named, {:.0} s",
                i + 1,
                inputs.len(),
                s.totals.departures,
                s.totals.departures_named,
                t0.elapsed().as_secs_f64()
            );
        }
    }
    s.totals.seconds = t0.elapsed().as_secs_f64();
    let (slow, unconfirmed) = slow_findings(&mut s, &inputs);
    let mut md = markdown(&s, &names, &reasons, program);
    md += &slow_markdown(&slow, unconfirmed);
    crate::output::text(&md);
    let json = serde_json::json!({
        "format": "repdiff-fuzz-sweep/1",
        "oracles": names,
        "totals": s.totals,
        "causes": s.found.iter().map(|((o, c), f)| serde_json::json!({
            "oracle": o, "cause": c, "named": f.named,
            "in_ledger": f.in_ledger, "examples": f.examples,
            "reason": (!f.in_ledger).then(|| reasons.get(o, *c)).flatten(),
        })).collect::<Vec<_>>(),
        "slow": slow,
        "slow_unconfirmed": unconfirmed,
    });
    for p in save(&md, &json, o.write_report)? {
        log::info!("triage sweep: wrote {}", p.display());
    }
    Ok(0)
}

/// Every (oracle, cause) the ledger knows: the `cause:` of each entry for
/// each of its oracles, the cause the classifier gives each cell an entry
/// explains, and the cause of each verdict an `either` query of the corpus
/// permits. `uncatalogued` and `new` are no cause: a departure named
/// `new` is never known, since two different uncatalogued causes look alike.
fn known_causes(
    ledger: &engine::ledger::Ledger,
    corpus: &engine::case::Corpus,
    all: &mut [Box<dyn Oracle>],
) -> BTreeSet<(String, Diagnosis)> {
    let mut out: BTreeSet<(String, Diagnosis)> =
        super::causes::ledger_cell_causes(ledger, corpus, all)
            .into_keys()
            .collect();
    out.extend(super::causes::either_query_causes(corpus, all).into_keys());
    for e in &ledger.entries {
        let Some(c) = e.cause.as_ref().and_then(|c| c.name()) else {
            continue;
        };
        let Some(c) = Diagnosis::catalogued(c.as_str()) else {
            continue;
        };
        for o in &e.oracles {
            out.insert((o.clone(), c));
        }
    }
    out.retain(|(_, c)| !c.is_new());
    out
}

/// The two differential corpora, interleaved so a time budget samples both:
/// (file, body, queries) as each target renders its inputs.
fn corpus_inputs() -> Vec<(String, Vec<u8>, Vec<Query>)> {
    let read = |target: &str| -> Vec<(String, Vec<u8>)> {
        let dir = super::fuzzed::corpus_dir(target);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        files
            .into_iter()
            .filter_map(|p| {
                let name = format!("{target}/{}", p.file_name()?.to_string_lossy());
                Some((name, std::fs::read(&p).ok()?))
            })
            .collect()
    };
    let structured = read("differential").into_iter().filter_map(|(n, d)| {
        let (body, queries) = fuzzcore::generate::decode(&d)?;
        Some((n, body, queries))
    });
    let bytes = read("differential_bytes").into_iter().map(|(n, d)| {
        let q = fuzzcore::generate::queries_for_body(&d);
        (n, d, q)
    });
    let (a, b): (Vec<_>, Vec<_>) = (structured.collect(), bytes.collect());
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut ia, mut ib) = (a.into_iter(), b.into_iter());
    loop {
        match (ia.next(), ib.next()) {
            (None, None) => break,
            (x, y) => out.extend(x.into_iter().chain(y)),
        }
    }
    out
}

impl Sweep {
    /// Ask every oracle the input's questions (one batched call each), then
    /// triage each departure from the reference.
    fn input(&mut self, index: usize, source: &str, body: &[u8], queries: &[Query]) {
        let queries: Vec<Query> = queries
            .iter()
            .filter(|q| q.ask == Ask::CanFetch)
            .cloned()
            .collect();
        if queries.is_empty() {
            return;
        }
        self.totals.inputs_replayed += 1;
        self.totals.queries += queries.len();
        let mut times = Vec::with_capacity(self.all.len());
        let labels: Vec<(String, Vec<engine::oracle::Label>)> = self
            .all
            .iter_mut()
            .map(|o| {
                let t = Instant::now();
                let answers = o.run(body, &queries);
                times.push(t.elapsed().as_secs_f64() * 1e3);
                let l = (0..queries.len())
                    .map(|i| {
                        answers
                            .get(i)
                            .map_or(engine::oracle::Label::Crash, |a| a.outcome.pin())
                    })
                    .collect();
                (o.name().to_string(), l)
            })
            .collect();
        self.times.push((index, times.clone()));
        let Some(r) = labels.iter().position(|(n, _)| n == REFERENCE) else {
            return;
        };
        let reference = labels[r].1.clone();
        let slow: Vec<bool> = times.iter().map(|&ms| ms > NAME_UNDER_MS).collect();
        for (qi, q) in queries.iter().enumerate() {
            let mut feature: Option<String> = None;
            for (k, (oracle, l)) in labels.iter().enumerate() {
                let pair = (reference[qi].clone(), l[qi].clone());
                if oracle == REFERENCE || cause::agree(&pair) {
                    continue;
                }
                if slow[k] || slow[r] {
                    self.totals.departures_slow += 1;
                    continue;
                }
                self.totals.departures += 1;
                let f = feature.get_or_insert_with(|| {
                    let robots = Robots::parse(body, &self.readings);
                    triage::feature(&robots, &q.agent, &q.url, &mut self.scratch)
                });
                let input = Input {
                    body: body.to_vec(),
                    agent: q.agent.clone(),
                    url: q.url.clone(),
                };
                let shape = format!("{oracle} {}->{} @ {f}", pair.0, pair.1);
                self.departure(oracle, &shape, &input, source);
            }
        }
    }

    /// Sample one departure: bucket it, and name its cause while its bucket
    /// is under the cap.
    fn departure(&mut self, oracle: &str, shape: &str, input: &Input, source: &str) {
        // The unminimised cause is cheap (one question per transformation)
        // and splits a shape into the causes behind it; checked only while
        // the shape itself is under a (larger) cap.
        let seen = self.buckets.entry(shape.to_string()).or_default();
        *seen += 1;
        if *seen > self.per_bucket * 20 || Instant::now() >= self.deadline {
            return;
        }
        let Some(mut pair) = cause::OraclePair::of(&mut self.all, REFERENCE, oracle) else {
            return;
        };
        let Some(raw) = cause::classify(&mut pair, input) else {
            return;
        };
        let bucket = format!("{shape} ~ {raw}");
        let n = self.buckets.entry(bucket).or_default();
        *n += 1;
        if *n > self.per_bucket {
            return;
        }
        let Some(named) = cause::name_cause(&mut pair, input) else {
            return;
        };
        self.totals.departures_named += 1;
        let diagnosis = match named.cause {
            Diagnosis::New => cause::stacked_causes(&mut pair, &named.minimised),
            named => Some(named),
        }
        .unwrap_or(Diagnosis::New);
        let known = |c: Diagnosis| self.known.contains(&(oracle.to_string(), c));
        let in_ledger = match diagnosis {
            // Two known features stacked: known when the ledger names both,
            // or explains a cell where the two come stacked for the oracle.
            Diagnosis::Stacked(a, b) => {
                (known(Diagnosis::Catalogued(a)) && known(Diagnosis::Catalogued(b)))
                    || known(diagnosis)
            }
            _ => known(diagnosis),
        };
        let key = (oracle.to_string(), diagnosis);
        let found = self.found.entry(key).or_default();
        found.named += 1;
        found.in_ledger = in_ledger;
        let ex = Example {
            answers: format!("{}->{}", named.answers.0, named.answers.1),
            body: named.minimised.body.escape_ascii().to_string(),
            agent: named.minimised.agent,
            url: named.minimised.url,
            source: source.to_string(),
        };
        if !found.examples.iter().any(|e| same_input(e, &ex)) {
            found.examples.push(ex);
            found
                .examples
                .sort_by_key(|e| (e.body.len() + e.url.len() + e.agent.len(), e.clone()));
            found.examples.truncate(KEEP);
        }
    }
}

fn same_input(a: &Example, b: &Example) -> bool {
    a.body == b.body && a.agent == b.agent && a.url == b.url && a.answers == b.answers
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('`', "'")
}

/// The sweep as Markdown: causes the ledger does not name first, those
/// without a stated reason (work left) before those with one.
fn markdown(
    s: &Sweep,
    names: &[String],
    reasons: &super::reasons::Reasons,
    program: &str,
) -> String {
    let t = &s.totals;
    let mut md = format!(
        "# Fuzz corpus sweep\n\n`{} triage sweep`: {} of {} corpus inputs replayed ({} can_fetch queries) through {} oracles ({}) in {:.0} s; {} departures from {REFERENCE}, {} sampled and named (at most {} per (oracle, answers, deciding feature, unminimised cause)), {} left unnamed because the pair took over {NAME_UNDER_MS} ms on the input.\n\n",
        program,
        t.inputs_replayed, t.inputs, t.queries, names.len(), names.join(", "), t.seconds,
        t.departures, t.departures_named, s.per_bucket, t.departures_slow,
    );
    let reason =
        |o: &str, c: Diagnosis, f: &Found| (!f.in_ledger).then(|| reasons.get(o, c)).flatten();
    let new: Vec<_> = s.found.iter().filter(|(_, f)| !f.in_ledger).collect();
    let with_reason = new
        .iter()
        .filter(|((o, c), f)| reason(o, *c, f).is_some())
        .count();
    md += &format!(
        "**{} (oracle, cause) pairs the ledger does not name**: {} without a stated reason, {} with one ({}); {} pairs it does name (a ledger entry explains a cell with that cause for the oracle, or a verdict on an `either` query of the corpus, a reading RFC 9309 permits, has it). `new` = no catalogue transformation (docs/causes.md) neutralises the minimised pair, nor any two of them applied one after the other; `a+b` = only the two together do (two known features stacked in one input), known when the ledger names both for the oracle or explains a cell where the two come stacked.\n\n| oracle | cause | named | in ledger | smallest minimised input (answers; body; agent; URL) | why unnamed |\n|---|---|---|---|---|---|\n",
        new.len(),
        new.len() - with_reason,
        with_reason,
        super::reasons::FILE,
        s.found.len() - new.len()
    );
    let mut rows: Vec<_> = s.found.iter().collect();
    rows.sort_by_key(|((o, c), f)| (f.in_ledger, reason(o, *c, f).is_some(), o.clone(), *c));
    for ((o, c), f) in rows {
        let ex = f.examples.first().map_or(String::new(), |e| {
            format!(
                "{}; `{}`; `{}`; `{}`",
                e.answers,
                cell(&e.body),
                cell(&e.agent),
                cell(&e.url)
            )
        });
        md += &format!(
            "| `{o}` | `{c}` | {} | {} | {ex} | {} |\n",
            f.named,
            if f.in_ledger { "yes" } else { "**no**" },
            reason(o, *c, f).map_or(String::new(), cell)
        );
    }
    let unnamed: Vec<(&str, Diagnosis)> = new.iter().map(|((o, c), _)| (o.as_str(), *c)).collect();
    let stale: Vec<_> = reasons.unused(&unnamed).collect();
    if !stale.is_empty() {
        md += &format!("\nReasons in {} that no unnamed pair of this sweep used (named since, or not met this time): ", super::reasons::FILE);
        md += &stale
            .iter()
            .map(|(o, c)| format!("`{o}`: `{c}`"))
            .collect::<Vec<_>>()
            .join(", ");
        md += "\n";
    }
    md += "\n## Every minimised input the ledger does not name\n\n";
    for ((o, c), f) in new {
        md += &format!("### `{o}`: `{c}`\n\n");
        if let Some(r) = reason(o, *c, f) {
            md += &format!("Why unnamed: {r}\n\n");
        }
        for e in &f.examples {
            md += &format!(
                "- {}: body `{}`, agent `{}`, URL `{}` (from {})\n",
                e.answers,
                cell(&e.body),
                cell(&e.agent),
                cell(&e.url),
                e.source
            );
        }
        md += "\n";
    }
    md
}

/// Into the run folder, or (`--write-report`) into reports/fuzz/.
fn save(md: &str, json: &serde_json::Value, publish: bool) -> Result<Vec<PathBuf>, Usage> {
    let (dir, stem) = if publish {
        let (_, stamp) = engine::calendar::stamps(std::time::SystemTime::now());
        (
            crate::paths::root().join("reports/fuzz"),
            format!("{}-sweep", stamp.replace(':', "")),
        )
    } else {
        (crate::paths::run_dir().join("fuzz"), "sweep".to_string())
    };
    let text = serde_json::to_string_pretty(json).map_err(|e| Usage(e.to_string()))?;
    let mut out = Vec::new();
    for (ext, body) in [("md", md.to_string()), ("json", text + "\n")] {
        let p = dir.join(format!("{stem}.{ext}"));
        std::fs::create_dir_all(&dir)
            .and_then(|()| engine::write_atomic(&p, body.as_bytes()))
            .map_err(|e| Usage(format!("{}: {e}", p.display())))?;
        out.push(p);
    }
    Ok(out)
}

/// What a minimised slow input must still take: over the floor with room
/// for timing noise, and over the ratio.
fn keep_ms(median_ms: f64) -> f64 {
    (2.0 * slow::FLOOR_MS).max(slow::RATIO * median_ms)
}

/// Wall time of one call, in ms.
fn timed(o: &mut Box<dyn Oracle>, body: &[u8], qs: &[Query]) -> f64 {
    let t = Instant::now();
    o.run(body, qs);
    t.elapsed().as_secs_f64() * 1e3
}

/// Judge the timing table, confirm each candidate by re-timing the same
/// batched call (the fastest of three must still be slow: a scheduler or GC
/// pause is not a finding), and time the confirmed ones (at most 3 per
/// oracle) on the input cut to 1/4, 1/2 and all of its size. Returns the confirmed
/// findings and how many candidates did not reproduce.
fn slow_findings(
    s: &mut Sweep,
    inputs: &[(String, Vec<u8>, Vec<Query>)],
) -> (Vec<SlowFinding>, usize) {
    let names: Vec<String> = s.all.iter().map(|o| o.name().to_string()).collect();
    let rows: Vec<Vec<f64>> = s.times.iter().map(|(_, t)| t.clone()).collect();
    // (confirmed, tried) per oracle: at most 3 findings and 6 re-timings
    // each, since a re-timing of a slow worker costs up to its timeout.
    let mut per_oracle: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let (mut out, mut unconfirmed) = (Vec::new(), 0);
    for mut c in slow::candidates(&names, &rows) {
        let seen = per_oracle.entry(c.oracle.clone()).or_default();
        if seen.0 >= 3 || seen.1 >= 6 {
            continue;
        }
        seen.1 += 1;
        let Some((i, _)) = s.times.get(c.input) else {
            continue;
        };
        let (source, body, queries) = &inputs[*i];
        c.input = *i;
        let Some(o) = s.all.iter_mut().find(|o| o.name() == c.oracle) else {
            continue;
        };
        let asked: Vec<Query> = queries
            .iter()
            .filter(|q| q.ask == Ask::CanFetch)
            .cloned()
            .collect();
        let Some(q) = asked.first().cloned() else {
            continue;
        };
        let again = (0..3)
            .map(|_| timed(o, body, &asked))
            .fold(f64::INFINITY, f64::min);
        if again <= slow::FLOOR_MS || again <= slow::RATIO * c.median_ms {
            unconfirmed += 1;
            continue;
        }
        per_oracle.entry(c.oracle.clone()).or_default().0 += 1;
        let growth = [(1, 4), (1, 2), (1, 1)]
            .iter()
            .map(|&(num, den)| {
                let (b, url) = slow::cut(body, &q.url, num, den);
                let ms = timed(o, &b, &[Query { url, ..q.clone() }]);
                (format!("{num}/{den}"), ms)
            })
            .collect();
        log::info!(
            "triage sweep: minimising a slow input of {} ({:.0} ms) on its time",
            c.oracle,
            again
        );
        let minimised = slow::minimise(
            body,
            &q.url,
            |b, url| {
                timed(
                    o,
                    b,
                    &[Query {
                        url: url.to_string(),
                        ..q.clone()
                    }],
                )
            },
            keep_ms(c.median_ms),
            MINIMISE_BUDGET,
        );
        let stretched = [1, 2, 3]
            .iter()
            .map(|&k| {
                let (b, agent, url) = slow::stretch(&minimised.body, &q.agent, &minimised.url, k);
                (
                    format!("x{k}"),
                    timed(
                        o,
                        &b,
                        &[Query {
                            url,
                            agent,
                            ..q.clone()
                        }],
                    ),
                )
            })
            .collect();
        let small = [Query {
            url: minimised.url.clone(),
            ..q.clone()
        }];
        let others_slowest = s
            .all
            .iter_mut()
            .filter(|x| x.name() != c.oracle)
            .map(|x| (x.name().to_string(), timed(x, &minimised.body, &small)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or_default();
        out.push(SlowFinding {
            slow: c,
            confirmed_ms: again,
            source: source.clone(),
            body: body.escape_ascii().to_string(),
            agent: q.agent.clone(),
            url: q.url.clone(),
            growth,
            minimised_body: minimised.body.escape_ascii().to_string(),
            minimised,
            stretched,
            others_slowest,
        });
    }
    (out, unconfirmed)
}

fn slow_markdown(slow: &[SlowFinding], unconfirmed: usize) -> String {
    let mut md = format!(
        "## Slow inputs\n\nAn input on which one oracle took over {}x its median time per input and over {} ms while every other oracle stayed within {}x of its own median (repdiff/src/slow.rs), confirmed by re-timing the same call three times (fastest kept; {unconfirmed} candidate(s) did not reproduce); growth: the first question alone on the input cut to 1/4, 1/2 and all of its rules after the first line and of its URL path. Worker-run oracles are cut off at 1 s per question in the sweep, so their times stop there.\n\n",
        slow::RATIO,
        slow::FLOOR_MS,
        slow::OTHERS_RATIO
    );
    if slow.is_empty() {
        md += "None.\n";
        return md;
    }
    md += "| oracle | input | ms (confirmed) | median ms | ratio | growth (share: ms) |\n|---|---|---|---|---|---|\n";
    for f in slow {
        let growth: Vec<String> = f
            .growth
            .iter()
            .map(|(k, ms)| format!("{k}: {ms:.1}"))
            .collect();
        md += &format!(
            "| `{}` | {} | {:.1} ({:.1}) | {:.3} | {:.0} | {} |\n",
            f.slow.oracle,
            f.source,
            f.slow.ms,
            f.confirmed_ms,
            f.slow.median_ms,
            f.slow.ratio(),
            growth.join(", ")
        );
    }
    md += &format!(
        "\n### Minimised on the time\n\nEach input above minimised for its oracle alone (repdiff/src/slow.rs `minimise`: lines, then byte chunks of the body and characters of the URL path, kept while the oracle still takes over max({} ms, {}x its median)), then every run of three or more equal bytes or characters stretched 1, 2 and 3 times to show the growth; the slowest other oracle on the minimised input for comparison.\n\n| oracle | minimised input (body; agent; URL) | probes (s) | growth (stretch: ms) | slowest other (ms) |\n|---|---|---|---|---|\n",
        2.0 * slow::FLOOR_MS,
        slow::RATIO
    );
    for f in slow {
        let growth: Vec<String> = f
            .stretched
            .iter()
            .map(|(k, ms)| format!("{k}: {ms:.1}"))
            .collect();
        md += &format!(
            "| `{}` | `{}`; `{}`; `{}` | {} ({:.0}) | {} | {} {:.2} |\n",
            f.slow.oracle,
            f.minimised_body.replace('|', "\\|"),
            f.agent.replace('|', "\\|"),
            f.minimised.url.replace('|', "\\|"),
            f.minimised.probes,
            f.minimised.seconds,
            growth.join(", "),
            f.others_slowest.0,
            f.others_slowest.1
        );
    }
    md
}
