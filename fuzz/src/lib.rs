//! repdiff's fuzzing library: the targets in `fuzz_targets/` are thin
//! wrappers over it.
//!
//! - [`generate`]: the structured robots.txt model and query drawing.
//! - [`triage`]: signatures, the known list, new parts (shared with xtask).
//! - [`Harness`]: every in-process oracle, run on one input, triaged inside
//!   the loop; findings saved once under `fuzz/findings/<hash>/`.
//! - [`robust`]: one oracle alone, for crashes, panics and hangs.
//!
//! Environment (all optional; `cargo xtask fuzz` sets them):
//!
//! | variable | effect |
//! |---|---|
//! | `REPDIFF_FUZZ_KEEP_GOING=1` | save new findings and go on instead of stopping |
//! | `REPDIFF_FUZZ_FINDINGS=dir` | where findings go (default `fuzz/findings`) |
//! | `REPDIFF_FUZZ_KNOWN=file` | the known list (default `fuzz/known-signatures.json`, derived when stale) |
//! | `REPDIFF_FUZZ_STATS=dir` | write per-process counters there, once a second |
//! | `REPDIFF_FUZZ_ORACLES=a,b` | run only these oracles (rfc9309 is always added) |
//! | `REPDIFF_FUZZ_ALLOW_MISSING=1` | run without oracles that are unavailable, instead of refusing |
//! | `REPDIFF_FUZZ_PYTHON_LANE=0` | run the Python oracles on the fuzzing thread (see [`lane`]) |

pub mod generate;
pub mod lane;
pub mod triage;

use engine::oracle::{Answer, Oracle, Outcome, Query};
use oracles::rfc9309::{Readings, Robots};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use triage::Known;

/// The fuzz crate's directory, where findings and the known list live.
pub fn fuzz_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn env_flag(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

fn env_path(name: &str, default: PathBuf) -> PathBuf {
    std::env::var_os(name).map_or(default, PathBuf::from)
}

/// In a ClusterFuzzLite image the setup cache is copied next to the
/// binaries: point the oracles at it when nothing else does.
fn adopt_packaged_cache() {
    if std::env::var_os("REPDIFF_CACHE").is_some() {
        return;
    }
    let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    else {
        return;
    };
    let cache = exe_dir.join("repdiff-cache");
    if !cache.is_dir() {
        return;
    }
    // A packaged run (ClusterFuzzLite): best effort, loudly. The runner
    // image may lack what an oracle needs; the others still fuzz.
    std::env::set_var("REPDIFF_CACHE", cache);
    std::env::set_var("REPDIFF_FUZZ_ALLOW_MISSING", "1");
    let known = exe_dir.join("known-signatures.json");
    if known.is_file() && std::env::var_os("REPDIFF_FUZZ_KNOWN").is_none() {
        std::env::set_var("REPDIFF_FUZZ_KNOWN", known);
    }
}

/// Build the oracles named by `want` (all registered ones when `None`).
/// An unavailable oracle stops the target loudly unless
/// `REPDIFF_FUZZ_ALLOW_MISSING` is set.
pub fn make_oracles(want: Option<&[&str]>) -> Vec<Box<dyn Oracle>> {
    adopt_packaged_cache();
    let allow_missing = env_flag("REPDIFF_FUZZ_ALLOW_MISSING");
    let mut out = Vec::new();
    for entry in oracles::registry() {
        if let Some(w) = want {
            if !w.contains(&entry.name) {
                continue;
            }
        }
        match (entry.make)() {
            Ok(o) => out.push(o),
            Err(u) if allow_missing => eprintln!("repdiff-fuzz: WARNING, running without {u}"),
            Err(u) => {
                panic!("repdiff-fuzz: {u}; set REPDIFF_FUZZ_ALLOW_MISSING=1 to fuzz without it")
            }
        }
    }
    if let Some(w) = want {
        for name in w {
            if !out.iter().any(|o| o.name() == *name) && !allow_missing {
                panic!("repdiff-fuzz: unknown oracle `{name}`");
            }
        }
    }
    out
}

/// Load the known list, deriving it (a corpus run through `oracles`, in
/// process) when it is missing or its stamp no longer matches the corpus,
/// the ledger and the oracles' versions.
pub fn load_or_derive_known(names: &[String]) -> Known {
    let path = env_path(
        "REPDIFF_FUZZ_KNOWN",
        fuzz_dir().join("known-signatures.json"),
    );
    // Named explicitly (cargo xtask fuzz derives it fresh before a run):
    // trusted, so a forked child does not load the corpus again.
    if std::env::var_os("REPDIFF_FUZZ_KNOWN").is_some() {
        if let Some(k) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| Known::from_json(&t))
        {
            return k;
        }
    }
    let root = fuzz_dir().join("..");
    let corpus = match engine::case::load_dir(&root.join("cases/corpus")) {
        Ok(c) => c,
        Err(e) => panic!("repdiff-fuzz: cannot load the corpus: {e}"),
    };
    let ledger_path = root.join("cases/divergences.yaml");
    let ledger_text = std::fs::read_to_string(&ledger_path).unwrap_or_default();
    let stamp = triage::stamp(&corpus, &ledger_text, names);
    if let Some(k) = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| Known::from_json(&t))
    {
        if k.stamp == stamp {
            return k;
        }
    }
    eprintln!(
        "repdiff-fuzz: deriving the known list from the corpus and the ledger into {}",
        path.display()
    );
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let known = derive_known_now(&corpus, &ledger_path, &names, stamp);
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, known.to_json()).is_ok() {
        let _ = std::fs::rename(&tmp, &path);
    }
    known
}

