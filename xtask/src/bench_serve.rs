//! The serve row of `cargo xtask bench`: `repdiff serve` with every
//! selected oracle under load on loopback (Debian's `wrk`, which setup
//! installs): requests/s, p50 and p99 latency and failed requests at 8 and
//! 64 connections, then one longer run at 64 with the memory of the server
//! and of every worker under it sampled every few seconds, to show whether
//! it stays flat. Each request is the seed's `bot`/`MyBot` check: one
//! question, every oracle.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What wrk's `done` hook prints, one JSON line.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct LoadRun {
    #[serde(default)]
    pub connections: u32,
    pub requests: u64,
    pub duration_us: u64,
    /// Connections refused, reads and writes that failed, timeouts.
    pub connect: u64,
    pub read: u64,
    pub write: u64,
    pub timeout: u64,
    /// Answers with a status outside 2xx/3xx (a 503 from a full queue).
    pub status: u64,
    pub p50_us: u64,
    pub p99_us: u64,
}

impl LoadRun {
    fn failed(&self) -> u64 {
        self.connect + self.read + self.write + self.timeout + self.status
    }

    fn per_second(&self) -> f64 {
        self.requests as f64 / (self.duration_us.max(1) as f64 / 1e6)
    }
}

/// Resident memory at one moment of the long run, in KiB.
#[derive(Debug, Clone, Serialize)]
pub struct MemorySample {
    pub secs: u64,
    pub server_kib: u64,
    pub workers_kib: u64,
}

pub enum ServeRow {
    Ran {
        oracles: usize,
        runs: Vec<LoadRun>,
        memory: Vec<MemorySample>,
        /// Seconds of load before the memory samples began.
        warm_secs: u64,
    },
    Skipped(String),
}

const SCRIPT: &str = r#"wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"robots":"User-agent: bot\\nDisallow: /\\n","agents":["MyBot"],"urls":["https://example.com/"]}'
done = function(summary, latency, requests)
  io.write(string.format('{"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d,"p50_us":%d,"p99_us":%d}\n',
    summary.requests, summary.duration, summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.timeout, summary.errors.status,
    latency:percentile(50), latency:percentile(99)))
end
"#;

/// Seconds of the warm-up run and of each short run before the long one
/// (in a full bench): the JVMs' and Go's heaps reach their working size
/// in the first half minute of load, and the long run should show what
/// comes after.
const WARM_SECS: (u64, u64) = (10, 10);

/// The server, stopped (with its workers) when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn measure(names: &[String], quick: bool) -> ServeRow {
    if !std::path::Path::new("/usr/bin/wrk").is_file() {
        return ServeRow::Skipped(
            "no /usr/bin/wrk (cargo xtask setup installs Debian's wrk)".into(),
        );
    }
    let script =
        std::env::temp_dir().join(format!("repdiff-bench-serve-{}.lua", std::process::id()));
    if let Err(e) = std::fs::write(&script, SCRIPT) {
        return ServeRow::Skipped(format!("cannot write {}: {e}", script.display()));
    }
    let row = run(names, quick, &script);
    let _ = std::fs::remove_file(&script);
    row.unwrap_or_else(ServeRow::Skipped)
}

