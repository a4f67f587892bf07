//! The site in a real browser: a conformance run over the seed cases with
//! every oracle, `repdiff report` on it, then Debian's chromium, headless,
//! loads the index and the seed-18 page from file:// and we assert on the DOM
//! it built (`--dump-dom`): the matrices list every oracle, seed-18 shows the
//! CPython vs protego split and protego's move from 0.6.1 to 0.7.0. A
//! screenshot is taken too.
//!
//! Chromium missing is a failure, never a skip: `repdiff setup` installs it.

use crate::common;

use common::chromium::{chromium, CHROMIUM};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repdiff() -> Command {
    Command::new(env!("CARGO_BIN_EXE_repdiff"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("repdiff-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn dump_dom(page: &Path, profile: &Path) -> String {
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    let (ok, dom, err) = chromium(&["--dump-dom".to_string(), url.clone()], profile);
    assert!(ok, "chromium --dump-dom {url} failed:\n{err}");
    assert!(dom.contains("</html>"), "no DOM for {url}:\n{dom}\n{err}");
    dom
}

/// The inner text of the first element opened by `open` (tags stripped).
fn element_text<'a>(dom: &'a str, open: &str, close: &str) -> &'a str {
    let start = dom
        .find(open)
        .unwrap_or_else(|| panic!("the page shows no {open}"));
    let rest = &dom[start..];
    &rest[..rest.find(close).unwrap_or(rest.len())]
}

fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for ch in html.chars() {
        match ch {
            '<' => inside = true,
            '>' => {
                inside = false;
                out.push(' ');
            }
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_site_shows_the_matrix_and_the_seed_18_split_in_chromium() {
    assert!(
        Path::new(CHROMIUM).is_file(),
        "{CHROMIUM} is missing: the browser test needs Debian's chromium; \
         `repdiff setup` installs it (as root: apt-get install -y chromium)"
    );
    let dir = tmp("site-browser");
    let run = repdiff()
        .args(["conformance", "--no-setup", "--case", "seed-*", "--out"])
        .arg(dir.join("run"))
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "conformance over seed-* failed (every oracle must run; `repdiff setup`):\n{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let json = dir.join("run/compat.json");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let oracles: Vec<String> = report["oracles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap().to_string())
        .collect();
    for needed in ["cpython-3.11", "cpython-3.15", "protego", "protego-0.6.1"] {
        assert!(
            oracles.iter().any(|o| o == needed),
            "{needed} did not run: {oracles:?}"
        );
    }

    let site = dir.join("site");
    let out = repdiff()
        .args(["report", "--no-screenshot", "--json"])
        .arg(&json)
        .arg("--out")
        .arg(&site)
        .arg("--history")
        .arg(dir.join("no-history.jsonl"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "report failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    let profile = dir.join("profile");
    // The index: both matrices list every oracle that ran.
    let index = dump_dom(&site.join("index.html"), &profile);
    for (table, part) in [
        ("matrix-tags", "<thead"),
        ("matrix-sections", "<thead"),
        ("scorecard", "<tbody"),
    ] {
        let t = element_text(&index, &format!("<table id=\"{table}\""), "</table>");
        let close = format!("{}>", part.replace('<', "</"));
        let header = strip_tags(element_text(t, part, &close));
        for o in &oracles {
            assert!(
                header.split(' ').any(|w| w == o),
                "table {table} does not list oracle {o}: {header}"
            );
        }
    }
    let sections = strip_tags(element_text(
        &index,
        "<table id=\"matrix-sections\"",
        "</table>",
    ));
    assert!(
        sections.contains("§2.2.1 The User-Agent Line"),
        "{sections}"
    );
    let tags = strip_tags(element_text(
        &index,
        "<table id=\"matrix-tags\"",
        "</table>",
    ));
    assert!(tags.contains("ua-matching"), "{tags}");
    // Counts are text, not only colour.
    assert!(tags.contains('%') && tags.contains('/'), "{tags}");

    // seed-18: CPython says disallowed, protego allowed, protego 0.6.1 disallowed.
    let page = dump_dom(&site.join("cases/seed-18.html"), &profile);
    let verdict = |oracle: &str| {
        let grid = element_text(&page, "<table id=\"verdict-grid\"", "</table>");
        strip_tags(element_text(
            grid,
            &format!("data-oracle=\"{oracle}\""),
            "</td>",
        ))
    };
    for (oracle, said) in [
        ("cpython-3.11", "disallowed"),
        ("cpython-3.15", "disallowed"),
        ("protego-0.6.1", "disallowed"),
        ("protego", "allowed"),
        ("rfc9309", "allowed"),
    ] {
        let shown = verdict(oracle);
        let first = shown.split(' ').nth(1).unwrap_or("");
        assert_eq!(first, said, "seed-18 shows {oracle}: {shown:?}");
    }
    assert!(verdict("cpython-3.11").contains("deviates"));
    assert!(verdict("protego").contains("match"));
    let flips = strip_tags(element_text(&page, "<ul id=\"version-flips\"", "</ul>"));
    assert!(
        flips.contains("protego-0.6.1 (0.6.1) said disallowed")
            && flips.contains("→ protego (0.7.0) says allowed"),
        "seed-18 does not show protego moving from 0.6.1 to 0.7.0: {flips}"
    );
    let body = strip_tags(element_text(&page, "<pre class=\"body\"", "</pre>"));
    // The exact bytes, each LF shown (tags become spaces in this text view).
    assert_eq!(body, "User-agent: bot \\n Disallow: / \\n", "{body}");
    assert!(page.contains("repdiff check --case seed-18#1 --oracle cpython-3.11"));

    // A screenshot, as the README shows it.
    let png = dir.join("screenshot.png");
    let (ok, _, err) = chromium(
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1280,1500".into(),
            "--hide-scrollbars".into(),
            format!(
                "file://{}",
                site.join("index.html").canonicalize().unwrap().display()
            ),
        ],
        &profile,
    );
    let bytes = std::fs::read(&png).unwrap_or_default();
    assert!(
        ok && bytes.len() > 10_000 && bytes.starts_with(b"\x89PNG"),
        "no screenshot ({} bytes): {err}",
        bytes.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
