//! docs/protocol/*.schema.json against real traffic (issue 12): a run of a
//! few corpus cases, HTTP ones included, through every registered oracle
//! with `REPDIFF_PROTOCOL_LOG` set; every greeting, request header and
//! response it logged must validate, and a malformed message must not.

use std::path::Path;
use std::process::Command;

fn schema(name: &str) -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs/protocol")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&value).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn real_traffic_of_every_oracle_validates_against_the_schemas() {
    let dir = std::env::temp_dir().join(format!("repdiff-protocol-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("traffic.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args([
            "conformance",
            "--no-setup",
            "--case",
            "seed-*",
            "--case",
            "http-*",
            "--case",
            "ext-*",
        ])
        .arg("--out")
        .arg(dir.join("out"))
        .env("REPDIFF_PROTOCOL_LOG", &log)
        .output()
        .expect("repdiff runs");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("oracles"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let validators = [
        ("greeting", schema("greeting.schema.json")),
        ("request", schema("request.schema.json")),
        ("response", schema("response.schema.json")),
    ];
    let text = std::fs::read_to_string(&log).expect("the run logged its traffic");
    let _ = std::fs::remove_dir_all(&dir);
    let mut seen = std::collections::BTreeMap::<(String, String), usize>::new();
    for record in text.lines() {
        let r: serde_json::Value = serde_json::from_str(record).unwrap();
        let (oracle, kind) = (r["oracle"].as_str().unwrap(), r["kind"].as_str().unwrap());
        let msg: serde_json::Value = serde_json::from_str(r["line"].as_str().unwrap())
            .unwrap_or_else(|e| panic!("{oracle} {kind}: not JSON: {e}"));
        let v = &validators.iter().find(|(k, _)| *k == kind).unwrap().1;
        let errors: Vec<String> = v.iter_errors(&msg).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{oracle} {kind} {msg}: {errors:?}");
        *seen
            .entry((oracle.to_string(), kind.to_string()))
            .or_default() += 1;
    }
    let oracles: std::collections::BTreeSet<&String> = seen.keys().map(|(o, _)| o).collect();
    assert!(
        oracles.len() >= 13,
        "traffic of {} oracles: {oracles:?}",
        oracles.len()
    );
    for o in oracles {
        for kind in ["greeting", "request", "response"] {
            assert!(
                seen.contains_key(&(o.clone(), kind.into())),
                "{o}: no {kind} logged"
            );
        }
    }
    // And the schemas reject what they must.
    let (greeting, response) = (&validators[0].1, &validators[2].1);
    let v1 =
        serde_json::json!({"v": 1, "hello": {"name": "x", "version": "1", "capabilities": {}}});
    assert!(!greeting.is_valid(&v1), "a v1 greeting is not v2");
    let crash = serde_json::json!({"answers": [{"outcome": "crash", "detail": "x"}]});
    assert!(!response.is_valid(&crash), "a worker never sends crash");
    // ... but may send timeout, for a question past a request's cpu_ms.
    let stopped = serde_json::json!({"answers": [{"outcome": "timeout", "explain": "x"}]});
    assert!(response.is_valid(&stopped));
    let request = &validators[1].1;
    let budget = serde_json::json!({"op": "run", "body_len": 0, "queries": [], "cpu_ms": 50});
    assert!(request.is_valid(&budget));
    let zero = serde_json::json!({"op": "run", "body_len": 0, "queries": [], "cpu_ms": 0});
    assert!(!request.is_valid(&zero), "cpu_ms is at least 1");
    let bad_value = serde_json::json!({"answers": [{"outcome": "value", "value": {"type": "int", "value": 1.5}}]});
    assert!(!response.is_valid(&bad_value));
}
