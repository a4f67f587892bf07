//! The parsers' own speed, beside repdiff's: for one oracle, the library
//! in a loop of its own runtime over a census sample's exact files and
//! questions, and the same files through the oracle's repdiff worker.
//!
//! "direct" is CPU time of the library's calls only: the speed loop of the
//! oracle's manifest (`loop:`, oracles/harness/README.md; each file parsed
//! once as the library's users parse it, fed as the harness feeds it, the
//! input read and decoded before the clock starts), the Python loop of a
//! built-in Python oracle (oracles/src/python/speed_loop.py), or for a
//! built-in Rust one its adapter called in this process. "through repdiff"
//! is the worker's CPU (its process group, from /proc; parser, harness,
//! JSON) plus the CPU of the thread driving it (encoding, pipes, decoding),
//! from the first call to the last. Every question's answer is compared
//! letter by letter: a loop that answers differently is not timing the same
//! work. `cargo xtask bench` tabulates it; `tests/it/speed_loops.rs` holds
//! every loop to its harness's answers.

use engine::oracle::{Ask, Oracle, Outcome, Query};
use engine::worker::{cpu, Limits};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Built-in Python oracles and their loop: (oracle, venv under the cache,
/// library as `speed_loop.py` names it).
const PYTHON_LOOPS: &[(&str, &str, &str)] = &[
    ("cpython-3.11", "venv", "cpython"),
    ("protego", "venv", "protego"),
    ("protego-0.6.1", "venv-protego-0.6.1", "protego"),
];

/// One oracle's two sides.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DirectRow {
    pub oracle: String,
    /// What ran the direct side (`loop.rb`, `speed_loop.py`, the adapter in
    /// this process); `None` when the oracle has no direct side yet.
    pub direct_how: Option<String>,
    pub direct_cpu: Option<f64>,
    pub worker_cpu: Option<f64>,
    pub driver_cpu: Option<f64>,
    /// Questions the two sides answered differently.
    pub differ: Option<usize>,
    pub error: Option<String>,
}

/// The census row's sample, as files with their questions, and the same
/// written as `repdiff census queries` writes it (for the loops).
static SAMPLES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

pub struct Sample {
    pub files: Vec<(Vec<u8>, Vec<Query>)>,
    pub jsonl: PathBuf,
}

impl Drop for Sample {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.jsonl);
    }
}

/// The first `limit` records of the census's default input (those with a
/// 2xx status), with every question the census derives, in memory and as
/// `repdiff census queries` writes them (a temporary file, removed on drop).
/// The hint names [`DEFAULT_PROGRAM`](crate::shared::DEFAULT_PROGRAM).
// String error: xtask's bench shares it and prints the message as is.
pub fn sample(limit: u64) -> Result<Sample, String> {
    sample_for(crate::shared::DEFAULT_PROGRAM, limit)
}

/// [`sample`], the hint naming `program` (the [`crate::shared::Host`]'s).
// String error: xtask's bench shares it and prints the message as is.
pub fn sample_for(program: &str, limit: u64) -> Result<Sample, String> {
    let dir = crate::datasets::census_data::dir(&oracles::cache_dir());
    if !crate::datasets::census_data::present(&dir) {
        return Err(format!(
            "no census data at {} (`{program} setup` fetches it)",
            dir.display(),
        ));
    }
    sample_of(&[dir], Some(limit))
}

/// [`sample`] of any census input: what `census --floor` hands the loops,
/// so they answer exactly the questions the census just asked.
// String error: xtask's bench shares it and prints the message as is.
pub fn sample_of(inputs: &[PathBuf], limit: Option<u64>) -> Result<Sample, String> {
    let (text, files) = queries(inputs, limit)?;
    Sample::written(text, files)
}

impl Sample {
    /// A sample of any files and questions, not only the census's (the
    /// fuzzer's generated inputs, for `cargo xtask fuzz lane-cost`): the
    /// loops get them in the census's format, each file named by its
    /// position. Only can_fetch questions are kept, the only ask the loops
    /// answer; every line says `rule-match` as its census kind, which no
    /// loop reads (they read `body_hex`, `agent` and `url`).
    // String error: xtask prints the message as is.
    pub fn from_pairs(pairs: Vec<(Vec<u8>, Vec<Query>)>) -> Result<Sample, String> {
        let mut text = Vec::new();
        let mut files = Vec::with_capacity(pairs.len());
        for (i, (body, queries)) in pairs.into_iter().enumerate() {
            let asked: Vec<census::queries::Asked> = queries
                .into_iter()
                .filter(|q| q.ask == Ask::CanFetch)
                .map(|query| census::queries::Asked {
                    query,
                    kind: census::queries::Kind::RuleMatch,
                    whole_site: false,
                    unrequested: false,
                })
                .collect();
            let name = format!("input-{i}");
            let line = census::queries::FileQueries::new(&name, "example.com", &body, &asked);
            serde_json::to_writer(&mut text, &line).map_err(|e| e.to_string())?;
            text.push(b'\n');
            files.push((body, asked.into_iter().map(|a| a.query).collect()));
        }
        Sample::written(text, files)
    }

