//! Each external harness against a direct call of its library in its own
//! runtime (the `direct:` program of its `oracle.yaml`, no code shared with
//! the harness), on 1,200 generated cases: 0 differences (issue 12). The harness is driven
//! through the real protocol, as a run drives it; `explain` and `line` (the
//! library's own accounts) are left out of the comparison (the direct
//! scripts give neither).

use crate::common;

use engine::oracle::{Answer, Capabilities, Oracle, Query};
use oracles::python::crosscheck;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

const CASES: usize = 1200;

fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// One answer as JSON without `explain` and `line`.
fn plain(a: &Answer) -> serde_json::Value {
    let mut v = serde_json::to_value(a).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("explain");
    o.remove("line");
    v
}

/// The queries a worker can answer: asks it cannot are left out on both
/// sides, as a run leaves them out.
fn supported(queries: &[Query], caps: &Capabilities) -> Vec<Query> {
    queries
        .iter()
        .filter(|q| caps.supports(q.ask))
        .cloned()
        .collect()
}

#[test]
fn every_external_harness_answers_as_its_library_called_directly() {
    let cases = crosscheck::generate(0x5eed_f1de, CASES);
    let mut failures = Vec::new();
    for o in common::registered::all().into_iter().filter(|o| o.external) {
        let mut worker = common::registered::start(&o, Duration::from_secs(20));
        let caps = worker.capabilities();
        // The harness, through the protocol; asks it cannot answer are left
        // out on both sides, as a run leaves them out.
        let mut ours = Vec::new();
        let mut input = String::new();
        for case in &cases {
            let queries = supported(&case.queries, &caps);
            ours.push(
                worker
                    .run(&case.body, &queries)
                    .iter()
                    .map(plain)
                    .collect::<Vec<_>>(),
            );
            let line = serde_json::json!({"body_b64": base64(&case.body), "queries": queries});
            input.push_str(&line.to_string());
            input.push('\n');
        }
        // Every registered oracle's manifest names its direct program.
        let argv = o.direct.clone();
        assert!(
            !argv.is_empty(),
            "{}: its oracle.yaml has no `direct:`",
            o.name
        );
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .envs(o.env.iter().cloned())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: cannot start {argv:?}: {e}", o.name));
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        assert!(out.status.success(), "{}: direct script failed", o.name);
        // Lines end at \n only: node writes U+2028 unescaped inside JSON.
        let theirs: Vec<Vec<serde_json::Value>> = out
            .stdout
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| {
                let v: serde_json::Value = serde_json::from_slice(l).unwrap();
                v["answers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| {
                        // Through the protocol's own type, as the harness's
                        // answers are: a float written `1` (Go) is 1.0.
                        match serde_json::from_value::<Answer>(a.clone()) {
                            Ok(typed) => plain(&typed),
                            Err(_) => a.clone(),
                        }
                    })
                    .collect()
            })
            .collect();
        assert_eq!(theirs.len(), cases.len(), "{}: one line per case", o.name);
        let mut differences = 0;
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            // Reasons for `unsupported` are worded by each side.
            let same = a.len() == b.len()
                && a.iter().zip(b).all(|(x, y)| {
                    x == y || (x["outcome"] == "unsupported" && y["outcome"] == "unsupported")
                });
            if !same {
                differences += 1;
                if differences <= 3 {
                    failures.push(format!(
                        "{}: case {i} body {:?}\n  harness {a:?}\n  direct  {b:?}",
                        o.name,
                        String::from_utf8_lossy(&cases[i].body)
                    ));
                }
            }
        }
        eprintln!(
            "{}: {} cases, {differences} differences",
            o.name,
            cases.len()
        );
        if differences > 0 {
            failures.push(format!(
                "{}: {differences} of {} cases differ",
                o.name,
                cases.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The census asks with `explain: false` (docs/protocol.md), and the
/// harnesses that honour it take a shorter path then (crawler4j matches
/// once instead of twice, heritrix and webrobots skip a second lookup):
/// every registered oracle gives the same answers either way, on 400
/// generated cases, accounts left out.
#[test]
fn every_harness_answers_alike_without_explanations() {
    let cases = crosscheck::generate(0x0e_c0ff, 400);
    let mut failures = Vec::new();
    for o in common::registered::all() {
        let mut with = common::registered::start(&o, Duration::from_secs(20));
        let mut without = common::registered::start(&o, Duration::from_secs(20));
        without.skip_explanations();
        let caps = with.capabilities();
        let mut differences = 0;
        for (i, case) in cases.iter().enumerate() {
            let queries = supported(&case.queries, &caps);
            let a: Vec<_> = with.run(&case.body, &queries).iter().map(plain).collect();
            let b: Vec<_> = without
                .run(&case.body, &queries)
                .iter()
                .map(plain)
                .collect();
            if a != b {
                differences += 1;
                if differences <= 3 {
                    failures.push(format!(
                        "{}: case {i} body {:?}\n  explained {a:?}\n  without   {b:?}",
                        o.name,
                        String::from_utf8_lossy(&case.body)
                    ));
                }
            }
        }
        if differences > 0 {
            failures.push(format!("{}: {differences} of 400 cases differ", o.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `oracles/harness/example.py`, the documented starting point, run by the
/// CPython the built-in oracles embed, answers exactly as `cpython-3.11`
/// (issue 12): the same 1,200 generated cases through both workers.
#[test]
fn the_example_harness_answers_as_cpython_3_11() {
    let all = common::registered::all();
    let builtin = all
        .iter()
        .find(|o| o.name == "cpython-3.11")
        .expect("cpython-3.11 is registered");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let example = common::registered::Registered {
        name: "example".into(),
        external: true,
        command: vec![
            oracles::python::PYO3_PYTHON.to_string(),
            root.join("oracles/harness/example.py")
                .display()
                .to_string(),
        ],
        env: Vec::new(),
        direct: Vec::new(),
    };
    let mut ours = common::registered::start(builtin, Duration::from_secs(20));
    let mut theirs = common::registered::start(&example, Duration::from_secs(20));
    assert_eq!(
        theirs.identity(),
        ours.identity(),
        "same library, same identity"
    );
    let mut differences = Vec::new();
    for (i, case) in crosscheck::generate(0xe8a_3b1e, CASES).iter().enumerate() {
        let a: Vec<_> = ours
            .run(&case.body, &case.queries)
            .iter()
            .map(plain)
            .collect();
        let b: Vec<_> = theirs
            .run(&case.body, &case.queries)
            .iter()
            .map(plain)
            .collect();
        if a != b {
            differences.push(format!("case {i}: built-in {a:?}\n  example {b:?}"));
        }
    }
    assert!(
        differences.is_empty(),
        "{} of {CASES} cases differ:\n{}",
        differences.len(),
        differences
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
