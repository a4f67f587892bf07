//! What several integration tests share: the registered oracles, as
//! `repdiff oracles --json` lists them, started as real workers.

use engine::worker::{Limits, Supervised};
use std::process::Command;
use std::time::Duration;

/// One registered oracle and how its worker starts.
pub struct Registered {
    pub name: String,
    pub external: bool,
    pub command: Vec<String>,
    pub env: Vec<(String, String)>,
    /// The manifest's direct-call argv (`direct:` of its oracle.yaml).
    pub direct: Vec<String>,
}

pub fn all() -> Vec<Registered> {
    let out = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args(["oracles", "--json"])
        .output()
        .expect("repdiff runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON array");
    v.as_array()
        .expect("an array")
        .iter()
        .map(|o| Registered {
            name: o["name"].as_str().unwrap().to_string(),
            external: o["kind"] == "external",
            command: o["command"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_string())
                .collect(),
            env: o["env"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                .collect(),
            direct: o["direct"]
                .as_array()
                .map(|a| a.iter().map(|v| v.as_str().unwrap().to_string()).collect())
                .unwrap_or_default(),
        })
        .collect()
}

/// Its worker, with a generous per-query limit (the 500 KiB body).
pub fn start(o: &Registered, timeout: Duration) -> Supervised {
    start_with(
        o,
        Limits {
            timeout,
            ..Limits::default()
        },
    )
}

/// [`start`] with limits of the caller's.
pub fn start_with(o: &Registered, limits: Limits) -> Supervised {
    Supervised::start_with_env(&o.name, o.command.clone(), o.env.clone(), limits)
        .unwrap_or_else(|u| panic!("{u}\n=> run `repdiff setup` first"))
}
