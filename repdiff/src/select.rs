//! Turning `--oracle` names into running oracles.

use crate::chaos;
use crate::registry::{self, External};
use crate::shared::Usage;
use engine::oracle::{Oracle, Unavailable};
use engine::worker::Limits;
use oracles::roster::{Builtins, Request};
use oracles::{Checkout, Roster};

pub struct Selection {
    pub oracles: Vec<Box<dyn Oracle>>,
    pub unavailable: Vec<Unavailable>,
    /// A fake oracle is in the run: its report must not be published.
    pub has_chaos: bool,
    /// How the fix lines of `unavailable` name the program.
    pub program: &'static str,
}

/// Every registered oracle name, in report order: the built-in adapters,
/// then the external oracles, one directory each under `oracles/harness/`. A
/// registry that cannot be read leaves the built-ins (and says why).
pub fn known_names() -> Vec<String> {
    if let Err(Usage(e)) = registry::roster() {
        log::warn!("{e}");
    }
    registry::roster_or_builtins().names()
}

/// The expectation profiles (`robots-1996`, `robots-1994`, `googlebot`):
/// references, not parsers, so never in the default selection; `check`
/// runs them when named.
pub fn profile_names() -> Vec<String> {
    registry::roster_or_builtins().profile_names()
}

/// `--oracle-cmd NAME='COMMAND'` flags, parsed ([`oracles::Roster::oracle_cmds`]).
pub fn oracle_cmds(specs: &[String]) -> Result<Vec<External>, Usage> {
    if let Err(Usage(e)) = registry::roster() {
        log::warn!("{e}");
    }
    registry::roster_or_builtins()
        .oracle_cmds(specs)
        .map_err(Usage)
}

/// Check names before anything runs, so a typo exits 2 with nothing written.
pub fn validate(names: &[String], extra: &[External]) -> Result<(), Usage> {
    registry::externals()?;
    let known = known_names();
    let profiles = profile_names();
    for n in names {
        if !known.contains(n)
            && !profiles.contains(n)
            && !chaos::NAMES.contains(&n.as_str())
            && !extra.iter().any(|e| &e.name == n)
        {
            return Err(Usage(format!(
                "unknown oracle `{n}` (known: {}; profiles: {})",
                known.join(", "),
                profiles.join(", ")
            )));
        }
    }
    Ok(())
}

/// Start the named oracles (all registered ones when `names` is empty, plus
/// every `--oracle-cmd` one), each in its own supervised worker; the
/// built-ins in this process instead when `in_process`. The roster starts
/// them ([`oracles::Roster::start`]); what is the product's own is the fake
/// `chaos` oracles it may add and the program its fix lines name
/// ([`DEFAULT_PROGRAM`](crate::shared::DEFAULT_PROGRAM) here; a product
/// command passes its own to [`start_for`]).
pub fn start(names: &[String], extra: &[External], in_process: bool, limits: Limits) -> Selection {
    start_for(
        crate::shared::DEFAULT_PROGRAM,
        names,
        extra,
        in_process,
        limits,
    )
}

/// [`start`], fix lines naming `program` (the [`crate::shared::Host`]'s).
pub fn start_for(
    program: &'static str,
    names: &[String],
    extra: &[External],
    in_process: bool,
    limits: Limits,
) -> Selection {
    let exe = self_exe();
    let request = Request {
        names,
        extra,
        builtins: if in_process {
            Builtins::InProcess
        } else {
            Builtins::Workers { exe: &exe }
        },
        limits,
        workers_skip_explanations: false,
        makers: Some(&chaos::make),
        program: Some(program),
    };
    let started = registry::roster_or_builtins().start(&request);
    Selection {
        oracles: started.oracles.into_iter().map(|(o, _)| o).collect(),
        unavailable: started.unavailable,
        has_chaos: names.iter().any(|n| chaos::NAMES.contains(&n.as_str())),
        program,
    }
}

/// The program a worker runs: this very binary. On Linux `/proc/self/exe`
/// still starts it after cargo has replaced the file on disk (a rebuild
/// during a long run), where `current_exe()` would name a deleted path.
pub fn self_exe() -> String {
    if std::path::Path::new("/proc/self/exe").exists() {
        return "/proc/self/exe".into();
    }
    std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "repdiff".into())
}

