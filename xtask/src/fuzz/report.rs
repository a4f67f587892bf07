//! `reports/fuzz/<date>.md` and `.json`: what the nightly job did and found.

use super::figures::{Coverage, Speed};
use super::runner::RunStats;
use super::throughput::Throughput;
use super::triage::{self, Known};
use super::Finding;
use fuzzcore::classes::{classes, InputClass};
use fuzzcore::record::{read_stats_dir, DifferentialStats, Minimized, ProcessStats};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

pub struct Report {
    pub started: SystemTime,
    pub wall_seconds: f64,
    pub minutes: f64,
    pub jobs: usize,
    pub fuzz_seconds: f64,
    pub speed: Option<Speed>,
    pub coverage: Option<Coverage>,
    pub runs: Vec<RunStats>,
    pub merges: Vec<(String, usize, usize)>,
    pub known: Known,
    pub findings: Vec<Finding>,
    pub findings_before: Vec<String>,
    pub minimised: Vec<String>,
    pub stats_dir: PathBuf,
    /// (target, oracle it isolates or "", (crash, timeout, oom) artifacts new this run)
    pub artifacts: Vec<(String, String, (u64, u64, u64))>,
    /// Every lane's added cost per input over the merged corpus, `None`
    /// when it was not measured.
    pub lane_cost: Option<super::lane_cost::Table>,
}

/// (hits of known signatures, distinct new signatures) so far, for progress.
pub fn live_signatures(dir: &Path) -> Result<(u64, usize), String> {
    let mut known = 0;
    let mut new = std::collections::BTreeSet::new();
    for d in differential(&read_stats_dir(dir)?) {
        known += d.known.values().sum::<u64>();
        new.extend(d.new.keys().cloned());
    }
    Ok((known, new.len()))
}

/// The differential processes' stats among `stats`.
fn differential(stats: &[ProcessStats]) -> impl Iterator<Item = &DifferentialStats> {
    stats.iter().filter_map(|p| match p {
        ProcessStats::Differential(d) => Some(d),
        ProcessStats::Robust(_) => None,
    })
}

/// The per-process counters of a run, summed.
#[derive(Debug, Default)]
struct Totals {
    known_hits: BTreeMap<triage::FuzzSignature, u64>,
    new_hits: BTreeMap<String, u64>,
    /// oracle -> outcome label -> count, in the differential loop.
    failures: BTreeMap<String, BTreeMap<String, u64>>,
    /// oracle -> time in the differential loop.
    micros: BTreeMap<String, u64>,
    /// oracle -> error answers in its robustness run.
    robust_errors: BTreeMap<String, u64>,
    execs: u64,
    repeats: u64,
    disagreements: u64,
    /// Inputs rejected unrun: they carried a class that only re-triggers known
    /// errors (fuzzcore/src/downweight.rs).
    downweighted: u64,
    /// input class -> distinct inputs showing it (differential processes).
    class_inputs: BTreeMap<String, u64>,
    /// input class -> of those, inputs with a disagreement.
    class_divergent: BTreeMap<String, u64>,
    /// Distinct inputs every oracle of the loop answered.
    reached_all: u64,
    /// Every oracle in a differential loop, in triage order.
    oracles: Vec<String>,
    /// lane label -> what it did, summed over the processes.
    lanes: BTreeMap<String, LaneTotals>,
    /// CPU of the differential processes, every thread (µs).
    process_cpu_micros: u64,
    /// Registered oracles some differential process ran without, and why.
    left_out: BTreeMap<String, String>,
}

/// One lane over every differential process (µs throughout).
#[derive(Debug, Default)]
struct LaneTotals {
    oracles: Vec<String>,
    answered: u64,
    /// The fuzzing threads' wait on it.
    wait: u64,
    /// Its threads' CPU, part of `Totals::process_cpu_micros`.
    thread_cpu: u64,
    /// Its worker processes' CPU.
    worker_cpu: u64,
}

fn totals(stats: &[ProcessStats]) -> Totals {
    let mut t = Totals::default();
    for p in stats {
        let d = match p {
            ProcessStats::Robust(r) => {
                *t.robust_errors.entry(r.oracle.clone()).or_default() += r.errors;
                continue;
            }
            ProcessStats::Differential(d) => d,
        };
        t.execs += d.execs;
        t.repeats += d.repeats;
        t.disagreements += d.disagreements;
        t.downweighted += d.downweighted;
        t.reached_all += d.reached_all;
        for o in &d.oracles {
            if !t.oracles.contains(o) {
                t.oracles.push(o.clone());
            }
        }
        t.process_cpu_micros += d.process_cpu_micros;
        for l in &d.lanes {
            let e = t.lanes.entry(l.label.clone()).or_default();
            e.oracles.clone_from(&l.oracles);
            e.answered += l.answered;
            e.wait += l.wait_micros;
            e.thread_cpu += l.thread_cpu_micros;
            e.worker_cpu += l.worker_cpu_micros;
        }
        t.left_out
            .extend(d.left_out.iter().map(|(k, v)| (k.clone(), v.clone())));
        for (k, n) in &d.known {
            *t.known_hits.entry(k.clone()).or_default() += n;
        }
        for (k, n) in &d.new {
            *t.new_hits.entry(k.clone()).or_default() += n.hits;
        }
        for (o, m) in &d.failures {
            let to = t.failures.entry(o.clone()).or_default();
            for (label, n) in m {
                *to.entry(label.clone()).or_default() += n;
            }
        }
        for (o, n) in &d.oracle_micros {
            *t.micros.entry(o.clone()).or_default() += n;
        }
        for (c, n) in &d.classes {
            *t.class_inputs.entry(c.clone()).or_default() += n;
        }
        for (c, n) in &d.classes_divergent {
            *t.class_divergent.entry(c.clone()).or_default() += n;
        }
    }
    t
}

