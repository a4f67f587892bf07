//! Run one libFuzzer binary, stream and parse its output, show progress.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What libFuzzer said about a run (the last status line and final stats).
#[derive(Debug, Clone, Default)]
pub struct RunStats {
    pub target: String,
    pub seconds: f64,
    pub execs: u64,
    pub exec_per_sec: u64,
    pub cov: u64,
    pub ft: u64,
    pub corpus: u64,
    pub ooms: u64,
    pub timeouts: u64,
    pub crashes: u64,
    pub exit: Option<i32>,
    /// Times xtask started the process again after it stopped early
    /// ([`restarting`]); 0 for a run started once.
    pub restarts: u64,
    /// libFuzzer said `INITED`: it had read its corpus and was fuzzing.
    pub inited: bool,
    /// How the process said it died, when it did (its last `ERROR:` line).
    pub death: Option<Death>,
}

/// What ended a libFuzzer process early, from its `ERROR:` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Death {
    Crash,
    Timeout,
    Oom,
}

impl Death {
    /// The kind an `ERROR:` line of libFuzzer or a sanitizer names.
    fn of(line: &str) -> Option<Death> {
        let i = line
            .find("ERROR: libFuzzer: ")
            .or_else(|| line.find("ERROR: AddressSanitizer"))?;
        let what = &line[i..];
        Some(if what.contains("timeout") {
            Death::Timeout
        } else if what.contains("out-of-memory") {
            Death::Oom
        } else {
            Death::Crash
        })
    }
}

fn field(line: &str, key: &str) -> Option<u64> {
    let i = line.find(key)? + key.len();
    let rest = line[i..].trim_start_matches([':', ' ']);
    let num: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    num.parse().ok()
}

/// Fold one line of libFuzzer output into `s`.
pub fn parse_line(s: &mut RunStats, line: &str) {
    let l = line.trim();
    if let Some(d) = Death::of(l) {
        s.death = Some(d);
    }
    if let Some(rest) = l.strip_prefix('#') {
        if l.contains("INITED") {
            s.inited = true;
        }
        // `#N\tpulse  cov: ...` (one process) or `#N: cov: ...` (fork mode)
        let n: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        if let Ok(n) = n.parse::<u64>() {
            if l.contains("cov:") {
                s.execs = s.execs.max(n);
                if let Some(v) = field(l, "cov:") {
                    s.cov = v;
                }
                if let Some(v) = field(l, "ft:") {
                    s.ft = v;
                }
                if let Some(v) = field(l, "corp:") {
                    s.corpus = v;
                }
                if let Some(v) = field(l, "exec/s") {
                    s.exec_per_sec = v;
                }
                if let Some(i) = l.find("oom/timeout/crash:") {
                    let parts: Vec<u64> = l[i + 18..]
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .split('/')
                        .filter_map(|x| x.parse().ok())
                        .collect();
                    if let [o, t, c] = parts[..] {
                        s.ooms = o;
                        s.timeouts = t;
                        s.crashes = c;
                    }
                }
            }
        }
    } else if let Some(v) = l.strip_prefix("stat::number_of_executed_units:") {
        if let Ok(v) = v.trim().parse() {
            s.execs = v;
        }
    } else if let Some(v) = l.strip_prefix("stat::average_exec_per_sec:") {
        if let Ok(v) = v.trim().parse() {
            s.exec_per_sec = v;
        }
    }
}

/// How a run is launched.
pub struct Launch<'a> {
    pub target: &'a str,
    pub bin: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub seconds: u64,
    pub log: PathBuf,
    /// Working directory (libFuzzer writes `-jobs` logs there).
    pub cwd: PathBuf,
}

