//! `repdiff report` without a browser: the site of a real run is
//! self-contained (no external resource, every relative link resolves),
//! escapes whatever the corpus holds, carries a shields.io badge per oracle,
//! shows a version move from the history, and a failed render leaves the
//! previous site whole.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repdiff() -> Command {
    Command::new(env!("CARGO_BIN_EXE_repdiff"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("repdiff-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn ok(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A quick run: the pure-Rust oracles over the seed and known-divergence cases.
fn run(dir: &Path) -> PathBuf {
    let out = repdiff()
        .args([
            "conformance",
            "--no-setup",
            "--oracle",
            "rfc9309",
            "--oracle",
            "texting-robots",
            "--oracle",
            "robotstxt-rs",
            "--case",
            "seed-*",
            "--case",
            "kd-*",
            "--out",
        ])
        .arg(dir)
        .output()
        .unwrap();
    // Exit 1 is fine here: with three oracles some `either` queries split
    // differently than in the full run, and those cells show up untriaged.
    assert!(
        matches!(out.status.code(), Some(0 | 1)) && dir.join("compat.json").is_file(),
        "conformance failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join("compat.json")
}

fn report(json: &Path, site: &Path, history: &Path) -> Output {
    repdiff()
        .args(["report", "--no-screenshot", "--json"])
        .arg(json)
        .arg("--out")
        .arg(site)
        .arg("--history")
        .arg(history)
        .output()
        .unwrap()
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every `href="..."`/`src="..."` value of a page.
fn links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["href=\"", "src=\""] {
        let mut rest = html;
        while let Some(i) = rest.find(attr) {
            rest = &rest[i + attr.len()..];
            if let Some(j) = rest.find('"') {
                out.push(rest[..j].to_string());
                rest = &rest[j..];
            }
        }
    }
    out
}

#[test]
fn a_real_run_renders_a_self_contained_site() {
    let dir = tmp("site-render");
    let json = run(&dir.join("run"));
    let site = dir.join("site");
    let out = report(&json, &site, &dir.join("none.jsonl"));
    ok(&out, "report");

    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cases = report["cases"].as_array().unwrap();
    let oracles: Vec<&str> = report["oracles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    for c in cases {
        let id = c["id"].as_str().unwrap();
        assert!(
            site.join(format!("cases/{id}.html")).is_file(),
            "no page for {id}"
        );
    }
    for o in &oracles {
        let page = std::fs::read_to_string(site.join(format!("oracles/{o}.html"))).unwrap();
        assert!(page.contains("exact version"), "{o}");
        assert!(page.contains("how it was obtained"), "{o}");
        assert!(!page.contains("not recorded"), "{o} has no provenance");
        assert!(page.contains("Scorecard against RFC 9309, section by section"));
        let badge: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(site.join(format!("badges/{o}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(badge["schemaVersion"], 1);
        assert_eq!(badge["label"], "RFC 9309");
        assert!(badge["message"].as_str().unwrap().ends_with('%'), "{badge}");
        assert!(badge["color"].is_string());
    }
    let crate_page = std::fs::read_to_string(site.join("oracles/texting-robots.html")).unwrap();
    assert!(
        crate_page.contains("texting_robots 0.2.2"),
        "provenance from Cargo.lock"
    );

    // Self-contained: no script, no stylesheet link, no remote resource; every
    // relative link (outside the site only the raw report and the findings'
    // write-ups, checked by tests/it/findings.rs) resolves.
    let all = files(&site);
    let mut broken = BTreeSet::new();
    for f in all
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "html"))
    {
        let html = std::fs::read_to_string(f).unwrap();
        assert!(!html.contains("<script"), "{} has a script", f.display());
        assert!(!html.contains("<link"), "{} links a resource", f.display());
        assert!(
            !html.contains("src=\"http"),
            "{} loads a remote resource",
            f.display()
        );
        assert!(
            html.contains("<style>"),
            "{} has no inline style",
            f.display()
        );
        for l in links(&html) {
            if l.starts_with("https://") || l.starts_with("http://") {
                assert!(html.contains(&format!("href=\"{l}\"")), "remote src {l}");
                continue;
            }
            let path = l.split('#').next().unwrap();
            if path.is_empty()
                || path.starts_with("../latest/")
                || path.starts_with("../../latest/")
                || path.starts_with("../findings/")
            {
                continue;
            }
            let target = f.parent().unwrap().join(path);
            if !target.exists() {
                broken.insert(format!("{} -> {l}", f.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links: {broken:#?}");

    // The ledger page lists every entry with its classification and upstream.
    let ledger = std::fs::read_to_string(site.join("ledger.html")).unwrap();
    assert!(ledger.contains("id=\"ua-substring-match-cpython\""));
    assert!(ledger.contains("https://github.com/python/cpython/issues/138907"));
    assert!(ledger.contains("id=\"unreserved-escapes-not-decoded\""));
    assert!(
        ledger.contains("seed-14.html#q1"),
        "the cases that show an entry"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn corpus_text_is_escaped_and_bytes_are_visible() {
    let dir = tmp("site-escape");
    let json = run(&dir.join("run"));
    // Make one case hostile: markup in its title, agent and body, and bytes
    // that are easy to lose (BOM, CR, NUL, tab, invalid UTF-8).
    let mut report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let case = report["cases"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c["id"] == "seed-18")
        .unwrap();
    case["title"] = "<script>alert(1)</script> & \"quotes\"".into();
    case["queries"][0]["agent"] = "<img src=x onerror=alert(2)>".into();
    let body = b"\xef\xbb\xbfUser-agent: <b>bot</b>\r\nDisallow: /a\tb\x00c\xff\n";
    case["body_hex"] = body
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
        .into();
    let hostile = dir.join("hostile.json");
    std::fs::write(&hostile, serde_json::to_string(&report).unwrap()).unwrap();
    let site = dir.join("site");
    ok(
        &report_run(&hostile, &site, &dir),
        "report of the hostile case",
    );
    let page = std::fs::read_to_string(site.join("cases/seed-18.html")).unwrap();
    assert!(!page.contains("<script>alert"), "title not escaped");
    assert!(!page.contains("<img src=x"), "agent not escaped");
    assert!(!page.contains("<b>bot</b>"), "body not escaped");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;"));
    assert!(page.contains("&lt;img src=x onerror=alert(2)&gt;"));
    for shown in [
        "&lt;BOM&gt;",
        "\\r",
        "\\t",
        "\\0",
        "\\xff",
        "\\n",
        "&lt;b&gt;bot&lt;/b&gt;",
    ] {
        assert!(page.contains(shown), "the body view does not show {shown}");
    }
    assert!(page.contains("<details><summary>hex dump</summary>"));
    assert!(page.contains("ef bb bf"), "hex dump");
    let _ = std::fs::remove_dir_all(&dir);
}

fn report_run(json: &Path, site: &Path, dir: &Path) -> Output {
    report(json, site, &dir.join("none.jsonl"))
}

#[test]
fn a_failed_render_leaves_the_old_site() {
    let dir = tmp("site-atomic");
    let json = run(&dir.join("run"));
    let site = dir.join("site");
    ok(&report_run(&json, &site, &dir), "first report");
    let before: Vec<(PathBuf, Vec<u8>)> = files(&site)
        .into_iter()
        .map(|f| {
            let b = std::fs::read(&f).unwrap();
            (f, b)
        })
        .collect();
    // Not a report: exit 2, one line naming the file, the site untouched.
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"format\": \"something-else\"}").unwrap();
    let out = report_run(&bad, &site, &dir);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.json"));
    // A history file that does not parse: same.
    let hist = dir.join("broken-history.jsonl");
    std::fs::write(&hist, "{not json\n").unwrap();
    let out = report(&json, &site, &hist);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("broken-history.jsonl:1"));
    let after: Vec<(PathBuf, Vec<u8>)> = files(&site)
        .into_iter()
        .map(|f| {
            let b = std::fs::read(&f).unwrap();
            (f, b)
        })
        .collect();
    assert_eq!(before, after, "a failed render changed the site");
    // No temporary directories left beside it.
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp") || n.contains(".old"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_versions_page_shows_a_move_recorded_in_the_history() {
    let dir = tmp("site-history");
    let json = run(&dir.join("run"));
    let run_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let corpus = run_json["corpus_hash"].as_str().unwrap();
    // An older texting_robots that got seed-18 wrong, as a history record
    // written before compat /2 (its identity under the old key, `version`).
    let old = serde_json::json!({
        "oracle": "texting-robots",
        "version": "texting_robots 0.2.1",
        "corpus_hash": corpus,
        "recorded_unix": 1_700_000_000u64,
        "cases": 1, "queries": 1, "matched": 0, "deviated": 1, "failed": 0, "split": 0, "unsupported": 0,
        "sections": {"§2.2.1": [0, 1]}, "tags": {"ua-matching": [0, 1]},
        "off": {"seed-18#1": "deviate:disallowed"}
    });
    let hist = dir.join("history.jsonl");
    std::fs::write(&hist, format!("{old}\n")).unwrap();
    let site = dir.join("site");
    ok(&report(&json, &site, &hist), "report with history");
    let page = std::fs::read_to_string(site.join("history.html")).unwrap();
    assert!(page.contains("texting_robots 0.2.1"), "old version listed");
    assert!(
        page.contains("texting-robots 0.2.1 → texting-robots 0.2.2"),
        "move heading"
    );
    let moves = &page[page
        .find("texting-robots 0.2.1 → texting-robots 0.2.2")
        .unwrap()..];
    assert!(
        moves.contains("seed-18.html#q1"),
        "the seed-18 move is listed"
    );
    assert!(moves.contains("✓ fixed"));
    let oracle = std::fs::read_to_string(site.join("oracles/texting-robots.html")).unwrap();
    assert!(
        oracle.contains("texting_robots 0.2.1"),
        "oracle page lists versions"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