/// One row per input class: (name, inputs, divergent inputs, findings).
/// Findings are classified from their saved body and query, so the
/// column covers findings of earlier runs and of `differential_bytes`.
fn class_rows(r: &Report, t: &Totals) -> Vec<(&'static str, u64, u64, usize)> {
    let found: Vec<_> = r
        .findings
        .iter()
        .map(|f| {
            let q = engine::oracle::Query {
                ask: engine::oracle::Ask::CanFetch,
                agent: f.record.agent.clone(),
                url: f.record.url.clone(),
            };
            classes(&f.body, std::slice::from_ref(&q))
        })
        .collect();
    InputClass::ALL
        .iter()
        .map(|&c| {
            let name = c.name();
            (
                name,
                t.class_inputs.get(name).copied().unwrap_or(0),
                t.class_divergent.get(name).copied().unwrap_or(0),
                found.iter().filter(|s| s.contains(&c)).count(),
            )
        })
        .collect()
}

pub use engine::calendar::stamps as date;

fn run_json(r: &RunStats) -> Value {
    json!({
        "target": r.target, "seconds": r.seconds, "execs": r.execs, "exec_per_sec": r.exec_per_sec,
        "cov": r.cov, "ft": r.ft, "corpus": r.corpus, "ooms": r.ooms, "timeouts": r.timeouts,
        "crashes": r.crashes, "exit": r.exit, "restarts": r.restarts,
    })
}

/// The target the nightly's whole run is measured on against its speed
/// modes (which run it alone).
const MEASURED: &str = "differential";

/// `differential` over the nightly's whole run: its processes' counters
/// over its wall time (every start of it, restarts included). `None`
/// when it did not run.
fn whole_run(r: &Report, stats: &[ProcessStats]) -> Option<Throughput> {
    let run = r.runs.iter().find(|x| x.target == MEASURED)?;
    Some(Throughput::of(
        differential(stats).filter(|d| d.target == MEASURED),
        run.seconds,
    ))
}

/// The speed mode the whole run is held to: the first, the nightly's own
/// way of running (one process, every oracle).
fn own_speed_mode(r: &Report) -> Option<(&super::figures::SpeedRow, usize)> {
    r.speed
        .as_ref()
        .and_then(|s| s.rows.first().map(|m| (m, s.cores)))
}

/// A ratio for the JSON: three decimals.
fn ratio(x: Option<f64>) -> Option<f64> {
    x.map(|v| (v * 1000.0).round() / 1000.0)
}

/// A stretch's rate, CPU per distinct input (in all and by lane), ceiling
/// and share of it.
fn throughput_json(t: &Throughput, cores: Option<usize>) -> Value {
    json!({
        "seconds": t.seconds, "reached_all": t.reached_all,
        "distinct_per_sec": t.rate().round(),
        "cpu_micros_per_distinct_input": t.cpu_per_input().map(f64::round),
        "ceiling_per_sec": cores.and_then(|c| t.ceiling(c)).map(f64::round),
        "of_ceiling": ratio(cores.and_then(|c| t.of_ceiling(c))),
        "lanes": t.lanes.iter().map(|l| json!({
            "lane": l.label, "oracles": l.oracles,
            "cpu_micros_per_distinct_input": t.lane_per_input(l).map(f64::round),
        })).collect::<Vec<_>>(),
    })
}

/// Add `extra`'s keys to the object `v`.
fn merge(v: &mut Value, extra: Value) {
    if let (Some(o), Value::Object(e)) = (v.as_object_mut(), extra) {
        o.extend(e);
    }
}

fn whole_run_json(r: &Report, whole: Option<&Throughput>) -> Value {
    let Some(w) = whole else {
        return Value::Null;
    };
    let own = own_speed_mode(r);
    let mut v = json!({
        "target": MEASURED,
        "restarts": r.runs.iter().find(|x| x.target == MEASURED).map_or(0, |x| x.restarts),
        "speed_mode": own.map(|(m, _)| m.label.clone()),
        "of_speed_mode": ratio(own.and_then(|(m, _)| w.of_rate(&m.run))),
        "speed_mode_of_ceiling": ratio(own.and_then(|(m, cores)| m.run.of_ceiling(cores))),
    });
    merge(&mut v, throughput_json(w, own.map(|(_, c)| c)));
    v
}

/// What the report says about the findings, worked out once.
struct Judged<'a> {
    new_this_run: Vec<&'a Finding>,
    untriaged: Vec<&'a Finding>,
    /// The corpus, for the cases a finding was promoted to.
    corpus: engine::case::Corpus,
}

impl Judged<'_> {
    fn new(r: &Report) -> Judged<'_> {
        Judged {
            new_this_run: r
                .findings
                .iter()
                .filter(|f| !r.findings_before.contains(&f.hash))
                .collect(),
            untriaged: r
                .findings
                .iter()
                .filter(|f| f.untriaged(&r.known))
                .collect(),
            corpus: engine::case::load_dir(&repdiff::paths::corpus_dir()).unwrap_or_default(),
        }
    }

    /// Promoted findings: the corpus cases whose `source` names the hash.
    fn promoted(&self, hash: &str) -> Vec<String> {
        self.corpus
            .cases
            .iter()
            .filter(|c| c.source.contains(hash))
            .map(|c| c.id.clone())
            .collect()
    }

    fn exit_code(&self) -> i32 {
        if self.untriaged.is_empty() {
            0
        } else {
            1
        }
    }
}

/// Write both files; the exit status is 1 when a finding is untriaged. A
/// stats file or a `minimized.json` that does not parse is an error.
pub fn write(r: &Report) -> Result<(i32, Vec<PathBuf>), String> {
    let (day, stamp) = date(r.started);
    let stats = read_stats_dir(&r.stats_dir)?;
    let t = totals(&stats);
    let whole = whole_run(r, &stats);
    let judged = Judged::new(r);
    let per_oracle = per_oracle(r, &t);
    let j = report_json(r, &t, whole.as_ref(), &judged, &per_oracle, (&day, &stamp))?;
    let md = [
        md_header(r, &judged, (&day, &stamp)),
        md_speed(r),
        md_rates(r, whole.as_ref()),
        md_lane_cost(r),
        md_coverage(r),
        md_targets(r, &t),
        md_per_oracle(&t, &per_oracle),
        md_loop(r, &t, &stats),
        md_signatures(r, &t, &judged),
        md_findings(r, &judged),
        md_causes(r)?,
        md_classes(r, &t),
    ]
    .concat();
    Ok((judged.exit_code(), save(&day, &stamp, &md, &j)))
}