/// Run to completion (or the deadline plus a grace period), printing a
/// progress line every `every`. `extra` adds to the progress line.
pub fn run(
    l: &Launch<'_>,
    every: Duration,
    extra: &dyn Fn() -> String,
) -> Result<RunStats, String> {
    if let Some(p) = l.log.parent() {
        let _ = std::fs::create_dir_all(p);
    }
    let _ = std::fs::create_dir_all(&l.cwd);
    let mut cmd = Command::new(&l.bin);
    cmd.args(&l.args)
        .current_dir(&l.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in &l.env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", l.bin.display()))?;
    let stats = Arc::new(Mutex::new(RunStats {
        target: l.target.to_string(),
        ..RunStats::default()
    }));
    let log = Arc::new(Mutex::new(
        std::fs::File::create(&l.log).map_err(|e| format!("{}: {e}", l.log.display()))?,
    ));
    let mut readers = Vec::new();
    let pipes: Vec<Box<dyn std::io::Read + Send>> = vec![
        Box::new(child.stderr.take().expect("piped")),
        Box::new(child.stdout.take().expect("piped")),
    ];
    for pipe in pipes {
        let stats = Arc::clone(&stats);
        let log = Arc::clone(&log);
        readers.push(std::thread::spawn(move || {
            use std::io::Write;
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                if let Ok(mut f) = log.lock() {
                    let _ = writeln!(f, "{line}");
                }
                if let Ok(mut s) = stats.lock() {
                    parse_line(&mut s, &line);
                }
            }
        }));
    }
    let started = Instant::now();
    let deadline = Duration::from_secs(l.seconds + 60);
    let mut last = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) => {}
            Err(_) => break None,
        }
        if started.elapsed() > deadline {
            log::warn!("[{}] past its deadline: stopping it", l.target);
            let _ = child.kill();
            break child.wait().ok();
        }
        if last.elapsed() >= every {
            last = Instant::now();
            if let Ok(s) = stats.lock() {
                log::info!(
                    "{}",
                    progress_line(&s, started.elapsed(), l.seconds, &extra())
                );
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    for r in readers {
        let _ = r.join();
    }
    let mut s = stats.lock().map(|s| s.clone()).unwrap_or_default();
    s.seconds = started.elapsed().as_secs_f64();
    s.exit = status.and_then(|st| st.code());
    Ok(s)
}

/// How [`restarting`] spends a run's time.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Seconds in all.
    pub seconds: u64,
    /// No process is started for less than this: its start (the workers,
    /// the corpus read back) would take most of it.
    pub min_start: u64,
    /// Starts in a row that die before libFuzzer is fuzzing (`INITED`) end
    /// the run: something in the corpus or the set-up kills every start.
    pub dead_starts: u64,
}

/// A plain (one-process) libFuzzer run kept going for `budget.seconds`: a
/// crash, a timeout or an OOM ends a plain process (its artifact written,
/// the corpus and findings on disk kept), so whenever one stops with time
/// left it is started again for the time left. `start(seconds, n)` runs
/// the `n`-th process (from 0) for at most `seconds`. The time spent is
/// what each process took (`RunStats::seconds`, measured by [`run`]), so
/// the accounting needs no clock of its own. The processes folded into
/// one: their execs and seconds added, each death counted by its kind.
pub fn restarting(
    budget: &Budget,
    mut start: impl FnMut(u64, u64) -> Result<RunStats, String>,
) -> Result<RunStats, String> {
    let mut total = RunStats::default();
    let mut dead_in_a_row = 0;
    for n in 0.. {
        let left = (budget.seconds as f64 - total.seconds).floor();
        if n > 0 && left < budget.min_start.max(1) as f64 {
            break;
        }
        let s = match start(left.max(1.0) as u64, n) {
            Ok(s) => s,
            Err(e) if n == 0 => return Err(e),
            Err(e) => {
                log::warn!("cannot start it again: {e}");
                break;
            }
        };
        fold_next(&mut total, &s, n);
        dead_in_a_row = if s.inited { 0 } else { dead_in_a_row + 1 };
        if dead_in_a_row >= budget.dead_starts.max(1) {
            log::warn!(
                "[{}] {dead_in_a_row} starts in a row died before fuzzing: not starting it again",
                s.target
            );
            break;
        }
        let left = budget.seconds as f64 - total.seconds;
        // Exit 0: libFuzzer ran its -max_total_time out.
        if s.exit != Some(0) && left >= budget.min_start.max(1) as f64 {
            log::info!(
                "  [{}] stopped after {:.0} s (exit {:?}, {}): starting it again for the {:.0} s left",
                s.target,
                s.seconds,
                s.exit,
                s.death.map_or("no ERROR line", Death::name),
                left
            );
        }
    }
    Ok(total)
}

