//! Every speed loop answers the census's questions as its oracle's harness
//! does (`repdiff census speed`): the first 20 files of the census's default
//! input and all their questions, letter by letter, for every oracle with a
//! loop of its own runtime. A loop that answered otherwise would time other
//! work than the census asks for, and the bench's "parsers' own speed"
//! table would compare nothing. The census data and the libraries come
//! from setup; missing ones fail.

use std::process::Command;

/// Oracles whose direct side is a loop of their own runtime, and its file.
const LOOPS: &[(&str, &str)] = &[
    ("cpython-3.11", "speed_loop.py"),
    ("protego", "speed_loop.py"),
    ("protego-0.6.1", "speed_loop.py"),
    ("robotexclusionrulesparser", "speed_loop.py"),
    ("robots-parser", "loop.js"),
    ("robotspy", "speed_loop.py"),
    ("webrobots", "loop.rb"),
    ("www-robotrules", "loop.pl"),
    ("crawler-commons", "CrawlerCommonsLoop"),
    ("crawler-commons-1.4", "CrawlerCommonsLoop"),
    ("heritrix", "HeritrixLoop"),
    ("temoto-robotstxt", "temoto-robotstxt/loop"),
    ("grobotstxt", "grobotstxt/loop"),
    ("spider", "spider-oracle"),
    ("google", "google-oracle"),
];

#[test]
fn every_speed_loop_answers_as_its_harness_does() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_repdiff"));
    cmd.args(["census", "speed", "--limit", "20", "--oracle", "rfc9309"]);
    for (name, _) in LOOPS {
        cmd.args(["--oracle", name]);
    }
    let out = cmd.output().expect("cannot run repdiff");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "repdiff census speed: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    assert_eq!(rows.len(), LOOPS.len() + 1, "{stdout}");
    let row = |name: &str| {
        rows.iter()
            .find(|r| r["oracle"] == name)
            .unwrap_or_else(|| panic!("no row for {name}: {stdout}"))
    };
    for (name, program) in LOOPS {
        let r = row(name);
        assert_eq!(r["error"], serde_json::Value::Null, "{r}");
        assert_eq!(r["direct_how"], *program, "{r}");
        assert_eq!(r["differ"], 0, "{name}: the loop answered otherwise: {r}");
        assert!(r["direct_cpu"].as_f64().is_some_and(|c| c > 0.0), "{r}");
        assert!(r["worker_cpu"].as_f64().is_some(), "{r}");
    }
    let r = row("rfc9309");
    assert_eq!(r["direct_how"], "its adapter in this process", "{r}");
    assert_eq!(r["differ"], 0, "{r}");
}
