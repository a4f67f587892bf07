//! The differential harness: every in-process oracle on one input, the
//! disagreements triaged inside the loop, new ones saved as findings.

use crate::classes::{classes, InputClass};
use crate::record::{self, DifferentialStats, FindingRecord, NewHits, SavedAnswer};
use crate::triage::{self, Known};
use crate::{downweight, lane, load_or_derive_known, make_lineup, Place, Settings};
use engine::oracle::{Answer, Oracle, Outcome, Query};
use oracles::rfc9309::{Readings, Robots};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Per-process counters, written to `REPDIFF_FUZZ_STATS/<target>-<pid>.json`.
#[derive(Default)]
struct Stats {
    execs: u64,
    /// Inputs whose rendered body and queries were just run (skipped).
    repeats: u64,
    queries: u64,
    disagreements: u64,
    known: BTreeMap<triage::FuzzSignature, u64>,
    new: BTreeMap<String, NewHits>,
    /// oracle -> outcome label (crash, error, timeout) -> count
    failures: BTreeMap<String, BTreeMap<String, u64>>,
    /// Time spent in each oracle's `run`, in oracle order.
    nanos: Vec<u128>,
    /// Distinct inputs per input class, indexed like [`InputClass::ALL`]
    /// (counted on every input, where a map of strings would not be free).
    classes: Vec<u64>,
    /// The same over inputs with at least one disagreement.
    classes_divergent: Vec<u64>,
}

fn count_classes(into: &mut Vec<u64>, cls: &std::collections::BTreeSet<InputClass>) {
    into.resize(InputClass::ALL.len(), 0);
    for &c in cls {
        into[c as usize] += 1;
    }
}

fn class_map(counts: &[u64]) -> BTreeMap<String, u64> {
    InputClass::ALL
        .iter()
        .zip(counts)
        .filter(|(_, &n)| n > 0)
        .map(|(c, &n)| (c.name().to_string(), n))
        .collect()
}

/// Findings on disk: one directory per new part, first input wins.
struct Findings {
    dir: PathBuf,
    /// hash -> hits in this process
    hits: HashMap<String, u64>,
    dirty: bool,
}

impl Findings {
    /// Count a hit; save the input when this process is the first to see
    /// the new part (across processes: `create_dir` decides). Returns the
    /// directory when it was saved now.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        target: &str,
        hash: &str,
        new_part: &[triage::Novel],
        t: &triage::Triaged,
        body: &[u8],
        query: &Query,
        answers: &[(&str, &Answer)],
        raw_input: &[u8],
    ) -> Option<PathBuf> {
        let first_here = !self.hits.contains_key(hash);
        *self.hits.entry(hash.to_string()).or_default() += 1;
        self.dirty = true;
        if !first_here {
            return None;
        }
        let dir = self.dir.join(hash);
        let _ = std::fs::create_dir_all(&self.dir);
        if std::fs::create_dir(&dir).is_err() {
            return None; // another process (or an earlier run) saved it
        }
        let finding = FindingRecord {
            hash: hash.to_string(),
            new: new_part.to_vec(),
            signature: t.signature.clone(),
            agreement: t.agreement().clone(),
            feature: t.feature().to_string(),
            cells: t.cells.clone(),
            target: target.to_string(),
            agent: query.agent.clone(),
            url: query.url.clone(),
            answers: answers
                .iter()
                .map(|(n, a)| {
                    let saved = SavedAnswer {
                        outcome: a.outcome.label(),
                        detail: a.outcome.detail(),
                        explain: a.explain.clone(),
                    };
                    (n.to_string(), saved)
                })
                .collect(),
            found_unix: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        };
        let _ = std::fs::write(dir.join("robots.txt"), body);
        let _ = std::fs::write(dir.join("input.fuzz"), raw_input);
        let _ = std::fs::write(dir.join("finding.json"), record::to_pretty(&finding));
        Some(dir)
    }

    fn flush(&mut self) {
        if !self.dirty {
            return;
        }
        let pid = std::process::id();
        for (hash, n) in &self.hits {
            let hits = self.dir.join(hash).join("hits");
            if std::fs::create_dir_all(&hits).is_ok() {
                let _ = std::fs::write(hits.join(pid.to_string()), n.to_string());
            }
        }
        self.dirty = false;
    }
}