    /// `files` in memory and `text` (their JSON lines) in a temporary file
    /// of their own, removed on drop.
    fn written(text: Vec<u8>, files: Vec<(Vec<u8>, Vec<Query>)>) -> Result<Sample, String> {
        let jsonl = std::env::temp_dir().join(format!(
            "repdiff-speed-queries-{}-{}.jsonl",
            std::process::id(),
            SAMPLES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::write(&jsonl, &text).map_err(|e| format!("{}: {e}", jsonl.display()))?;
        Ok(Sample { files, jsonl })
    }

    /// The same sample without the files whose indices are in `drop`.
    // String error: xtask's bench shares it and prints the message as is.
    pub fn without(&self, drop: &std::collections::BTreeSet<usize>) -> Result<Sample, String> {
        let kept = self
            .files
            .iter()
            .enumerate()
            .filter(|(i, _)| !drop.contains(i))
            .map(|(_, f)| f.clone())
            .collect();
        Sample::from_pairs(kept)
    }

    /// Questions over all files.
    pub fn questions(&self) -> usize {
        self.files.iter().map(|(_, q)| q.len()).sum()
    }
}

/// The census's questions for the first `limit` records of `inputs` that
/// have a 2xx status: one JSON line per file (`census::queries::FileQueries`,
/// what `repdiff census queries` writes), and each file's body and queries.
pub type Asked = (Vec<u8>, Vec<(Vec<u8>, Vec<Query>)>);

// String error: xtask's bench shares it and prints the message as is.
pub fn queries(inputs: &[PathBuf], limit: Option<u64>) -> Result<Asked, String> {
    let records = census::input::open(inputs).map_err(|e| e.0)?;
    let mut text = Vec::new();
    let mut files = Vec::new();
    for r in records.take(usize::try_from(limit.unwrap_or(u64::MAX)).unwrap_or(usize::MAX)) {
        let r = r.map_err(|e| e.0)?;
        if r.status.is_some_and(|s| !(200..300).contains(&s)) {
            continue;
        }
        let asked = census::queries::derive(&r.host, &r.body);
        let line = census::queries::FileQueries::new(&r.name, &r.host, &r.body, &asked);
        serde_json::to_writer(&mut text, &line).map_err(|e| e.to_string())?;
        text.push(b'\n');
        files.push((r.body, asked.into_iter().map(|a| a.query).collect()));
    }
    Ok((text, files))
}

fn letter(outcome: &Outcome) -> char {
    match outcome {
        Outcome::Allowed => 'a',
        Outcome::Disallowed => 'd',
        _ => 'e',
    }
}

/// How the worker side is asked: as the census asks (built-ins in workers
/// of their own, one call per file), or as the fuzz loop asks (built-ins in
/// this process, as the fuzz targets run them inline or on the Python
/// lane; an external worker given [`Oracle::run_many`] over `n` files at a
/// time, as fuzzcore's lanes hand on `lane::BATCH` inputs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calls {
    Census,
    FuzzLane(usize),
}

/// Every file through `o`: the letters, and the CPU of this thread and of
/// the oracle's processes over the calls.
fn through(o: &mut dyn Oracle, s: &Sample, calls: Calls) -> (String, Duration, Option<Duration>) {
    let worker0 = o.process_cpu();
    let driver0 = cpu::of_this_thread();
    let mut letters = String::new();
    match calls {
        Calls::Census => {
            for (body, queries) in &s.files {
                letters.extend(o.run(body, queries).iter().map(|a| letter(&a.outcome)));
            }
        }
        Calls::FuzzLane(n) => {
            for chunk in s.files.chunks(n.max(1)) {
                let inputs: Vec<(&[u8], &[Query])> = chunk
                    .iter()
                    .map(|(b, q)| (b.as_slice(), q.as_slice()))
                    .collect();
                for answers in o.run_many(&inputs) {
                    letters.extend(answers.iter().map(|a| letter(&a.outcome)));
                }
            }
        }
    }
    let driver = cpu::of_this_thread().saturating_sub(driver0);
    let worker = o
        .process_cpu()
        .zip(worker0)
        .map(|(b, a)| b.saturating_sub(a));
    (letters, driver, worker)
}

/// Both sides of `name` over `s`, one after the other.
pub fn measure_one(name: &str, s: &Sample) -> DirectRow {
    measure_with(name, s, Calls::Census)
}

/// The files of `s` on which `name`'s worker, under `limits`, answered
/// some question `timeout`. A library that does not end on an input
/// (crawler4j's and webrobots' backtracking regexes, met by the fuzz
/// corpus) holds its own loop, which has no time limit, for good: such
/// inputs are left out of a measurement (and said to be).
pub fn hanging_inputs(
    name: &str,
    s: &Sample,
    calls: Calls,
    limits: Limits,
) -> std::collections::BTreeSet<usize> {
    let in_process = matches!(calls, Calls::FuzzLane(_));
    let mut sel = crate::select::start(&[name.to_string()], &[], in_process, limits);
    let mut hang = std::collections::BTreeSet::new();
    let Some(worker) = sel.oracles.first_mut() else {
        return hang;
    };
    worker.skip_explanations();
    let n = match calls {
        Calls::Census => 1,
        Calls::FuzzLane(n) => n.max(1),
    };
    for (c, chunk) in s.files.chunks(n).enumerate() {
        let inputs: Vec<(&[u8], &[Query])> = chunk
            .iter()
            .map(|(b, q)| (b.as_slice(), q.as_slice()))
            .collect();
        for (i, answers) in worker.run_many(&inputs).iter().enumerate() {
            if answers.iter().any(|a| a.outcome == Outcome::Timeout) {
                hang.insert(c * n + i);
            }
        }
    }
    hang
}

/// [`measure_one`], the worker asked as `calls` says.
pub fn measure_with(name: &str, s: &Sample, calls: Calls) -> DirectRow {
    measure_with_limits(name, s, calls, Limits::default())
}

/// [`measure_with`], the worker started with `limits`.
pub fn measure_with_limits(name: &str, s: &Sample, calls: Calls, limits: Limits) -> DirectRow {
    let mut row = DirectRow {
        oracle: name.to_string(),
        direct_how: None,
        direct_cpu: None,
        worker_cpu: None,
        driver_cpu: None,
        differ: None,
        error: None,
    };
    let in_process = matches!(calls, Calls::FuzzLane(_));
    let mut sel = crate::select::start(&[name.to_string()], &[], in_process, limits);
    let Some(worker) = sel.oracles.first_mut() else {
        row.error = Some(format!("{name} did not start"));
        return row;
    };
    worker.skip_explanations(); // as the census asks
    let (theirs, driver, worker_cpu) = through(worker.as_mut(), s, calls);
    drop(sel);
    row.driver_cpu = Some(driver.as_secs_f64());
    row.worker_cpu = worker_cpu.map(|w| w.as_secs_f64());
    let direct = match direct_side(name, s) {
        Ok(Some(d)) => d,
        Ok(None) => return row,
        Err(e) => {
            row.error = Some(e);
            return row;
        }
    };
    row.direct_how = Some(direct.how);
    row.direct_cpu = Some(direct.cpu);
    row.differ = Some(differences(&theirs, &direct.letters));
    row
}

fn differences(a: &str, b: &str) -> usize {
    let common = a.chars().zip(b.chars()).filter(|(x, y)| x != y).count();
    common + a.chars().count().abs_diff(b.chars().count())
}

/// The longest a library's own loop may run: the longest census sample
/// takes a few minutes; a loop past this is stuck on an input its library
/// does not end on (its process is killed, SIGKILL: Ruby's regexp ignores
/// SIGTERM), so a nightly is never held by it.
const LOOP_DEADLINE: Duration = Duration::from_secs(900);

/// `cmd`'s output, or `None` when it ran past `deadline` (then killed).
/// Its stdout and stderr are read on threads of their own, so a chatty
/// child never blocks on a full pipe while we wait.
fn output_within(
    cmd: &mut Command,
    deadline: Duration,
) -> std::io::Result<Option<std::process::Output>> {
    use std::io::Read;
    use std::process::Stdio;
    // stdin closed, as `Command::output` leaves it: a loop reads its file.
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let read = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = read(
        child
            .stdout
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let err = read(
        child
            .stderr
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (stdout, stderr) = (
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    );
    Ok(status.map(|status| std::process::Output {
        status,
        stdout,
        stderr,
    }))
}

struct Direct {
    how: String,
    cpu: f64,
    letters: String,
}

/// The library side of `name` alone over `s`: what ran it and its CPU
/// seconds, or `None` when the oracle has no loop yet.
pub fn library_cpu(name: &str, s: &Sample) -> Result<Option<(String, f64)>, String> {
    Ok(direct_side(name, s)?.map(|d| (d.how, d.cpu)))
}

/// The direct side of `name`, or `None` when it has none yet.
fn direct_side(name: &str, s: &Sample) -> Result<Option<Direct>, String> {
    let externals = crate::registry::externals().map_err(|e| e.0)?;
    if let Some(e) = externals.iter().find(|e| e.name == name) {
        let argv = e.loop_argv();
        if argv.is_empty() {
            return Ok(None);
        }
        return run_loop(&argv, &e.envs(), &s.jsonl).map(Some);
    }
    if let Some((_, venv, library)) = PYTHON_LOOPS.iter().find(|(n, _, _)| *n == name) {
        let cache = oracles::cache_dir();
        let script = crate::paths::root().join("oracles/src/python/speed_loop.py");
        let argv = [
            cache.join(venv).join("bin/python").display().to_string(),
            script.display().to_string(),
            library.to_string(),
        ];
        return run_loop(&argv, &[], &s.jsonl).map(Some);
    }
    let Some(entry) = oracles::registry().into_iter().find(|e| e.name == name) else {
        return Ok(None);
    };
    if let Some(harness) = entry.harness {
        // Linked into its harness binary, not here: its `--loop`.
        let argv = [harness().display().to_string(), "--loop".into()];
        return run_loop(&argv, &[], &s.jsonl).map(Some);
    }
    let mut o = (entry.make)().map_err(|u| u.reason)?;
    o.skip_explanations(); // as its worker is asked to: outcomes only
    let (letters, cpu, _) = through(o.as_mut(), s, Calls::Census);
    Ok(Some(Direct {
        how: "its adapter in this process".into(),
        cpu: cpu.as_secs_f64(),
        letters,
    }))
}

/// How a loop is named in the tables: its script (`loop.rb`,
/// `speed_loop.py`), else its last argument that is not an option (a Java
/// class, a binary), with its directory when the binary is just `loop`.
fn program_name(argv: &[String]) -> String {
    let plain: Vec<&str> = argv
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let base = |a: &str| a.rsplit('/').next().unwrap_or(a).to_string();
    if let Some(script) = plain
        .iter()
        .rev()
        .map(|a| base(a))
        .find(|b| b.contains('.'))
    {
        return script;
    }
    let last = plain.last().copied().unwrap_or(argv[0].as_str());
    let mut parts = last.rsplit('/');
    match (parts.next(), parts.next()) {
        (Some(name), Some(dir)) if name == "loop" => format!("{dir}/{name}"),
        (Some(name), _) => name.to_string(),
        _ => last.to_string(),
    }
}

// String error: the message becomes the row's `error` field in speed.json.
fn run_loop(argv: &[String], envs: &[(String, String)], jsonl: &Path) -> Result<Direct, String> {
    let out = output_within(
        Command::new(&argv[0])
            .args(&argv[1..])
            .arg(jsonl)
            .envs(envs.iter().cloned()),
        LOOP_DEADLINE,
    )
    .map_err(|e| format!("cannot run {}: {e}", argv[0]))?;
    let program = program_name(argv);
    let Some(out) = out else {
        return Err(format!(
            "{program} did not finish within {} s (an input on which the library does not end?); stopped",
            LOOP_DEADLINE.as_secs()
        ));
    };
    if !out.status.success() {
        return Err(format!(
            "{program} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let v: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{program} printed no JSON line: {e}"))?;
    let cpu = v["cpu_seconds"]
        .as_f64()
        .ok_or_else(|| format!("{program}: no cpu_seconds"))?;
    let letters = v["verdicts"]
        .as_str()
        .ok_or_else(|| format!("{program}: no verdicts"))?
        .to_string();
    Ok(Direct {
        how: program,
        cpu,
        letters,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_past_its_deadline_is_stopped_and_one_within_it_is_read() {
        let slow =
            output_within(Command::new("sleep").arg("30"), Duration::from_millis(200)).unwrap();
        assert!(slow.is_none(), "sleep 30 ran to its end");
        let quick = output_within(
            Command::new("sh").args(["-c", "echo out; echo err >&2"]),
            Duration::from_secs(60),
        )
        .unwrap()
        .expect("within the deadline");
        assert!(quick.status.success());
        assert_eq!(quick.stdout, b"out\n");
        assert_eq!(quick.stderr, b"err\n");
    }
}
