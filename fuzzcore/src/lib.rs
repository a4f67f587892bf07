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

/// Build the oracles named by `want` (all registered ones when `None`).
/// An unavailable oracle stops the target loudly unless
/// `REPDIFF_FUZZ_ALLOW_MISSING` is set.
pub fn make_oracles(want: Option<&[&str]>) -> Vec<Box<dyn Oracle>> {
    adopt_packaged_cache();
    let allow_missing = env_flag("REPDIFF_FUZZ_ALLOW_MISSING");
    let mut out = Vec::new();
    for entry in oracles::registry() {
        if let Some(w) = want {
            if !w.contains(&entry.name) {
                continue;
            }
        }
        match (entry.make)() {
            Ok(o) => out.push(o),
            Err(u) if allow_missing => eprintln!("repdiff-fuzz: WARNING, running without {u}"),
            Err(u) => {
                panic!("repdiff-fuzz: {u}; set REPDIFF_FUZZ_ALLOW_MISSING=1 to fuzz without it")
            }
        }
    }
    if let Some(w) = want {
        for name in w {
            if !out.iter().any(|o| o.name() == *name) && !allow_missing {
                panic!("repdiff-fuzz: unknown oracle `{name}`");
            }
        }
    }
    out
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
