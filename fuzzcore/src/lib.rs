//! repdiff's fuzzing core: everything the libFuzzer targets in `fuzz/` do
//! besides being libFuzzer entry points. A plain workspace crate (stable
//! Rust, no libfuzzer-sys), so its tests run with the workspace's and
//! `cargo xtask fuzz` reads what the targets write through the same types.
//!
//! - [`generate`]: the structured robots.txt model and query drawing.
//! - [`triage`]: signatures, the known list, new parts (the loop and the
//!   minimiser share it, so they cannot disagree on what a signature is).
//! - [`Harness`]: every in-process oracle, run on one input, triaged inside
//!   the loop; findings saved once under `fuzz/findings/<hash>/`.
//! - [`robust`]: one oracle alone, for crashes, panics and hangs.
//! - [`record`]: the statistics and findings on disk, typed.
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
//! | `REPDIFF_FUZZ_ORACLE=name` | the oracle the `robust` target fuzzes (see [`robust`]) |
//! | `REPDIFF_FUZZ_ALLOW_MISSING=1` | run without oracles that are unavailable, instead of refusing |
//! | `REPDIFF_FUZZ_PYTHON_LANE=0` | run the Python oracles on the fuzzing thread (see [`lane`]) |

/// Root-cause naming lives in its own crate (the product uses it without
/// the generator); re-exported so the fuzz code keeps one path.
pub use cause;
pub mod classes;
pub mod downweight;
pub mod generate;
mod harness;
pub mod lane;
pub mod record;
pub mod robust;
pub mod triage;

pub use harness::Harness;

use engine::oracle::Oracle;
use std::path::{Path, PathBuf};
use triage::Known;

/// The cargo-fuzz crate's directory, where findings, corpora and the known
/// list live (beside this crate, whichever crate links it).
pub fn fuzz_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz"))
}

/// The differential fuzz targets (libFuzzer binaries in `fuzz/`).
pub const DIFFERENTIAL_TARGETS: &[&str] = &["differential", "differential_bytes"];

/// The one robustness target; the oracle is its parameter (see [`robust`]).
pub const ROBUST_BIN: &str = "robust";

/// What a robustness run of `oracle` is called in reports, corpus and
/// artifact directories, and the name a packaged copy of the `robust`
/// binary takes: `robust_` and the name with `-` as `_` and `.` dropped,
/// the names the hand-written targets had (`robust_cpython_311`,
/// `robust_protego_061`), so the persistent corpora and the committed
/// reports keep their names.
pub fn robust_target(oracle: &str) -> String {
    format!("robust_{}", oracle.replace('-', "_").replace('.', ""))
}

/// Every registered oracle with its robustness run name, in registry order.
pub fn robust_runs() -> Vec<(String, &'static str)> {
    oracles::registry()
        .iter()
        .map(|e| (robust_target(e.name), e.name))
        .collect()
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
    // Its runner image has none of the external oracles' runtimes, and
    // the packaged known list is derived without them (build.sh).
    if std::env::var_os("REPDIFF_FUZZ_EXTERNAL").is_none() {
        std::env::set_var("REPDIFF_FUZZ_EXTERNAL", "0");
    }
    // The stdlib of the interpreter PyO3 linked, packaged beside the
    // binary (build.sh): the runner image has no such Python, and without
    // PYTHONHOME the embedded one picks up whatever `lib/python3.*` the
    // image has (Debian's, whose extension modules do not match).
    if std::env::var_os("PYTHONHOME").is_none() && packaged_stdlib(&exe_dir) {
        std::env::set_var("PYTHONHOME", &exe_dir);
    }
    let known = exe_dir.join("known-signatures.json");
    if known.is_file() && std::env::var_os("REPDIFF_FUZZ_KNOWN").is_none() {
        std::env::set_var("REPDIFF_FUZZ_KNOWN", known);
    }
}