fn derive_known_now(
    corpus: &engine::case::Corpus,
    ledger_path: &Path,
    names: &[&str],
    stamp: String,
) -> Known {
    let known_names: Vec<&str> = oracles::registry().iter().map(|e| e.name).collect();
    let ledger = engine::ledger::load(ledger_path, corpus, &known_names)
        .unwrap_or_else(|e| panic!("repdiff-fuzz: cannot load the ledger: {e}"));
    let oracles = make_oracles(Some(names));
    let cases: Vec<&engine::case::Case> = corpus.cases.iter().collect();
    let result = engine::run::run(&cases, oracles, Vec::new(), &ledger, &|_| None, &mut |_| {});
    triage::derive_known(corpus, &ledger, &result, stamp)
}

/// Per-process counters, written to `REPDIFF_FUZZ_STATS/<target>-<pid>.json`.
#[derive(Default)]
struct Stats {
    execs: u64,
    /// Inputs whose rendered body and queries were just run (skipped).
    repeats: u64,
    queries: u64,
    disagreements: u64,
    known: BTreeMap<String, u64>,
    new: BTreeMap<String, (String, u64)>,
    /// oracle -> outcome label (crash, error, timeout) -> count
    failures: BTreeMap<String, BTreeMap<String, u64>>,
    /// Time spent in each oracle's `run`, in oracle order.
    nanos: Vec<u128>,
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
        new_part: &[String],
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
        let answers_json: serde_json::Map<String, serde_json::Value> = answers
            .iter()
            .map(|(n, a)| {
                (
                    n.to_string(),
                    serde_json::json!({
                        "outcome": a.outcome.label(),
                        "detail": a.outcome.detail(),
                        "explain": a.explain,
                    }),
                )
            })
            .collect();
        let finding = serde_json::json!({
            "hash": hash,
            "new": new_part,
            "signature": t.signature(),
            "agreement": t.agreement,
            "feature": t.feature,
            "cells": t.cells,
            "target": target,
            "agent": query.agent,
            "url": query.url,
            "answers": answers_json,
            "found_unix": std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        });
        let _ = std::fs::write(dir.join("robots.txt"), body);
        let _ = std::fs::write(dir.join("input.fuzz"), raw_input);
        let _ = std::fs::write(
            dir.join("finding.json"),
            serde_json::to_string_pretty(&finding).unwrap_or_default(),
        );
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

/// What the triage of an input in the Python lane needs besides the body
/// and queries (which come back with the lane's answers).
struct Pending {
    raw_input: Vec<u8>,
    /// The inline oracles' answers.
    inline: Vec<Vec<Answer>>,
}

/// Every in-process oracle plus the triage state of one fuzzing process.
pub struct Harness {
    target: &'static str,
    /// Run on the fuzzing thread, where libFuzzer's coverage sees them.
    inline: Vec<Box<dyn Oracle>>,
    /// The Python oracles, on their own thread (see [`lane`]).
    lane: Option<lane::Lane<Pending>>,
    /// Every oracle, in registry order; answers are triaged in this order.
    names: Vec<String>,
    /// Where each of `inline`'s oracles stands in `names`.
    inline_at: Vec<usize>,
    /// Where each of the lane's oracles stands in `names`.
    lane_at: Vec<usize>,
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
}

/// How many renders [`Harness`] remembers before forgetting them all.
const RECENT_CAP: usize = 1 << 16;

static HARNESS: Mutex<Option<Harness>> = Mutex::new(None);

extern "C" {
    fn atexit(callback: extern "C" fn()) -> std::os::raw::c_int;
}

extern "C" fn drain_at_exit() {
    // try_lock: an exit() from inside a check must not deadlock.
    if let Ok(mut g) = HARNESS.try_lock() {
        if let Some(h) = g.as_mut() {
            h.drain();
        }
    }
}

impl Harness {
    fn new(target: &'static str) -> Harness {
        let want: Option<Vec<String>> = std::env::var("REPDIFF_FUZZ_ORACLES").ok().map(|s| {
            let mut v: Vec<String> = s.split(',').map(|x| x.trim().to_string()).collect();
            if !v.iter().any(|x| x == triage::REFERENCE) {
                v.push(triage::REFERENCE.to_string());
            }
            v
        });
        let want_refs: Option<Vec<&str>> = want
            .as_ref()
            .map(|v| v.iter().map(String::as_str).collect());
        let oracles = make_oracles(want_refs.as_deref());
        let names: Vec<String> = oracles.iter().map(|o| o.name().to_string()).collect();
        let known = load_or_derive_known(&names);
        let use_lane = std::env::var_os("REPDIFF_FUZZ_PYTHON_LANE").is_none_or(|v| v != "0");
        let registry = oracles::registry();
        let (mut inline, mut laned) = (Vec::new(), Vec::new());
        let (mut inline_at, mut lane_at) = (Vec::new(), Vec::new());
        for (i, o) in oracles.into_iter().enumerate() {
            let python = registry
                .iter()
                .any(|e| e.name == o.name() && e.family == "python");
            if use_lane && python {
                lane_at.push(i);
                laned.push(o);
            } else {
                inline_at.push(i);
                inline.push(o);
            }
        }
        eprintln!(
            "repdiff-fuzz: {target}: {} oracles ({}); known list: {} signatures, {} cell keys",
            names.len(),
            names.join(", "),
            known.signatures.len(),
            known.cells.len()
        );
        let lane = if laned.is_empty() {
            None
        } else {
            eprintln!(
                "repdiff-fuzz: {target}: {} on a second thread (REPDIFF_FUZZ_PYTHON_LANE=0 keeps them inline)",
                laned.iter().map(|o| o.name().to_string()).collect::<Vec<_>>().join(", ")
            );
            Some(lane::Lane::start(laned))
        };
        Harness {
            target,
            inline,
            lane,
            inline_at,
            lane_at,
            names,
            known,
            findings: Findings {
                dir: env_path("REPDIFF_FUZZ_FINDINGS", fuzz_dir().join("findings")),
                hits: HashMap::new(),
                dirty: false,
            },
            stats: Stats::default(),
            stats_dir: std::env::var_os("REPDIFF_FUZZ_STATS").map(PathBuf::from),
            keep_going: env_flag("REPDIFF_FUZZ_KEEP_GOING"),
            readings: Readings::default(),
            scratch: Vec::with_capacity(256),
            last_flush: Instant::now(),
            recent: std::collections::HashSet::with_capacity(RECENT_CAP),
        }
    }

