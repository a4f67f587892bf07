//! One oracle alone: crashes (a caught panic, a C++ exception), and, through
//! libFuzzer's `-timeout`, hangs. AddressSanitizer covers the C++ when the
//! target is built with `--sanitizer address` (see `cargo xtask fuzz`).
//!
//! One fuzz target (`robust`) serves every oracle of the registry, so a new
//! oracle is fuzzed without a new target: the oracle is named by
//! `REPDIFF_FUZZ_ORACLE`, or else by the binary's own name
//! (`robust_<oracle>`, see [`crate::robust_target`]), which is how a
//! ClusterFuzzLite image, whose runner sets no environment, holds one copy
//! per oracle.

use crate::record::{self, RobustStats, ROBUST_PREFIX};
use crate::{make_oracles, robust_target, Settings};
use engine::oracle::{Oracle, Outcome, Query};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The variable naming the oracle ([`crate::Settings::oracle`]).
pub use crate::settings::ORACLE_VAR;

struct One {
    name: &'static str,
    oracle: Box<dyn Oracle>,
    stats_dir: Option<PathBuf>,
    execs: u64,
    errors: u64,
    last_flush: Instant,
}

static ONE: Mutex<Option<One>> = Mutex::new(None);

/// The registered oracle this process fuzzes, from [`ORACLE_VAR`] or the
/// executable's name; the error lists the choices.
// String: a fuzz target's startup failure, printed as it is; no caller acts
// on its kind.
pub fn chosen_oracle(settings: &Settings) -> Result<&'static str, String> {
    let names: Vec<&'static str> = oracles::registry().iter().map(|e| e.name).collect();
    let from_env = settings.oracle.as_deref();
    let from_exe = || {
        let exe = std::env::current_exe().ok()?;
        let stem = exe.file_name()?.to_str()?.to_string();
        names.iter().copied().find(|n| robust_target(n) == stem)
    };
    match from_env {
        Some(want) => names.iter().copied().find(|n| *n == want).ok_or_else(|| {
            format!(
                "{ORACLE_VAR}={want} names no registered oracle (one of: {})",
                names.join(", ")
            )
        }),
        None => from_exe().ok_or_else(|| {
            format!(
                "the robust target fuzzes one oracle: set {ORACLE_VAR} to one of {} (or name the \
                 binary robust_<oracle>)",
                names.join(", ")
            )
        }),
    }
}

/// Set up once per process (the target's `init:`).
pub fn init() {
    let mut g = ONE.lock().unwrap_or_else(|p| p.into_inner());
    if g.is_some() {
        return;
    }
    crate::log_to_stderr();
    let settings = Settings::for_target();
    let name = chosen_oracle(&settings).unwrap_or_else(|e| panic!("repdiff-fuzz: {e}"));
    let oracle = make_oracles(&settings, Some(&[name]))
        .pop()
        .unwrap_or_else(|| panic!("repdiff-fuzz: no oracle `{name}`"));
    log::info!(
        "repdiff-fuzz: {}: {}",
        robust_target(name),
        oracle.identity()
    );
    *g = Some(One {
        name,
        oracle,
        stats_dir: settings.stats,
        execs: 0,
        errors: 0,
        last_flush: Instant::now(),
    });
}

/// Run one input; a crash, a C++ exception or a wrong answer count panics,
/// which is what libFuzzer reports.
pub fn check(body: &[u8], queries: &[Query]) {
    init();
    let mut g = ONE.lock().unwrap_or_else(|p| p.into_inner());
    let Some(one) = g.as_mut() else { return };
    let name = one.name;
    one.execs += 1;
    let answers = one.oracle.run(body, queries);
    assert_eq!(
        answers.len(),
        queries.len(),
        "{name} returned a wrong number of answers"
    );
    for a in &answers {
        match &a.outcome {
            Outcome::Crash { detail } => panic!("{name} crashed: {detail}"),
            Outcome::Error { kind, message } if kind.starts_with("c++") => {
                panic!("{name} threw: {kind}: {message}")
            }
            Outcome::Error { .. } => one.errors += 1,
            _ => {}
        }
    }
    if one.last_flush.elapsed() >= Duration::from_secs(1) {
        one.flush();
    }
}

impl One {
    fn flush(&mut self) {
        self.last_flush = Instant::now();
        let Some(dir) = &self.stats_dir else { return };
        let _ = std::fs::create_dir_all(dir);
        let stats = RobustStats {
            target: robust_target(self.name),
            oracle: self.name.to_string(),
            pid: std::process::id(),
            execs: self.execs,
            errors: self.errors,
        };
        let path = dir.join(format!(
            "{ROBUST_PREFIX}{}-{}.json",
            self.name,
            std::process::id()
        ));
        let _ = engine::write_atomic(&path, record::to_pretty(&stats).as_bytes());
    }
}

/// A robustness input: the structured model most of the time, raw bytes
/// split into body, agent and URL otherwise.
#[derive(arbitrary::Arbitrary, Debug)]
pub enum Input {
    Structured(crate::generate::Model),
    Structured2(crate::generate::Model),
    Structured3(crate::generate::Model),
    Raw {
        body: Vec<u8>,
        agent: Vec<u8>,
        url: Vec<u8>,
    },
}

impl Input {
    pub fn render(&self) -> (Vec<u8>, Vec<Query>) {
        match self {
            Input::Structured(m) | Input::Structured2(m) | Input::Structured3(m) => {
                m.render_with(true)
            }
            Input::Raw { body, agent, url } => (
                body.clone(),
                vec![Query {
                    ask: engine::oracle::Ask::CanFetch,
                    agent: String::from_utf8_lossy(agent).into_owned(),
                    url: String::from_utf8_lossy(url).into_owned(),
                }],
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The variable picks a registered oracle; an unknown one is refused
    /// with the list. (One test: the process environment is shared.)
    #[test]
    fn the_oracle_comes_from_the_variable() {
        let chosen_oracle = || chosen_oracle(&Settings::from_env().expect("the settings"));
        std::env::set_var(ORACLE_VAR, "google");
        assert_eq!(chosen_oracle(), Ok("google"));
        std::env::set_var(ORACLE_VAR, "no-such-parser");
        let err = chosen_oracle().unwrap_err();
        assert!(err.contains("rfc9309"), "{err}");
        std::env::remove_var(ORACLE_VAR);
        assert!(chosen_oracle().is_err());
    }
}
