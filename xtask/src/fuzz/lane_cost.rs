//! `cargo xtask fuzz lane-cost`: every lane's added cost per input (issue
//! 51). The fuzz report gives each lane's CPU per distinct input, but not
//! how much of it is the library's own work: a slow lane may be a slow
//! parser (nothing to cut) or a slow harness (framing, JSON, a round trip
//! per call; ours to cut). So, per oracle, over the same fuzz-shaped inputs:
//! the library's own loop (repdiff's `speed` module: the manifest's
//! `loop:`, the Python speed loop, or a built-in Rust adapter in this
//! process) against the oracle as the fuzz loop runs it: an external one's
//! repdiff worker given [`fuzzcore::lane::BATCH`] inputs per exchange, a
//! built-in's adapter in this process. Their difference is what the
//! harness (or the adapter's glue) adds.
//!
//! The inputs are the `differential` target's own: its corpus rendered by
//! fuzzcore's generator, or, without a corpus, inputs the same generator
//! makes of seeded random bytes (what libFuzzer feeds before it has a
//! corpus); the output says which.

use engine::oracle::Query;
use engine::worker::Limits;
use repdiff::speed::{hanging_inputs, measure_with_limits, Calls, DirectRow, Sample};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Where the inputs came from, as the output says it.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// The corpus's first files (by name) that make a model.
    Corpus { dir: PathBuf, files: usize },
    /// Seeded random bytes; `tried` byte strings for the inputs kept.
    Generated { seed: u64, tried: usize },
}

impl Source {
    fn describe(&self) -> String {
        match self {
            Source::Corpus { dir, files } => format!(
                "the differential corpus ({}, {files} files read), rendered by fuzzcore's generator",
                dir.display()
            ),
            Source::Generated { seed, tried } => format!(
                "no differential corpus: fuzzcore's generator over seeded random bytes (seed {seed}, \
                 {tried} byte strings of 1 to 512 bytes, the target's max_len, for the inputs that \
                 make a model), as libFuzzer feeds it before it has a corpus"
            ),
        }
    }
}

/// Inputs the nightly job times every lane over (on the first run, all
/// 22 oracles took 28 s of wall on two cores, the JVMs' and interpreters'
/// starts included).
pub const NIGHTLY_INPUTS: usize = 2000;

/// The seed of the generated inputs: fixed, so two runs time the same work.
pub const SEED: u64 = 51;

/// Rendered inputs: each body with its queries.
pub type Pairs = Vec<(Vec<u8>, Vec<Query>)>;

/// Up to `n` fuzz-shaped inputs: the corpus's when it has any, else
/// generated ones.
pub fn inputs(n: usize) -> (Pairs, Source) {
    let dir = fuzzcore::fuzz_dir().join("corpus/differential");
    if let Some(found) = from_corpus(&dir, n).filter(|(p, _)| !p.is_empty()) {
        return found;
    }
    generated(n, SEED)
}

/// The corpus's files in name order, decoded as the target decodes them;
/// `None` when the directory cannot be read.
fn from_corpus(dir: &std::path::Path, n: usize) -> Option<(Pairs, Source)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    let mut pairs = Vec::new();
    let mut files = 0;
    for p in paths {
        if pairs.len() >= n {
            break;
        }
        files += 1;
        let Ok(bytes) = std::fs::read(&p) else {
            continue;
        };
        pairs.extend(fuzzcore::generate::decode(&bytes));
    }
    let source = Source::Corpus {
        dir: dir.to_path_buf(),
        files,
    };
    Some((pairs, source))
}

/// `n` inputs of the generator over byte strings of a splitmix64 stream
/// seeded with `seed`, each 1 to 512 bytes long.
pub fn generated(n: usize, seed: u64) -> (Pairs, Source) {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut pairs = Vec::with_capacity(n);
    let mut tried = 0;
    // A bound, so a generator that made no model of any bytes stops.
    while pairs.len() < n && tried < n.saturating_mul(100).max(100) {
        tried += 1;
        let len = 1 + (next() % 512) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        pairs.extend(fuzzcore::generate::decode(&bytes));
    }
    (pairs, Source::Generated { seed, tried })
}

