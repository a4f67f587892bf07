//! `reports/fuzz/<date>.md` and `.json`: what the nightly job did and found.

use super::nightly::{Coverage, Speed};
use super::runner::RunStats;
use super::triage::Known;
use super::Finding;
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
}

pub fn read_stats(dir: &Path) -> Vec<Value> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                .filter_map(|t| serde_json::from_str(&t).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// (hits of known signatures, distinct new signatures) so far, for progress.
pub fn live_signatures(dir: &Path) -> (u64, usize) {
    let mut known = 0;
    let mut new = std::collections::BTreeSet::new();
    for v in read_stats(dir) {
        if let Some(m) = v.get("known").and_then(|k| k.as_object()) {
            known += m.values().filter_map(|x| x.as_u64()).sum::<u64>();
        }
        if let Some(m) = v.get("new").and_then(|k| k.as_object()) {
            new.extend(m.keys().cloned());
        }
    }
    (known, new.len())
}

/// (execs, repeats) summed over the differential processes' stats.
pub fn exec_counts(dir: &Path) -> (u64, u64) {
    read_stats(dir).iter().fold((0, 0), |(e, r), v| {
        (
            e + v.get("execs").and_then(|x| x.as_u64()).unwrap_or(0),
            r + v.get("repeats").and_then(|x| x.as_u64()).unwrap_or(0),
        )
    })
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

pub fn date(t: SystemTime) -> (String, String) {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (y, m, d) = civil(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    (
        format!("{y:04}-{m:02}-{d:02}"),
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            s / 3600,
            s / 60 % 60,
            s % 60
        ),
    )
}

fn run_json(r: &RunStats) -> Value {
    json!({
        "target": r.target, "seconds": r.seconds, "execs": r.execs, "exec_per_sec": r.exec_per_sec,
        "cov": r.cov, "ft": r.ft, "corpus": r.corpus, "ooms": r.ooms, "timeouts": r.timeouts,
        "crashes": r.crashes, "exit": r.exit,
    })
}

/// Write both files; the exit status is 1 when a finding is untriaged.
pub fn write(r: &Report) -> (i32, Vec<PathBuf>) {
    let (day, stamp) = date(r.started);
    let stats = read_stats(&r.stats_dir);
    // Aggregate the per-process counters.
    let mut known_hits: BTreeMap<String, u64> = BTreeMap::new();
    let mut new_hits: BTreeMap<String, u64> = BTreeMap::new();
    let mut failures: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    let mut micros: BTreeMap<String, u64> = BTreeMap::new();
    let mut robust_errors: BTreeMap<String, u64> = BTreeMap::new();
    let (mut execs, mut repeats, mut disagreements) = (0u64, 0u64, 0u64);
    for v in &stats {
        if let Some(o) = v.get("oracle").and_then(|x| x.as_str()) {
            *robust_errors.entry(o.to_string()).or_default() +=
                v.get("errors").and_then(|x| x.as_u64()).unwrap_or(0);
            continue;
        }
        execs += v.get("execs").and_then(|x| x.as_u64()).unwrap_or(0);
        repeats += v.get("repeats").and_then(|x| x.as_u64()).unwrap_or(0);
        disagreements += v.get("disagreements").and_then(|x| x.as_u64()).unwrap_or(0);
        for (k, n) in v
            .get("known")
            .and_then(|x| x.as_object())
            .into_iter()
            .flatten()
        {
            *known_hits.entry(k.clone()).or_default() += n.as_u64().unwrap_or(0);
        }
        for (k, n) in v
            .get("new")
            .and_then(|x| x.as_object())
            .into_iter()
            .flatten()
        {
            *new_hits.entry(k.clone()).or_default() +=
                n.get("hits").and_then(|x| x.as_u64()).unwrap_or(0);
        }
        for (o, m) in v
            .get("failures")
            .and_then(|x| x.as_object())
            .into_iter()
            .flatten()
        {
            for (label, n) in m.as_object().into_iter().flatten() {
                *failures
                    .entry(o.clone())
                    .or_default()
                    .entry(label.clone())
                    .or_default() += n.as_u64().unwrap_or(0);
            }
        }
        for (o, n) in v
            .get("oracle_micros")
            .and_then(|x| x.as_object())
            .into_iter()
            .flatten()
        {
            *micros.entry(o.clone()).or_default() += n.as_u64().unwrap_or(0);
        }
    }
    let new_this_run: Vec<&Finding> = r
        .findings
        .iter()
        .filter(|f| !r.findings_before.contains(&f.hash))
        .collect();
    let untriaged: Vec<&Finding> = r
        .findings
        .iter()
        .filter(|f| f.untriaged(&r.known))
        .collect();
    // Promoted findings: the corpus cases whose `source` names the hash.
    let corpus = engine::case::load_dir(&crate::paths::corpus_dir()).unwrap_or_default();
    let promoted = |hash: &str| -> Vec<String> {
        corpus
            .cases
            .iter()
            .filter(|c| c.source.contains(hash))
            .map(|c| c.id.clone())
            .collect()
    };
    let code = if untriaged.is_empty() { 0 } else { 1 };
    let finding_json = |f: &Finding| {
        let min: Value = std::fs::read_to_string(f.dir.join("minimized.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null);
        json!({
            "hash": f.hash, "new": f.new_part(), "signature": f.str("signature"), "target": f.str("target"),
            "hits": f.hits(), "untriaged": f.untriaged(&r.known), "new_this_run": !r.findings_before.contains(&f.hash),
            "minimized": min, "dir": f.dir.strip_prefix(super::root()).unwrap_or(&f.dir).display().to_string(),
            "cases": promoted(&f.hash),
        })
    };
    let per_oracle: Vec<Value> = r
        .artifacts
        .iter()
        .filter(|(_, o, _)| !o.is_empty())
        .map(|(t, o, (c, ti, oom))| {
            let run = r.runs.iter().find(|x| x.target == *t);
            json!({
                "oracle": o, "target": t, "crashes": c, "timeouts": ti, "ooms": oom,
                "libfuzzer_crashes": run.map_or(0, |x| x.crashes), "libfuzzer_timeouts": run.map_or(0, |x| x.timeouts),
                "exceptions": robust_errors.get(o).copied().unwrap_or(0),
                "in_loop_failures": failures.get(o).cloned().unwrap_or_default(),
                "differential_micros": micros.get(o).copied().unwrap_or(0),
            })
        })
        .collect();
    let j = json!({
        "date": day, "started": stamp, "minutes": r.minutes, "jobs": r.jobs,
        "wall_seconds": r.wall_seconds, "fuzz_seconds": r.fuzz_seconds,
        "speed": r.speed.as_ref().map(|s| json!({
            "seconds_per_mode": s.seconds,
            "modes": s.rows.iter().map(|m| json!({
                "mode": m.label, "oracles": m.oracles, "exec_per_sec": m.total(),
                "workers_exec_per_sec": m.workers, "distinct_per_sec": m.distinct_per_sec.round(),
                "lane_wait_share": m.lane_wait, "seconds": m.seconds,
            })).collect::<Vec<_>>(),
        })),
        "coverage": r.coverage.as_ref().map(|c| json!({
            "corpus_files": c.corpus_files, "cov": c.cov, "ft": c.ft,
            "edges_covered": c.edges_covered, "edges_total": c.edges_total,
            "googlebot_edges_covered": c.google_covered, "googlebot_edges_total": c.google_total,
            "googlebot_functions_covered": c.google_functions_covered, "googlebot_functions": c.google_functions,
        })),
        "runs": r.runs.iter().map(run_json).collect::<Vec<_>>(),
        "merges": r.merges.iter().map(|(t, b, a)| json!({"target": t, "before": b, "after": a})).collect::<Vec<_>>(),
        "differential": {"execs": execs, "repeats": repeats, "disagreements": disagreements},
        "per_oracle": per_oracle,
        "known": {"list_signatures": r.known.signatures.len(), "list_cells": r.known.cells.len(), "hits": known_hits},
        "new_signature_hits": new_hits,
        "findings": r.findings.iter().map(finding_json).collect::<Vec<_>>(),
        "untriaged": untriaged.iter().map(|f| f.hash.clone()).collect::<Vec<_>>(),
        "minimised_this_run": r.minimised,
        "exit": code,
    });

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
                "{} untriaged signature(s): {} (exit 1). Promote each with `cargo xtask fuzz minimize` and a ledger entry.",
                untriaged.len(),
                untriaged.iter().map(|f| f.hash.as_str()).collect::<Vec<_>>().join(", ")
            )
        }
    ));
    md.push_str("## Speed\n\n");
    match &r.speed {
        Some(s) => {
            md.push_str(&format!(
                "`differential`, {} s per mode, one mode after the other in this run, same corpus:\n\n\
                 | mode | oracles | exec/s (libFuzzer) | distinct inputs/s reaching the oracles | fuzzing thread waited on the Python lane |\n\
                 |---|---|---|---|---|\n",
                s.seconds
            ));
            for m in &s.rows {
                md.push_str(&format!(
                    "| {} | {} | {}{} | {:.0} | {} |\n",
                    m.label,
                    m.oracles,
                    m.total(),
                    m.workers_text()
                        .map_or(String::new(), |w| format!(" ({w})")),
                    m.distinct_per_sec,
                    m.lane_wait
                        .map_or("-".to_string(), |w| format!("{:.0}%", w * 100.0))
                ));
            }
            md.push_str(
                "\nA repeat is an input whose rendered robots.txt and queries were run moments ago (many \
                 mutations of a structured input render the same file); the harness skips the oracles for it. \
                 The Python lane runs the four Python oracles on a second thread, every input, in order \
                 (fuzz/src/lane.rs); the nightly job uses it when it has a spare core. The last mode leaves \
                 the Python oracles out and is there to show what they cost, not as a way to run.\n\n",
            );
        }
        None => md.push_str("not measured\n\n"),
    }
    md.push_str("## Coverage\n\n");
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
    md.push_str("## Targets\n\n| target | s | execs | exec/s | cov | ft | corpus | oom/timeout/crash | new artifacts crash/timeout/oom |\n|---|---|---|---|---|---|---|---|---|\n");
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
        "\n\nDifferential processes: {execs} inputs, {repeats} repeats skipped, {disagreements} queries with a disagreement.\n\n"
    ));
    md.push_str("## Per oracle\n\n| oracle | robustness crashes | timeouts | ooms | exceptions (robust target) | in-loop failures (differential) | time in differential |\n|---|---|---|---|---|---|---|\n");
    let total_micros: u64 = micros.values().sum::<u64>().max(1);
    for p in &per_oracle {
        let o = p["oracle"].as_str().unwrap_or("");
        let fails = failures
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
            100.0 * micros.get(o).copied().unwrap_or(0) as f64 / total_micros as f64
        ));
    }
    md.push_str(&format!(
        "\n## Signatures\n\nKnown list: {} signatures and {} cell keys, derived from {} corpus queries \
         ({} left out for an unexplained cell); see fuzz/README.md for how a fuzz input is judged explained.\n\n",
        r.known.signatures.len(),
        r.known.cells.len(),
        r.known.queries,
        r.known.unexplained_queries
    ));
    let mut top: Vec<(&String, &u64)> = known_hits.iter().collect();
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
        new_this_run.len(),
        if r.minimised.is_empty() {
            "none".to_string()
        } else {
            r.minimised.join(", ")
        },
        r.findings.len()
    ));
    if !r.findings.is_empty() {
        md.push_str("| finding | new this run | hits | untriaged | new part | corpus case |\n|---|---|---|---|---|---|\n");
        for f in &r.findings {
            let cases = promoted(&f.hash);
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
    }
    // Ignored by git: a plain run changes no tracked file. The nightly
    // workflow uploads this folder; a report worth keeping is copied to
    // reports/fuzz/ by hand, in a commit that says why.
    let dir = super::root().join("reports/run/fuzz");
    let _ = std::fs::create_dir_all(&dir);
    // One report per night; a second run the same day keeps the first.
    let name = if dir.join(format!("{day}.md")).exists() {
        format!("{day}T{}", stamp[11..19].replace(':', ""))
    } else {
        day.clone()
    };
    let mdp = dir.join(format!("{name}.md"));
    let jp = dir.join(format!("{name}.json"));
    let _ = std::fs::write(&mdp, md);
    let _ = std::fs::write(&jp, serde_json::to_string_pretty(&j).unwrap_or_default());
    (code, vec![mdp, jp])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::nightly::SpeedRow;

    #[test]
    fn dates() {
        assert_eq!(super::civil(0), (1970, 1, 1));
        assert_eq!(super::civil(20_000), (2024, 10, 4));
    }

    /// Per-process stats files in the format the fuzz processes write.
    const STATS: &[(&str, &str)] = &[
        (
            "differential-1.json",
            r#"{"target":"differential","pid":1,"oracles":["rfc9309","google","cpython-3.11"],"execs":1000,"repeats":100,"queries":4000,"disagreements":70,"known":{"sig-a":5,"sig-b":2},"new":{"d3d169d53f93":{"new":"google: allowed->disallowed @ allow/star","hits":3}},"failures":{"cpython-3.11":{"error":4}},"lane":["cpython-3.11"],"lane_wait_micros":1500,"oracle_micros":{"rfc9309":300,"google":500,"cpython-3.11":1200}}"#,
        ),
        (
            "differential_bytes-2.json",
            r#"{"target":"differential_bytes","pid":2,"oracles":["rfc9309","google","cpython-3.11"],"execs":500,"repeats":0,"queries":900,"disagreements":9,"known":{"sig-a":1},"new":{},"failures":{},"lane":[],"lane_wait_micros":0,"oracle_micros":{"rfc9309":100,"google":100,"cpython-3.11":100}}"#,
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
            let from = crate::fuzz::committed_findings_dir().join(hash);
            let to = base.join("findings").join(hash);
            std::fs::create_dir_all(&to).unwrap();
            for f in std::fs::read_dir(&from).unwrap().flatten() {
                std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
            }
            findings.push(Finding::load(&to).unwrap());
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
        };
        let mut known = Known {
            stamp: "s".into(),
            queries: 1234,
            unexplained_queries: 5,
            ..Known::default()
        };
        known.signatures.insert("sig-a".into());
        known.cells.insert("b70f7e294b4e-cell".into());
        Report {
            started: SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(978_310_861),
            wall_seconds: 100.4,
            minutes: 1.5,
            jobs: 1,
            fuzz_seconds: 88.8,
            speed: Some(Speed {
                seconds: 10,
                rows: vec![
                    SpeedRow {
                        label: "one".into(),
                        oracles: 3,
                        workers: vec![900],
                        distinct_per_sec: 812.4,
                        lane_wait: Some(0.25),
                        seconds: 10.0,
                    },
                    SpeedRow {
                        label: "two".into(),
                        oracles: 3,
                        workers: vec![400, 450],
                        distinct_per_sec: 700.0,
                        lane_wait: None,
                        seconds: 10.0,
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
        }
    }

    /// The rendered report of a fixed input, compared with the one the
    /// writer produced before it was split up and typed: a change of the
    /// output shows here, whatever the reason.
    #[test]
    fn report_rendering_is_unchanged() {
        let base = crate::paths::root().join("target/fuzz-report-golden");
        let r = fixture(&base);
        let (code, paths) = write(&r);
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
        assert_eq!(md, std::fs::read_to_string(golden.join("report.md")).unwrap());
        assert_eq!(json, std::fs::read_to_string(golden.join("report.json")).unwrap());
    }
}
