//! The nightly job: `cargo xtask fuzz --minutes N [--jobs J]`.

use super::build::{self, asan_bin, plain_bin, robust_bin};
use super::figures::{Coverage, Speed, SpeedRow};
use super::report::{self, Report};
use super::runner::{self, Budget, Launch, RunStats};
use super::throughput::Throughput;
use super::{all_findings, derive_known, fuzz_dir, known_path, write_known};
use fuzzcore::record::{read_stats_dir, ProcessStats};
pub use repdiff::triage::fuzzed::corpus_dir;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

pub struct Options {
    pub minutes: f64,
    pub jobs: usize,
    pub build: bool,
    pub speed_seconds: Option<u64>,
}

/// The differential targets and the share of the fuzzing time each gets;
/// the robustness runs (one per registered oracle, see [`robust_runs`])
/// share the rest equally.
pub const DIFFERENTIAL: &[(&str, f64)] = &[("differential", 0.55), ("differential_bytes", 0.20)];

/// (run name, oracle) of every robustness run: one per oracle of
/// `oracles::registry()`, so a new oracle is fuzzed alone without a list
/// to update. The run name (`robust_<oracle>`) names its corpus, artifacts
/// and report row; the binary is always `robust`.
pub fn robust_runs() -> Vec<(String, &'static str)> {
    fuzzcore::robust_runs()
}

/// libFuzzer's per-input time limit (seconds): longer is a hang.
pub const TIMEOUT: u64 = 10;

fn max_len(target: &str) -> u32 {
    match target {
        "differential" => 512,
        "differential_bytes" => 4096,
        _ => 4096,
    }
}

fn artifacts_dir(target: &str) -> PathBuf {
    fuzz_dir().join("artifacts").join(target)
}

fn work_dir() -> PathBuf {
    fuzz_dir().join("target/repdiff")
}

fn stats_dir() -> PathBuf {
    work_dir().join("stats")
}

/// Environment every fuzz process gets; `lane`: the Python oracles on a
/// second thread (see [`python_lane`]). Every external oracle is in the
/// loop on a lane of its own (fuzzcore/src/lane.rs).
fn fuzz_env(lane: bool) -> Vec<(String, String)> {
    vec![
        ("REPDIFF_FUZZ_KEEP_GOING".into(), "1".into()),
        ("REPDIFF_FUZZ_EXTERNAL".into(), "1".into()),
        (
            "REPDIFF_FUZZ_PYTHON_LANE".into(),
            if lane { "1" } else { "0" }.into(),
        ),
        (
            "REPDIFF_FUZZ_KNOWN".into(),
            known_path().display().to_string(),
        ),
        (
            "REPDIFF_FUZZ_STATS".into(),
            stats_dir().display().to_string(),
        ),
        (
            "REPDIFF_FUZZ_FINDINGS".into(),
            super::findings_dir().display().to_string(),
        ),
        // LeakSanitizer flags Python's caches; libFuzzer's -detect_leaks=0
        // is not enough.
        (
            "ASAN_OPTIONS".into(),
            "detect_leaks=0:abort_on_error=0".into(),
        ),
        ("ASAN_SYMBOLIZER_PATH".into(), symbolizer()),
    ]
}

fn symbolizer() -> String {
    [
        "/usr/bin/llvm-symbolizer-14",
        "/usr/lib/llvm-14/bin/llvm-symbolizer",
        "/usr/bin/llvm-symbolizer",
    ]
    .iter()
    .find(|p| Path::new(p).exists())
    .map_or_else(String::new, |p| p.to_string())
}

/// Seed `fuzz/corpus/differential_bytes` with every corpus body (up to the
/// target's max_len), named by content hash so re-seeding is idempotent.
pub fn seed() -> usize {
    let Ok(corpus) = engine::case::load_dir(&repdiff::paths::corpus_dir()) else {
        return 0;
    };
    let dir = corpus_dir("differential_bytes");
    let _ = std::fs::create_dir_all(&dir);
    let mut n = 0;
    for case in &corpus.cases {
        if case.body.is_empty() || case.body.len() > max_len("differential_bytes") as usize {
            continue;
        }
        let name = format!("seed-{}", &engine::sha256_hex(&case.body)[..16]);
        let p = dir.join(name);
        if !p.exists() && std::fs::write(&p, &case.body).is_ok() {
            n += 1;
        }
    }
    let robust = robust_runs().into_iter().map(|(t, _)| t);
    for t in DIFFERENTIAL
        .iter()
        .map(|(t, _)| t.to_string())
        .chain(robust)
    {
        let _ = std::fs::create_dir_all(corpus_dir(&t));
        let _ = std::fs::create_dir_all(artifacts_dir(&t));
    }
    n
}

