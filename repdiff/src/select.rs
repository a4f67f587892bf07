//! Turning `--oracle` names into running oracles.

use crate::chaos;
use crate::registry::{self, External};
use crate::shared::Usage;
use engine::oracle::{Oracle, Unavailable};
use engine::worker::{Limits, Supervised};

pub struct Selection {
    pub oracles: Vec<Box<dyn Oracle>>,
    pub unavailable: Vec<Unavailable>,
    /// A fake oracle is in the run: its report must not be published.
    pub has_chaos: bool,
}

/// Every registered oracle name, in report order: the built-in adapters,
/// then the external oracles, one directory each under `oracles/harness/`. A
/// registry that cannot be read leaves the built-ins (and says why).
pub fn known_names() -> Vec<String> {
    let mut names: Vec<String> = oracles::registry()
        .iter()
        .map(|e| e.name.to_string())
        .collect();
    match registry::externals() {
        Ok(ext) => names.extend(ext.into_iter().map(|e| e.name)),
        Err(Usage(e)) => log::warn!("{e}"),
    }
    names
}

/// The expectation profiles (`robots-1996`, `robots-1994`, `googlebot`):
/// references, not parsers, so never in the default selection; `check`
/// runs them when named.
pub fn profile_names() -> Vec<String> {
    oracles::profiles()
        .iter()
        .map(|e| e.name.to_string())
        .collect()
}

/// Every oracle this binary serves as `worker NAME`: the parsers and the
/// profiles.
fn builtins() -> Vec<oracles::Entry> {
    let mut all = oracles::registry();
    all.extend(oracles::profiles());
    all
}