    /// Set up once per process (the targets' `init:`).
    pub fn init(target: &'static str) {
        let mut h = HARNESS.lock().unwrap_or_else(|p| p.into_inner());
        if h.is_none() {
            *h = Some(Harness::new(target));
            // libFuzzer ends a run with exit(): triage what is still in the
            // Python lane first.
            // SAFETY: atexit only stores the function pointer.
            unsafe {
                atexit(drain_at_exit);
            }
        }
    }

    /// Run one input through every oracle and triage it.
    pub fn check(target: &'static str, body: &[u8], queries: &[Query], raw_input: &[u8]) {
        let mut guard = HARNESS.lock().unwrap_or_else(|p| p.into_inner());
        let h = guard.get_or_insert_with(|| Harness::new(target));
        h.check_one(body, queries, raw_input);
    }

    fn check_one(&mut self, body: &[u8], queries: &[Query], raw_input: &[u8]) {
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
            return;
        }
        self.stats.queries += queries.len() as u64;
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
        if let Some(lane) = self.lane.as_mut() {
            let record = Pending {
                raw_input: raw_input.to_vec(),
                inline,
            };
            lane.submit(body.to_vec(), queries.to_vec(), record);
            while let Some((p, done)) = self.lane.as_mut().and_then(lane::Lane::ready) {
                let s = self.complete(p, done);
                stop = stop.or(s);
            }
        } else {
            let answers = self.assemble(inline, Vec::new());
            stop = self.triage_input(body, queries, raw_input, &answers);
        }
        if self.last_flush.elapsed() >= Duration::from_secs(1) || stop.is_some() {
            self.flush();
        }
        if let Some(msg) = stop {
            panic!("{msg}");
        }
    }

