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
    if let Some(rest) = l.strip_prefix('#') {
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
            eprintln!("  [{}] past its deadline: stopping it", l.target);
            let _ = child.kill();
            break child.wait().ok();
        }
        if last.elapsed() >= every {
            last = Instant::now();
            if let Ok(s) = stats.lock() {
                eprintln!(
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

#[cfg(test)]
mod tests {
    use super::*;

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
