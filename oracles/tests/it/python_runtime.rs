//! The embedded interpreter, the adapters' contract (versions, exceptions as
//! errors, `site_maps()`'s None) and CPython's own HTTP fetcher.
//! Fails (never skips) when `repdiff setup` has not run.

#![cfg(feature = "python")]

use engine::oracle::{Answer, Ask, Oracle, Outcome, Query, Value};
use oracles::python::{PYO3_LIBDIR, PYO3_PYTHON, PYO3_SYS_VERSION};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::Command;

fn oracle(name: &str) -> Box<dyn Oracle> {
    let entry = oracles::registry()
        .into_iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("oracle {name} is not registered"));
    assert_eq!(entry.runtime, oracles::Runtime::Python);
    match (entry.make)() {
        Ok(oracle) => oracle,
        Err(unavailable) => panic!("{unavailable}\n=> run `repdiff setup` first"),
    }
}

fn q(ask: Ask, agent: &str, url: &str) -> Query {
    Query {
        ask,
        agent: agent.into(),
        url: url.into(),
    }
}

fn outcomes(answers: Vec<Answer>) -> Vec<Outcome> {
    answers.into_iter().map(|a| a.outcome).collect()
}

fn error_kind(outcome: &Outcome) -> &str {
    match outcome {
        Outcome::Error { kind, .. } => kind,
        other => panic!("expected an error, got {other:?}"),
    }
}

/// The rpath trap: this test binary must run pyenv's libpython, the one of
/// the python3 PyO3 was built against, not Debian's.
#[test]
fn embedded_interpreter_is_the_one_pyo3_was_built_against() {
    let (embedded, lib) = oracles::python::runtime().expect("the glue loads");
    let out = Command::new(PYO3_PYTHON)
        .args(["-c", "import sys; print(sys.version)"])
        .output()
        .expect("PyO3's python3 runs");
    let subprocess = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert_eq!(embedded, subprocess, "embedded libpython is {lib}");
    assert_eq!(embedded, PYO3_SYS_VERSION);
    assert!(
        lib.starts_with(PYO3_LIBDIR),
        "libpython loaded from {lib}, not from {PYO3_LIBDIR}"
    );
}

#[test]
fn versions_are_probed_and_hold_no_machine_path() {
    let release = oracles::python::release(PYO3_SYS_VERSION);
    let expected = [
        ("cpython-3.11", format!("urllib.robotparser {release}")),
        ("cpython-3.15", "urllib.robotparser 3.15.0rc1".to_string()),
        ("protego", "protego 0.7.0".to_string()),
        ("protego-0.6.1", "protego 0.6.1".to_string()),
    ];
    for (name, version) in expected {
        let o = oracle(name);
        assert_eq!(o.identity().to_string(), version, "{name}");
        let about = serde_json::to_string(&o.about()).unwrap();
        let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap();
        assert!(!about.contains(".cache"), "{name}: {about}");
        assert!(
            !about.contains(&*checkout.to_string_lossy()),
            "{name}: {about}"
        );
        assert_eq!(o.about().runtime.version, release, "{name}");
    }
    for name in ["cpython-3.11", "cpython-3.15"] {
        assert!(oracle(name).capabilities().http_fetch, "{name}");
    }
    assert!(!oracle("protego").capabilities().http_fetch);
}

