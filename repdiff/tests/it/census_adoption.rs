//! `census adoption` end to end: real oracles, a folder of two files, the
//! committed edits. Google's parser reads `DisallowAITraining: /` as
//! `Disallow: /` (the ledger's ai-training-keys-read-by-prefix), the
//! RFC 9309 reference as an other record, so the DisallowAITraining edit
//! must flip Google's verdicts on both sites and none of the reference's,
//! with the triage's cause; Cloudflare's block flips the reference itself
//! (its `Allow: /` merges with a site's `Disallow: /`) and keeps GPTBot out
//! as it means to; a broken edits file is refused with its path before
//! anything is written.

use std::path::Path;
use std::process::Command;

fn temp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("repdiff-adoption-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn adoption(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args(["census", "adoption", "--no-setup"])
        .args(args)
        .env(
            "REPDIFF_ROOT",
            Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")),
        )
        .output()
        .expect("repdiff runs")
}

#[test]
fn disallow_ai_training_flips_google_and_not_the_reference() {
    let input = temp("input");
    std::fs::write(
        input.join("a.example"),
        "User-agent: *\nDisallow: /private/\n",
    )
    .unwrap();
    std::fs::write(
        input.join("b.example"),
        "User-agent: Googlebot\nDisallow: /tmp/\n\nUser-agent: *\nDisallow: /cgi/\n",
    )
    .unwrap();
    std::fs::write(input.join("c.example"), "User-agent: *\nDisallow: /\n").unwrap();
    std::fs::write(
        input.join("d.example"),
        "User-agent: GPTBot\nDisallow: /private/\n",
    )
    .unwrap();
    let out = temp("out");
    let run = adoption(&[
        input.to_str().unwrap(),
        "--oracle",
        "google",
        "--oracle",
        "rfc9309",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("adoption.json")).unwrap()).unwrap();
    assert_eq!(json["files"], 4);
    let sites = |edit: &str, oracle: &str| {
        json["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["edit"] == edit && r["oracle"] == oracle)
            .unwrap_or_else(|| panic!("no row {edit} {oracle}"))["sites"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(sites("disallow-ai-training-in-star-group", "google"), 2);
    assert_eq!(sites("disallow-ai-training-in-star-group", "rfc9309"), 0);
    assert_eq!(sites("content-signal-in-star-group", "google"), 0);
    let causes = |edit: &str, oracle: &str| -> Vec<(String, serde_json::Value)> {
        let row = json["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["edit"] == edit && r["oracle"] == oracle)
            .unwrap();
        row["examples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["host"].as_str().unwrap().to_string(), f["cause"].clone()))
            .collect()
    };
    for (_, c) in causes("disallow-ai-training-in-star-group", "google") {
        assert_eq!(c["kind"], "departs", "{c}");
        assert_eq!(c["cause"], "fix-key-prefix", "{c}");
        assert!(
            c["ledger"]
                .as_array()
                .unwrap()
                .iter()
                .any(|l| l == "ai-training-keys-read-by-prefix"),
            "{c}"
        );
    }
    let cloudflare = causes("cloudflare-managed-block", "rfc9309");
    let kind = |host: &str| {
        cloudflare
            .iter()
            .find(|(h, _)| h == host)
            .unwrap_or_else(|| panic!("no example for {host}: {cloudflare:?}"))
            .1["kind"]
            .clone()
    };
    assert_eq!(kind("c.example"), "standard");
    assert_eq!(kind("d.example"), "intended");
    let md = std::fs::read_to_string(out.join("adoption.md")).unwrap();
    assert!(
        md.contains("| `disallow-ai-training-in-star-group`"),
        "{md}"
    );
}

#[test]
fn a_broken_edits_file_is_refused_with_its_path() {
    let dir = temp("broken");
    let edits = dir.join("edits.yaml");
    std::fs::write(&edits, "edits:\n  - id: x\n    title: t\n    source: s\n    placement: sideways\n    text: \"a: b\"\n").unwrap();
    let out = dir.join("out");
    let run = adoption(&[
        "--edits",
        edits.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("edits.yaml") && err.contains("line"), "{err}");
    assert!(!out.exists(), "a refused run made its output folder");
}