/// What the triage of an input on the lanes needs besides the input
/// itself (which comes back with the lanes' answers).
struct Pending {
    raw_input: Vec<u8>,
    /// The inline oracles' answers.
    inline: Vec<Vec<Answer>>,
    /// The input's classes as a bit set ([`downweight::key`]).
    class_key: u128,
}

/// Every in-process oracle plus the triage state of one fuzzing process.
pub struct Harness {
    target: &'static str,
    /// Run on the fuzzing thread, where libFuzzer's coverage sees them.
    inline: Vec<Box<dyn Oracle>>,
    /// The Python oracles on one thread, each worker process on its own
    /// (see [`lane`]).
    lanes: lane::Lanes<Pending>,
    /// Every oracle, in registry order; answers are triaged in this order.
    names: Vec<String>,
    /// Where each of `inline`'s oracles stands in `names`.
    inline_at: Vec<usize>,
    /// Where each lane's oracles stand in `names`.
    lane_at: Vec<Vec<usize>>,
    /// Distinct inputs every oracle answered (all triaged).
    reached_all: u64,
    /// Registered oracles not in the loop, with why.
    left_out: BTreeMap<String, String>,
    known: Known,
    findings: Findings,
    stats: Stats,
    stats_dir: Option<PathBuf>,
    keep_going: bool,
    readings: Readings,
    scratch: Vec<u8>,
    last_flush: Instant,
    /// Hashes of recently run (body, queries): many mutations of a
    /// structured input render the same file, and running the oracles on
    /// it again teaches nothing.
    recent: std::collections::HashSet<u64>,
    /// Per input class: does it only re-trigger known errors? ([`downweight`]).
    down: downweight::DownWeight,
    /// REPDIFF_FUZZ_DOWNWEIGHT=0 turns down-weighting off (to measure it).
    down_weighting: bool,
}

/// How many renders [`Harness`] remembers before forgetting them all.
const RECENT_CAP: usize = 1 << 16;

static HARNESS: Mutex<Option<Harness>> = Mutex::new(None);

extern "C" {
    fn atexit(callback: extern "C" fn()) -> std::os::raw::c_int;
}

/// Called by libc's `exit()`. A panic must not unwind out of it: unwinding
/// across an `extern "C"` frame aborts the process (the fuzz run then ends
/// as a crash, with libFuzzer's own report lost), and draining can panic
/// (an oracle's answers short, a poisoned lane). So the drain runs under
/// `catch_unwind` and a panic becomes a line on stderr.
extern "C" fn drain_at_exit() {
    let drained = std::panic::catch_unwind(|| {
        // try_lock: an exit() from inside a check must not deadlock.
        if let Ok(mut g) = HARNESS.try_lock() {
            if let Some(h) = g.as_mut() {
                h.drain();
            }
        }
    });
    if drained.is_err() {
        log::error!("repdiff-fuzz: at exit: draining the lanes panicked (see above)");
    }
}