/// A finding's `minimized.json`, if it has one.
fn minimized(f: &Finding) -> Result<Option<Minimized>, String> {
    let path = f.dir.join("minimized.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn finding_json(r: &Report, judged: &Judged, f: &Finding) -> Result<Value, String> {
    Ok(json!({
        "hash": f.hash, "new": f.new_part(), "signature": f.record.signature, "target": f.record.target,
        "hits": f.hits(), "untriaged": f.untriaged(&r.known), "new_this_run": !r.findings_before.contains(&f.hash),
        "minimized": minimized(f)?, "dir": f.dir.strip_prefix(repdiff::paths::root()).unwrap_or(&f.dir).display().to_string(),
        "cases": judged.promoted(&f.hash),
    }))
}

/// One row per robustness run: its artifacts, libFuzzer's counts, and the
/// oracle's figures from the differential loop.
fn per_oracle(r: &Report, t: &Totals) -> Vec<Value> {
    r.artifacts
        .iter()
        .filter(|(_, o, _)| !o.is_empty())
        .map(|(target, o, (c, ti, oom))| {
            let run = r.runs.iter().find(|x| x.target == *target);
            json!({
                "oracle": o, "target": target, "crashes": c, "timeouts": ti, "ooms": oom,
                "libfuzzer_crashes": run.map_or(0, |x| x.crashes), "libfuzzer_timeouts": run.map_or(0, |x| x.timeouts),
                "exceptions": t.robust_errors.get(o).copied().unwrap_or(0),
                "in_loop_failures": t.failures.get(o).cloned().unwrap_or_default(),
                "differential_micros": t.micros.get(o).copied().unwrap_or(0),
            })
        })
        .collect()
}

fn report_json(
    r: &Report,
    t: &Totals,
    whole: Option<&Throughput>,
    judged: &Judged,
    per_oracle: &[Value],
    (day, stamp): (&str, &str),
) -> Result<Value, String> {
    let findings = r
        .findings
        .iter()
        .map(|f| finding_json(r, judged, f))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(json!({
        "date": day, "started": stamp, "minutes": r.minutes, "jobs": r.jobs,
        "wall_seconds": r.wall_seconds, "fuzz_seconds": r.fuzz_seconds,
        "speed": r.speed.as_ref().map(|s| json!({
            "seconds_per_mode": s.seconds, "cores": s.cores,
            "modes": s.rows.iter().map(|m| {
                let mut v = json!({
                    "mode": m.label, "oracles": m.oracles, "exec_per_sec": m.total(),
                    "workers_exec_per_sec": m.workers, "lane_wait_share": m.lane_wait,
                });
                merge(&mut v, throughput_json(&m.run, Some(s.cores)));
                v
            }).collect::<Vec<_>>(),
        })),
        "whole_run": whole_run_json(r, whole),
        "coverage": r.coverage.as_ref().map(|c| json!({
            "corpus_files": c.corpus_files, "cov": c.cov, "ft": c.ft,
            "edges_covered": c.edges_covered, "edges_total": c.edges_total,
            "googlebot_edges_covered": c.google_covered, "googlebot_edges_total": c.google_total,
            "googlebot_functions_covered": c.google_functions_covered, "googlebot_functions": c.google_functions,
        })),
        "runs": r.runs.iter().map(run_json).collect::<Vec<_>>(),
        "merges": r.merges.iter().map(|(t, b, a)| json!({"target": t, "before": b, "after": a})).collect::<Vec<_>>(),
        "differential": {"execs": t.execs, "repeats": t.repeats, "disagreements": t.disagreements, "downweighted": t.downweighted, "reached_all": t.reached_all},
        "loop": {
            "oracles": t.oracles,
            "lanes": t.lanes.iter().map(|(label, l)| json!({
                "lane": label, "oracles": l.oracles, "answered": l.answered, "wait_micros": l.wait,
                "thread_cpu_micros": l.thread_cpu, "worker_cpu_micros": l.worker_cpu,
            })).collect::<Vec<_>>(),
            "process_cpu_micros": t.process_cpu_micros,
            "left_out": t.left_out,
        },
        "per_oracle": per_oracle,
        "known": {"list_signatures": r.known.signatures.len(), "list_cells": r.known.cells.len(), "hits": t.known_hits},
        "new_signature_hits": t.new_hits,
        "input_classes": class_rows(r, t).iter().map(|(c, n, d, f)| json!({
            "class": c, "inputs": n, "divergent_inputs": d, "findings": f,
        })).collect::<Vec<_>>(),
        "findings": findings,
        "untriaged": judged.untriaged.iter().map(|f| f.hash.clone()).collect::<Vec<_>>(),
        "minimised_this_run": r.minimised,
        "exit": judged.exit_code(),
        "lane_cost": r.lane_cost.as_ref().map(super::lane_cost::Table::to_json),
    }))
}

fn md_header(r: &Report, judged: &Judged, (day, stamp): (&str, &str)) -> String {
    let untriaged = &judged.untriaged;
    let mut md = String::new();
    md.push_str(&format!("# Fuzzing report {day}\n\n"));
    md.push_str(&format!(
        "`cargo xtask fuzz --minutes {} --jobs {}`, started {stamp}, {:.0} s wall, {:.0} s of fuzzing in all.\n\n",
        r.minutes, r.jobs, r.wall_seconds, r.fuzz_seconds
    ));
    md.push_str(&format!(
        "**{}**\n\n",
        if untriaged.is_empty() {
            "No untriaged signature: exit 0.".to_string()
        } else {
            format!(
                "{} untriaged signature(s): {} (exit 1). Promote each with `repdiff triage minimize` and a ledger entry.",
                untriaged.len(),
                untriaged.iter().map(|f| f.hash.as_str()).collect::<Vec<_>>().join(", ")
            )
        }
    ));
    md
}

fn md_speed(r: &Report) -> String {
    let mut md = String::from("## Speed\n\n");
    let Some(s) = &r.speed else {
        md.push_str("not measured\n\n");
        return md;
    };
    md.push_str(&format!(
        "`differential`, {} s per mode, one mode after the other in this run, same corpus:\n\n\
         | # | mode | oracles | exec/s (libFuzzer) | distinct inputs/s reaching every oracle | fuzzing thread waited on lanes | CPU per distinct input | at most, on {} cores | share of that |\n\
         |---|---|---|---|---|---|---|---|---|\n",
        s.seconds,
        s.cores
    ));
    for (i, m) in s.rows.iter().enumerate() {
        md.push_str(&format!(
            "| {} | {} | {} | {}{} | {:.0} | {} | {} | {} | {} |\n",
            i + 1,
            m.label,
            m.oracles,
            m.total(),
            m.workers_text()
                .map_or(String::new(), |w| format!(" ({w})")),
            m.run.rate(),
            m.lane_wait
                .map_or("-".to_string(), |w| format!("{:.0}%", w * 100.0)),
            m.run
                .cpu_per_input()
                .map_or("-".to_string(), |c| format!("{c:.0} µs")),
            m.run
                .ceiling(s.cores)
                .map_or("-".to_string(), |c| format!("{c:.0}/s")),
            percent(m.run.of_ceiling(s.cores)),
        ));
    }
    md.push_str(
        "\nA repeat is an input whose rendered robots.txt and queries were run moments ago (many \
         mutations of a structured input render the same file); the harness skips the oracles for it, \
         and a down-weighted input does not reach them either: the distinct rate counts only inputs \
         every oracle of the mode answered. Lanes are helper threads (fuzzcore/src/lane.rs): the \
         Python lane runs the four embedded Python oracles, and each external oracle (a worker \
         process) has a lane of its own that takes the queued inputs in groups; every input reaches \
         every lane, in order. The modes after the first leave oracles out to show what they cost, \
         not as ways to run. CPU per distinct input is the fuzzing processes' CPU (every thread) and \
         their worker processes' (restarts included) over the inputs that reached every oracle; \
         \"at most\" is the rate the machine's cores would give at that cost were they never idle.\n\n",
    );
    md
}

fn percent(x: Option<f64>) -> String {
    x.map_or("-".to_string(), |v| format!("{:.0}%", v * 100.0))
}

/// The nightly's `differential` over the whole run against its own speed
/// mode and that mode against its ceiling, with the CPU per distinct input
/// of each lane in every stretch (the two targets of issue 51: the whole
/// run at 90% of the speed mode at least, the speed mode at 85% of its
/// ceiling).
fn md_rates(r: &Report, whole: Option<&Throughput>) -> String {
    let mut md = String::from(
        "## The whole run against its speed mode

",
    );
    let (Some(w), Some((own, cores))) = (whole, own_speed_mode(r)) else {
        md.push_str("not measured: no speed mode or no `differential` run\n\n");
        return md;
    };
    let run = r.runs.iter().find(|x| x.target == MEASURED);
    let restarts = run.map_or(0, |x| x.restarts);
    let how = if super::runner::plain_processes(MEASURED) {
        let processes = if r.jobs == 1 {
            "one plain process".to_string()
        } else {
            format!("{} plain processes side by side", r.jobs)
        };
        let again = match restarts {
            0 => "never started again".to_string(),
            1 => "started again once after a crash, a timeout or an OOM".to_string(),
            n => format!("started again {n} times after a crash, a timeout or an OOM"),
        };
        format!("{processes}, {again}")
    } else {
        format!("libFuzzer -fork={}", r.jobs)
    };
    md.push_str(&format!(
        "`{MEASURED}` over the whole run ({how}, {:.0} s) and speed mode 1 ({:.0} s): distinct \
         inputs/s reaching every oracle, CPU per distinct input, the ceiling ({cores} cores / CPU \
         per distinct input) and the rate's share of it.\n\n\
         | stretch | distinct inputs/s | CPU per distinct input | ceiling | share of ceiling |\n\
         |---|---|---|---|---|\n",
        w.seconds, own.run.seconds
    ));
    for (name, t) in [("whole run", w), ("speed mode 1", &own.run)] {
        md.push_str(&format!(
            "| {name} | {:.0} | {} | {} | {} |\n",
            t.rate(),
            t.cpu_per_input()
                .map_or("-".to_string(), |c| format!("{c:.0} µs")),
            t.ceiling(cores)
                .map_or("-".to_string(), |c| format!("{c:.0}/s")),
            percent(t.of_ceiling(cores)),
        ));
    }
    md.push_str(&format!(
        "\n**Whole run / speed mode 1: {}** (target: at least 90%). **Speed mode 1 / its ceiling: {}** \
         (target: at least 85%; idle cores are the gap).\n\n",
        percent(w.of_rate(&own.run)),
        percent(own.run.of_ceiling(cores)),
    ));
    md.push_str(&md_lanes(w, r));
    md
}

/// CPU per distinct input of each lane, the whole run and every speed
/// mode side by side.
fn md_lanes(whole: &Throughput, r: &Report) -> String {
    let modes: Vec<&Throughput> = r
        .speed
        .as_ref()
        .map_or(Vec::new(), |s| s.rows.iter().map(|m| &m.run).collect());
    let stretches: Vec<&Throughput> = std::iter::once(whole)
        .chain(modes.iter().copied())
        .collect();
    // Every lane of any stretch, in the whole run's order first.
    let mut lanes: Vec<(&str, &[String])> = Vec::new();
    for t in &stretches {
        for l in &t.lanes {
            if !lanes.iter().any(|(label, _)| *label == l.label) {
                lanes.push((&l.label, &l.oracles));
            }
        }
    }
    let mut md = String::from(
        "CPU per distinct input by lane (µs: each lane's thread and worker processes; the fuzzing \
         thread and the rest is the process's CPU outside its lanes' threads, so a column sums to \
         its CPU per distinct input):\n\n| lane | oracles | whole run |",
    );
    for i in 0..modes.len() {
        md.push_str(&format!(" mode {} |", i + 1));
    }
    md.push_str(&format!("\n|---|---|---|{}\n", "---|".repeat(modes.len())));
    for (label, oracles) in lanes {
        md.push_str(&format!("| {label} | {} |", oracles.join(", ")));
        for t in &stretches {
            let cell = t
                .lanes
                .iter()
                .find(|l| l.label == label)
                .and_then(|l| t.lane_per_input(l))
                .map_or("-".to_string(), |c| format!("{c:.0}"));
            md.push_str(&format!(" {cell} |"));
        }
        md.push('\n');
    }
    md.push('\n');
    md
}

/// The "Added cost per lane" table: what each lane's harness adds to its
/// library's own loop, so a slow lane's cost is known to be ours or not.
fn md_lane_cost(r: &Report) -> String {
    match &r.lane_cost {
        Some(t) => t.to_markdown(),
        None => String::new(),
    }
}

fn md_coverage(r: &Report) -> String {
    let mut md = String::from("## Coverage\n\n");
    match &r.coverage {
        Some(c) => md.push_str(&format!(
            "`differential` replaying its corpus ({} inputs): libFuzzer cov {} / ft {}. With `-print_coverage` \
             (AddressSanitizer build): {} of {} instrumented edges covered; **{} of {} edges in `googlebot::`** \
             (Google's robots.cc, compiled by clang with `-fsanitize=fuzzer-no-link`), {} of {} of its functions reached.\n\n",
            c.corpus_files, c.cov, c.ft, c.edges_covered, c.edges_total, c.google_covered, c.google_total,
            c.google_functions_covered, c.google_functions
        )),
        None => md.push_str("not measured\n\n"),
    }
    md
}

fn md_targets(r: &Report, t: &Totals) -> String {
    let mut md = String::from("## Targets\n\n| target | s | execs | exec/s | cov | ft | corpus | oom/timeout/crash | new artifacts crash/timeout/oom |\n|---|---|---|---|---|---|---|---|---|\n");
    for run in &r.runs {
        let a = r
            .artifacts
            .iter()
            .find(|(t, _, _)| *t == run.target)
            .map_or((0, 0, 0), |x| x.2);
        md.push_str(&format!(
            "| {} | {:.0} | {} | {} | {} | {} | {} | {}/{}/{} | {}/{}/{} |\n",
            run.target,
            run.seconds,
            run.execs,
            run.exec_per_sec,
            run.cov,
            run.ft,
            run.corpus,
            run.ooms,
            run.timeouts,
            run.crashes,
            a.0,
            a.1,
            a.2
        ));
    }
    for (t, b, a) in &r.merges {
        md.push_str(&format!("\nCorpus `{t}` merged: {b} -> {a} inputs."));
    }
    md.push_str(&format!(
        "\n\nDifferential processes: {} inputs, {} repeats skipped, {} down-weighted (rejected unrun: \
         they carried an input class that only re-triggers known errors, fuzzcore/src/downweight.rs), {} queries \
         with a disagreement.\n\n",
        t.execs, t.repeats, t.downweighted, t.disagreements
    ));
    md
}

fn md_per_oracle(t: &Totals, per_oracle: &[Value]) -> String {
    let mut md = String::from("## Per oracle\n\n| oracle | robustness crashes | timeouts | ooms | exceptions (robust target) | in-loop failures (differential) | time in differential |\n|---|---|---|---|---|---|---|\n");
    let total_micros: u64 = t.micros.values().sum::<u64>().max(1);
    for p in per_oracle {
        let o = p["oracle"].as_str().unwrap_or("");
        let fails = t
            .failures
            .get(o)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_else(|| "none".into());
        md.push_str(&format!(
            "| {o} | {} | {} | {} | {} | {fails} | {:.0}% |\n",
            p["crashes"],
            p["timeouts"],
            p["ooms"],
            p["exceptions"],
            100.0 * t.micros.get(o).copied().unwrap_or(0) as f64 / total_micros as f64
        ));
    }
    md
}

/// Which oracles the differential loop ran, where, and how many distinct
/// inputs reached every one of them.
fn md_loop(r: &Report, t: &Totals, stats: &[ProcessStats]) -> String {
    // The differential targets' own wall time (the robustness runs reach
    // one oracle each and are not counted here).
    let seconds: f64 = r
        .runs
        .iter()
        .filter(|x| fuzzcore::DIFFERENTIAL_TARGETS.contains(&x.target.as_str()))
        .map(|x| x.seconds)
        .sum();
    let all = Throughput::of(differential(stats), seconds);
    let mut md = format!(
        "\n## Oracles in the loop\n\n{} oracles in the differential loop: {}.\n\n\
         {} distinct inputs reached every one of them in {:.0} s of the differential targets \
         ({:.0}/s).\n\n",
        t.oracles.len(),
        t.oracles.join(", "),
        all.reached_all,
        seconds,
        all.rate()
    );
    if !t.lanes.is_empty() {
        md.push_str(
            "| lane | oracles | inputs answered | fuzzing thread waited | lane thread CPU | worker CPU | CPU per input answered |\n\
             |---|---|---|---|---|---|---|\n",
        );
        for (label, l) in &t.lanes {
            let per_input = if l.answered > 0 {
                format!(
                    "{:.0} µs",
                    (l.thread_cpu + l.worker_cpu) as f64 / l.answered as f64
                )
            } else {
                "-".to_string()
            };
            md.push_str(&format!(
                "| {label} | {} | {} | {:.1} s | {:.1} s | {:.1} s | {per_input} |\n",
                l.oracles.join(", "),
                l.answered,
                l.wait as f64 / 1e6,
                l.thread_cpu as f64 / 1e6,
                l.worker_cpu as f64 / 1e6,
            ));
        }
        md.push_str("\nThe oracles not on a lane run on the fuzzing thread.");
        md.push_str(&md_cpu(t, &all, r.speed.as_ref().map(|s| s.cores)));
        md.push_str("\n\n");
    }
    if !t.left_out.is_empty() {
        md.push_str("Not in the loop:\n\n");
        for (name, why) in &t.left_out {
            md.push_str(&format!("- {name}: {why}\n"));
        }
    }
    // One line break before the next section's own blank line.
    md.truncate(md.trim_end().len());
    md.push('\n');
    md
}

/// Where the loop's CPU went, per distinct input that reached every
/// oracle: the fuzzing threads, the lane threads, the workers; and the
/// rate `cores` would give at that cost.
fn md_cpu(t: &Totals, all: &Throughput, cores: Option<usize>) -> String {
    let lanes: u64 = t.lanes.values().map(|l| l.thread_cpu).sum();
    let workers: u64 = t.lanes.values().map(|l| l.worker_cpu).sum();
    let Some(per_input) = all.cpu_per_input().filter(|_| t.process_cpu_micros > 0) else {
        return String::new();
    };
    let ceiling = cores
        .and_then(|n| all.ceiling(n).map(|c| (n, c)))
        .map_or(String::new(), |(n, c)| {
            format!("; at that cost {n} cores give at most {c:.0} such inputs/s")
        });
    format!(
        " The differential processes used {:.1} s of CPU ({:.1} s of it on lane threads, \
         {:.1} s on the fuzzing threads and the rest) and their workers {:.1} s: {per_input:.0} µs \
         per distinct input that reached every oracle{ceiling}.",
        t.process_cpu_micros as f64 / 1e6,
        lanes as f64 / 1e6,
        t.process_cpu_micros.saturating_sub(lanes) as f64 / 1e6,
        workers as f64 / 1e6,
    )
}

fn md_signatures(r: &Report, t: &Totals, judged: &Judged) -> String {
    let mut md = format!(
        "\n## Signatures\n\nKnown list: {} signatures and {} cell keys, derived from {} corpus queries \
         ({} left out for an unexplained cell); see fuzz/README.md for how a fuzz input is judged explained.\n\n",
        r.known.signatures.len(),
        r.known.cells.len(),
        r.known.queries,
        r.known.unexplained_queries
    );
    let mut top: Vec<(&triage::FuzzSignature, &u64)> = t.known_hits.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1));
    md.push_str(&format!(
        "Known signatures hit this run: {} distinct",
        top.len()
    ));
    md.push_str(if top.is_empty() {
        ".\n\n"
    } else {
        "; the most frequent:\n\n| hits | signature |\n|---|---|\n"
    });
    for (s, n) in top.iter().take(15) {
        md.push_str(&format!("| {n} | `{s}` |\n"));
    }
    md.push_str(&format!(
        "\nNew signatures this run: {}; minimised this run: {}. All findings on disk: {}.\n\n",
        judged.new_this_run.len(),
        if r.minimised.is_empty() {
            "none".to_string()
        } else {
            r.minimised.join(", ")
        },
        r.findings.len()
    ));
    md
}