/// The loader race of issue 11: protego's module is in sys.modules before
/// it has run, so a second thread could see it half-loaded. Each round
/// loads both protegos under fresh module names from 8 threads at once.
#[test]
fn protego_loads_from_many_threads_at_once() {
    use pyo3::types::PyAnyMethods;
    let cache = oracles::cache_dir();
    let sites: Vec<String> = [
        oracles::python::pins::PROTEGO_VENV,
        oracles::python::pins::PROTEGO_061_VENV,
    ]
    .iter()
    .map(|v| {
        oracles::python::site_packages(&cache.join(v))
            .expect("run `repdiff setup` first")
            .display()
            .to_string()
    })
    .collect();
    for round in 0..50 {
        std::thread::scope(|s| {
            for t in 0..8 {
                let site = &sites[t % 2];
                s.spawn(move || {
                    let module = format!("_repdiff_stress_{round}_{}", t % 2);
                    pyo3::Python::attach(|py| -> pyo3::PyResult<()> {
                        let glue = oracles::python::glue(py)?;
                        let (class, _version): (pyo3::Bound<'_, pyo3::PyAny>, String) = glue
                            .call_method1("protego", (site.as_str(), module.as_str()))?
                            .extract()?;
                        class.getattr("parse")?;
                        Ok(())
                    })
                    .unwrap_or_else(|e| panic!("round {round}, thread {t}: {e}"));
                });
            }
        });
    }
    // And the oracles themselves, built from 8 threads at once.
    std::thread::scope(|s| {
        for t in 0..8 {
            s.spawn(move || {
                let name = ["protego", "protego-0.6.1", "cpython-3.11", "cpython-3.15"][t % 4];
                let mut o = oracle(name);
                let a = o.run(
                    b"User-agent: *\nDisallow: /x\n",
                    &[q(Ask::CanFetch, "MyBot", "http://example.test/x")],
                );
                assert_eq!(a[0].outcome, Outcome::Disallowed, "{name}");
            });
        }
    });
}

#[test]
fn exceptions_are_errors_not_verdicts() {
    // 3.11 checks isdigit() then calls int(): "²" is a digit int() rejects,
    // so parse() itself raises and every query is that ValueError.
    let answers = outcomes(oracle("cpython-3.11").run(
        "User-agent: *\nCrawl-delay: ²\nDisallow: /x\n".as_bytes(),
        &[
            q(Ask::CanFetch, "a", "http://e.test/x"),
            q(Ask::CrawlDelay, "a", ""),
        ],
    ));
    assert_eq!(error_kind(&answers[0]), "ValueError");
    assert_eq!(answers[0], answers[1]);
    // 3.15 uses isdecimal(): no exception, the line is ignored.
    let answers = outcomes(oracle("cpython-3.15").run(
        "User-agent: *\nCrawl-delay: ²\nDisallow: /x\n".as_bytes(),
        &[
            q(Ask::CanFetch, "a", "http://e.test/x"),
            q(Ask::CrawlDelay, "a", ""),
        ],
    ));
    assert_eq!(
        answers,
        vec![Outcome::Disallowed, Outcome::Value { value: Value::None }]
    );
    // A URL urlsplit rejects: the exception of that one query only.
    for name in ["cpython-3.11", "cpython-3.15"] {
        let answers = outcomes(oracle(name).run(
            b"User-agent: *\nDisallow: /x\n",
            &[
                q(Ask::CanFetch, "a", "http://[bad/x"),
                q(Ask::CanFetch, "a", "http://e.test/x"),
            ],
        ));
        assert_eq!(error_kind(&answers[0]), "ValueError", "{name}");
        assert_eq!(answers[1], Outcome::Disallowed, "{name}");
    }
}

#[test]
fn values_are_typed_as_the_library_returns_them() {
    let body = b"User-agent: *\nCrawl-delay: 7\nRequest-rate: 3/10\nDisallow: /x\nSitemap: http://e.test/s.xml\n";
    let queries = [
        q(Ask::CrawlDelay, "a", ""),
        q(Ask::RequestRate, "a", ""),
        q(Ask::Sitemaps, "", ""),
    ];
    let value = |v| Outcome::Value { value: v };
    let rate = value(Value::Rate {
        requests: 3,
        seconds: 10,
    });
    let maps = value(Value::List(vec!["http://e.test/s.xml".into()]));
    for name in ["cpython-3.11", "cpython-3.15"] {
        assert_eq!(
            outcomes(oracle(name).run(body, &queries)),
            vec![value(Value::Int(7)), rate.clone(), maps.clone()],
            "{name}"
        );
        // site_maps() returns None, not [], when there is no Sitemap line.
        assert_eq!(
            outcomes(oracle(name).run(b"User-agent: *\n", &queries[2..])),
            vec![value(Value::None)],
            "{name}"
        );
    }
    for name in ["protego", "protego-0.6.1"] {
        assert_eq!(
            outcomes(oracle(name).run(body, &queries)),
            vec![value(Value::Float(7.0)), rate.clone(), maps.clone()],
            "{name}"
        );
        assert_eq!(
            outcomes(oracle(name).run(b"User-agent: *\n", &queries[2..])),
            vec![value(Value::List(vec![]))],
            "{name}"
        );
    }
    // Invalid UTF-8 survives as U+FFFD, like the other adapters' lossy strings.
    let answers = outcomes(oracle("cpython-3.15").run(b"Sitemap: /\xff.xml\n", &queries[2..]));
    assert_eq!(
        answers,
        vec![value(Value::List(vec!["/\u{fffd}.xml".into()]))]
    );
}

/// A one-thread HTTP/1.0 server: `/<status>/robots.txt` answers that status,
/// with a body for 200.
fn serve(body: &'static str) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = Vec::new();
            let mut buf = [0u8; 1024];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            let text = String::from_utf8_lossy(&request);
            let path = text.split_whitespace().nth(1).unwrap_or("/").to_string();
            let status: u16 = path
                .trim_start_matches('/')
                .split('/')
                .next()
                .unwrap_or("")
                .parse()
                .unwrap_or(404);
            let content = if status == 200 { body } else { "" };
            let _ = write!(
                stream,
                "HTTP/1.0 {status} X\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{content}",
                content.len()
            );
        }
    });
    port
}