/// Is there a `lib/python3.*/os.py` under `dir`?
fn packaged_stdlib(dir: &Path) -> bool {
    std::fs::read_dir(dir.join("lib")).is_ok_and(|d| {
        d.flatten().any(|e| {
            e.file_name().to_string_lossy().starts_with("python3")
                && e.path().join("os.py").is_file()
        })
    })
}

/// Where an oracle runs in the fuzz loop (see [`lane`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Place {
    /// On the fuzzing thread, under libFuzzer's coverage: the Rust and C++
    /// built-ins.
    Inline,
    /// On the Python lane: the built-ins on the embedded interpreter.
    Python,
    /// A worker process of its own, on a lane of its own: the external
    /// oracles of the manifests and `--oracle-cmd`s.
    Worker,
}

/// The oracles a fuzzing process runs, in triage order (the built-ins in
/// registry order, then the external ones in manifest order, then the
/// `--oracle-cmd`s), and the registered ones it does not, with why.
pub struct Lineup {
    pub oracles: Vec<(Box<dyn Oracle>, Place)>,
    pub left_out: std::collections::BTreeMap<String, String>,
}

/// Start the oracles named by `want` (every registered one when `None`):
/// the built-ins in process; unless `REPDIFF_FUZZ_EXTERNAL=0`, every
/// external oracle as a supervised worker (engine::worker), plus each
/// `NAME=COMMAND` line of `REPDIFF_FUZZ_ORACLE_CMD` (`--oracle-cmd`).
/// Returns the line-up and, beside it, why each oracle that could not
/// start did not (with its fix).
pub fn start_oracles(want: Option<&[&str]>) -> (Lineup, Vec<String>) {
    adopt_packaged_cache();
    let wanted = |name: &str| want.is_none_or(|w| w.contains(&name));
    let mut lineup = Lineup {
        oracles: Vec::new(),
        left_out: Default::default(),
    };
    let mut missing = Vec::new();
    for entry in oracles::registry() {
        if !wanted(entry.name) {
            lineup
                .left_out
                .insert(entry.name.into(), "not in REPDIFF_FUZZ_ORACLES".into());
            continue;
        }
        let place = if entry.runtime == "python" {
            Place::Python
        } else {
            Place::Inline
        };
        match (entry.make)() {
            Ok(o) => lineup.oracles.push((o, place)),
            Err(u) => {
                lineup.left_out.insert(entry.name.into(), u.to_string());
                missing.push(u.to_string());
            }
        }
    }
    for (name, started) in start_workers(&wanted, &mut lineup.left_out) {
        match started {
            Ok(o) => lineup.oracles.push((o, Place::Worker)),
            Err(why) => {
                lineup.left_out.insert(name, why.clone());
                missing.push(why);
            }
        }
    }
    if let Some(w) = want {
        for name in w {
            if !lineup.oracles.iter().any(|(o, _)| o.name() == *name)
                && !lineup.left_out.contains_key(*name)
            {
                missing.push(format!("unknown oracle `{name}`"));
            }
        }
    }
    (lineup, missing)
}

/// How long a worker may take on one fuzz input (plus a quarter of it per
/// query after the first: `Limits::budget`), unless
/// `REPDIFF_FUZZ_WORKER_TIMEOUT_MS` says otherwise. A fuzz input is at most
/// a few KiB, which every parser here answers in well under a millisecond
/// (the sweeps' slowest worker median is webrobots' 0.4 ms); one that takes
/// a quarter of a second is a finding (a `timeout` answer, counted and
/// triaged). Why not longer: every timeout costs its whole length plus a
/// restart of the worker, and webrobots' known exponential `*` matching
/// (slow-star-backtracking-webrobots) meets one about every two seconds; at
/// 1 s its lane held the loop for 27.6 s of 60, at 250 ms for 5 to 11 s.
/// The deadline still moves on by the time the worker waited for a CPU
/// (engine::worker::starved, up to 4 times the timeout), so a loaded
/// machine is not mistaken for a slow parser.
const WORKER_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(250);

/// A worker started, or why not.
type Started = Result<Box<dyn Oracle>, String>;