fn md_findings(r: &Report, judged: &Judged) -> String {
    if r.findings.is_empty() {
        return String::new();
    }
    let mut md = String::from("| finding | new this run | hits | untriaged | new part | corpus case |\n|---|---|---|---|---|---|\n");
    for f in &r.findings {
        let cases = judged.promoted(&f.hash);
        let case = if !cases.is_empty() {
            cases.join(", ")
        } else if f.dir.join("case.yaml").exists() {
            format!("draft fuzz-{} (case.yaml)", f.hash)
        } else {
            "-".into()
        };
        md.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            f.hash,
            if r.findings_before.contains(&f.hash) {
                "no"
            } else {
                "yes"
            },
            f.hits(),
            if f.untriaged(&r.known) {
                "**yes**"
            } else {
                "no"
            },
            f.new_part()
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join("<br>"),
            case
        ));
    }
    md
}

/// The findings by identity, (oracle, cause) (the `cause` crate): many
/// findings (cell keys) may share one cause, and one finding may show
/// several. Empty when no minimisation named causes.
fn md_causes(r: &Report) -> Result<String, String> {
    let mut by: BTreeMap<(String, cause::Diagnosis), Vec<String>> = Default::default();
    for f in &r.findings {
        for c in minimized(f)?.map(|m| m.causes).unwrap_or_default() {
            by.entry((c.oracle, c.cause))
                .or_default()
                .push(format!("`{}` ({}; `{}`)", f.hash, c.answers, c.cell_key));
        }
    }
    if by.is_empty() {
        return Ok(String::new());
    }
    let mut md = String::from(
        "\n### Findings by (oracle, cause)\n\nCauses from docs/causes.md; `new` = no transformation of the catalogue neutralises the pair.\n\n| oracle | cause | findings (answers; cell key) |\n|---|---|---|\n",
    );
    for ((oracle, cause), found) in by {
        let cause = if cause.is_new() {
            "**new**".to_string()
        } else {
            format!("`{cause}`")
        };
        md.push_str(&format!(
            "| `{oracle}` | {cause} | {} |\n",
            found.join("<br>")
        ));
    }
    Ok(md)
}

