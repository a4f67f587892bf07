//! Issue 11: the same corpus run from two checkouts at different paths
//! gives byte-identical compat.json (timings aside) and the same history
//! keys, so a second checkout never adds a "new version" of a parser.
//! Every oracle runs, in its worker, as in a plain `conformance`.

use std::path::Path;
use std::process::Command;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// A checkout's corpus, ledger and external harnesses at `dir` (what
/// conformance reads; the setup cache is shared, as on one machine).
fn checkout(dir: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    copy_dir(&root.join("cases"), &dir.join("cases"));
    copy_dir(&root.join("oracles/harness"), &dir.join("oracles/harness"));
}

/// compat.json without what may differ between two runs: timings.
fn without_timings(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.remove("millis");
            m.remove("generated_unix");
            m.values_mut().for_each(without_timings);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(without_timings),
        _ => {}
    }
}

fn run_from(dir: &Path) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        // Other test binaries run beside this one: a generous per-call
        // timeout keeps a slow-but-answering case (robotstxt-rs takes 1.5 s
        // alone on google-line-too-long-stars) from timing out under load;
        // the test compares reports, not speed.
        .args(["conformance", "--no-setup", "--timeout", "30", "--out"])
        .arg(dir.join("out"))
        .env("REPDIFF_ROOT", dir)
        .output()
        .expect("repdiff runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "conformance from {} failed:\n{stdout}\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("out/compat.json")).unwrap();
    assert!(
        !text.contains(&*dir.to_string_lossy()),
        "compat.json names the checkout path"
    );
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    without_timings(&mut v);
    v
}

#[test]
fn two_checkouts_give_the_same_report_and_history_keys() {
    let base = std::env::temp_dir().join(format!("repdiff-two-checkouts-{}", std::process::id()));
    let (a, b) = (base.join("a"), base.join("deeper/path/b"));
    checkout(&a);
    checkout(&b);
    let (ra, rb) = (run_from(&a), run_from(&b));
    let _ = std::fs::remove_dir_all(&base);
    let keys = |r: &serde_json::Value| -> Vec<(String, String)> {
        r["oracles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| (o["name"].to_string(), o["version"].to_string()))
            .collect()
    };
    assert_eq!(ra["unavailable"], serde_json::json!([]), "every oracle ran");
    assert!(keys(&ra).len() >= 8);
    assert_eq!(keys(&ra), keys(&rb));
    assert!(ra == rb, "compat.json differs between the two checkouts");
}