/// The external oracles and `--oracle-cmd`s `wanted`, each started (or why
/// not); the ones left out on purpose go to `left_out`.
fn start_workers(
    wanted: &dyn Fn(&str) -> bool,
    left_out: &mut std::collections::BTreeMap<String, String>,
) -> Vec<(String, Started)> {
    let on = std::env::var("REPDIFF_FUZZ_EXTERNAL").map_or(true, |v| v != "0");
    let mut out = Vec::new();
    let mut externals = match oracles::manifest::load(&oracles::root()) {
        Ok(m) => m.externals,
        // A packaged run (ClusterFuzzLite) may have no checkout to read.
        Err(e) if !on => {
            left_out.insert("(external oracles)".into(), e);
            Vec::new()
        }
        Err(e) => {
            out.push(("(external oracles)".to_string(), Err(e)));
            Vec::new()
        }
    };
    for spec in std::env::var("REPDIFF_FUZZ_ORACLE_CMD")
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        match oracles::manifest::oracle_cmd(spec) {
            Ok(o) => externals.push(o),
            Err(e) => panic!("repdiff-fuzz: REPDIFF_FUZZ_ORACLE_CMD: {e}"),
        }
    }
    let (run, skipped): (Vec<_>, Vec<_>) =
        externals.into_iter().partition(|x| on && wanted(&x.name));
    for x in skipped {
        let why = if on {
            "not in REPDIFF_FUZZ_ORACLES"
        } else {
            "REPDIFF_FUZZ_EXTERNAL=0 (only the built-ins run)"
        };
        left_out.insert(x.name, why.into());
    }
    // Started side by side: each waits for its greeting (a JVM takes about
    // a second), and in libFuzzer's fork mode every child job starts them
    // all again.
    std::thread::scope(|scope| {
        let starting: Vec<_> = run
            .iter()
            .map(|x| scope.spawn(move || start_worker(x)))
            .collect();
        for (x, handle) in run.iter().zip(starting) {
            let started = handle
                .join()
                .unwrap_or_else(|_| Err(format!("{}: starting its worker panicked", x.name)));
            out.push((x.name.clone(), started));
        }
    });
    out
}

/// [`WORKER_TIMEOUT`], or `REPDIFF_FUZZ_WORKER_TIMEOUT_MS`; a value that
/// is not a positive number of milliseconds stops the target, naming it.
fn worker_timeout() -> std::time::Duration {
    let Ok(v) = std::env::var("REPDIFF_FUZZ_WORKER_TIMEOUT_MS") else {
        return WORKER_TIMEOUT;
    };
    match v.trim().parse::<u64>() {
        Ok(ms) if ms > 0 => std::time::Duration::from_millis(ms),
        _ => panic!(
            "repdiff-fuzz: REPDIFF_FUZZ_WORKER_TIMEOUT_MS=`{v}` is not a positive number of milliseconds"
        ),
    }
}

/// One external oracle as a supervised worker with the loop's limits.
fn start_worker(x: &oracles::manifest::External) -> Started {
    let limits = engine::worker::Limits {
        timeout: worker_timeout(),
        ..engine::worker::Limits::default()
    };
    engine::worker::Supervised::start_with_env(&x.name, x.argv(), x.envs(), limits)
        .map(|mut w| {
            // The loop reads outcomes only; a finding is replayed with its
            // explanations later.
            w.skip_explanations();
            Box::new(w) as Box<dyn Oracle>
        })
        .map_err(|u| u.to_string())
}

/// [`start_oracles`] for a fuzz target: an oracle that cannot start stops
/// the target loudly unless `REPDIFF_FUZZ_ALLOW_MISSING` is set.
pub fn make_lineup(want: Option<&[&str]>) -> Lineup {
    let (lineup, missing) = start_oracles(want);
    if !missing.is_empty() {
        if env_flag("REPDIFF_FUZZ_ALLOW_MISSING") {
            for m in &missing {
                eprintln!("repdiff-fuzz: WARNING, running without {m}");
            }
        } else {
            panic!(
                "repdiff-fuzz: {}; set REPDIFF_FUZZ_ALLOW_MISSING=1 to fuzz without it",
                missing.join("; ")
            );
        }
    }
    lineup
}

