//! The GitHub workflows and the site owners' example parse, say what they
//! are for, and name only commands that exist: a workflow that calls a
//! renamed subcommand would fail only on GitHub, long after the rename.
//! No network is needed: the files are read and the commands' `--help`
//! asked of the built binary.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn load(rel: &str) -> serde_yaml::Value {
    let path = root().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{rel}: not YAML: {e}"))
}

/// Every step of every job, as (job name, step).
fn steps(doc: &serde_yaml::Value) -> Vec<(String, &serde_yaml::Value)> {
    let jobs = doc["jobs"].as_mapping().expect("jobs");
    let mut out = Vec::new();
    for (name, job) in jobs {
        let name = name.as_str().expect("job name").to_string();
        assert!(job["runs-on"].as_str().is_some(), "{name}: no runs-on");
        let list = job["steps"].as_sequence().expect("steps");
        assert!(!list.is_empty(), "{name}: no steps");
        for step in list {
            assert!(
                step["run"].as_str().is_some() || step["uses"].as_str().is_some(),
                "{name}: a step with neither run nor uses: {step:?}"
            );
            out.push((name.clone(), step));
        }
    }
    out
}

fn runs(doc: &serde_yaml::Value) -> String {
    steps(doc)
        .iter()
        .filter_map(|(_, s)| s["run"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn uses(doc: &serde_yaml::Value) -> Vec<String> {
    steps(doc)
        .iter()
        .filter_map(|(_, s)| s["uses"].as_str().map(str::to_string))
        .collect()
}

/// The subcommand path after `cargo xtask` or `repdiff` (words up to the
/// first flag, argument or shell token), e.g. `report diff`.
/// A `repdiff` that is an option's value (`-p repdiff`) is no command.
fn commands(script: &str) -> Vec<Vec<String>> {
    script.lines().flat_map(line_commands).collect()
}

fn line_commands(line: &str) -> Vec<Vec<String>> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let after_option = i > 0 && words[i - 1].starts_with('-');
        let start = match (*w, words.get(i + 1)) {
            ("cargo", Some(&"xtask")) => i + 2,
            (w, _) if !after_option && (w == "repdiff" || w.ends_with("/repdiff")) => i + 1,
            _ => continue,
        };
        let path: Vec<String> = words[start..]
            .iter()
            .take_while(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
            .take(2)
            .map(|w| w.to_string())
            .collect();
        if !path.is_empty() {
            out.push(path);
        }
    }
    out
}

/// `xtask PATH --help` succeeds: xtask runs every product command as the
/// `repdiff` binary does, so both spellings are checked here. A second word
/// that is an argument rather than a subcommand (`lint robots.txt`) is
/// dropped when the longer path is refused.
fn assert_commands_exist(rel: &str, script: &str) {
    let found = commands(script);
    assert!(!found.is_empty(), "{rel}: names no repdiff command");
    for path in found {
        let ok = |p: &[String]| {
            Command::new(env!("CARGO_BIN_EXE_xtask"))
                .args(p)
                .arg("--help")
                .output()
                .is_ok_and(|o| o.status.success())
        };
        assert!(
            ok(&path) || ok(&path[..1]),
            "{rel}: `{}` is not a command",
            path.join(" ")
        );
    }
}

#[test]
fn the_report_workflow_publishes_on_main_and_diffs_a_pull_request() {
    let rel = ".github/workflows/report.yml";
    let doc = load(rel);
    let on = &doc["on"];
    assert_eq!(on["push"]["branches"][0].as_str(), Some("main"));
    assert!(on.get("pull_request").is_some(), "runs on pull requests");
    let script = runs(&doc);
    for want in [
        "cargo xtask conformance --strict",
        "cargo xtask report --publish",
        "report diff --markdown reports/latest/compat.json reports/run/latest/compat.json",
        "$GITHUB_STEP_SUMMARY",
    ] {
        assert!(script.contains(want), "{rel}: no `{want}`");
    }
    let used = uses(&doc);
    assert!(used
        .iter()
        .any(|u| u.starts_with("actions/upload-pages-artifact")));
    assert!(used.iter().any(|u| u.starts_with("actions/deploy-pages")));
    let upload = steps(&doc)
        .into_iter()
        .find(|(_, s)| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-pages-artifact"))
        })
        .expect("upload step");
    assert_eq!(upload.1["with"]["path"].as_str(), Some("reports/site"));
    let deploy = &doc["jobs"]["deploy"];
    assert_eq!(deploy["permissions"]["pages"].as_str(), Some("write"));
    assert_eq!(deploy["permissions"]["id-token"].as_str(), Some("write"));
    assert_commands_exist(rel, &script);
}

#[test]
fn the_site_owners_example_lints_robots_txt() {
    let rel = "docs/examples/robots-lint.yml";
    let doc = load(rel);
    let script = runs(&doc);
    assert!(script.contains("repdiff lint robots.txt"), "{rel}");
    assert!(script.contains("cargo xtask setup"), "{rel}");
    assert_commands_exist(rel, &script);
}

#[test]
fn the_site_owners_review_example_compares_the_base_and_the_change() {
    let rel = "docs/examples/robots-review.yml";
    let doc = load(rel);
    let script = runs(&doc);
    assert!(script.contains("repdiff lint --before"), "{rel}");
    assert!(script.contains("github.base_ref"), "{rel}");
    assert!(script.contains("cargo xtask setup"), "{rel}");
    assert!(
        doc["on"]["pull_request"]["paths"][0].as_str() == Some("robots.txt"),
        "{rel}"
    );
    assert_commands_exist(rel, &script);
}

#[test]
fn every_workflow_parses_and_names_real_commands() {
    let dir = root().join(".github/workflows");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect(".github/workflows") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("yml") {
            continue;
        }
        let rel = format!(
            ".github/workflows/{}",
            path.file_name().and_then(|n| n.to_str()).expect("name")
        );
        let doc = load(&rel);
        assert!(doc["name"].as_str().is_some(), "{rel}: no name");
        assert!(doc.get("on").is_some(), "{rel}: no trigger");
        let script = runs(&doc);
        if !commands(&script).is_empty() {
            assert_commands_exist(&rel, &script);
        }
        seen += 1;
    }
    assert!(seen >= 2, "found {seen} workflows");
}

#[test]
fn a_renamed_command_is_caught() {
    // The checker itself: a command that does not exist must fail it.
    let bad = std::panic::catch_unwind(|| assert_commands_exist("x", "cargo xtask no-such-cmd"));
    assert!(bad.is_err());
    assert_eq!(
        commands("cargo xtask report diff --markdown a b && repdiff lint robots.txt\ncargo build -p repdiff\nset -e"),
        vec![vec!["report".to_string(), "diff".to_string()], vec!["lint".to_string()]]
    );
}
