//! `census ai-crawlers` end to end: real oracles, a folder of two files,
//! the AI-crawler list setup pinned (so this fails when it is missing).
//! A `bot` group keeps every AI crawler out for CPython 3.11 (its substring
//! match) and for none of Google's or the reference's verdicts; a
//! `GPTBot` group keeps GPTBot out for all three and is counted as naming it.

use std::path::Path;
use std::process::Command;

fn temp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("repdiff-aic-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

#[test]
fn a_bot_group_keeps_ai_crawlers_out_for_cpython_alone() {
    let input = temp("input");
    std::fs::write(input.join("a.example"), "User-agent: bot\nDisallow: /\n").unwrap();
    std::fs::write(input.join("b.example"), "User-agent: GPTBot\nDisallow: /\n").unwrap();
    let out = temp("out");
    let run = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args([
            "census",
            "ai-crawlers",
            "--no-setup",
            input.to_str().unwrap(),
        ])
        .args([
            "--oracle",
            "rfc9309",
            "--oracle",
            "google",
            "--oracle",
            "cpython-3.11",
        ])
        .args(["--out", out.to_str().unwrap()])
        .env(
            "REPDIFF_ROOT",
            Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")),
        )
        .output()
        .expect("repdiff runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("ai-crawlers.json")).unwrap()).unwrap();
    assert_eq!(json["files"], 2);
    let names: Vec<&str> = json["oracles"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert_eq!(names, ["rfc9309", "google", "cpython-3.11"]);
    let rows = json["rows"].as_array().unwrap();
    assert!(rows.len() >= 50, "the list's AI crawlers: {}", rows.len());
    let row = |token: &str| {
        rows.iter()
            .find(|r| r["token"] == token)
            .expect(token)
            .clone()
    };
    // GPTBot: named by b, kept out there by all three, and by CPython on a.
    let gpt = row("GPTBot");
    assert_eq!(gpt["named"], 1);
    assert_eq!(gpt["disallowed"], serde_json::json!([1, 1, 2]));
    assert_eq!(gpt["split"], 1);
    assert_eq!(row("CCBot")["disallowed"], serde_json::json!([0, 0, 1]));
    let md = std::fs::read_to_string(out.join("ai-crawlers.md")).unwrap();
    assert!(md.contains("| `GPTBot` |"), "{md}");
    let _ = std::fs::remove_dir_all(&input);
    let _ = std::fs::remove_dir_all(&out);
}