fn md_classes(r: &Report, t: &Totals) -> String {
    let distinct = t.execs.saturating_sub(t.repeats).max(1);
    let mut md = format!(
        "\n## Input classes\n\nWhich of the classes the parsers are known to treat differently \
         (`fuzzcore::classes`) the differential inputs reached: distinct inputs showing each \
         (share of the {} distinct inputs), those with a disagreement, and the findings on disk \
         ({}) whose body, URL or agent shows it.\n\n\
         | class | inputs | share | divergent inputs | in findings |\n|---|---|---|---|---|\n",
        t.execs.saturating_sub(t.repeats),
        r.findings.len()
    );
    for (c, n, d, f) in class_rows(r, t) {
        md.push_str(&format!(
            "| {c} | {n} | {:.1}% | {d} | {f} |\n",
            100.0 * n as f64 / distinct as f64
        ));
    }
    md.push('\n');
    md
}

/// Write the two files under reports/run/fuzz/. Ignored by git: a plain run
/// changes no tracked file. The nightly workflow uploads this folder; a
/// report worth keeping is copied to reports/fuzz/ by hand, in a commit
/// that says why.
fn save(day: &str, stamp: &str, md: &str, j: &Value) -> Vec<PathBuf> {
    let dir = repdiff::paths::root().join("reports/run/fuzz");
    let _ = std::fs::create_dir_all(&dir);
    // One report per night; a second run the same day keeps the first.
    let name = if dir.join(format!("{day}.md")).exists() {
        format!("{day}T{}", stamp[11..19].replace(':', ""))
    } else {
        day.to_string()
    };
    let mdp = dir.join(format!("{name}.md"));
    let jp = dir.join(format!("{name}.json"));
    let _ = std::fs::write(&mdp, md);
    let _ = std::fs::write(&jp, serde_json::to_string_pretty(j).unwrap_or_default());
    vec![mdp, jp]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::figures::SpeedRow;
    use crate::fuzz::throughput::{LaneCpu, FUZZING_THREAD};

    /// Per-process stats files in the format the fuzz processes write.
    const STATS: &[(&str, &str)] = &[
        (
            "differential-1.json",
            r#"{"target":"differential","pid":1,"oracles":["rfc9309","google","cpython-3.11"],"execs":1000,"repeats":100,"queries":4000,"disagreements":70,"known":{"{google,rfc9309}=allowed | {cpython-3.11}=disallowed @ allow[*]/exact":5,"{google}=allowed | {rfc9309}=disallowed @ disallow[]/star":2},"new":{"d3d169d53f93":{"new":"google: allowed->disallowed @ allow/star","hits":3}},"failures":{"cpython-3.11":{"error":4}},"lane":["cpython-3.11"],"lane_wait_micros":1500,"lanes":[{"label":"python","oracles":["cpython-3.11"],"answered":875,"wait_micros":1500,"thread_cpu_micros":250000,"worker_cpu_micros":0}],"process_cpu_micros":1000000,"reached_all":875,"left_out":{"webrobots":"REPDIFF_FUZZ_EXTERNAL=0 (only the built-ins run)"},"oracle_micros":{"rfc9309":300,"google":500,"cpython-3.11":1200},"classes":{"octet/nul":40,"url/port":300,"agent/product-token":900},"classes_divergent":{"octet/nul":5,"url/port":9},"downweighted":25,"downweighted_classes":1}"#,
        ),
        (
            "differential_bytes-2.json",
            r#"{"target":"differential_bytes","pid":2,"oracles":["rfc9309","google","cpython-3.11"],"execs":500,"repeats":0,"queries":900,"disagreements":9,"known":{"{google,rfc9309}=allowed | {cpython-3.11}=disallowed @ allow[*]/exact":1},"new":{},"failures":{},"lane":[],"lane_wait_micros":0,"oracle_micros":{"rfc9309":100,"google":100,"cpython-3.11":100},"classes":{"octet/nul":10},"classes_divergent":{}}"#,
        ),
        (
            "robust-google-3.json",
            r#"{"target":"robust_google","oracle":"google","pid":3,"execs":800,"errors":6}"#,
        ),
    ];

    fn fixture(base: &Path) -> Report {
        let _ = std::fs::remove_dir_all(base);
        let stats_dir = base.join("stats");
        std::fs::create_dir_all(&stats_dir).unwrap();
        for (name, text) in STATS {
            std::fs::write(stats_dir.join(name), text).unwrap();
        }
        let mut findings = Vec::new();
        for hash in ["d3d169d53f93", "b70f7e294b4e", "a65cc910ab65"] {
            let from = repdiff::triage::fuzzed::committed_findings_dir().join(hash);
            let to = base.join("findings").join(hash);
            std::fs::create_dir_all(&to).unwrap();
            for f in std::fs::read_dir(&from).unwrap().flatten() {
                std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
            }
            findings.push(Finding::load(&to).unwrap().unwrap());
        }
        let run = |target: &str, n: u64| RunStats {
            target: target.into(),
            seconds: 10.5 * n as f64,
            execs: 1000 * n,
            exec_per_sec: 100 * n,
            cov: 50 * n,
            ft: 70 * n,
            corpus: 9 * n,
            ooms: 0,
            timeouts: n % 2,
            crashes: 0,
            exit: Some(0),
            restarts: n - 1,
            ..RunStats::default()
        };
        let mut known = Known {
            stamp: "s".into(),
            queries: 1234,
            unexplained_queries: 5,
            ..Known::default()
        };
        known.signatures.insert(
            "{google,rfc9309}=allowed | {cpython-3.11}=disallowed @ allow[*]/exact"
                .parse()
                .expect("a fuzz signature"),
        );
        known.cells.insert(
            "protego: ->error UnicodeEncodeError"
                .parse()
                .expect("a cell key"),
        );
        Report {
            started: SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(978_310_861),
            wall_seconds: 100.4,
            minutes: 1.5,
            jobs: 1,
            fuzz_seconds: 88.8,
            speed: Some(Speed {
                seconds: 10,
                cores: 2,
                rows: vec![
                    SpeedRow {
                        label: "one".into(),
                        oracles: 3,
                        workers: vec![900],
                        lane_wait: Some(0.25),
                        // 812.4/s at 1250 µs per distinct input.
                        run: Throughput {
                            seconds: 10.0,
                            reached_all: 8124,
                            cpu_micros: 10_155_000,
                            lanes: vec![
                                LaneCpu {
                                    label: FUZZING_THREAD.into(),
                                    oracles: Vec::new(),
                                    cpu_micros: 7_000_000,
                                },
                                LaneCpu {
                                    label: "python".into(),
                                    oracles: vec!["cpython-3.11".into()],
                                    cpu_micros: 3_155_000,
                                },
                            ],
                        },
                    },
                    SpeedRow {
                        label: "two".into(),
                        oracles: 3,
                        workers: vec![400, 450],
                        lane_wait: None,
                        // No CPU read: no ceiling.
                        run: Throughput {
                            seconds: 10.0,
                            reached_all: 7000,
                            cpu_micros: 0,
                            lanes: Vec::new(),
                        },
                    },
                ],
            }),
            coverage: Some(Coverage {
                corpus_files: 10,
                edges_covered: 100,
                edges_total: 400,
                google_covered: 30,
                google_total: 90,
                google_functions_covered: 4,
                google_functions: 12,
                cov: 77,
                ft: 99,
            }),
            runs: vec![run("differential", 1), run("robust_google", 2)],
            merges: vec![("differential".into(), 20, 12)],
            known,
            findings,
            findings_before: vec!["b70f7e294b4e".into()],
            minimised: vec!["d3d169d53f93".into()],
            stats_dir,
            artifacts: vec![
                ("differential".into(), String::new(), (0, 0, 0)),
                ("robust_google".into(), "google".into(), (1, 2, 0)),
                ("robust_rfc9309".into(), "rfc9309".into(), (0, 0, 0)),
            ],
            lane_cost: Some(lane_cost()),
        }
    }

    /// Two lanes over 1,000 inputs: one measured, one with no loop.
    fn lane_cost() -> crate::fuzz::lane_cost::Table {
        use crate::fuzz::lane_cost::{Cost, Source, Table};
        let row = |oracle: &str, how: Option<&str>, direct: Option<f64>, worker: f64| {
            Cost::of(
                &repdiff::speed::DirectRow {
                    oracle: oracle.into(),
                    direct_how: how.map(Into::into),
                    direct_cpu: direct,
                    worker_cpu: Some(worker),
                    driver_cpu: Some(0.05),
                    differ: direct.map(|_| 0),
                    error: None,
                },
                1000,
            )
        };
        Table {
            source: Source::Generated {
                seed: 51,
                tried: 1200,
            },
            inputs: 1000,
            left_out: 3,
            questions: 5000,
            batch: 16,
            rows: vec![
                row("webrobots", Some("loop.rb"), Some(0.1), 0.25),
                row("cpython-3.11", None, None, 0.0),
            ],
        }
    }

    /// The rendered report of a fixed input, compared with the one the
    /// writer produced before it was split up and typed: a change of the
    /// output shows here, whatever the reason.
    #[test]
    fn report_rendering_is_unchanged() {
        let base = repdiff::paths::root().join("target/fuzz-report-golden");
        let r = fixture(&base);
        let (code, paths) = write(&r).unwrap();
        let md = std::fs::read_to_string(&paths[0]).unwrap();
        let json = std::fs::read_to_string(&paths[1]).unwrap();
        for p in &paths {
            let _ = std::fs::remove_file(p);
        }
        let _ = std::fs::remove_dir_all(&base);
        let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/fuzz/testdata");
        if std::env::var_os("REPDIFF_BLESS").is_some() {
            std::fs::create_dir_all(&golden).unwrap();
            std::fs::write(golden.join("report.md"), &md).unwrap();
            std::fs::write(golden.join("report.json"), &json).unwrap();
        }
        assert_eq!(code, 1);
        assert_eq!(
            md,
            std::fs::read_to_string(golden.join("report.md")).unwrap()
        );
        assert_eq!(
            json,
            std::fs::read_to_string(golden.join("report.json")).unwrap()
        );
    }

    /// The whole run's ratio fields: `differential` in the fixture reached
    /// 875 inputs in 10.5 s (83.3/s) at 1,000,000 µs of CPU (1,142.9 µs
    /// each: a ceiling of 1,750/s on 2 cores); speed mode 1 gave 812.4/s at
    /// 1,250 µs (a ceiling of 1,600/s).
    #[test]
    fn the_whole_run_is_held_to_speed_mode_1_and_each_to_its_ceiling() {
        let base = repdiff::paths::root().join("target/fuzz-report-ratios");
        let r = fixture(&base);
        let stats = read_stats_dir(&r.stats_dir).unwrap();
        let whole = whole_run(&r, &stats).unwrap();
        let j = whole_run_json(&r, Some(&whole));
        let _ = std::fs::remove_dir_all(&base);
        assert_eq!(j["target"], "differential");
        assert_eq!(j["reached_all"], 875);
        assert_eq!(j["distinct_per_sec"], 83.0);
        assert_eq!(j["cpu_micros_per_distinct_input"], 1143.0);
        assert_eq!(j["ceiling_per_sec"], 1750.0);
        // 83.33 / 1750
        assert_eq!(j["of_ceiling"], 0.048);
        // 83.33 / 812.4
        assert_eq!(j["of_speed_mode"], 0.103);
        // 812.4 / 1600
        assert_eq!(j["speed_mode_of_ceiling"], 0.508);
        assert_eq!(j["speed_mode"], "one");
        let lanes: Vec<(&str, f64)> = j["lanes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["lane"].as_str().unwrap(),
                    l["cpu_micros_per_distinct_input"].as_f64().unwrap(),
                )
            })
            .collect();
        // 750,000 and 250,000 µs over 875 inputs.
        assert_eq!(lanes, vec![(FUZZING_THREAD, 857.0), ("python", 286.0)]);
        // differential_bytes (its own stats file, 500 execs) is not in it.
        assert_eq!(whole.cpu_micros, 1_000_000);
    }
}
