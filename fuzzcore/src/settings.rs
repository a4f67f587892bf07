//! The fuzz loop's settings, read from the environment once per process.
//!
//! Environment variables, because libFuzzer owns the command line of a fuzz
//! target and a ClusterFuzzLite runner sets nothing at all: `cargo xtask
//! fuzz` sets them for its jobs, and a packaged run adopts what lies beside
//! its binary ([`Settings::from_env`]). Read in one place, so a variable's
//! default and meaning are written once, here, and fuzz/README.md's table
//! is its summary.

use std::path::PathBuf;
use std::time::Duration;

/// Every setting of a fuzzing process. Each field names its variable, its
/// default and what it changes.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `REPDIFF_FUZZ_KEEP_GOING=1` (default off): save a new finding and go
    /// on, instead of stopping the target at the first one.
    pub keep_going: bool,
    /// `REPDIFF_FUZZ_FINDINGS=dir` (default `fuzz/findings`): where new
    /// findings are saved, one directory each.
    pub findings: PathBuf,
    /// `REPDIFF_FUZZ_KNOWN=file` (default none: `fuzz/known-signatures.json`,
    /// derived again when its stamp is stale): a known list named here is
    /// used as it is, so a forked child does not load the corpus again.
    pub known: Option<PathBuf>,
    /// `REPDIFF_FUZZ_STATS=dir` (default none): write per-process counters
    /// there, once a second.
    pub stats: Option<PathBuf>,
    /// `REPDIFF_FUZZ_ORACLES=a,b` (default none: every registered oracle):
    /// the differential targets run only these, with the reference
    /// (rfc9309) always added.
    pub oracles: Option<Vec<String>>,
    /// `REPDIFF_FUZZ_ORACLE=name` (default none: the binary's name says it):
    /// the oracle the `robust` target fuzzes ([`crate::robust`]).
    pub oracle: Option<String>,
    /// `REPDIFF_FUZZ_ALLOW_MISSING=1` (default off): run without the oracles
    /// that cannot start, instead of stopping the target.
    pub allow_missing: bool,
    /// `REPDIFF_FUZZ_PYTHON_LANE=0` (default on): with it off, the Python
    /// oracles run on the fuzzing thread instead of a lane of their own
    /// ([`crate::lane`]).
    pub python_lane: bool,
    /// `REPDIFF_FUZZ_EXTERNAL=0` (default on; off in a packaged run): leave
    /// the external oracles (worker processes) out of the loop.
    pub external: bool,
    /// `REPDIFF_FUZZ_ORACLE_CMD` (default none): one `NAME=COMMAND` per
    /// line, more oracles for the loop as `--oracle-cmd` gives them (parsed
    /// by the roster, as the command line's are).
    pub oracle_cmds: Vec<String>,
    /// `REPDIFF_FUZZ_WORKER_TIMEOUT_MS` (default [`WORKER_TIMEOUT`]): how
    /// long a worker may take on one fuzz input.
    pub worker_timeout: Duration,
    /// `REPDIFF_FUZZ_QUESTION_CPU_MS` (default [`QUESTION_CPU`]; `0`: off):
    /// the CPU one question may use in a worker that can stop its library's
    /// call (`engine::worker::Limits::question_cpu`).
    pub question_cpu: Option<Duration>,
    /// `REPDIFF_FUZZ_DOWNWEIGHT=0` (default on): turn down-weighting off,
    /// to measure it ([`crate::downweight`]).
    pub down_weighting: bool,
}

/// The variable naming the oracle the `robust` target fuzzes.
pub const ORACLE_VAR: &str = "REPDIFF_FUZZ_ORACLE";

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
pub const WORKER_TIMEOUT: Duration = Duration::from_millis(250);

/// The CPU one question may use in a worker that can stop its library's
/// call and live on (crawler4j's harness; protocol §2 `cpu_ms`), unless
/// `REPDIFF_FUZZ_QUESTION_CPU_MS` says otherwise. A hundred times the
/// slowest worker's median, as [`WORKER_TIMEOUT`] is, but counted in the
/// question's own CPU time, so load cannot trigger it and it can be short:
/// each of crawler4j's backtracking-regex timeouts cost the 16-minute
/// nightly of 2026-12-07 about 0.4 s of CPU (the wall timeout, then a JVM
/// start), 559 of them most of the gap between the whole run and its speed
/// mode.
pub const QUESTION_CPU: Duration = Duration::from_millis(50);

