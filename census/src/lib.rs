//! The census: every oracle over real websites' robots.txt files.
//!
//! Every other figure repdiff publishes comes from cases somebody wrote;
//! this one comes from the files sites really serve. Real files carry no
//! expected answers, so the census measures agreement, not correctness:
//! per oracle pair, how often they answer the same query differently, and
//! which answer patterns (signatures) are most common across files.
//!
//! The crate knows no oracle: the caller hands it running
//! [`engine::oracle::Oracle`]s (supervised workers, usually). Input is
//! streamed ([`input`]), queries are derived from each file ([`queries`]),
//! counts are mergeable sums ([`tally`]) so a census can be split into
//! shards on many machines and merged into the report one run would give.

pub mod adoption;
pub mod ai_crawlers;
pub mod error;
pub mod input;
pub mod pair;
mod pipeline;
pub mod queries;
pub mod render;
pub mod tally;

use crate::error::ReadError;
use engine::oracle::{Answer, Oracle, Outcome};
use input::{InputError, Record};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};
use tally::{FileInput, Tally};

/// 3: every rule asked, the near misses in a section of their own
/// (`written`, `near_misses`, `probes`), `unrequested` counted in each
/// tally. (2: the as-written questions and the probes, the near misses
/// among the as-written ones.)
pub const FORMAT: &str = "repdiff-census/3";

/// The formats [`read_census`] reads: a census of format 2 (the published
/// snapshot until the next `--publish`) still renders, with its near
/// misses inside its as-written section as it counted them.
pub const READABLE: &[&str] = &[FORMAT, LEGACY_FORMAT];

/// The last format without a near-miss section.
pub const LEGACY_FORMAT: &str = "repdiff-census/2";

/// Files handed to the oracles at once: each oracle runs a batch on its own
/// thread, so a batch bounds memory and keeps every worker busy.
const BATCH: usize = 16;

/// `--shard K/N`: this run takes the files whose name hashes to K (0-based,
/// as Kubernetes' `JOB_COMPLETION_INDEX`) modulo N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub k: u64,
    pub n: u64,
}

impl Shard {
    // String: a flag's value that does not parse; the message is the usage error.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let bad = || format!("--shard {s:?}: expected K/N with 0 <= K < N (K is 0-based)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (u64, u64) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if n == 0 || k >= n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }

    /// sha256 of the name, not a process-seeded hash: every machine of a
    /// sharded census must agree on where each file goes.
    pub fn of(name: &str, n: u64) -> u64 {
        use sha2::{Digest, Sha256};
        let d = Sha256::digest(name.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&d[..8]);
        u64::from_be_bytes(first) % n
    }

    pub fn takes(&self, name: &str) -> bool {
        Shard::of(name, self.n) == self.k
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    /// How the input was named (for the report; no machine path).
    pub input: String,
    pub shard: Option<Shard>,
    /// Stop after this many input files (counted before sharding, so the
    /// shards of a limited run still add up to the limited run).
    pub limit: Option<u64>,
    /// The oracle whose answers the others are compared with.
    pub reference: String,
    /// Pairs of widely used parsers for the high-impact list.
    pub impact_pairs: Vec<(String, String)>,
    /// Files expected (for the ETA), when the caller knows.
    pub expected: Option<u64>,
}

/// The pairs the headline and the high-impact list follow unless told
/// otherwise: Google against the parsers most crawlers outside Google run
/// (Node's robots-parser, Python's stdlib and Scrapy's protego, Rust's
/// texting-robots, Nutch's and Common Crawl's crawler-commons, the Internet
/// Archive's Heritrix, colly's temoto), and the Python pair Scrapy users
/// choose between.
pub const DEFAULT_IMPACT_PAIRS: &[(&str, &str)] = &[
    ("google", "robots-parser"),
    ("google", "cpython-3.11"),
    ("google", "protego"),
    ("google", "texting-robots"),
    ("google", "crawler-commons"),
    ("google", "heritrix"),
    ("google", "temoto-robotstxt"),
    ("cpython-3.11", "protego"),
    ("cpython-3.11", "robots-parser"),
];

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OracleId {
    pub name: String,
    pub version: String,
}

/// `census.json`: the run's identity and, for the as-written questions, the
/// near misses and the probes apart, the tally (what merge adds up) and
/// the figures derived from it (what readers want).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Census {
    pub format: String,
    pub input: String,
    pub limit: Option<u64>,
    pub reference: String,
    pub oracles: Vec<OracleId>,
    /// The questions a crawler following the site's own links asks
    /// (`queries::Kind`): every file, the statuses skipped, the headline.
    pub written: Section,
    /// Each rule's match minus its last character (`queries::Origin`): a
    /// URL the site need not have; only the files that have one. Empty in
    /// a census of [`LEGACY_FORMAT`], which counted them as written.
    #[serde(default)]
    pub near_misses: Section,
    /// The questions we invent (the %-encoded variants): only the files
    /// that have one.
    pub probes: Section,
}