    /// Both halves of a piped input are in: triage it.
    fn complete(&mut self, p: Pending, done: lane::Done) -> Option<String> {
        for (t, &i) in done.nanos.iter().zip(&self.lane_at) {
            self.stats.nanos[i] += t;
        }
        let answers = self.assemble(p.inline, done.answers);
        self.triage_input(&done.body, &done.queries, &p.raw_input, &answers)
    }

    /// Every oracle's answers in `names` order.
    fn assemble(&self, inline: Vec<Vec<Answer>>, laned: Vec<Vec<Answer>>) -> Vec<Vec<Answer>> {
        let mut out = vec![Vec::new(); self.names.len()];
        let placed = inline
            .into_iter()
            .zip(&self.inline_at)
            .chain(laned.into_iter().zip(&self.lane_at));
        for (answers, &i) in placed {
            out[i] = answers;
        }
        out
    }

    /// Wait for every input still in the Python lane and triage it (at
    /// exit: a new signature is saved and reported, not panicked on).
    fn drain(&mut self) {
        while let Some((p, done)) = self.lane.as_mut().and_then(lane::Lane::wait) {
            if let Some(msg) = self.complete(p, done) {
                eprintln!("repdiff-fuzz: at exit: {msg}");
            }
        }
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
    ) -> Option<String> {
        let mut robots: Option<Robots> = None;
        let mut stop: Option<String> = None;
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
            self.stats.disagreements += 1;
            let robots = robots.get_or_insert_with(|| Robots::parse(body, &self.readings));
            let f = triage::feature(robots, &q.agent, &q.url, &mut self.scratch);
            let t = triage::triage_row(&row, &f);
            let new_part = self.known.new_part(&t);
            if new_part.is_empty() {
                *self.stats.known.entry(t.signature()).or_default() += 1;
                continue;
            }
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
                    .or_insert_with(|| (key.clone(), 0))
                    .1 += 1;
                if let Some(dir) =
                    self.findings
                        .record(self.target, &hash, one, &t, body, q, &named, raw_input)
                {
                    eprintln!(
                        "repdiff-fuzz: NEW signature {hash}: {key}\n  signature: {}\n  saved to {}",
                        t.signature(),
                        dir.display()
                    );
                    if !self.keep_going && stop.is_none() {
                        stop = Some(format!(
                            "new divergence signature {hash} ({key}), saved to {} (its \
                             input.fuzz is the input; with the Python lane on, libFuzzer's \
                             crash file is a later one); set REPDIFF_FUZZ_KEEP_GOING=1 to \
                             continue past new signatures",
                            dir.display()
                        ));
                    }
                }
            }
        }
        stop
    }

    fn flush(&mut self) {
        self.last_flush = Instant::now();
        self.findings.flush();
        let Some(dir) = &self.stats_dir else { return };
        let s = &self.stats;
        let v = serde_json::json!({
            "target": self.target,
            "pid": std::process::id(),
            "oracles": self.names,
            "execs": s.execs,
            "repeats": s.repeats,
            "queries": s.queries,
            "disagreements": s.disagreements,
            "known": s.known,
            "new": s.new.iter().map(|(h, (k, n))| (h.clone(), serde_json::json!({"new": k, "hits": n}))).collect::<serde_json::Map<_, _>>(),
            "failures": s.failures,
            "lane": self.lane.as_ref().map(|l| l.names().to_vec()).unwrap_or_default(),
            "lane_wait_micros": self.lane.as_ref().map_or(0, |l| l.waited.as_micros() as u64),
            "oracle_micros": self.names.iter().zip(&s.nanos).map(|(n, t)| (n.clone(), serde_json::json!((*t / 1000) as u64))).collect::<serde_json::Map<_, _>>(),
        });
        let _ = std::fs::create_dir_all(dir);
        let path = dir.join(format!("{}-{}.json", self.target, std::process::id()));
        let tmp = path.with_extension("tmp");
        if std::fs::write(&tmp, v.to_string()).is_ok() {
            let _ = std::fs::rename(tmp, path);
        }
    }
}