#[test]
fn run_fetch_uses_the_librarys_own_fetcher() {
    let port = serve("User-agent: *\nDisallow: /private\n");
    let base = format!("http://127.0.0.1:{port}");
    let queries = [
        q(Ask::CanFetch, "MyBot", &format!("{base}/private/x")),
        q(Ask::CanFetch, "MyBot", &format!("{base}/public")),
    ];
    use Outcome::{Allowed as A, Disallowed as D};
    for name in ["cpython-3.11", "cpython-3.15"] {
        let mut o = oracle(name);
        let mut fetch =
            |status: u16| outcomes(o.run_fetch(&format!("{base}/{status}/robots.txt"), &queries));
        assert_eq!(fetch(200), vec![D, A], "{name} 200");
        assert_eq!(fetch(403), vec![D, D], "{name} 403");
        assert_eq!(fetch(404), vec![A, A], "{name} 404");
        // 3.11 sets nothing on 5xx (never "checked": can_fetch says False);
        // 3.15 disallows all (RFC 9309 2.3.1.4). Same verdict, two reasons.
        assert_eq!(fetch(503), vec![D, D], "{name} 503");
    }
    // Nothing listens there: read() raises URLError, for every query.
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    for name in ["cpython-3.11", "cpython-3.15"] {
        let answers = outcomes(
            oracle(name).run_fetch(&format!("http://127.0.0.1:{closed}/robots.txt"), &queries),
        );
        assert_eq!(error_kind(&answers[0]), "URLError", "{name}");
        assert_eq!(answers[0], answers[1], "{name}");
    }
}

/// Per-call cost (parse + one can_fetch, small body), for the record:
/// `cargo test --release -p repdiff-oracles --test it -- python_runtime:: --ignored --nocapture`
#[test]
#[ignore]
fn per_call_cost() {
    let body =
        b"User-agent: *\nDisallow: /private\nAllow: /private/ok\n\nUser-agent: bot\nDisallow: /\n";
    let query = [q(
        Ask::CanFetch,
        "MyBot/1.0",
        "http://example.test/private/x",
    )];
    for name in ["cpython-3.11", "cpython-3.15", "protego", "protego-0.6.1"] {
        let mut o = oracle(name);
        for _ in 0..1000 {
            o.run(body, &query);
        }
        let n = 20_000;
        let start = std::time::Instant::now();
        for _ in 0..n {
            o.run(body, &query);
        }
        let us = start.elapsed().as_secs_f64() * 1e6 / n as f64;
        eprintln!("{name:14} {us:6.1} us per call (parse + can_fetch)");
    }
}