/// The least time a plain process is started for: its workers' start and
/// the corpus read back would take most of less.
pub const MIN_START: u64 = 10;

/// Starts in a row that die before fuzzing after which a plain run gives up.
pub const DEAD_STARTS: u64 = 3;

/// One fuzzing run of `target` for `secs`: `jobs` plain processes, each
/// started again for the time left when it stops early
/// ([`runner::plain_processes`]), or libFuzzer's fork mode (`-fork=jobs`).
/// `oracle`: the one a robustness run fuzzes (`REPDIFF_FUZZ_ORACLE`).
fn fuzz_target(
    target: &str,
    bin: &Path,
    oracle: Option<&str>,
    secs: u64,
    jobs: usize,
    progress_every: Duration,
) -> Result<RunStats, String> {
    let mut args = vec![
        corpus_dir(target).display().to_string(),
        format!("-timeout={TIMEOUT}"),
        "-rss_limit_mb=3072".into(),
        format!("-max_len={}", max_len(target)),
        format!("-artifact_prefix={}/", artifacts_dir(target).display()),
        "-print_final_stats=1".into(),
    ];
    let mut env = fuzz_env(python_lane(jobs));
    if let Some(o) = oracle {
        env.push((fuzzcore::robust::ORACLE_VAR.into(), o.into()));
    }
    let extra = || match report::live_signatures(&stats_dir()) {
        Ok((known, new)) => format!(" | known hits {known}, new signatures {new}"),
        Err(e) => format!(" | {e}"),
    };
    let logs = work_dir().join("logs");
    if !runner::plain_processes(target) {
        args.extend([
            format!("-fork={jobs}"),
            "-ignore_crashes=1".into(),
            "-ignore_timeouts=1".into(),
            "-ignore_ooms=1".into(),
            format!("-max_total_time={secs}"),
        ]);
        let launch = Launch {
            target,
            bin: bin.to_path_buf(),
            args,
            env,
            seconds: secs,
            log: logs.join(format!("{target}.log")),
            cwd: work_dir().join("cwd"),
        };
        return runner::run(&launch, progress_every, &extra);
    }
    let budget = Budget {
        seconds: secs,
        min_start: MIN_START,
        dead_starts: DEAD_STARTS,
    };
    let runs = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..jobs)
            .map(|job| {
                let (args, env, logs, extra) = (&args, &env, &logs, &extra);
                scope.spawn(move || {
                    let name = if job == 0 {
                        target.to_string()
                    } else {
                        format!("{target} job {}", job + 1)
                    };
                    runner::restarting(&budget, |left, n| {
                        let mut args = args.clone();
                        args.push(format!("-max_total_time={left}"));
                        let log = match (job, n) {
                            (0, 0) => format!("{target}.log"),
                            (0, n) => format!("{target}.start{}.log", n + 1),
                            (j, n) => format!("{target}.job{}.start{}.log", j + 1, n + 1),
                        };
                        let launch = Launch {
                            target: &name,
                            bin: bin.to_path_buf(),
                            args,
                            env: env.clone(),
                            seconds: left,
                            log: logs.join(log),
                            cwd: work_dir().join("cwd"),
                        };
                        runner::run(&launch, progress_every, extra)
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a job's thread panicked".into()))
            })
            .collect::<Result<Vec<_>, String>>()
    })?;
    Ok(runner::fold_parallel(target, &runs))
}

/// The Python lane (see fuzzcore/src/lane.rs) wants a spare core: with as many
/// fuzzing processes as cores it only adds contention. Replays that judge
/// inputs by their coverage (merge, the coverage figure) run without it, so
/// the Python adapters' counters cannot land in another input's run.
pub fn python_lane(jobs: usize) -> bool {
    jobs < std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// One way of running `differential` in the speed measurement.
#[derive(Debug, Clone, Copy)]
pub struct Mode {
    pub label: &'static str,
    /// libFuzzer -jobs/-workers (1: a plain single process).
    pub jobs: usize,
    pub lane: bool,
    /// The external oracles (worker processes) too.
    pub externals: bool,
    /// `REPDIFF_FUZZ_ORACLES`, when not every oracle.
    pub oracles: Option<&'static str>,
}

/// The modes measured, the first being the nightly job's own one-job mode.
pub const MODES: &[Mode] = &[
    Mode {
        label: "1 process, every oracle: the Python lane and a lane per worker",
        jobs: 1,
        lane: true,
        externals: true,
        oracles: None,
    },
    Mode {
        label: "1 process, the built-ins only, Python lane",
        jobs: 1,
        lane: true,
        externals: false,
        oracles: None,
    },
    Mode {
        label: "1 process, the built-ins only, all on the fuzzing thread",
        jobs: 1,
        lane: false,
        externals: false,
        oracles: None,
    },
    Mode {
        label: "-jobs=2 -workers=2, the built-ins only, no lane",
        jobs: 2,
        lane: false,
        externals: false,
        oracles: None,
    },
    Mode {
        label: "1 process, the 4 Rust/C++ oracles only (not a conformance run)",
        jobs: 1,
        lane: false,
        externals: false,
        oracles: Some("rfc9309,google,texting-robots,robotstxt-rs"),
    },
];

/// exec/s of each of `jobs` -jobs workers so far: libFuzzer writes each
/// one's output to `fuzz-<n>.log` in its working directory.
fn worker_rates(cwd: &Path, jobs: usize) -> Vec<u64> {
    (0..jobs)
        .map(|w| {
            let mut ws = RunStats::default();
            if let Ok(text) = std::fs::read_to_string(cwd.join(format!("fuzz-{w}.log"))) {
                for line in text.lines() {
                    runner::parse_line(&mut ws, line);
                }
            }
            ws.exec_per_sec
        })
        .collect()
}

pub fn speed(secs: u64) -> Result<Speed, String> {
    let bin = plain_bin("differential");
    seed();
    let base = [
        corpus_dir("differential").display().to_string(),
        format!("-max_total_time={secs}"),
        format!("-timeout={TIMEOUT}"),
        format!("-max_len={}", max_len("differential")),
        format!(
            "-artifact_prefix={}/",
            artifacts_dir("differential").display()
        ),
        "-print_final_stats=1".into(),
    ];
    let mut out = Speed {
        seconds: secs,
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        rows: Vec::new(),
    };
    for (i, mode) in MODES.iter().enumerate() {
        let name = format!("speed-{}", i + 1);
        let sdir = work_dir().join(&name);
        let _ = std::fs::remove_dir_all(&sdir);
        let cwd = work_dir().join(format!("{name}-cwd"));
        let _ = std::fs::remove_dir_all(&cwd);
        let mut env = fuzz_env(mode.lane);
        env.retain(|(k, _)| k != "REPDIFF_FUZZ_STATS");
        env.push(("REPDIFF_FUZZ_STATS".into(), sdir.display().to_string()));
        if !mode.externals {
            env.retain(|(k, _)| k != "REPDIFF_FUZZ_EXTERNAL");
            env.push(("REPDIFF_FUZZ_EXTERNAL".into(), "0".into()));
        }
        if let Some(o) = mode.oracles {
            env.push(("REPDIFF_FUZZ_ORACLES".into(), o.into()));
        }
        if mode.oracles.is_some() || !mode.externals {
            // A subset triaged against every oracle's known list finds
            // "new" rows by construction: it gets a known list of its own
            // (derived by the process at start), and its findings stay out
            // of fuzz/findings.
            let known = work_dir().join(format!("{name}-known.json"));
            let _ = std::fs::remove_file(&known);
            env.retain(|(k, _)| k != "REPDIFF_FUZZ_KNOWN");
            env.push(("REPDIFF_FUZZ_KNOWN".into(), known.display().to_string()));
            env.push((
                "REPDIFF_FUZZ_FINDINGS".into(),
                work_dir()
                    .join(format!("{name}-findings"))
                    .display()
                    .to_string(),
            ));
        }
        let mut args: Vec<String> = base.to_vec();
        if mode.jobs > 1 {
            args.push(format!("-jobs={}", mode.jobs));
            args.push(format!("-workers={}", mode.jobs));
        }
        log::info!("fuzz speed: differential, {} for {secs} s", mode.label);
        let launch = Launch {
            target: "differential",
            bin: bin.clone(),
            args,
            env,
            seconds: secs,
            log: work_dir().join("logs").join(format!("{name}.log")),
            cwd: cwd.clone(),
        };
        let s = runner::run(&launch, Duration::from_secs(15), &|| {
            if mode.jobs < 2 {
                return String::new();
            }
            let rates: Vec<String> = worker_rates(&cwd, mode.jobs)
                .iter()
                .map(|r| format!("{r}/s"))
                .collect();
            format!(" | workers {}", rates.join(" + "))
        })?;
        let stats = read_stats_dir(&sdir)?;
        let differential = || {
            stats.iter().filter_map(|p| match p {
                ProcessStats::Differential(d) => Some(d),
                ProcessStats::Robust(_) => None,
            })
        };
        let oracles = differential().next().map_or(0, |d| d.oracles.len());
        let wait: u64 = differential().map(|d| d.lane_wait_micros).sum();
        let mut row = SpeedRow {
            label: mode.label.to_string(),
            oracles,
            lane_wait: (mode.lane && s.seconds > 0.0).then(|| wait as f64 / 1e6 / s.seconds),
            run: Throughput::of(differential(), s.seconds),
            workers: Vec::new(),
        };
        row.workers = if mode.jobs > 1 {
            worker_rates(&cwd, mode.jobs)
        } else {
            vec![s.exec_per_sec]
        };
        out.rows.push(row);
    }
    Ok(out)
}

pub fn coverage() -> Result<Coverage, String> {
    let corpus = corpus_dir("differential");
    let files = std::fs::read_dir(&corpus).map(|r| r.count()).unwrap_or(0);
    let mut c = Coverage {
        corpus_files: files,
        ..Coverage::default()
    };
    let tmp_findings = work_dir().join("coverage-findings");
    let mut env = fuzz_env(false);
    env.retain(|(k, _)| k != "REPDIFF_FUZZ_STATS");
    env.push((
        "REPDIFF_FUZZ_FINDINGS".into(),
        tmp_findings.display().to_string(),
    ));
    // The plain build's cov/ft after loading the corpus.
    let plain = Launch {
        target: "differential (replay)",
        bin: plain_bin("differential"),
        args: vec![
            corpus.display().to_string(),
            "-runs=0".into(),
            format!("-max_len={}", max_len("differential")),
        ],
        env: env.clone(),
        seconds: 600,
        log: work_dir().join("logs/coverage-plain.log"),
        cwd: work_dir().join("cwd"),
    };
    let s = runner::run(&plain, Duration::from_secs(30), &|| String::new())?;
    c.cov = s.cov;
    c.ft = s.ft;
    let asan = Launch {
        target: "differential (asan, print_coverage)",
        bin: asan_bin("differential"),
        args: vec![
            corpus.display().to_string(),
            "-runs=0".into(),
            "-print_coverage=1".into(),
            format!("-max_len={}", max_len("differential")),
        ],
        env,
        seconds: 900,
        log: work_dir().join("logs/coverage-asan.log"),
        cwd: work_dir().join("cwd"),
    };
    runner::run(&asan, Duration::from_secs(30), &|| String::new())?;
    let text = std::fs::read_to_string(&asan.log).map_err(|e| e.to_string())?;
    for line in text.lines() {
        let covered = line.starts_with("COVERED_FUNC:");
        if !covered && !line.starts_with("UNCOVERED_FUNC:") {
            continue;
        }
        // COVERED_FUNC: hits: 5 edges: 3/10 fn file:line
        let Some(i) = line.find("edges: ") else {
            continue;
        };
        let rest = &line[i + 7..];
        let (frac, name) = rest.split_once(' ').unwrap_or((rest, ""));
        let (a, b) = frac.split_once('/').unwrap_or(("0", "0"));
        let (a, b): (u64, u64) = (a.parse().unwrap_or(0), b.parse().unwrap_or(0));
        c.edges_covered += a;
        c.edges_total += b;
        if name.contains("googlebot::") {
            c.google_covered += a;
            c.google_total += b;
            c.google_functions += 1;
            if a > 0 {
                c.google_functions_covered += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(tmp_findings);
    Ok(c)
}

/// Minimise the corpus of `target` in place (`-merge=1` into a fresh dir).
fn merge(target: &str, bin: &Path) -> Result<(usize, usize), String> {
    let dir = corpus_dir(target);
    let before = std::fs::read_dir(&dir).map(|r| r.count()).unwrap_or(0);
    let fresh = fuzz_dir().join("corpus").join(format!(".{target}.merged"));
    let _ = std::fs::remove_dir_all(&fresh);
    std::fs::create_dir_all(&fresh).map_err(|e| e.to_string())?;
    let mut env = fuzz_env(false);
    env.retain(|(k, _)| k != "REPDIFF_FUZZ_STATS");
    env.push((
        "REPDIFF_FUZZ_FINDINGS".into(),
        work_dir().join("merge-findings").display().to_string(),
    ));
    let launch = Launch {
        target,
        bin: bin.to_path_buf(),
        args: vec![
            "-merge=1".into(),
            format!("-timeout={TIMEOUT}"),
            format!("-max_len={}", max_len(target)),
            fresh.display().to_string(),
            dir.display().to_string(),
        ],
        env,
        seconds: 900,
        log: work_dir().join("logs").join(format!("merge-{target}.log")),
        cwd: work_dir().join("cwd"),
    };
    let s = runner::run(&launch, Duration::from_secs(30), &|| String::new())?;
    let after = std::fs::read_dir(&fresh).map(|r| r.count()).unwrap_or(0);
    if s.exit == Some(0) && (after > 0 || before == 0) {
        let old = fuzz_dir().join("corpus").join(format!(".{target}.old"));
        let _ = std::fs::remove_dir_all(&old);
        std::fs::rename(&dir, &old).map_err(|e| e.to_string())?;
        std::fs::rename(&fresh, &dir).map_err(|e| e.to_string())?;
        let _ = std::fs::remove_dir_all(&old);
        Ok((before, after))
    } else {
        let _ = std::fs::remove_dir_all(&fresh);
        Err(format!(
            "merge of {target} failed (exit {:?}); corpus left as it was",
            s.exit
        ))
    }
}

pub fn run(o: &Options) -> i32 {
    match run_job(o) {
        Ok(code) => code,
        Err(e) => {
            log::error!("{e}");
            1
        }
    }
}

/// The job's steps in order; an error ends it without a report.
fn run_job(o: &Options) -> Result<i32, String> {
    let started = SystemTime::now();
    let t0 = std::time::Instant::now();
    log::info!(
        "fuzz: nightly job, {} minutes, {} job(s)",
        o.minutes,
        o.jobs
    );
    let known = prepare(o)?;
    let findings_before: Vec<String> = all_findings()?.into_iter().map(|f| f.hash).collect();
    let _ = std::fs::remove_dir_all(stats_dir());
    let fuzzed = fuzz_all(o);
    let merges = merge_all();
    let cov = match coverage() {
        Ok(c) => {
            log::info!("fuzz: {}", c.describe());
            Some(c)
        }
        Err(e) => {
            log::warn!("fuzz: coverage failed: {e}");
            None
        }
    };
    let minimised = minimise_new(&known)?;
    // After the merge: the corpus the lanes' costs are measured over is
    // the one the next night starts from.
    let lane_cost = match super::lane_cost::measure(
        &repdiff::select::known_names(),
        super::lane_cost::NIGHTLY_INPUTS,
    ) {
        Ok(t) => Some(t),
        Err(e) => {
            log::warn!("fuzz: lane cost not measured: {e}");
            None
        }
    };
    let r = Report {
        started,
        wall_seconds: t0.elapsed().as_secs_f64(),
        minutes: o.minutes,
        jobs: o.jobs,
        fuzz_seconds: fuzzed.seconds,
        speed: fuzzed.speed,
        coverage: cov,
        runs: fuzzed.runs,
        merges,
        known,
        findings: all_findings()?,
        findings_before,
        minimised,
        stats_dir: stats_dir(),
        artifacts: artifact_counts(started),
        lane_cost,
    };
    let (code, paths) = report::write(&r)?;
    for p in paths {
        log::info!("fuzz: wrote {}", p.display());
    }
    Ok(code)
}

/// Tools, build, the known list (derived fresh and written for the fuzz
/// processes) and the seeded corpus.
fn prepare(o: &Options) -> Result<super::triage::Known, String> {
    repdiff::setup::ensure(repdiff::shared::Needs::Oracles);
    let clang = super::tools::ensure().map_err(|p| p.join("\nerror: "))?;
    if o.build {
        build::build_all(&clang)?;
    }
    log::info!("fuzz: deriving the known list from the corpus and the ledger");
    let known = derive_known()?;
    write_known(&known);
    log::info!(
        "fuzz: known list: {} signatures, {} cell keys from {} corpus queries",
        known.signatures.len(),
        known.cells.len(),
        known.queries
    );
    let seeded = seed();
    log::info!("fuzz: seeded {seeded} new corpus bodies into fuzz/corpus/differential_bytes");
    Ok(known)
}

/// What the fuzzing phase measured.
struct Fuzzed {
    speed: Option<Speed>,
    runs: Vec<RunStats>,
    /// Seconds of fuzzing in all, the speed modes included.
    seconds: f64,
}

/// The speed modes, then every differential target for its share of the
/// time, then every oracle alone for an equal share of the rest.
fn fuzz_all(o: &Options) -> Fuzzed {
    let total = (o.minutes * 60.0).max(30.0) as u64;
    let speed_secs = o
        .speed_seconds
        .unwrap_or((total / (3 * MODES.len() as u64)).clamp(10, 60));
    let speed = match speed(speed_secs) {
        Ok(s) => {
            log::info!("fuzz: {}", s.describe());
            Some(s)
        }
        Err(e) => {
            log::warn!("fuzz: speed measurement failed: {e}");
            None
        }
    };
    let remaining = total
        .saturating_sub(MODES.len() as u64 * speed_secs)
        .max(30);
    let every = Duration::from_secs(if total > 600 { 60 } else { 15 });
    let mut runs: Vec<RunStats> = Vec::new();
    for (target, share) in DIFFERENTIAL {
        let secs = ((remaining as f64) * share).max(10.0) as u64;
        if runner::plain_processes(target) {
            log::info!(
                "fuzz: {target} for {secs} s, {} plain process(es), each started again when it stops early",
                o.jobs
            );
        } else {
            log::info!("fuzz: {target} for {secs} s, -fork={}", o.jobs);
        }
        match fuzz_target(target, &plain_bin(target), None, secs, o.jobs, every) {
            Ok(s) => runs.push(s),
            Err(e) => log::error!("{target}: {e}"),
        }
    }
    let robust = robust_runs();
    let robust_share = ((remaining as f64 * 0.25) / robust.len().max(1) as f64).max(5.0) as u64;
    for (target, oracle) in &robust {
        let asan = build::under_asan(oracle);
        log::info!(
            "fuzz: {target} for {robust_share} s{}",
            if asan { " (AddressSanitizer)" } else { "" }
        );
        let bin = robust_bin(oracle);
        match fuzz_target(target, &bin, Some(oracle), robust_share, o.jobs, every) {
            Ok(s) => runs.push(s),
            Err(e) => log::error!("{target}: {e}"),
        }
    }
    let seconds = runs.iter().map(|r| r.seconds).sum::<f64>()
        + speed
            .as_ref()
            .map_or(0.0, |s| s.rows.iter().map(|r| r.run.seconds).sum::<f64>());
    Fuzzed {
        speed,
        runs,
        seconds,
    }
}

/// Minimise the differential corpora; (target, before, after) of each.
fn merge_all() -> Vec<(String, usize, usize)> {
    let mut merges = Vec::new();
    for (target, _) in DIFFERENTIAL {
        match merge(target, &plain_bin(target)) {
            Ok((b, a)) => {
                log::info!("fuzz: merged {target}: {b} -> {a} inputs");
                merges.push((target.to_string(), b, a));
            }
            Err(e) => log::warn!("fuzz: {e}"),
        }
    }
    merges
}

/// Fold the findings' hit counts and minimise those not minimised yet;
/// the hashes minimised now.
fn minimise_new(known: &super::triage::Known) -> Result<Vec<String>, String> {
    let mut minimised = Vec::new();
    for f in all_findings()? {
        f.compact_hits();
        if f.dir.join("case.yaml").exists() {
            continue;
        }
        log::info!("fuzz: minimising finding {}", f.hash);
        match repdiff::triage::minimize::minimize(&f.dir, known, false) {
            Ok(s) => {
                log::info!("{s}");
                minimised.push(f.hash.clone());
            }
            Err(e) => log::warn!("fuzz: minimising {} failed: {e}", f.hash),
        }
    }
    Ok(minimised)
}

/// (run name, oracle it isolates or "", (crash, timeout, oom) artifacts
/// new since `started`) of every run.
fn artifact_counts(started: SystemTime) -> Vec<(String, String, (u64, u64, u64))> {
    DIFFERENTIAL
        .iter()
        .map(|(t, _)| (t.to_string(), String::new()))
        .chain(robust_runs().into_iter().map(|(t, o)| (t, o.to_string())))
        .map(|(t, o)| {
            let dir = artifacts_dir(&t);
            let counts = (
                runner::count_new(&dir, "crash-", started),
                runner::count_new(&dir, "timeout-", started),
                runner::count_new(&dir, "oom-", started),
            );
            (t, o, counts)
        })
        .collect()
}