/// `--oracle-cmd NAME='COMMAND'` flags, parsed.
pub fn oracle_cmds(specs: &[String]) -> Result<Vec<External>, Usage> {
    let known = known_names();
    let mut out: Vec<External> = Vec::new();
    for spec in specs {
        let e = registry::oracle_cmd(spec)?;
        if known.contains(&e.name) || out.iter().any(|o| o.name == e.name) {
            return Err(Usage(format!(
                "--oracle-cmd: `{}` is already an oracle name; pick another",
                e.name
            )));
        }
        out.push(e);
    }
    Ok(out)
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

/// How one selected oracle is started.
enum Plan {
    Builtin(String),
    External(Box<External>),
}

impl Plan {
    fn name(&self) -> &str {
        match self {
            Plan::Builtin(n) => n,
            Plan::External(e) => &e.name,
        }
    }
}

/// Start the named oracles (all registered ones when `names` is empty, plus
/// every `--oracle-cmd` one), each in its own supervised worker; the
/// built-ins in this process instead when `in_process`.
pub fn start(names: &[String], extra: &[External], in_process: bool, limits: Limits) -> Selection {
    let externals = registry::externals().unwrap_or_default();
    let wanted: Vec<String> = if names.is_empty() {
        let mut all = known_names();
        all.extend(extra.iter().map(|e| e.name.clone()));
        all
    } else {
        names.to_vec()
    };
    let plans: Vec<Plan> = wanted
        .iter()
        .map(
            |n| match externals.iter().chain(extra).find(|e| &e.name == n) {
                Some(e) => Plan::External(Box::new(e.clone())),
                None => Plan::Builtin(n.clone()),
            },
        )
        .collect();
    let registry = builtins();
    let exe = self_exe();
    let mut sel = Selection {
        oracles: Vec::new(),
        unavailable: Vec::new(),
        has_chaos: false,
    };
    // Start workers in parallel: interpreters take a while to load.
    let results: Vec<Result<Box<dyn Oracle>, Unavailable>> = std::thread::scope(|s| {
        let handles: Vec<_> = plans
            .iter()
            .map(|plan| {
                let exe = exe.clone();
                let registry = &registry;
                s.spawn(move || -> Result<Box<dyn Oracle>, Unavailable> {
                    let name = match plan {
                        Plan::External(e) => {
                            let registered = !extra.iter().any(|x| x.name == e.name);
                            return Supervised::launch(&e.name, e.argv(), e.envs(), limits)
                                .map(|s| Box::new(s) as Box<dyn Oracle>)
                                .map_err(|err| with_fix(err, e, registered));
                        }
                        Plan::Builtin(name) => name,
                    };
                    if in_process {
                        if let Some(c) = chaos::make(name) {
                            return Ok(c);
                        }
                        let entry = registry.iter().find(|e| e.name == name.as_str());
                        return match entry {
                            Some(e) => (e.make)(),
                            None => Err(Unavailable {
                                oracle: name.clone(),
                                reason: "unknown oracle".into(),
                                fix: format!("see `{} oracles`", crate::shared::program()),
                                then_setup: false,
                            }),
                        };
                    }
                    Supervised::launch(
                        name,
                        worker_command(registry, name, exe),
                        Vec::new(),
                        limits,
                    )
                    .map(|s| Box::new(s) as Box<dyn Oracle>)
                    .map_err(|err| {
                        let mut u = err.unavailable;
                        if u.fix.is_empty() {
                            u.then_setup = true;
                        }
                        u
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .zip(&plans)
            .map(|(h, plan)| {
                h.join().unwrap_or_else(|_| {
                    Err(Unavailable {
                        oracle: plan.name().to_string(),
                        reason: "oracle constructor panicked".into(),
                        fix: String::new(),
                        then_setup: true,
                    })
                })
            })
            .collect()
    });
    for (name, r) in wanted.iter().zip(results) {
        sel.has_chaos |= chaos::NAMES.contains(&name.as_str());
        match r {
            Ok(o) => sel.oracles.push(o),
            Err(u) => sel.unavailable.push(u),
        }
    }
    sel
}

/// The argv that serves built-in `name` as a worker: its harness binary
/// where it has one (Google's C++ is linked only there), else this binary's
/// `worker NAME`.
pub fn worker_command(registry: &[oracles::Entry], name: &str, exe: String) -> Vec<String> {
    match registry
        .iter()
        .find(|e| e.name == name)
        .and_then(|e| e.harness)
    {
        Some(harness) => vec![harness().display().to_string()],
        None => vec![exe, "worker".into(), name.to_string()],
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
        match builtins().into_iter().find(|e| e.name == name) {
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
            eprintln!("worker {name}: {e}");
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
    let registry = oracles::registry();
    for e in &registry {
        rows.push(serde_json::json!({
            "name": e.name, "kind": "built-in",
            "command": worker_command(&registry, e.name, exe.clone()), "env": {},
        }));
    }
    for e in registry::externals()? {
        let env: serde_json::Map<String, serde_json::Value> =
            e.envs().into_iter().map(|(k, v)| (k, v.into())).collect();
        rows.push(serde_json::json!({
            "name": e.name, "kind": "external", "command": e.argv(), "env": env,
            "direct": e.direct_argv(),
        }));
    }
    if opts.json {
        println!("{}", serde_json::Value::Array(rows));
    } else {
        for r in &rows {
            let argv: Vec<&str> = r["command"]
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            println!(
                "{:<16} {:<9} {}",
                r["name"].as_str().unwrap_or(""),
                r["kind"].as_str().unwrap_or(""),
                argv.join(" ")
            );
        }
    }
    Ok(0)
}

/// The fix line for an external worker that did not start, by what went
/// wrong and whose harness it is: setup installs a registered oracle, while
/// a `--oracle-cmd` harness is the user's own, so its fix is the protocol.
fn with_fix(err: engine::worker::StartError, e: &External, registered: bool) -> Unavailable {
    use engine::worker::StartFailure;
    let mut u = err.unavailable;
    let program = crate::shared::program();
    let argv = e.argv().join(" ");
    u.fix = match (err.kind, registered) {
        (StartFailure::Unavailable, _) if !u.fix.is_empty() || u.then_setup => return u,
        (StartFailure::Unavailable | StartFailure::Exec, true) => {
            format!("{program} setup (it installs `{}`)", e.name)
        }
        (StartFailure::Protocol, true) => format!(
            "{program} setup; or run `{argv}` by hand: it must greet as docs/protocol.md says"
        ),
        (_, false) => format!(
            "`{argv}` is your --oracle-cmd harness: it must start and greet within the greeting \
             timeout as docs/protocol.md says (oracles/harness/example.py is a working one)"
        ),
    };
    u
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