impl Harness {
    fn new(target: &'static str) -> Harness {
        let settings = Settings::for_target();
        let want: Option<Vec<&str>> =
            (settings.oracles.as_ref()).map(|v| v.iter().map(String::as_str).collect());
        let lineup = make_lineup(&settings, want.as_deref());
        let names: Vec<String> = lineup
            .oracles
            .iter()
            .map(|(o, _)| o.name().to_string())
            .collect();
        let known = load_or_derive_known(&settings, &names);
        let use_lane = settings.python_lane;
        let (mut inline, mut inline_at) = (Vec::new(), Vec::new());
        let (mut python, mut python_at) = (Vec::new(), Vec::new());
        let (mut lanes, mut lane_at) = (Vec::new(), Vec::new());
        for (i, (o, place)) in lineup.oracles.into_iter().enumerate() {
            match place {
                Place::Python if use_lane => {
                    python_at.push(i);
                    python.push(o);
                }
                Place::Worker => {
                    let label = o.name().to_string();
                    lanes.push(lane::Lane::start(&label, lane::Runtime::Workers, vec![o]));
                    lane_at.push(vec![i]);
                }
                Place::Inline | Place::Python => {
                    inline_at.push(i);
                    inline.push(o);
                }
            }
        }
        if !python.is_empty() {
            lanes.insert(
                0,
                lane::Lane::start("python", lane::Runtime::Python, python),
            );
            lane_at.insert(0, python_at);
        }
        log::info!(
            "repdiff-fuzz: {target}: {} oracles ({}); known list: {} signatures, {} cell keys",
            names.len(),
            names.join(", "),
            known.signatures.len(),
            known.cells.len()
        );
        for l in &lanes {
            log::info!(
                "repdiff-fuzz: {target}: lane {}: {}",
                l.label(),
                l.names().join(", ")
            );
        }
        for (name, why) in &lineup.left_out {
            log::warn!("repdiff-fuzz: {target}: not in the loop: {name}: {why}");
        }
        Harness {
            target,
            inline,
            lanes: lane::Lanes::new(lanes),
            inline_at,
            lane_at,
            reached_all: 0,
            left_out: lineup.left_out,
            names,
            known,
            findings: Findings {
                dir: settings.findings,
                hits: HashMap::new(),
                dirty: false,
            },
            stats: Stats::default(),
            stats_dir: settings.stats,
            keep_going: settings.keep_going,
            readings: Readings::default(),
            scratch: Vec::with_capacity(256),
            last_flush: Instant::now(),
            recent: std::collections::HashSet::with_capacity(RECENT_CAP),
            down: downweight::DownWeight::default(),
            down_weighting: settings.down_weighting,
        }
    }

    /// Set up once per process (the targets' `init:`).
    pub fn init(target: &'static str) {
        let mut h = HARNESS.lock().unwrap_or_else(|p| p.into_inner());
        if h.is_none() {
            crate::log_to_stderr();
            *h = Some(Harness::new(target));
            // libFuzzer ends a run with exit(): triage what is still in the
            // lanes first.
            // SAFETY: atexit only stores the function pointer.
            unsafe {
                atexit(drain_at_exit);
            }
        }
    }

    /// Run one input through every oracle and triage it. True when the
    /// input was down-weighted instead ([`downweight`]): the target then
    /// tells libFuzzer to keep it out of the corpus.
    pub fn check(target: &'static str, body: &[u8], queries: &[Query], raw_input: &[u8]) -> bool {
        let mut guard = HARNESS.lock().unwrap_or_else(|p| p.into_inner());
        let h = guard.get_or_insert_with(|| Harness::new(target));
        h.check_one(body, queries, raw_input)
    }

