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
//! - [`Settings`]: the environment variables of a fuzzing process, read
//!   once (all optional; `cargo xtask fuzz` sets them).
//! - [`lineup`]: the oracles of the loop, started by the roster
//!   (`oracles::roster`) as every command starts them.
//!
//! It never prints: what it says goes through the `log` facade, and the
//! libFuzzer targets, which have no logger, get [`log_to_stderr`].

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
mod settings;
mod stderr_log;
pub mod triage;

pub use harness::Harness;
pub use oracles::roster::Place;
pub use settings::{Settings, QUESTION_CPU, WORKER_TIMEOUT};
pub use stderr_log::log_to_stderr;

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

/// The oracles a fuzzing process runs, in triage order (the built-ins in
/// registry order, then the external ones in manifest order, then the
/// `--oracle-cmd`s), and the registered ones it does not, with why.
pub struct Lineup {
    pub oracles: Vec<(Box<dyn Oracle>, Place)>,
    pub left_out: std::collections::BTreeMap<String, String>,
}

/// Start the oracles named by `want` (every registered one when `None`)
/// through the roster: the built-ins in process; unless
/// `settings.external` is off, every external oracle and every
/// `--oracle-cmd` of `settings.oracle_cmds` as a supervised worker that
/// leaves explanations out (the loop reads outcomes only; a finding is
/// replayed with them later), with the loop's worker timeout. Returns the
/// line-up and, beside it, why each oracle that could not start did not
/// (with its fix).
pub fn lineup(settings: &Settings, want: Option<&[&str]>) -> (Lineup, Vec<String>) {
    let mut left_out = std::collections::BTreeMap::new();
    let mut missing = Vec::new();
    let checkout = oracles::Checkout::current();
    let roster = match oracles::Roster::load(checkout.clone()) {
        Ok(r) => r,
        Err(e) => {
            // A packaged run (ClusterFuzzLite) may have no checkout to read.
            let e = e.to_string();
            if settings.external {
                missing.push(e.clone());
            }
            left_out.insert("(external oracles)".into(), e);
            oracles::Roster::builtins_only(checkout)
        }
    };
    let extra = roster
        .oracle_cmds(&settings.oracle_cmds)
        .unwrap_or_else(|e| panic!("repdiff-fuzz: REPDIFF_FUZZ_ORACLE_CMD: {e}"));
    let wanted = |name: &str| want.is_none_or(|w| w.contains(&name));
    let mut run = Vec::new();
    let builtins = roster.parsers().iter().map(|e| (e.name.to_string(), true));
    let workers = (roster.externals().iter().chain(&extra)).map(|e| (e.name.clone(), false));
    for (name, builtin) in builtins.chain(workers) {
        if !builtin && !settings.external {
            let why = "REPDIFF_FUZZ_EXTERNAL=0 (only the built-ins run)";
            left_out.insert(name, why.into());
        } else if !wanted(&name) {
            left_out.insert(name, "not in REPDIFF_FUZZ_ORACLES".into());
        } else {
            run.push(name);
        }
    }
    let started = roster.start(&oracles::roster::Request {
        names: &run,
        extra: &extra,
        builtins: oracles::roster::Builtins::InProcess,
        limits: engine::worker::Limits {
            timeout: settings.worker_timeout,
            question_cpu: settings.question_cpu,
            ..engine::worker::Limits::default()
        },
        workers_skip_explanations: true,
        makers: None,
        program: None,
    });
    for u in started.unavailable {
        left_out.insert(u.oracle.clone(), u.to_string());
        missing.push(u.to_string());
    }
    for name in want.unwrap_or_default() {
        if !started.oracles.iter().any(|(o, _)| o.name() == *name) && !left_out.contains_key(*name)
        {
            missing.push(format!("unknown oracle `{name}`"));
        }
    }
    let lineup = Lineup {
        oracles: started.oracles,
        left_out,
    };
    (lineup, missing)
}

/// [`lineup`] for a fuzz target: an oracle that cannot start stops the
/// target loudly unless `settings.allow_missing`.
pub fn make_lineup(settings: &Settings, want: Option<&[&str]>) -> Lineup {
    let (lineup, missing) = lineup(settings, want);
    if !missing.is_empty() {
        if settings.allow_missing {
            for m in &missing {
                log::warn!("repdiff-fuzz: running without {m}");
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
pub fn make_oracles(settings: &Settings, want: Option<&[&str]>) -> Vec<Box<dyn Oracle>> {
    make_lineup(settings, want)
        .oracles
        .into_iter()
        .map(|(o, _)| o)
        .collect()
}

/// Load the known list, deriving it (a corpus run through `oracles`, in
/// process) when it is missing or its stamp no longer matches the corpus,
/// the ledger and the oracles' versions.
pub fn load_or_derive_known(settings: &Settings, names: &[String]) -> Known {
    let path = settings.known_path();
    // Named explicitly (cargo xtask fuzz derives it fresh before a run):
    // trusted, so a forked child does not load the corpus again.
    if settings.known.is_some() {
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
    log::info!(
        "repdiff-fuzz: deriving the known list from the corpus and the ledger into {}",
        path.display()
    );
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let known = derive_known_now(settings, &corpus, &ledger_files, &names, stamp);
    let _ = engine::write_atomic(&path, known.to_json().as_bytes());
    known
}

/// The known list at `path`, if there is a readable one; a malformed one is
/// said (and then derived again by the caller).
fn read_known(path: &Path) -> Option<Known> {
    let text = std::fs::read_to_string(path).ok()?;
    Known::from_json(&text)
        .map_err(|e| log::warn!("repdiff-fuzz: {}: {e}; deriving it again", path.display()))
        .ok()
}

fn derive_known_now(
    settings: &Settings,
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
    let oracles = make_oracles(settings, Some(names));
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