/// One oracle's costs per input, in µs.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Cost {
    pub oracle: String,
    /// What ran the library's loop.
    pub how: Option<String>,
    pub library_us: Option<f64>,
    /// The worker's processes and the thread driving them.
    pub worker_us: Option<f64>,
    /// worker minus library: the harness's part.
    pub added_us: Option<f64>,
    /// worker / library.
    pub ratio: Option<f64>,
    /// Questions the two sides answered differently: not 0, and the two
    /// sides timed different work.
    pub differ: Option<usize>,
    pub error: Option<String>,
}

impl Cost {
    /// Per input of `inputs`, from a measured row's seconds.
    pub fn of(row: &DirectRow, inputs: usize) -> Cost {
        let per = |s: f64| s * 1e6 / inputs.max(1) as f64;
        let library_us = row.direct_cpu.map(per);
        // An in-process oracle has no worker CPU: the driving thread is all.
        let worker_us = row
            .driver_cpu
            .map(|d| per(d + row.worker_cpu.unwrap_or(0.0)));
        let both = library_us.zip(worker_us);
        Cost {
            oracle: row.oracle.clone(),
            how: row.direct_how.clone(),
            library_us,
            worker_us,
            added_us: both.map(|(l, w)| w - l),
            ratio: both.filter(|(l, _)| *l > 0.0).map(|(l, w)| w / l),
            differ: row.differ,
            error: row.error.clone(),
        }
    }
}

/// The costs of `names` over the inputs, one oracle after the other.
pub struct Table {
    pub source: Source,
    pub inputs: usize,
    /// Inputs left out because some oracle did not answer them within the
    /// fuzz loop's limits (its own loop would never end on them).
    pub left_out: usize,
    pub questions: usize,
    pub batch: usize,
    pub rows: Vec<Cost>,
}

impl Table {
    /// The row with the largest added cost, if any was measured.
    pub fn largest(&self) -> Option<&Cost> {
        self.rows
            .iter()
            .filter(|r| r.added_us.is_some())
            .max_by(|a, b| {
                a.added_us
                    .partial_cmp(&b.added_us)
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
    }

    pub fn to_json(&self) -> Value {
        json!({
            "source": self.source.describe(),
            "inputs": self.inputs,
            "left_out": self.left_out,
            "questions": self.questions,
            "batch": self.batch,
            "largest_added": self.largest().map(|r| r.oracle.clone()),
            "rows": self.rows,
        })
    }

    /// The "Added cost per lane" table, with what it measured over.
    pub fn to_markdown(&self) -> String {
        let mut md = format!(
            "Added cost per lane ({} inputs, {} can_fetch questions; {}{}). library: CPU of the \
             library's own loop; worker: CPU of the oracle as the fuzz loop runs it (an external \
             one's repdiff worker given {} inputs per exchange, and the thread driving it; a \
             built-in's adapter in this process); added = worker - library, the harness's part \
             (framing, JSON, per-call overhead). µs per input:\n\n\
             | oracle | library loop | library | worker | added | worker / library | differ |\n\
             |---|---|---:|---:|---:|---:|---:|\n",
            self.inputs,
            self.questions,
            self.source.describe(),
            if self.left_out == 0 {
                String::new()
            } else {
                format!(
                    "; {} more left out, on which some oracle did not answer within the fuzz \
                     loop's limits (its own loop would not end)",
                    self.left_out
                )
            },
            self.batch,
        );
        let us = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
        for r in &self.rows {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} |",
                r.oracle,
                cell(
                    r.error
                        .as_deref()
                        .or(r.how.as_deref())
                        .unwrap_or("no speed loop yet")
                ),
                us(r.library_us),
                us(r.worker_us),
                us(r.added_us),
                r.ratio.map_or("-".to_string(), |x| format!("{x:.2}x")),
                r.differ.map_or("-".to_string(), |d| d.to_string()),
            );
        }
        if let Some(r) = self.largest() {
            let _ = writeln!(
                md,
                "\nLargest added cost: {} ({} µs per input).",
                r.oracle,
                us(r.added_us)
            );
        }
        md.push('\n');
        md
    }
}

/// `text` as one table cell: a loop's error carries its stderr, lines and
/// all (a JVM's SLF4J notice), which would break the table's row.
fn cell(text: &str) -> String {
    let one: String = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|");
    match one.char_indices().nth(160) {
        Some((i, _)) => format!("{}…", &one[..i]),
        None => one,
    }
}