    fn check_one(&mut self, body: &[u8], queries: &[Query], raw_input: &[u8]) -> bool {
        self.stats.execs += 1;
        let key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            body.hash(&mut h);
            for q in queries {
                q.agent.hash(&mut h);
                q.url.hash(&mut h);
            }
            h.finish()
        };
        if self.recent.len() >= RECENT_CAP {
            self.recent.clear();
        }
        if !self.recent.insert(key) {
            self.stats.repeats += 1;
            if self.last_flush.elapsed() >= Duration::from_secs(1) {
                self.flush();
            }
            return false;
        }
        let cls = classes(body, queries);
        let class_key = downweight::key(&cls);
        if self.down_weighting && self.down.reject(class_key, key) {
            return true;
        }
        self.stats.queries += queries.len() as u64;
        count_classes(&mut self.stats.classes, &cls);
        if self.stats.nanos.len() != self.names.len() {
            self.stats.nanos = vec![0; self.names.len()];
        }
        let mut inline: Vec<Vec<Answer>> = Vec::with_capacity(self.inline.len());
        for (o, &i) in self.inline.iter_mut().zip(&self.inline_at) {
            let t0 = Instant::now();
            inline.push(o.run(body, queries));
            self.stats.nanos[i] += t0.elapsed().as_nanos();
        }
        let mut stop = None;
        if self.lanes.is_empty() {
            let answers = self.assemble(inline, Vec::new());
            self.reached_all += 1;
            stop = self.triage_input(body, queries, raw_input, &answers, class_key);
        } else {
            let record = Pending {
                raw_input: raw_input.to_vec(),
                inline,
                class_key,
            };
            self.lanes.submit(body.to_vec(), queries.to_vec(), record);
            while let Some((p, job, done)) = self.lanes.ready() {
                let s = self.complete(p, &job, done);
                stop = stop.or(s);
            }
        }
        if self.last_flush.elapsed() >= Duration::from_secs(1) || stop.is_some() {
            self.flush();
        }
        if let Some(msg) = stop {
            panic!("{msg}");
        }
        false
    }

    /// Every lane has answered an input: triage it.
    fn complete(&mut self, p: Pending, job: &lane::Job, done: Vec<lane::Done>) -> Option<String> {
        for (d, at) in done.iter().zip(&self.lane_at) {
            for (t, &i) in d.nanos.iter().zip(at) {
                self.stats.nanos[i] += t;
            }
        }
        let answers = self.assemble(p.inline, done);
        self.reached_all += 1;
        self.triage_input(&job.body, &job.queries, &p.raw_input, &answers, p.class_key)
    }

    /// Every oracle's answers in `names` order.
    fn assemble(&self, inline: Vec<Vec<Answer>>, laned: Vec<lane::Done>) -> Vec<Vec<Answer>> {
        let mut out = vec![Vec::new(); self.names.len()];
        for (answers, &i) in inline.into_iter().zip(&self.inline_at) {
            out[i] = answers;
        }
        for (d, at) in laned.into_iter().zip(&self.lane_at) {
            for (answers, &i) in d.answers.into_iter().zip(at) {
                out[i] = answers;
            }
        }
        out
    }

    /// Wait for every input still on the lanes and triage it (at exit: a
    /// new signature is saved and reported, not panicked on), then close
    /// the lanes: at exit, nothing is handed on after.
    fn drain(&mut self) {
        while let Some((p, job, done)) = self.lanes.wait() {
            if let Some(msg) = self.complete(p, &job, done) {
                log::warn!("repdiff-fuzz: at exit: {msg}");
            }
        }
        // Each lane's last CPU reading, so the report's CPU per input
        // counts the run's final second too.
        self.lanes.close(Duration::from_secs(2));
        self.flush();
    }

    /// Triage one input's answers; the stop message when a new signature
    /// should end the run.
    fn triage_input(
        &mut self,
        body: &[u8],
        queries: &[Query],
        raw_input: &[u8],
        answers: &[Vec<Answer>],
        class_key: u128,
    ) -> Option<String> {
        let mut robots: Option<Robots> = None;
        let mut stop: Option<String> = None;
        // Only a known error: some oracle failed, and no query had a new part.
        let failed = answers.iter().flatten().any(|a| a.outcome.is_failure());
        let mut anything_new = false;
        // The input's classes count once as divergent, at its first
        // disagreeing query.
        let counted_before = self.stats.disagreements;
        for (qi, q) in queries.iter().enumerate() {
            let row: Vec<(&str, &Outcome)> = self
                .names
                .iter()
                .zip(answers)
                .filter_map(|(n, a)| a.get(qi).map(|a| (n.as_str(), &a.outcome)))
                .collect();
            if row.len() != self.names.len() {
                panic!(
                    "repdiff-fuzz: an oracle returned too few answers for query {qi} of {}",
                    queries.len()
                );
            }
            for (n, o) in &row {
                if o.is_failure() {
                    *self
                        .stats
                        .failures
                        .entry(n.to_string())
                        .or_default()
                        .entry(o.label())
                        .or_default() += 1;
                }
            }
            if !triage::disagrees(&row) {
                continue;
            }
            if self.stats.disagreements == counted_before {
                count_classes(&mut self.stats.classes_divergent, &classes(body, queries));
            }
            self.stats.disagreements += 1;
            let robots = robots.get_or_insert_with(|| Robots::parse(body, &self.readings));
            let f = triage::feature(robots, &q.agent, &q.url, &mut self.scratch);
            let t = triage::triage_row(&row, &f);
            let new_part = self.known.new_part(&t);
            if new_part.is_empty() {
                *self.stats.known.entry(t.signature).or_default() += 1;
                continue;
            }
            anything_new = true;
            let named: Vec<(&str, &Answer)> = self
                .names
                .iter()
                .zip(answers)
                .map(|(n, a)| (n.as_str(), &a[qi]))
                .collect();
            // One finding per new cell key.
            for key in &new_part {
                let one = std::slice::from_ref(key);
                let hash = triage::finding_hash(one);
                self.stats
                    .new
                    .entry(hash.clone())
                    .or_insert_with(|| NewHits {
                        new: key.clone(),
                        hits: 0,
                    })
                    .hits += 1;
                if let Some(dir) =
                    self.findings
                        .record(self.target, &hash, one, &t, body, q, &named, raw_input)
                {
                    log::warn!(
                        "repdiff-fuzz: NEW signature {hash}: {key}\n  signature: {}\n  saved to {}",
                        t.signature,
                        dir.display()
                    );
                    if !self.keep_going && stop.is_none() {
                        stop = Some(format!(
                            "new divergence signature {hash} ({key}), saved to {} (its \
                             input.fuzz is the input; with lanes on, libFuzzer's \
                             crash file is a later one); set REPDIFF_FUZZ_KEEP_GOING=1 to \
                             continue past new signatures",
                            dir.display()
                        ));
                    }
                }
            }
        }
        self.down.record(class_key, failed && !anything_new);
        stop
    }

    fn flush(&mut self) {
        self.last_flush = Instant::now();
        self.findings.flush();
        let Some(dir) = &self.stats_dir else { return };
        let s = &self.stats;
        let stats = DifferentialStats {
            target: self.target.to_string(),
            pid: std::process::id(),
            oracles: self.names.clone(),
            execs: s.execs,
            repeats: s.repeats,
            queries: s.queries,
            disagreements: s.disagreements,
            known: s.known.clone(),
            new: s.new.clone(),
            failures: s.failures.clone(),
            lane: self
                .lanes
                .lanes()
                .iter()
                .flat_map(|l| l.names().iter().cloned())
                .collect(),
            lane_wait_micros: self
                .lanes
                .lanes()
                .iter()
                .map(|l| l.waited.as_micros() as u64)
                .sum(),
            lanes: self
                .lanes
                .lanes()
                .iter()
                .map(|l| record::LaneRecord {
                    label: l.label().to_string(),
                    oracles: l.names().to_vec(),
                    answered: l.answered,
                    wait_micros: l.waited.as_micros() as u64,
                    thread_cpu_micros: l.cpu.thread().as_micros() as u64,
                    worker_cpu_micros: l.cpu.workers().as_micros() as u64,
                })
                .collect(),
            process_cpu_micros: engine::worker::cpu::of_this_process().as_micros() as u64,
            reached_all: self.reached_all,
            left_out: self.left_out.clone(),
            oracle_micros: self
                .names
                .iter()
                .zip(&s.nanos)
                .map(|(n, t)| (n.clone(), (*t / 1000) as u64))
                .collect(),
            classes: class_map(&s.classes),
            classes_divergent: class_map(&s.classes_divergent),
            downweighted: self.down.rejected,
            downweighted_classes: self.down.classes_down() as u64,
            classes_known_error_only: self
                .down
                .known_error_only()
                .filter_map(|(b, n)| {
                    InputClass::ALL
                        .get(b)
                        .map(|c| (c.name().to_string(), u64::from(n)))
                })
                .collect(),
        };
        let _ = std::fs::create_dir_all(dir);
        let path = dir.join(format!("{}-{}.json", self.target, std::process::id()));
        let _ = engine::write_atomic(&path, record::to_pretty(&stats).as_bytes());
    }
}