impl Death {
    pub fn name(self) -> &'static str {
        match self {
            Death::Crash => "crash",
            Death::Timeout => "timeout",
            Death::Oom => "out-of-memory",
        }
    }
}

/// Fold the `n`-th process of a restarted run into `total`.
fn fold_next(total: &mut RunStats, s: &RunStats, n: u64) {
    if n == 0 {
        total.target.clone_from(&s.target);
    }
    total.seconds += s.seconds;
    total.execs += s.execs;
    total.exec_per_sec = if total.seconds > 0.0 {
        (total.execs as f64 / total.seconds).round() as u64
    } else {
        0
    };
    total.cov = total.cov.max(s.cov);
    total.ft = total.ft.max(s.ft);
    total.corpus = total.corpus.max(s.corpus);
    if s.exit != Some(0) {
        match s.death {
            Some(Death::Timeout) => total.timeouts += 1,
            Some(Death::Oom) => total.ooms += 1,
            Some(Death::Crash) | None => total.crashes += 1,
        }
    }
    total.restarts = n;
    total.inited |= s.inited;
    total.exit = s.exit;
    total.death = s.death.or(total.death);
}

/// Runs of one target side by side (`--jobs` plain processes), folded:
/// execs and deaths added, the wall time the longest one's.
pub fn fold_parallel(target: &str, runs: &[RunStats]) -> RunStats {
    let mut t = RunStats {
        target: target.to_string(),
        ..RunStats::default()
    };
    for r in runs {
        t.seconds = t.seconds.max(r.seconds);
        t.execs += r.execs;
        t.cov = t.cov.max(r.cov);
        t.ft = t.ft.max(r.ft);
        t.corpus = t.corpus.max(r.corpus);
        t.ooms += r.ooms;
        t.timeouts += r.timeouts;
        t.crashes += r.crashes;
        t.restarts += r.restarts;
        t.inited |= r.inited;
        t.exit = t.exit.or(r.exit);
        t.death = t.death.or(r.death);
    }
    if t.seconds > 0.0 {
        t.exec_per_sec = (t.execs as f64 / t.seconds).round() as u64;
    }
    t
}

/// One progress line of a run, from what its log has said so far.
fn progress_line(s: &RunStats, elapsed: Duration, seconds: u64, extra: &str) -> String {
    let clock = format!("{}/{}", mmss(elapsed.as_secs()), mmss(seconds));
    // Nothing from libFuzzer yet, or (-jobs) its workers write elsewhere:
    // say what is known.
    if s.execs == 0 && s.cov == 0 {
        return format!(
            "  [{}] {clock} no status in the main log yet{extra}",
            s.target
        );
    }
    format!(
        "  [{}] {clock} execs {} ({}/s) cov {} corpus {} oom/timeout/crash {}/{}/{}{extra}",
        s.target, s.execs, s.exec_per_sec, s.cov, s.corpus, s.ooms, s.timeouts, s.crashes,
    )
}

pub fn mmss(secs: u64) -> String {
    format!("{}:{:02}", secs / 60, secs % 60)
}

/// Files in `dir` whose name starts with `prefix`, modified at or after `since`.
pub fn count_new(dir: &Path, prefix: &str, since: std::time::SystemTime) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                .filter(|e| {
                    e.metadata()
                        .and_then(|m| m.modified())
                        .is_ok_and(|t| t >= since)
                })
                .count() as u64
        })
        .unwrap_or(0)
}

