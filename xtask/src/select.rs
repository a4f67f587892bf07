//! Turning `--oracle` names into running oracles.

use crate::chaos;
use crate::cli::Usage;
use engine::oracle::{Oracle, Unavailable};
use engine::worker::{Limits, Supervised};

pub struct Selection {
    pub oracles: Vec<Box<dyn Oracle>>,
    pub unavailable: Vec<Unavailable>,
    /// A fake oracle is in the run: its report must not be published.
    pub has_chaos: bool,
}

/// Every real oracle name, in report order.
pub fn known_names() -> Vec<&'static str> {
    oracles::registry().iter().map(|e| e.name).collect()
}

/// Check names before anything runs, so a typo exits 2 with nothing written.
pub fn validate(names: &[String]) -> Result<(), Usage> {
    let known = known_names();
    for n in names {
        if !known.contains(&n.as_str()) && !chaos::NAMES.contains(&n.as_str()) {
            return Err(Usage(format!(
                "unknown oracle `{n}` (known: {})",
                known.join(", ")
            )));
        }
    }
    Ok(())
}

/// Start the named oracles (all real ones when `names` is empty), each in
/// its own supervised worker unless `in_process`.
pub fn start(names: &[String], in_process: bool, limits: Limits) -> Selection {
    let wanted: Vec<String> = if names.is_empty() {
        known_names().into_iter().map(String::from).collect()
    } else {
        names.to_vec()
    };
    let registry = oracles::registry();
    let exe = self_exe();
    let mut sel = Selection {
        oracles: Vec::new(),
        unavailable: Vec::new(),
        has_chaos: false,
    };
    // Start workers in parallel: interpreters take a while to load.
    let results: Vec<Result<Box<dyn Oracle>, Unavailable>> = std::thread::scope(|s| {
        let handles: Vec<_> = wanted
            .iter()
            .map(|name| {
                let exe = exe.clone();
                let registry = &registry;
                s.spawn(move || -> Result<Box<dyn Oracle>, Unavailable> {
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
                                fix: "see `cargo xtask check --help`".into(),
                            }),
                        };
                    }
                    Supervised::start(name, vec![exe, "worker".into(), name.clone()], limits)
                        .map(|s| Box::new(s) as Box<dyn Oracle>)
                })
            })
            .collect();
        handles
            .into_iter()
            .zip(&wanted)
            .map(|(h, name)| {
                h.join().unwrap_or_else(|_| {
                    Err(Unavailable {
                        oracle: name.clone(),
                        reason: "oracle constructor panicked".into(),
                        fix: "cargo xtask setup".into(),
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

/// The program a worker runs: this very binary. On Linux `/proc/self/exe`
/// still starts it after cargo has replaced the file on disk (a rebuild
/// during a long run), where `current_exe()` would name a deleted path.
pub fn self_exe() -> String {
    if std::path::Path::new("/proc/self/exe").exists() {
        return "/proc/self/exe".into();
    }
    std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "xtask".into())
}

/// `xtask worker NAME`: serve one oracle over stdin/stdout.
pub fn worker(name: &str) -> i32 {
    let result = engine::worker::serve(|| {
        if let Some(c) = chaos::make(name) {
            return Ok(c);
        }
        match oracles::registry().into_iter().find(|e| e.name == name) {
            Some(e) => (e.make)(),
            None => Err(Unavailable {
                oracle: name.to_string(),
                reason: "unknown oracle".into(),
                fix: "check the name".into(),
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