/// One kind of question's counts and figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Section {
    pub tally: Tally,
    pub summary: render::Summary,
}

impl Section {
    fn new(tally: Tally, oracles: &[OracleId], reference: &str) -> Section {
        let summary = render::summarise(&tally, oracles, reference);
        Section { tally, summary }
    }
}

/// How fast it went: kept out of `census.json`, which must not depend on
/// the machine (merge(shards) equals one run).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Speed {
    pub wall_seconds: f64,
    pub files: u64,
    pub queries: u64,
    pub files_per_second: f64,
    pub queries_per_second: f64,
    /// Per oracle: time spent answering, and its own rates over that time.
    pub oracles: Vec<OracleSpeed>,
    /// The parsers' own loops over the same questions, taken in the same
    /// invocation (`census --floor`, and every `--publish`): what this run
    /// is measured against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor: Option<Floor>,
}

/// The floor of a census: each parser's library alone, in a loop of its
/// own runtime over the very questions the census asked (issue 51). A
/// floor from repdiff's own worker CPU would hold the harness to itself;
/// this one holds it to the libraries. Taken beside the census, not on
/// another day, so both see the same machine.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Floor {
    /// Cores of the machine both ran on.
    pub cores: usize,
    pub oracles: Vec<LibraryCpu>,
    /// The libraries' CPU over the cores: no census of these questions
    /// can take less wall time. An oracle without a loop counts with its
    /// worker's CPU (so the floor is never understated by a missing loop).
    pub floor_seconds: f64,
    /// The census's wall time over the floor.
    pub wall_over_floor: f64,
}