/// Does `target` run as plain libFuzzer processes that xtask starts again
/// after a crash, a timeout or an OOM ([`restarting`]), rather than
/// in libFuzzer's fork mode? `differential`: each fork child started every
/// worker process again (three JVMs among them) and early children live
/// seconds, which cost the nightly half its rate (754 distinct inputs/s
/// reaching every oracle at 2,482 µs of CPU each, against 1,481/s at
/// 1,115 µs for one plain process, issue 51). The other targets keep fork
/// mode.
pub fn plain_processes(target: &str) -> bool {
    target == "differential"
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in for a libFuzzer process (no fuzzing, no oracle) that
    /// crashes `every` seconds into each start, or runs its time out
    /// (exit 0) when given no more than that: (seconds asked of each start,
    /// the starts folded).
    fn fake_fuzzer_crashing_every(every: f64, budget: Budget) -> (Vec<u64>, RunStats) {
        let mut asked = Vec::new();
        let total = restarting(&budget, |secs, n| {
            asked.push(secs);
            let crashes = secs as f64 > every;
            Ok(RunStats {
                target: "fake".into(),
                seconds: if crashes { every } else { secs as f64 },
                execs: 100 + n,
                cov: 10 + n,
                inited: true,
                exit: Some(if crashes { 77 } else { 0 }),
                death: crashes.then_some(Death::Crash),
                ..RunStats::default()
            })
        })
        .unwrap();
        (asked, total)
    }

    #[test]
    fn an_early_exit_is_started_again_for_the_time_left() {
        let budget = Budget {
            seconds: 100,
            min_start: 10,
            dead_starts: 3,
        };
        let (asked, t) = fake_fuzzer_crashing_every(30.0, budget);
        // 30 + 30 + 30 s crashing, then the last 10 s run out.
        assert_eq!(asked, vec![100, 70, 40, 10]);
        assert_eq!(t.seconds, 100.0);
        assert_eq!((t.crashes, t.timeouts, t.ooms), (3, 0, 0));
        assert_eq!(t.restarts, 3);
        assert_eq!(t.execs, 100 + 101 + 102 + 103);
        assert_eq!(t.exec_per_sec, 4);
        assert_eq!(t.cov, 13);
        assert_eq!(t.exit, Some(0));
        assert_eq!(t.target, "fake");
    }

    #[test]
    fn no_start_for_less_than_its_minimum() {
        let budget = Budget {
            seconds: 100,
            min_start: 15,
            dead_starts: 3,
        };
        let (asked, t) = fake_fuzzer_crashing_every(30.0, budget);
        // After 90 s the 10 s left are less than a start's 15.
        assert_eq!(asked, vec![100, 70, 40]);
        assert_eq!(t.seconds, 90.0);
        assert_eq!(t.crashes, 3);
        assert_eq!(t.restarts, 2);
    }

    #[test]
    fn a_run_that_uses_its_time_is_started_once() {
        let budget = Budget {
            seconds: 100,
            min_start: 10,
            dead_starts: 3,
        };
        let (asked, t) = fake_fuzzer_crashing_every(1000.0, budget);
        assert_eq!(asked, vec![100]);
        assert_eq!((t.seconds, t.crashes, t.restarts), (100.0, 0, 0));
    }

    #[test]
    fn starts_that_die_before_fuzzing_end_the_run() {
        let budget = Budget {
            seconds: 100,
            min_start: 10,
            dead_starts: 3,
        };
        let mut starts = 0;
        let t = restarting(&budget, |_, _| {
            starts += 1;
            Ok(RunStats {
                seconds: 2.0,
                exit: Some(1),
                death: Some(Death::Oom),
                ..RunStats::default()
            })
        })
        .unwrap();
        assert_eq!(starts, 3);
        assert_eq!((t.seconds, t.ooms, t.restarts), (6.0, 3, 2));
    }

    /// The real path: a fake libFuzzer (a shell script printing what a
    /// crashing libFuzzer prints, then exiting 77) run by [`run`] through
    /// pipes and a log, restarted; each start counted as 30 s so the
    /// accounting does not depend on how fast the script is.
    #[test]
    fn a_fake_libfuzzer_that_crashes_is_restarted_and_its_deaths_counted() {
        let dir = std::env::temp_dir().join(format!("xtask-fake-libfuzzer-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let script = "printf '#2\\tINITED cov: 5 ft: 6 corp: 3/9b exec/s: 0 rss: 40Mb\\n' >&2; \
                      printf '#40\\tNEW    cov: 7 ft: 8 corp: 4/12b lim: 4 exec/s: 40 rss: 41Mb\\n' >&2; \
                      printf '==9== ERROR: libFuzzer: timeout after 10 seconds\\n' >&2; exit 70";
        let budget = Budget {
            seconds: 100,
            min_start: 10,
            dead_starts: 3,
        };
        let mut logs = Vec::new();
        let t = restarting(&budget, |secs, n| {
            let launch = Launch {
                target: "fake-libfuzzer",
                bin: "/bin/sh".into(),
                args: vec![
                    "-c".into(),
                    script.into(),
                    format!("-max_total_time={secs}"),
                ],
                env: Vec::new(),
                seconds: secs,
                log: dir.join(format!("start-{n}.log")),
                cwd: dir.clone(),
            };
            logs.push(launch.log.clone());
            let mut s = run(&launch, Duration::from_secs(3600), &String::new)?;
            s.seconds = 30.0;
            Ok(s)
        })
        .unwrap();
        assert_eq!(logs.len(), 4, "starts: {logs:?}");
        assert_eq!((t.timeouts, t.crashes, t.ooms), (4, 0, 0));
        assert_eq!((t.execs, t.cov, t.ft, t.corpus), (160, 7, 8, 4));
        assert_eq!(t.exit, Some(70));
        assert!(t.inited);
        let log = std::fs::read_to_string(&logs[3]).unwrap();
        assert!(log.contains("ERROR: libFuzzer: timeout"), "{log}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn jobs_side_by_side_add_their_execs_over_the_longest_wall_time() {
        let job = |seconds: f64, execs: u64, crashes: u64, restarts: u64| RunStats {
            target: "fake job".into(),
            seconds,
            execs,
            crashes,
            restarts,
            cov: execs / 10,
            exit: Some(0),
            inited: true,
            ..RunStats::default()
        };
        let t = fold_parallel(
            "differential",
            &[job(100.0, 5000, 1, 1), job(98.0, 3000, 0, 0)],
        );
        assert_eq!(t.target, "differential");
        assert_eq!((t.seconds, t.execs, t.exec_per_sec), (100.0, 8000, 80));
        assert_eq!((t.crashes, t.restarts, t.cov), (1, 1, 500));
    }

    #[test]
    fn error_lines_name_the_death() {
        for (line, death) in [
            ("==12== ERROR: libFuzzer: deadly signal", Some(Death::Crash)),
            (
                "==12== ERROR: libFuzzer: timeout after 10 seconds",
                Some(Death::Timeout),
            ),
            (
                "==12== ERROR: libFuzzer: out-of-memory (used: 3100Mb; exceeds: 3072Mb)",
                Some(Death::Oom),
            ),
            (
                "==12==ERROR: AddressSanitizer: heap-buffer-overflow on address",
                Some(Death::Crash),
            ),
            (
                "==12== ERROR: libFuzzer: fuzz target exited",
                Some(Death::Crash),
            ),
            (
                "#1024\tpulse  cov: 9 ft: 9 corp: 1/1b exec/s: 512 rss: 40Mb",
                None,
            ),
        ] {
            let mut s = RunStats::default();
            parse_line(&mut s, line);
            assert_eq!(s.death, death, "{line}");
        }
    }

    #[test]
    fn parses_both_status_line_shapes() {
        let mut s = RunStats::default();
        parse_line(
            &mut s,
            "#65536\tpulse  cov: 4484 ft: 10743 corp: 1164/18Kb lim: 29 exec/s: 1638 rss: 59Mb",
        );
        assert_eq!(
            (s.execs, s.cov, s.ft, s.corpus, s.exec_per_sec),
            (65536, 4484, 10743, 1164, 1638)
        );
        parse_line(
            &mut s,
            "#123456: cov: 5000 ft: 12000 corp: 1300 exec/s 4100 oom/timeout/crash: 0/2/1 time: 61s job: 9 dft_time: 0",
        );
        assert_eq!(
            (s.execs, s.cov, s.exec_per_sec, s.timeouts, s.crashes),
            (123456, 5000, 4100, 2, 1)
        );
        parse_line(&mut s, "stat::average_exec_per_sec:     3400");
        assert_eq!(s.exec_per_sec, 3400);
    }
}
