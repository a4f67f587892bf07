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

/// [`measure_one`], the worker asked as `calls` says.
pub fn measure_with(name: &str, s: &Sample, calls: Calls) -> DirectRow {
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
    let mut sel = crate::select::start(&[name.to_string()], &[], in_process, Limits::default());
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
    let out = Command::new(&argv[0])
        .args(&argv[1..])
        .arg(jsonl)
        .envs(envs.iter().cloned())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", argv[0]))?;
    let program = program_name(argv);
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