/// One parser's library CPU beside its census worker's.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LibraryCpu {
    pub name: String,
    /// What ran the library (`loop.rb`, `speed_loop.py`, its adapter in
    /// this process); `None` when the oracle has no loop.
    pub how: Option<String>,
    pub library_cpu_seconds: Option<f64>,
    /// The census's CPU for it: its worker processes, plus the driving
    /// thread (encoding, pipes, decoding; the parse itself for an oracle
    /// in the census's process).
    pub census_cpu_seconds: f64,
    /// `census_cpu_seconds / library_cpu_seconds`: what the harness adds.
    pub ratio: Option<f64>,
    /// Why the loop gave no figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Floor {
    /// The floor of `wall` seconds of census, from each oracle's library
    /// row (its `census_cpu_seconds` filled from the census's own speed).
    pub fn new(wall: f64, oracles: Vec<LibraryCpu>, cores: usize) -> Floor {
        let cpu: f64 = oracles
            .iter()
            .map(|o| o.library_cpu_seconds.unwrap_or(o.census_cpu_seconds))
            .sum();
        let floor_seconds = cpu / cores.max(1) as f64;
        Floor {
            cores,
            oracles,
            floor_seconds,
            wall_over_floor: wall / floor_seconds.max(1e-9),
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct OracleSpeed {
    pub name: String,
    /// Wall-clock time its lanes spent in calls (waits for a core included).
    pub busy_seconds: f64,
    /// CPU time of the census threads driving it: encoding the request,
    /// the pipes, decoding the answers (for an oracle in this process, the
    /// parse itself).
    #[serde(default)]
    pub driver_cpu_seconds: f64,
    /// CPU time of its worker processes (the parser and its harness), or
    /// `None` for an oracle in this process.
    #[serde(default)]
    pub worker_cpu_seconds: Option<f64>,
    pub files_per_second: f64,
    pub queries_per_second: f64,
}

impl Census {
    /// Whether the near misses are counted apart (not a census of
    /// [`LEGACY_FORMAT`]): what the pages say of the as-written section.
    pub fn has_near_misses(&self) -> bool {
        self.format != LEGACY_FORMAT
    }

    /// Every question asked, whatever its section.
    pub fn queries(&self) -> u64 {
        self.written.tally.queries + self.near_misses.tally.queries + self.probes.tally.queries
    }

    pub fn new(opts: &Options, oracles: Vec<OracleId>, tallies: Tallies) -> Census {
        Census {
            format: FORMAT.into(),
            input: opts.input.clone(),
            limit: opts.limit,
            reference: opts.reference.clone(),
            written: Section::new(tallies.written, &oracles, &opts.reference),
            near_misses: Section::new(tallies.near_misses, &oracles, &opts.reference),
            probes: Section::new(tallies.probes, &oracles, &opts.reference),
            oracles,
        }
    }

    /// Combine shard outputs. They must come from the same census (same
    /// input, limit, reference and oracle versions); the order is free.
    // String: shards that do not belong together; the message names the field.
    pub fn merge(parts: Vec<Census>) -> Result<Census, String> {
        let mut it = parts.into_iter();
        let first = it.next().ok_or("nothing to merge")?;
        let mut tallies = Tallies {
            written: first.written.tally.clone(),
            near_misses: first.near_misses.tally.clone(),
            probes: first.probes.tally.clone(),
        };
        // Shards of another format asked other questions: re-run them.
        let stale = |c: &Census| c.format != FORMAT;
        if stale(&first) {
            return Err(format!(
                "cannot merge: a shard has format {:?}, expected {FORMAT:?} (re-run it)",
                first.format
            ));
        }
        for p in it {
            if stale(&p) {
                return Err(format!(
                    "cannot merge: a shard has format {:?}, expected {FORMAT:?} (re-run it)",
                    p.format
                ));
            }
            if p.input != first.input
                || p.limit != first.limit
                || p.reference != first.reference
                || p.oracles != first.oracles
            {
                return Err(format!(
                    "cannot merge: shards differ in input, limit, reference or oracle versions ({} vs {})",
                    describe(&first),
                    describe(&p)
                ));
            }
            tallies.written.merge(p.written.tally);
            tallies.near_misses.merge(p.near_misses.tally);
            tallies.probes.merge(p.probes.tally);
        }
        let opts = Options {
            input: first.input.clone(),
            shard: None,
            limit: first.limit,
            reference: first.reference.clone(),
            impact_pairs: Vec::new(),
            expected: None,
        };
        Ok(Census::new(&opts, first.oracles, tallies))
    }
}

/// What a run adds up: the three sections' tallies.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tallies {
    pub written: Tally,
    pub near_misses: Tally,
    pub probes: Tally,
}

impl Tallies {
    fn add(&mut self, f: tally::FileTallies) {
        self.written.merge(f.written);
        if let Some(n) = f.near_misses {
            self.near_misses.merge(n);
        }
        if let Some(p) = f.probes {
            self.probes.merge(p);
        }
    }
}

fn describe(c: &Census) -> String {
    let o: Vec<String> = c.oracles.iter().map(|o| o.version.clone()).collect();
    format!(
        "input {}, limit {:?}, oracles {}",
        c.input,
        c.limit,
        o.join(", ")
    )
}

/// Run the census over `records` with `oracles`. An input error stops the
/// run: a census with a silently missing file would not add up.
///
/// `helpers` are more running instances of some of the oracles, each with
/// the name of the one it helps: that oracle's files are shared among its
/// instances (the answers are the same library's, so the report is too;
/// only the time changes). One for a name no oracle has is left idle.
///
/// `profiles` are the expectation profiles' references (`robots-1996`,
/// ...): asked every query like an oracle, their answers only measure how
/// often each oracle departs from each profile; they are in no pair,
/// signature or speed row.
pub fn run(
    records: impl Iterator<Item = Result<Record, InputError>>,
    oracles: &mut [Box<dyn Oracle>],
    helpers: &mut [(String, Box<dyn Oracle>)],
    profiles: &mut [Box<dyn Oracle>],
    opts: &Options,
) -> Result<(Census, Speed), InputError> {
    let profile_names: Vec<String> = profiles.iter().map(|o| o.name().to_string()).collect();
    let names: Vec<String> = oracles.iter().map(|o| o.name().to_string()).collect();
    let ids: Vec<OracleId> = oracles
        .iter()
        .map(|o| OracleId {
            name: o.name().to_string(),
            version: o.identity().to_string(),
        })
        .collect();
    let reference = names.iter().position(|n| *n == opts.reference);
    let pos = |n: &str| names.iter().position(|m| m == n);
    let impact: Vec<(usize, usize)> = opts
        .impact_pairs
        .iter()
        .filter_map(|(a, b)| Some((pos(a)?, pos(b)?)))
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    let mut tallies = Tallies::default();
    let mut busy = vec![pipeline::Spent::default(); oracles.len()];
    let mut progress = Progress::new(opts.expected);
    let ctx = BatchCtx {
        names: &names,
        reference,
        impact: &impact,
        profile_names: &profile_names,
    };
    // Skipped statuses are counted as batches are made (on this thread);
    // the rest is tallied as batches come back, in input order.
    let mut skipped_status: BTreeMap<u16, u64> = BTreeMap::new();
    let limit = opts.limit.unwrap_or(u64::MAX);
    let taken = records
        .take(usize::try_from(limit).unwrap_or(usize::MAX))
        .filter(|r| {
            r.as_ref()
                .map_or(true, |r| opts.shard.is_none_or(|s| s.takes(&r.name)))
        });
    let work = Batches {
        records: taken,
        skipped_status: &mut skipped_status,
    };
    let n = oracles.len();
    // Only outcomes are tallied: no oracle need account for its answers.
    for o in oracles.iter_mut().chain(helpers.iter_mut().map(|(_, h)| h)) {
        o.skip_explanations();
    }
    let mut lanes: Vec<(usize, &mut Box<dyn Oracle>)> = oracles.iter_mut().enumerate().collect();
    for (name, helper) in helpers.iter_mut() {
        if let Some(k) = names.iter().position(|n| n == name) {
            lanes.push((k, helper));
        }
    }
    // The profiles come after the oracles, as oracles n, n+1, ...
    lanes.extend(profiles.iter_mut().enumerate().map(|(p, o)| (n + p, o)));
    pipeline::run(work, n + profile_names.len(), lanes, |w, answered| {
        for (k, t) in answered.took.iter().take(n).enumerate() {
            busy[k] += *t;
        }
        tally_batch(w, &answered.answers, &ctx, &mut tallies);
        progress.tick(w.files.len() as u64 + w.skipped);
    })?;
    for (status, n) in skipped_status {
        *tallies.written.skipped_status.entry(status).or_default() += n;
    }
    let wall = progress.finish();
    // Every instance of oracle k: its own worker and the registry's extras.
    let worker_cpu: Vec<Option<Duration>> = (0..n)
        .map(|k| {
            let extra = helpers
                .iter()
                .filter(|(name, _)| *name == names[k])
                .filter_map(|(_, h)| h.process_cpu());
            oracles[k]
                .process_cpu()
                .map(|own| own + extra.sum::<Duration>())
        })
        .collect();
    let speed = speed(&tallies, &names, &busy, &worker_cpu, wall);
    Ok((Census::new(opts, ids, tallies), speed))
}

struct BatchCtx<'a> {
    names: &'a [String],
    reference: Option<usize>,
    impact: &'a [(usize, usize)],
    profile_names: &'a [String],
}