impl Settings {
    /// The settings of this process. A packaged run (ClusterFuzzLite) first
    /// adopts what is packaged beside its binary, as if it had been set:
    /// the setup cache, the known list, the linked Python's stdlib, and
    /// `ALLOW_MISSING=1` with `EXTERNAL=0` (its runner image has none of the
    /// external oracles' runtimes). A value that cannot mean anything (a
    /// worker timeout that is not a positive number of milliseconds) is an
    /// error naming the variable.
    // String: a fuzz target's startup failure, printed as it is; no caller acts
    // on its kind.
    pub fn from_env() -> Result<Settings, String> {
        adopt_packaged_cache();
        let oracles = std::env::var("REPDIFF_FUZZ_ORACLES").ok().map(|s| {
            let mut v: Vec<String> = s.split(',').map(|x| x.trim().to_string()).collect();
            if !v.iter().any(|x| x == crate::triage::REFERENCE) {
                v.push(crate::triage::REFERENCE.to_string());
            }
            v
        });
        Ok(Settings {
            keep_going: flag("REPDIFF_FUZZ_KEEP_GOING"),
            findings: std::env::var_os("REPDIFF_FUZZ_FINDINGS")
                .map_or_else(|| crate::fuzz_dir().join("findings"), PathBuf::from),
            known: std::env::var_os("REPDIFF_FUZZ_KNOWN").map(PathBuf::from),
            stats: std::env::var_os("REPDIFF_FUZZ_STATS").map(PathBuf::from),
            oracles,
            oracle: std::env::var(ORACLE_VAR).ok().filter(|s| !s.is_empty()),
            allow_missing: flag("REPDIFF_FUZZ_ALLOW_MISSING"),
            python_lane: std::env::var_os("REPDIFF_FUZZ_PYTHON_LANE").is_none_or(|v| v != "0"),
            external: on_unless_zero("REPDIFF_FUZZ_EXTERNAL"),
            oracle_cmds: std::env::var("REPDIFF_FUZZ_ORACLE_CMD")
                .unwrap_or_default()
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string)
                .collect(),
            worker_timeout: worker_timeout()?,
            question_cpu: question_cpu()?,
            down_weighting: on_unless_zero("REPDIFF_FUZZ_DOWNWEIGHT"),
        })
    }

    /// [`Settings::from_env`] for a fuzz target, which has no one to return
    /// an error to: a bad value stops it, naming the variable.
    pub fn for_target() -> Settings {
        Settings::from_env().unwrap_or_else(|e| panic!("repdiff-fuzz: {e}"))
    }

    /// The known list's file: [`Settings::known`], else the committed one.
    pub fn known_path(&self) -> PathBuf {
        self.known
            .clone()
            .unwrap_or_else(|| crate::fuzz_dir().join("known-signatures.json"))
    }
}

/// Set, and neither empty nor `0`.
fn flag(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

/// On unless set to exactly `0`.
fn on_unless_zero(name: &str) -> bool {
    std::env::var(name).map_or(true, |v| v != "0")
}

/// [`WORKER_TIMEOUT`], or `REPDIFF_FUZZ_WORKER_TIMEOUT_MS`.
// String: a fuzz target's startup failure, printed as it is; no caller acts
// on its kind.
fn worker_timeout() -> Result<Duration, String> {
    let Ok(v) = std::env::var("REPDIFF_FUZZ_WORKER_TIMEOUT_MS") else {
        return Ok(WORKER_TIMEOUT);
    };
    match v.trim().parse::<u64>() {
        Ok(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
        _ => Err(format!(
            "REPDIFF_FUZZ_WORKER_TIMEOUT_MS=`{v}` is not a positive number of milliseconds"
        )),
    }
}

/// [`QUESTION_CPU`], or `REPDIFF_FUZZ_QUESTION_CPU_MS` (`0`: none).
// String: a fuzz target's startup failure, printed as it is.
fn question_cpu() -> Result<Option<Duration>, String> {
    let Ok(v) = std::env::var("REPDIFF_FUZZ_QUESTION_CPU_MS") else {
        return Ok(Some(QUESTION_CPU));
    };
    match v.trim().parse::<u64>() {
        Ok(0) => Ok(None),
        Ok(ms) => Ok(Some(Duration::from_millis(ms))),
        Err(_) => Err(format!(
            "REPDIFF_FUZZ_QUESTION_CPU_MS=`{v}` is not a number of milliseconds (0: off)"
        )),
    }
}

/// In a ClusterFuzzLite image the setup cache is copied next to the
/// binaries: point the oracles at it when nothing else does.
fn adopt_packaged_cache() {
    if std::env::var_os("REPDIFF_CACHE").is_some() {
        return;
    }
    let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(std::path::Path::to_path_buf))
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
fn packaged_stdlib(dir: &std::path::Path) -> bool {
    std::fs::read_dir(dir.join("lib")).is_ok_and(|d| {
        d.flatten().any(|e| {
            e.file_name().to_string_lossy().starts_with("python3")
                && e.path().join("os.py").is_file()
        })
    })
}