/// One oracle alone: crashes (a caught panic, a C++ exception), and, through
/// libFuzzer's `-timeout`, hangs. AddressSanitizer covers the C++ when the
/// target is built with `--sanitizer address` (see `cargo xtask fuzz`).
pub mod robust {
    use super::*;

    struct One {
        oracle: Box<dyn Oracle>,
        stats_dir: Option<PathBuf>,
        execs: u64,
        errors: u64,
        last_flush: Instant,
    }

    static ONE: Mutex<Option<One>> = Mutex::new(None);

    pub fn init(name: &'static str) {
        let mut g = ONE.lock().unwrap_or_else(|p| p.into_inner());
        if g.is_none() {
            let mut v = make_oracles(Some(&[name]));
            let oracle = v
                .pop()
                .unwrap_or_else(|| panic!("repdiff-fuzz: no oracle `{name}`"));
            eprintln!("repdiff-fuzz: robust_{name}: {}", oracle.version());
            *g = Some(One {
                oracle,
                stats_dir: std::env::var_os("REPDIFF_FUZZ_STATS").map(PathBuf::from),
                execs: 0,
                errors: 0,
                last_flush: Instant::now(),
            });
        }
    }

    pub fn check(name: &'static str, body: &[u8], queries: &[Query]) {
        init(name);
        let mut g = ONE.lock().unwrap_or_else(|p| p.into_inner());
        let Some(one) = g.as_mut() else { return };
        one.execs += 1;
        let answers = one.oracle.run(body, queries);
        assert_eq!(
            answers.len(),
            queries.len(),
            "{name} returned a wrong number of answers"
        );
        for a in &answers {
            match &a.outcome {
                Outcome::Crash { detail } => panic!("{name} crashed: {detail}"),
                Outcome::Error { kind, message } if kind.starts_with("c++") => {
                    panic!("{name} threw: {kind}: {message}")
                }
                Outcome::Error { .. } => one.errors += 1,
                _ => {}
            }
        }
        if one.last_flush.elapsed() >= Duration::from_secs(1) {
            one.last_flush = Instant::now();
            if let Some(dir) = &one.stats_dir {
                let _ = std::fs::create_dir_all(dir);
                let v = serde_json::json!({
                    "target": format!("robust_{}", name.replace(['-', '.'], "_")),
                    "oracle": name,
                    "pid": std::process::id(),
                    "execs": one.execs,
                    "errors": one.errors,
                });
                let path = dir.join(format!("robust-{name}-{}.json", std::process::id()));
                let _ = std::fs::write(path, v.to_string());
            }
        }
    }

    /// A robustness input: the structured model most of the time, raw bytes
    /// split into body, agent and URL otherwise.
    #[derive(arbitrary::Arbitrary, Debug)]
    pub enum Input {
        Structured(crate::generate::Model),
        Structured2(crate::generate::Model),
        Structured3(crate::generate::Model),
        Raw {
            body: Vec<u8>,
            agent: Vec<u8>,
            url: Vec<u8>,
        },
    }

    impl Input {
        pub fn render(&self) -> (Vec<u8>, Vec<Query>) {
            match self {
                Input::Structured(m) | Input::Structured2(m) | Input::Structured3(m) => {
                    m.render_with(true)
                }
                Input::Raw { body, agent, url } => (
                    body.clone(),
                    vec![Query {
                        ask: engine::oracle::Ask::CanFetch,
                        agent: String::from_utf8_lossy(agent).into_owned(),
                        url: String::from_utf8_lossy(url).into_owned(),
                    }],
                ),
            }
        }
    }
}