/// Records grouped into [`pipeline::Work`] of [`BATCH`] asked files, the
/// queries derived; a record whose HTTP status is not 2xx is only counted.
struct Batches<'a, I> {
    records: I,
    skipped_status: &'a mut BTreeMap<u16, u64>,
}

impl<I: Iterator<Item = Result<Record, InputError>>> Iterator for Batches<'_, I> {
    type Item = Result<pipeline::Work, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut files = Vec::with_capacity(BATCH);
        let mut skipped = 0;
        while files.len() < BATCH {
            match self.records.next() {
                None => break,
                Some(Err(e)) => return Some(Err(e)),
                Some(Ok(r)) if r.status.is_none_or(|s| (200..300).contains(&s)) => files.push(r),
                Some(Ok(r)) => {
                    skipped += 1;
                    *self
                        .skipped_status
                        .entry(r.status.unwrap_or_default())
                        .or_default() += 1
                }
            }
        }
        if files.is_empty() && skipped == 0 {
            return None;
        }
        let asked = files
            .iter()
            .map(|r| queries::derive(&r.host, &r.body))
            .collect();
        Some(Ok(pipeline::Work {
            files,
            asked,
            skipped,
        }))
    }
}

fn tally_batch(
    w: &pipeline::Work,
    answers: &[Vec<Vec<Answer>>],
    ctx: &BatchCtx,
    tallies: &mut Tallies,
) {
    let (oracles, profiles) = answers.split_at(ctx.names.len());
    for (f, r) in w.files.iter().enumerate() {
        let per_oracle: Vec<Vec<Answer>> = oracles.iter().map(|a| a[f].clone()).collect();
        let per_profile: Vec<Vec<Answer>> = profiles.iter().map(|a| a[f].clone()).collect();
        tallies.add(tally::file_tallies(&FileInput {
            name: &r.name,
            host: &r.host,
            body: &r.body,
            asked: &w.asked[f],
            names: ctx.names,
            answers: &per_oracle,
            reference: ctx.reference,
            impact: ctx.impact,
            profile_names: ctx.profile_names,
            profile_answers: &per_profile,
        }));
    }
}