/// The oracles of [`make_lineup`] alone, in triage order.
pub fn make_oracles(want: Option<&[&str]>) -> Vec<Box<dyn Oracle>> {
    make_lineup(want)
        .oracles
        .into_iter()
        .map(|(o, _)| o)
        .collect()
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
        if let Some(k) = read_known(&path) {
            return k;
        }
    }
    let root = fuzz_dir().join("..");
    let corpus = match engine::case::load_dir(&root.join("cases/corpus")) {
        Ok(c) => c,
        Err(e) => panic!("repdiff-fuzz: cannot load the corpus: {e}"),
    };
    let ledger_files = oracles::ledger_files(&root).unwrap_or_default();
    let ledger_text = oracles::ledger_text(&root).unwrap_or_default();
    let stamp = triage::stamp(&corpus, &ledger_text, names);
    if let Some(k) = read_known(&path) {
        if k.stamp == stamp {
            return k;
        }
    }
    eprintln!(
        "repdiff-fuzz: deriving the known list from the corpus and the ledger into {}",
        path.display()
    );
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let known = derive_known_now(&corpus, &ledger_files, &names, stamp);
    let _ = engine::write_atomic(&path, known.to_json().as_bytes());
    known
}

/// The known list at `path`, if there is a readable one; a malformed one is
/// said (and then derived again by the caller).
fn read_known(path: &Path) -> Option<Known> {
    let text = std::fs::read_to_string(path).ok()?;
    Known::from_json(&text)
        .map_err(|e| eprintln!("repdiff-fuzz: {}: {e}; deriving it again", path.display()))
        .ok()
}

fn derive_known_now(
    corpus: &engine::case::Corpus,
    ledger_files: &[PathBuf],
    names: &[&str],
    stamp: String,
) -> Known {
    let known_names = oracles::oracle_names(&fuzz_dir().join(".."))
        .unwrap_or_else(|e| panic!("repdiff-fuzz: the oracles' names: {e}"));
    let known_names: Vec<&str> = known_names.iter().map(String::as_str).collect();
    let ledger = engine::ledger::load_files(ledger_files, corpus, &known_names)
        .unwrap_or_else(|e| panic!("repdiff-fuzz: cannot load the ledger: {e}"));
    let oracles = make_oracles(Some(names));
    let cases: Vec<&engine::case::Case> = corpus.cases.iter().collect();
    let result = engine::run::run(&cases, oracles, Vec::new(), &ledger, &|_| None, &mut |_| {});
    triage::derive_known(corpus, &ledger, &result, stamp)
}

#[cfg(test)]
mod tests {
    #[test]
    fn robust_runs_keep_the_old_target_names() {
        assert_eq!(super::robust_target("cpython-3.11"), "robust_cpython_311");
        assert_eq!(super::robust_target("protego-0.6.1"), "robust_protego_061");
        assert_eq!(super::robust_target("robotstxt-rs"), "robust_robotstxt_rs");
        let runs = super::robust_runs();
        assert_eq!(runs.len(), oracles::registry().len());
        assert!(runs
            .iter()
            .any(|(t, o)| t == "robust_google" && *o == "google"));
    }

    /// The committed ledger names external oracles: the names the
    /// derivation accepts include them, or it would stop at the first one.
    #[test]
    fn ledger_names_include_the_external_harnesses() {
        let names = oracles::oracle_names(&super::fuzz_dir().join("..")).unwrap();
        assert!(names.iter().any(|n| n == "rfc9309"), "{names:?}");
        assert!(names.iter().any(|n| n == "spider"), "{names:?}");
        assert!(names.iter().any(|n| n == "heritrix"), "{names:?}");
        assert!(names.len() > oracles::registry().len(), "{names:?}");
    }
}