/// Measure `names` over `n` inputs.
// String error: the command prints it as is.
pub fn measure(names: &[String], n: usize) -> Result<Table, String> {
    let (pairs, source) = inputs(n);
    let all = Sample::from_pairs(pairs)?;
    let batch = fuzzcore::lane::BATCH;
    // The fuzz loop's limits: a hang costs its worker 250 ms (crawler4j's
    // harness stops its own call at 50 ms of CPU) instead of 5 s.
    let limits = Limits {
        timeout: fuzzcore::WORKER_TIMEOUT,
        question_cpu: Some(fuzzcore::QUESTION_CPU),
        ..Limits::default()
    };
    // The corpus holds inputs some libraries never finish (crawler4j's and
    // webrobots' backtracking regexes): their own loops have no limit and
    // would run for good, so such inputs are left out for every oracle.
    let mut hanging = BTreeSet::new();
    for name in names {
        hanging.extend(hanging_inputs(name, &all, Calls::FuzzLane(batch), limits));
    }
    let sample = all.without(&hanging)?;
    let inputs = sample.files.len();
    let questions = sample.questions();
    log::info!(
        "lane-cost: {inputs} inputs ({} left out: some oracle did not answer them in time), \
         {questions} questions, {} oracles",
        hanging.len(),
        names.len()
    );
    let rows = names
        .iter()
        .map(|name| {
            let row = measure_with_limits(name, &sample, Calls::FuzzLane(batch), limits);
            let cost = Cost::of(&row, inputs);
            log::info!(
                "lane-cost:   {name:<26} library {:>9}  worker {:>9}  added {:>9}  {}",
                fmt(cost.library_us),
                fmt(cost.worker_us),
                fmt(cost.added_us),
                cost.error.as_deref().or(cost.how.as_deref()).unwrap_or("")
            );
            cost
        })
        .collect();
    Ok(Table {
        source,
        inputs,
        left_out: hanging.len(),
        questions,
        batch,
        rows,
    })
}

fn fmt(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.1} µs"))
}

