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
    ("reppy", "speed_loop.py"),
    ("robots-parser", "loop.js"),
    ("robots-txt-guard", "loop.js"),
    ("robotspy", "speed_loop.py"),
    ("webrobots", "loop.rb"),
    ("www-robotrules", "loop.pl"),
    ("crawler-commons", "CrawlerCommonsLoop"),
    ("crawler-commons-1.4", "CrawlerCommonsLoop"),
    ("crawler4j", "Crawler4jLoop"),
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

/// `census --floor`: the same loops, run after the census over the
/// questions it asked, land in speed.json and census.md beside the
/// census's own CPU, with the floor and the wall time against it.
#[test]
fn the_census_floor_is_taken_in_the_same_run() {
    let out_dir = std::env::temp_dir().join(format!("repdiff-floor-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out_dir);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_repdiff"));
    cmd.args(["census", "--no-setup", "--limit", "8", "--floor", "--out"]);
    cmd.arg(&out_dir);
    for name in ["rfc9309", "webrobots", "heritrix"] {
        cmd.args(["--oracle", name]);
    }
    let out = cmd.output().expect("cannot run repdiff");
    assert!(
        out.status.success(),
        "repdiff census --floor: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let speed: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("speed.json")).expect("speed.json"))
            .expect("speed.json is JSON");
    let md = std::fs::read_to_string(out_dir.join("census.md")).expect("census.md");
    let _ = std::fs::remove_dir_all(&out_dir);
    let floor = &speed["floor"];
    let rows = floor["oracles"].as_array().expect("floor rows");
    assert_eq!(rows.len(), 3, "{floor}");
    for (name, how) in [("webrobots", "loop.rb"), ("heritrix", "HeritrixLoop")] {
        let r = rows.iter().find(|r| r["name"] == name).expect(name);
        assert_eq!(r["how"], how, "{r}");
        let library = r["library_cpu_seconds"].as_f64().expect("library CPU");
        let census = r["census_cpu_seconds"].as_f64().expect("census CPU");
        assert!(library > 0.0 && census > 0.0, "{r}");
        assert!((r["ratio"].as_f64().expect("ratio") - census / library).abs() < 1e-9);
    }
    let sum: f64 = rows
        .iter()
        .map(|r| {
            r["library_cpu_seconds"]
                .as_f64()
                .or(r["census_cpu_seconds"].as_f64())
                .unwrap_or(0.0)
        })
        .sum();
    let cores = floor["cores"].as_f64().expect("cores");
    let floor_s = floor["floor_seconds"].as_f64().expect("floor");
    assert!((floor_s - sum / cores).abs() < 1e-9, "{floor}");
    let wall = speed["wall_seconds"].as_f64().expect("wall");
    assert!((floor["wall_over_floor"].as_f64().expect("ratio") - wall / floor_s).abs() < 1e-9);
    assert!(md.contains("### Against the parsers' own loops"), "{md}");
    assert!(md.contains("| `heritrix` | HeritrixLoop |"), "{md}");
}
