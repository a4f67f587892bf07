//! Every hand-written expectation is checked by code: each query whose
//! `expect` is not `either` must get exactly that answer from `rfc9309`,
//! the executable reading of RFC 9309 (HTTP cases included: it fetches them
//! from the local server like any fetcher). A mismatch is either a wrong case
//! or a wrong reference; the test lists each one.

use std::process::Command;

#[test]
fn every_definite_expectation_equals_the_reference_verdict() {
    let out_dir = std::env::temp_dir().join(format!("repdiff-ref-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args(["conformance", "--no-setup", "--oracle", "rfc9309", "--out"])
        .arg(&out_dir)
        .output()
        .expect("run repdiff");
    let text = std::fs::read_to_string(out_dir.join("compat.json")).unwrap_or_else(|e| {
        panic!(
            "no report ({e}); repdiff said:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let _ = std::fs::remove_dir_all(&out_dir);
    let report: serde_json::Value = serde_json::from_str(&text).expect("json");
    let cells = report["cells"].as_array().expect("cells");
    let mut answered = 0;
    let mut wrong = Vec::new();
    for c in cells {
        match c["status"].as_str() {
            Some("match") => answered += 1,
            Some("split") | Some("unsupported") => {}
            other => wrong.push(format!(
                "{}#{}: {:?} said {} ({})",
                c["case"].as_str().unwrap_or("?"),
                c["query"].as_u64().unwrap_or(0) + 1,
                other,
                c["answer"]["outcome"],
                c["answer"]["explain"].as_str().unwrap_or("")
            )),
        }
    }
    assert!(
        answered > 1000,
        "only {answered} cells answered: is the corpus loaded?"
    );
    assert!(
        wrong.is_empty(),
        "{} expectation(s) differ from the reference:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