/// Write the table as JSON under reports/run/fuzz/, beside the nightly's
/// reports (ignored by git, as they are).
pub fn save(t: &Table) -> Result<PathBuf, String> {
    let (_, stamp) = engine::calendar::stamps(std::time::SystemTime::now());
    let dir = repdiff::paths::run_dir().join("fuzz");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(format!("lane-cost-{}.json", stamp.replace(':', "")));
    let text = serde_json::to_string_pretty(&t.to_json()).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(direct: Option<f64>, worker: Option<f64>, driver: Option<f64>) -> DirectRow {
        DirectRow {
            oracle: "x".into(),
            direct_how: direct.map(|_| "loop.x".into()),
            direct_cpu: direct,
            worker_cpu: worker,
            driver_cpu: driver,
            differ: Some(0),
            error: None,
        }
    }

    /// 0.2 s of library over 1,000 inputs is 200 µs each; 0.5 s of
    /// worker and 0.1 s of driver are 600; the harness adds 400, 3x.
    #[test]
    fn the_added_cost_is_worker_and_driver_minus_library_per_input() {
        let c = Cost::of(&row(Some(0.2), Some(0.5), Some(0.1)), 1000);
        let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-6);
        assert!(close(c.library_us, 200.0), "{c:?}");
        assert!(close(c.worker_us, 600.0), "{c:?}");
        assert!(close(c.added_us, 400.0), "{c:?}");
        assert!(close(c.ratio, 3.0), "{c:?}");
        // In process: no worker CPU, the driver's is all of it.
        let c = Cost::of(&row(Some(0.2), None, Some(0.25)), 1000);
        assert!(close(c.worker_us, 250.0), "{c:?}");
        assert!(close(c.added_us, 50.0), "{c:?}");
        // No loop: nothing to subtract from.
        let c = Cost::of(&row(None, Some(0.5), Some(0.1)), 1000);
        assert_eq!((c.added_us, c.ratio), (None, None), "{c:?}");
        // A library of no measurable CPU has no ratio, but an added cost.
        let c = Cost::of(&row(Some(0.0), Some(0.5), Some(0.1)), 1000);
        assert_eq!(c.ratio, None, "{c:?}");
        assert!(close(c.added_us, 600.0), "{c:?}");
    }

    #[test]
    fn the_largest_added_cost_is_named() {
        let mut a = Cost::of(&row(Some(0.2), Some(0.5), Some(0.1)), 1000);
        a.oracle = "a".into();
        let mut b = Cost::of(&row(Some(0.1), Some(0.9), Some(0.1)), 1000);
        b.oracle = "b".into();
        let c = Cost::of(&row(None, Some(5.0), Some(0.1)), 1000);
        let t = Table {
            source: Source::Generated { seed: 1, tried: 2 },
            inputs: 1000,
            left_out: 0,
            questions: 4000,
            batch: 16,
            rows: vec![a, b, c],
        };
        assert_eq!(t.largest().map(|r| r.oracle.as_str()), Some("b"));
        let md = t.to_markdown();
        assert!(
            md.contains("| b | loop.x | 100.0 | 1000.0 | 900.0 | 10.00x | 0 |"),
            "{md}"
        );
        assert!(
            md.contains("Largest added cost: b (900.0 µs per input)"),
            "{md}"
        );
        assert!(md.contains("1000 inputs, 4000 can_fetch questions"), "{md}");
    }

    /// The generated inputs are the same on every run (the seed is the
    /// whole of it) and every one is a rendered model with questions.
    #[test]
    fn a_loop_error_is_one_table_cell() {
        let c = cell("Loop failed (exit 143): SLF4J: x\nSLF4J: a|b");
        assert_eq!(c, "Loop failed (exit 143): SLF4J: x SLF4J: a\\|b");
        assert!(cell(&"x".repeat(500)).chars().count() <= 161);
    }

    #[test]
    fn generated_inputs_are_deterministic() {
        let (a, sa) = generated(50, SEED);
        let (b, sb) = generated(50, SEED);
        assert_eq!(a.len(), 50);
        assert_eq!(a, b);
        assert_eq!(sa, sb);
        assert!(a.iter().any(|(_, q)| !q.is_empty()));
        let (c, _) = generated(50, SEED + 1);
        assert_ne!(a, c);
    }

    /// A body and its questions as (agent, url).
    type Asked = (Vec<u8>, Vec<(String, String)>);

    /// A sample of fuzz-shaped pairs: its JSON lines carry each body and
    /// its can_fetch questions as the loops read them (`body_hex`,
    /// `agent`, `url`), and rfc9309's direct side (its adapter in this
    /// process) and its worker asked in batches answer every question the
    /// same, with CPU spent on both.
    #[test]
    fn a_sample_of_pairs_is_what_the_loops_and_the_worker_answer() {
        let (mut pairs, _) = generated(200, SEED);
        // One question the loops do not answer: left out of the sample.
        pairs[0].1.push(Query {
            ask: engine::oracle::Ask::Sitemaps,
            agent: String::new(),
            url: String::new(),
        });
        let can_fetch: Vec<Asked> = pairs
            .iter()
            .map(|(b, q)| {
                let qs = q
                    .iter()
                    .filter(|q| q.ask == engine::oracle::Ask::CanFetch)
                    .map(|q| (q.agent.clone(), q.url.clone()))
                    .collect();
                (b.clone(), qs)
            })
            .collect();
        let sample = Sample::from_pairs(pairs).expect("a sample");
        let text = std::fs::read_to_string(&sample.jsonl).expect("its JSON lines");
        let lines: Vec<Asked> = text
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).expect("a JSON line");
                let hex = v["body_hex"].as_str().expect("body_hex");
                let body = (0..hex.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
                    .collect();
                let qs = v["queries"]
                    .as_array()
                    .expect("queries")
                    .iter()
                    .map(|q| {
                        let s = |k: &str| q[k].as_str().expect("a string").to_string();
                        (s("agent"), s("url"))
                    })
                    .collect();
                (body, qs)
            })
            .collect();
        assert_eq!(lines, can_fetch);
        assert!(sample.questions() > 200, "{}", sample.questions());

        let row = measure_with_limits("rfc9309", &sample, Calls::FuzzLane(16), Limits::default());
        assert_eq!(row.error, None, "{row:?}");
        assert_eq!(
            row.direct_how.as_deref(),
            Some("its adapter in this process")
        );
        assert_eq!(row.differ, Some(0), "{row:?}");
        assert!(row.direct_cpu.is_some_and(|c| c > 0.0), "{row:?}");
        assert!(row.driver_cpu.is_some_and(|c| c > 0.0), "{row:?}");
    }
}