/// One answer per query, or a protocol error on each: a worker answering
/// too few or too many must not shift every later figure.
fn checked(answers: Vec<Answer>, n: usize, oracle: &str) -> Vec<Answer> {
    if answers.len() == n {
        return answers;
    }
    let message = format!(
        "oracle `{oracle}` returned {} answers for {n} queries",
        answers.len()
    );
    (0..n)
        .map(|_| {
            Answer::from(Outcome::Error {
                kind: "protocol".into(),
                message: message.clone(),
            })
        })
        .collect()
}

fn speed(
    t: &Tallies,
    names: &[String],
    busy: &[pipeline::Spent],
    worker_cpu: &[Option<Duration>],
    wall: Duration,
) -> Speed {
    let queries = t.written.queries + t.near_misses.queries + t.probes.queries;
    let files = t.written.files;
    let rate = |n: u64, d: Duration| {
        if d.as_secs_f64() > 0.0 {
            n as f64 / d.as_secs_f64()
        } else {
            0.0
        }
    };
    Speed {
        wall_seconds: wall.as_secs_f64(),
        files,
        queries,
        files_per_second: rate(files, wall),
        queries_per_second: rate(queries, wall),
        oracles: names
            .iter()
            .zip(busy)
            .zip(worker_cpu)
            .map(|((n, b), w)| OracleSpeed {
                name: n.clone(),
                busy_seconds: b.wall.as_secs_f64(),
                driver_cpu_seconds: b.driver_cpu.as_secs_f64(),
                worker_cpu_seconds: w.map(|w| w.as_secs_f64()),
                files_per_second: rate(files, b.wall),
                queries_per_second: rate(queries, b.wall),
            })
            .collect(),
        floor: None,
    }
}

/// The `log` target of the census's progress lines.
pub const PROGRESS: &str = "census::progress";

/// Files done, files/s and ETA: a note through `log` (the library never
/// prints; the caller's level decides, `repdiff -q` hides it) every few
/// seconds, under the target [`PROGRESS`], and one at the end. A
/// terminal used to get a line redrawn in place; a line through the
/// logger is a whole line, so a terminal gets one every two seconds instead
/// (a logger could redraw lines of that target again).
struct Progress {
    start: Instant,
    last: Instant,
    done: u64,
    /// Files done at the last line printed, so the final line is not a repeat.
    shown: u64,
    expected: Option<u64>,
    tty: bool,
}