/// `worker NAME` (of xtask or repdiff, whichever binary started it): serve
/// one oracle over stdin/stdout.
pub fn worker(name: &str) -> i32 {
    let result = engine::worker::serve(|| {
        if let Some(c) = chaos::make(name) {
            return Ok(c);
        }
        // The built-ins alone: a worker reads no manifest.
        match Roster::builtins_only(Checkout::current()).builtin(name) {
            Some(e) => (e.make)(),
            None => Err(Unavailable {
                oracle: name.to_string(),
                reason: "unknown oracle".into(),
                fix: "check the name".into(),
                then_setup: false,
            }),
        }
    });
    match result {
        Ok(()) => 0,
        Err(e) => {
            log::error!("worker {name}: {e}");
            1
        }
    }
}

// The help text is the doc comment of the `Product` variant (cli.rs).
#[derive(Debug, clap::Args)]
pub struct ListOpts {
    /// One JSON array (what the contract test drives)
    #[arg(long)]
    pub json: bool,
}

/// `oracles [--json]`: every registered oracle in report order, and the
/// command that starts its worker (what the contract test drives).
pub fn list(opts: &ListOpts) -> Result<i32, Usage> {
    let exe = self_exe();
    let exe = if exe == "/proc/self/exe" {
        std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or(exe)
    } else {
        exe
    };
    let mut rows = Vec::new();
    let roster = registry::roster()?;
    for e in roster.parsers() {
        rows.push(serde_json::json!({
            "name": e.name, "kind": "built-in",
            "command": roster.worker_command(e.name, &exe), "env": {},
        }));
    }
    for e in roster.externals() {
        let env: serde_json::Map<String, serde_json::Value> =
            e.envs().into_iter().map(|(k, v)| (k, v.into())).collect();
        rows.push(serde_json::json!({
            "name": e.name, "kind": "external", "command": e.argv(), "env": env,
            "direct": e.direct_argv(),
        }));
    }
    if opts.json {
        crate::out!("{}", serde_json::Value::Array(rows));
    } else {
        for r in &rows {
            let argv: Vec<&str> = r["command"]
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            crate::out!(
                "{:<16} {:<9} {}",
                r["name"].as_str().unwrap_or(""),
                r["kind"].as_str().unwrap_or(""),
                argv.join(" ")
            );
        }
    }
    Ok(0)
}

/// How far a worker may go before it is cut off, for the commands that
/// start oracles (`check`, `conformance`, `census`); the per-call timeout
/// stays each command's own `--timeout`.
#[derive(Debug, Clone, clap::Args)]
pub struct WorkerFlags {
    /// Seconds a starting worker may be idle before it greets (a harness
    /// that cannot start is told within this, naming what it printed); time
    /// it spends busy, or waiting for a CPU, does not count, up to 12 times
    /// this in all
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = crate::shared::seconds)]
    pub greeting_timeout: std::time::Duration,
    /// Each worker's data-segment limit in MiB, 0 for none (a worker past
    /// it dies as one crash cell instead of taking the machine's memory)
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    pub memory_limit: u64,
    /// Leave this oracle out (repeatable): the run says it was not asked,
    /// instead of failing because it cannot start
    #[arg(long = "skip-oracle", value_name = "NAME")]
    pub skip_oracles: Vec<String>,
}

impl WorkerFlags {
    /// The oracles to start for `--oracle` names `names` (empty: every
    /// registered one and every `--oracle-cmd` one), without the skipped
    /// ones. Says on stderr which were left out.
    pub fn wanted(&self, names: &[String], extra: &[External]) -> Result<Vec<String>, Usage> {
        if self.skip_oracles.is_empty() {
            return Ok(names.to_vec());
        }
        validate(&self.skip_oracles, extra)?;
        let all: Vec<String> = if names.is_empty() {
            let mut all = known_names();
            all.extend(extra.iter().map(|e| e.name.clone()));
            all
        } else {
            names.to_vec()
        };
        let kept: Vec<String> = all
            .into_iter()
            .filter(|n| !self.skip_oracles.contains(n))
            .collect();
        if kept.is_empty() {
            return Err(Usage("--skip-oracle left no oracle to ask".into()));
        }
        log::warn!(
            "not asked (--skip-oracle): {}",
            self.skip_oracles.join(", ")
        );
        Ok(kept)
    }

    /// The engine's limits with this call timeout and these flags.
    pub fn limits(&self, timeout: std::time::Duration) -> Limits {
        Limits {
            timeout,
            greeting_timeout: self.greeting_timeout,
            memory_limit: self.memory_limit.saturating_mul(1 << 20),
            ..Limits::default()
        }
    }
}