fn run(names: &[String], quick: bool, script: &std::path::Path) -> Result<ServeRow, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut cmd = Command::new(exe);
    cmd.args(["serve", "--port", "0", "--no-setup", "-q", "--queue", "256"]);
    for n in names {
        cmd.args(["--oracle", n]);
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start serve: {e}"))?;
    let stdout = child.stdout.take().ok_or("serve has no stdout")?;
    let server = Server(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let base = line
        .trim()
        .strip_prefix("repdiff serve: ")
        .ok_or_else(|| format!("serve printed no address: {line:?}"))?
        .to_string();
    let url = format!("{base}api/check");
    let (warm, short) = if quick { (1, 2) } else { WARM_SECS };
    log::info!("bench: serve under load ({url})");
    // Warm up: the first requests start JITs and fill caches.
    wrk(&url, script, 8, warm)?;
    let mut runs = vec![wrk(&url, script, 8, short)?, wrk(&url, script, 64, short)?];
    let long = if quick { 4 } else { 60 };
    let step = if quick { 2 } else { 10 };
    let pid = server.0.id();
    let load = std::thread::scope(|s| {
        let load = s.spawn(|| wrk(&url, script, 64, long));
        let started = Instant::now();
        let mut memory = Vec::new();
        loop {
            let secs = started.elapsed().as_secs();
            let (server_kib, workers_kib) = rss_tree(pid);
            memory.push(MemorySample {
                secs,
                server_kib,
                workers_kib,
            });
            if secs >= long || load.is_finished() {
                break;
            }
            std::thread::sleep(Duration::from_secs(step));
        }
        (load.join(), memory)
    });
    let (long_run, memory) = load;
    runs.push(long_run.map_err(|_| "the wrk thread panicked".to_string())??);
    let oracles = names.len();
    drop(server);
    Ok(ServeRow::Ran {
        oracles,
        runs,
        memory,
        warm_secs: warm + 2 * short,
    })
}

fn wrk(
    url: &str,
    script: &std::path::Path,
    connections: u32,
    secs: u64,
) -> Result<LoadRun, String> {
    let out = Command::new("/usr/bin/wrk")
        .arg(format!("-t{}", connections.min(2)))
        .arg(format!("-c{connections}"))
        .arg(format!("-d{secs}s"))
        .arg("-s")
        .arg(script)
        .arg(url)
        .output()
        .map_err(|e| format!("cannot run wrk: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().rfind(|l| l.starts_with('{')).ok_or_else(|| {
        format!(
            "wrk printed no summary: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let mut run: LoadRun =
        serde_json::from_str(line).map_err(|e| format!("wrk's summary {line:?}: {e}"))?;
    run.connections = connections;
    Ok(run)
}

/// Resident KiB of `pid` and of every process below it (its workers and
/// what they started), from /proc.
fn rss_tree(pid: u32) -> (u64, u64) {
    let mut parent: Vec<(u32, u32)> = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Some(p) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).unwrap_or_default();
            // The field after the command (which may hold spaces) in parentheses.
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|s| s.parse().ok());
            if let Some(ppid) = ppid {
                parent.push((p, ppid));
            }
        }
    }
    let mut below = vec![pid];
    let mut i = 0;
    while i < below.len() {
        let p = below[i];
        below.extend(parent.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    let rss = |p: u32| {
        std::fs::read_to_string(format!("/proc/{p}/status"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmRSS:"))
                    .and_then(|v| {
                        v.split_whitespace()
                            .next()
                            .and_then(|n| n.parse::<u64>().ok())
                    })
            })
            .unwrap_or(0)
    };
    (rss(pid), below[1..].iter().map(|p| rss(*p)).sum())
}

pub fn to_markdown(row: &ServeRow) -> String {
    let mut md = String::from("\n## `repdiff serve` under load\n\n");
    let (oracles, runs, memory, warm_secs) = match row {
        ServeRow::Skipped(why) => {
            let _ = writeln!(md, "Not run: {why}.");
            return md;
        }
        ServeRow::Ran {
            oracles,
            runs,
            memory,
            warm_secs,
        } => (oracles, runs, memory, warm_secs),
    };
    let _ = writeln!(
        md,
        "`POST /api/check` with the seed's bot/MyBot file (one question, {oracles} oracles, 2 panels), \
         by wrk on loopback on this machine's cores, shared with the server and its workers.\n"
    );
    md.push_str("| connections | seconds | requests | requests/s | p50 | p99 | failed |\n|---|---|---|---|---|---|---|\n");
    for r in runs {
        let _ = writeln!(
            md,
            "| {} | {:.0} | {} | {:.0} | {:.1} ms | {:.1} ms | {} |",
            r.connections,
            r.duration_us as f64 / 1e6,
            r.requests,
            r.per_second(),
            r.p50_us as f64 / 1e3,
            r.p99_us as f64 / 1e3,
            r.failed()
        );
    }
    md.push_str("\nResident memory during the last run (server / its workers, MiB): ");
    let samples: Vec<String> = memory
        .iter()
        .map(|m| {
            format!(
                "{} s {:.0} / {:.0}",
                m.secs,
                m.server_kib as f64 / 1024.0,
                m.workers_kib as f64 / 1024.0
            )
        })
        .collect();
    md.push_str(&samples.join("; "));
    md.push_str(".\n");
    if let (Some(first), Some(last)) = (memory.first(), memory.last()) {
        let total = |m: &MemorySample| (m.server_kib + m.workers_kib) as f64 / 1024.0;
        let grew = total(last) - total(first);
        let _ = writeln!(
            md,
            "\nFrom the first sample to the last ({} s, after {} s of load that warmed every runtime): {:+.1} MiB in all ({:+.1}%).",
            last.secs.saturating_sub(first.secs),
            warm_secs,
            grew,
            100.0 * grew / total(first).max(1.0)
        );
    }
    md
}

pub fn to_json(row: &ServeRow) -> Value {
    match row {
        ServeRow::Skipped(why) => json!({"ran": false, "reason": why}),
        ServeRow::Ran {
            oracles,
            runs,
            memory,
            warm_secs,
        } => json!({
            "ran": true,
            "oracles": oracles,
            "runs": runs,
            "memory": memory,
            "warm_secs": warm_secs,
        }),
    }
}