impl Progress {
    fn new(expected: Option<u64>) -> Progress {
        Progress {
            start: Instant::now(),
            last: Instant::now(),
            done: 0,
            shown: u64::MAX,
            expected,
            tty: std::io::stderr().is_terminal(),
        }
    }

    fn tick(&mut self, n: u64) {
        self.done += n;
        let every = if self.tty { 2.0 } else { 5.0 };
        if self.last.elapsed().as_secs_f64() >= every {
            self.last = Instant::now();
            self.print();
        }
    }

    fn line(&self) -> String {
        let secs = self.start.elapsed().as_secs_f64().max(1e-9);
        let rate = self.done as f64 / secs;
        let eta = match self.expected {
            Some(total) if rate > 0.0 && total >= self.done => {
                format!("ETA {:.0}s", (total - self.done) as f64 / rate)
            }
            _ => "ETA ?".into(),
        };
        let of = self.expected.map(|t| format!("/{t}")).unwrap_or_default();
        format!("census: {}{of} files, {rate:.1} files/s, {eta}", self.done)
    }

    fn print(&mut self) {
        self.shown = self.done;
        // `-q` (the caller's log level) asks for no progress.
        log::info!(target: PROGRESS, "{}", self.line());
    }

    fn finish(&mut self) -> Duration {
        if self.shown != self.done {
            self.print();
        }
        self.start.elapsed()
    }
}

/// One atomic writer for every output (a reader, a merge or a CI upload
/// never sees half a file): the engine's.
pub use engine::write_atomic;

/// Write `census.json`, `census.md`, `heatmap.svg` (as-written),
/// `heatmap-near-misses.svg`, `heatmap-probes.svg` and (when given)
/// `speed.json` into `dir` as one switch ([`engine::output::Switch`]): a failure or a signal part way
/// leaves the folder's previous set whole (for `census --publish`, the
/// committed snapshot), never a new census.json beside an old census.md.
pub fn write_outputs(dir: &Path, census: &Census, speed: Option<&Speed>) -> std::io::Result<()> {
    let mut json = serde_json::to_string_pretty(census).map_err(std::io::Error::other)?;
    json.push('\n');
    let mut set = engine::output::Switch::new();
    set.file(&dir.join("census.json"), json.as_bytes())?;
    set.file(
        &dir.join("census.md"),
        render::markdown(census, speed).as_bytes(),
    )?;
    for view in render::sections(census) {
        set.file(
            &dir.join(view.heatmap),
            render::heatmap(census, view.section).as_bytes(),
        )?;
    }
    if let Some(s) = speed {
        let mut json = serde_json::to_string_pretty(s).map_err(std::io::Error::other)?;
        json.push('\n');
        set.file(&dir.join("speed.json"), json.as_bytes())?;
    }
    set.commit()
}

/// Read a `census.json` (a shard's output) for merging.
pub fn read_census(path: &Path) -> Result<Census, ReadError> {
    let text = std::fs::read_to_string(path).map_err(|e| ReadError::read(path, e))?;
    let c: Census = serde_json::from_str(&text)
        .map_err(|e| ReadError::invalid(path, format!("not a census.json: {e}")))?;
    if !READABLE.contains(&c.format.as_str()) {
        let message = format!("format {:?}, expected {FORMAT:?}", c.format);
        return Err(ReadError::invalid(path, message));
    }
    Ok(c)
}

/// `--dry-run`: how many input files each of `n` shards would take.
pub fn shard_plan(
    records: impl Iterator<Item = Result<Record, InputError>>,
    n: u64,
    limit: Option<u64>,
) -> Result<Vec<u64>, InputError> {
    let mut counts = vec![0u64; n as usize];
    for r in records.take(limit.unwrap_or(u64::MAX) as usize) {
        counts[Shard::of(&r?.name, n) as usize] += 1;
    }
    Ok(counts)
}
