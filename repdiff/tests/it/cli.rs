//! The installed command's contract: usable from any directory given
//! `--root`, a generated help per command, usage errors as status 2, and
//! workers that are this binary (`repdiff worker NAME`).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn checkout() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// `repdiff ARGS` run from outside the checkout, with no path variable set.
fn repdiff(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args(args)
        .current_dir(std::env::temp_dir())
        .env_remove("REPDIFF_ROOT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("repdiff starts");
    if let Some(mut input) = child.stdin.take() {
        input.write_all(stdin).expect("stdin");
    }
    child.wait_with_output().expect("repdiff runs")
}

#[test]
fn every_command_has_a_help() {
    for cmd in [
        "conformance",
        "check",
        "lint",
        "report",
        "oracles",
        "completions",
    ] {
        let out = repdiff(&[cmd, "--help"], b"");
        assert!(out.status.success(), "{cmd} --help");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("Usage: repdiff"), "{cmd}: {text}");
    }
}

/// One front door: every user-facing command, the fuzz analysis passes
/// among them, is the product's, with a help of its own.
#[test]
fn the_product_holds_every_user_command() {
    let out = repdiff(&["--help"], b"");
    let top = String::from_utf8_lossy(&out.stdout);
    for cmd in [
        "setup",
        "conformance",
        "check",
        "report",
        "census",
        "suites",
        "findings",
        "triage",
    ] {
        assert!(
            top.lines().any(|l| l.trim_start().starts_with(cmd)),
            "{cmd} missing from repdiff --help:\n{top}"
        );
    }
    for sub in ["causes", "sweep", "minimize", "known"] {
        let out = repdiff(&["triage", sub, "--help"], b"");
        assert!(out.status.success(), "triage {sub} --help");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&format!("Usage: repdiff triage {sub}")),
            "{sub}: {text}"
        );
    }
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["conformance", "--no-such-flag"][..],
        &["check", "--agent", "a"][..],
        &["conformance", "--timeout", "soon"][..],
        &["check", "--root", "/", "--case", "seed-18"][..],
    ] {
        let out = repdiff(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn checks_from_outside_the_checkout_through_a_worker() {
    let root = checkout().canonicalize().expect("checkout");
    let root = root.to_str().expect("utf-8 path");
    let out = repdiff(
        &[
            "check",
            "--root",
            root,
            "--no-setup",
            "--oracle",
            "rfc9309",
            "--robots",
            "-",
            "--agent",
            "MyBot",
            "--url",
            "http://example.test/x",
            "--json",
        ],
        b"User-agent: bot\nDisallow: /\n",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("one JSON object");
    assert_eq!(doc["oracles"]["rfc9309"]["outcome"], "allowed", "{doc}");
}

#[test]
fn prints_completions() {
    let out = repdiff(&["completions", "bash"], b"");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("conformance"));
}

/// Issue 13's example: the 1996 draft searches the robot's name token inside
/// the line's value, so `User-agent: MyBotPro` applies to MyBot and
/// `User-agent: bot` does not; RFC 9309 says allowed to both. The profiles
/// run as workers of this binary, and conformance refuses them.
#[test]
fn profiles_answer_check_and_are_no_conformance_subjects() {
    let root = checkout().canonicalize().expect("checkout");
    let root = root.to_str().expect("utf-8 path");
    let ask = |body: &[u8]| {
        let out = repdiff(
            &[
                "check",
                "--root",
                root,
                "--robots",
                "-",
                "--agent",
                "MyBot",
                "--url",
                "http://example.test/x",
                "--oracle",
                "robots-1996",
                "--oracle",
                "rfc9309",
                "--json",
            ],
            body,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        let outcome = |o: &str| {
            doc["oracles"][o]["outcome"]
                .as_str()
                .unwrap_or("")
                .to_string()
        };
        (outcome("robots-1996"), outcome("rfc9309"))
    };
    assert_eq!(
        ask(b"User-agent: MyBotPro\nDisallow: /\n"),
        ("disallowed".into(), "allowed".into())
    );
    assert_eq!(
        ask(b"User-agent: bot\nDisallow: /\n"),
        ("allowed".into(), "allowed".into())
    );
    let out = repdiff(
        &["conformance", "--root", root, "--oracle", "robots-1996"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expectation profile"));
}

/// `check --json` gives, beside the verdicts, the usage preference
/// draft-ietf-aipref-attach-05 gives the question (§3.4's example file),
/// and gives none where the file has no `Content-Usage` line.
#[test]
fn check_shows_the_usage_preference_of_a_content_usage_file() {
    let root = checkout().canonicalize().expect("checkout");
    let root = root.to_str().expect("utf-8 path");
    let ask = |body: &[u8], agent: &str, path: &str| {
        let url = format!("https://example.com{path}");
        let out = repdiff(
            &[
                "check",
                "--root",
                root,
                "--no-setup",
                "--robots",
                "-",
                "--agent",
                agent,
                "--url",
                &url,
                "--oracle",
                "rfc9309",
                "--json",
            ],
            body,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one object");
        assert!(doc["oracles"]["rfc9309"]["outcome"].is_string(), "{doc}");
        doc["usage"].clone()
    };
    let example = b"User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\n\
        Content-Usage: /ai-ok/ train-ai=y\n\nUser-Agent: ExampleBot\nAllow: /\nContent-Usage: train-ai=y\n";
    let usage = ask(example, "OtherBot", "/test");
    assert_eq!(usage["draft"], "draft-ietf-aipref-attach-05");
    let first = &usage["queries"][0];
    assert_eq!(first["kind"], "rules", "{usage}");
    assert_eq!(first["preferences"]["train-ai"], "disallow");
    assert_eq!(first["preferences"]["search"], "unknown");
    assert_eq!(first["lines"], serde_json::json!([4]));
    assert_eq!(
        ask(example, "OtherBot", "/ai-ok/x")["queries"][0]["preferences"]["train-ai"],
        "allow"
    );
    assert_eq!(
        ask(example, "OtherBot", "/never/x")["queries"][0]["kind"],
        "not_crawlable"
    );
    assert!(ask(b"User-agent: *\nDisallow: /x\n", "OtherBot", "/").is_null());
}

/// `check --json` names the deciding line of every verdict: the libraries
/// that can tell say it themselves (Google's `matching_line()`,
/// robots-parser's `getMatchingLineNumber`, grobotstxt's `MatchingLine()`,
/// the reference), and for CPython 3.11, which takes the first matching
/// rule, it is derived: on the WordPress file it rests on line 2, the
/// `Disallow` the others override with line 3's `Allow`.
#[test]
fn check_names_the_deciding_line_told_or_derived() {
    let root = checkout().canonicalize().expect("checkout");
    let root = root.to_str().expect("utf-8 path");
    let mut args = vec![
        "check",
        "--root",
        root,
        "--no-setup",
        "--robots",
        "-",
        "--agent",
        "MyBot",
        "--json",
    ];
    for o in [
        "rfc9309",
        "google",
        "robots-parser",
        "grobotstxt",
        "cpython-3.11",
    ] {
        args.extend(["--oracle", o]);
    }
    let ask = |url: &str, body: &[u8]| {
        let mut a = args.clone();
        a.extend(["--url", url]);
        let out = repdiff(&a, body);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one object");
        doc["oracles"].clone()
    };
    let wordpress = b"User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n";
    let o = ask("https://example.com/wp-admin/admin-ajax.php", wordpress);
    for told in ["rfc9309", "google", "robots-parser", "grobotstxt"] {
        assert_eq!(o[told]["outcome"], "allowed", "{o}");
        assert_eq!(
            o[told]["deciding"],
            serde_json::json!({"how": "told", "lines": [3]}),
            "{told}: {o}"
        );
    }
    assert_eq!(o["cpython-3.11"]["outcome"], "disallowed", "{o}");
    assert_eq!(
        o["cpython-3.11"]["deciding"],
        serde_json::json!({"how": "derived", "lines": [2]}),
        "{o}"
    );
    // No rule matched: told as an empty list, and derived as one too.
    let o = ask("https://example.com/blog/", wordpress);
    for name in [
        "rfc9309",
        "google",
        "robots-parser",
        "grobotstxt",
        "cpython-3.11",
    ] {
        assert_eq!(o[name]["outcome"], "allowed", "{o}");
        assert_eq!(
            o[name]["deciding"]["lines"],
            serde_json::json!([]),
            "{name}: {o}"
        );
    }
}

/// The census names the cause of each top signature by triage: a file
/// where Google does not decode `%7E` (and rfc9309 does) is minimised to
/// that rule and query, named `decode-unreserved-escapes`, and linked to
/// the ledger entry that names that cause for google.
#[test]
fn census_names_the_cause_of_a_top_signature_and_links_the_ledger() {
    let root = checkout().canonicalize().expect("checkout");
    let dir = std::env::temp_dir().join(format!("repdiff-census-causes-{}", std::process::id()));
    let input = dir.join("in");
    std::fs::create_dir_all(&input).expect("input dir");
    std::fs::write(
        input.join("example.test"),
        "User-agent: *\nDisallow: /~joe/\nDisallow: /tmp/\n# a comment\n",
    )
    .expect("write");
    let out = dir.join("out");
    let run = repdiff(
        &[
            "census",
            "--root",
            root.to_str().expect("utf-8 path"),
            "--no-setup",
            "--oracle",
            "rfc9309",
            "--oracle",
            "google",
            "--out",
            out.to_str().expect("utf-8 path"),
            input.to_str().expect("utf-8 path"),
        ],
        b"",
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = std::fs::read_to_string(out.join("census.json")).expect("census.json");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    // Three sections, each with its heatmap; the near misses (`/~joe`,
    // `/tmp`) apart from the as-written questions.
    assert_eq!(doc["format"], "repdiff-census/3");
    assert!(doc["near_misses"]["tally"]["queries"].as_u64() > Some(0));
    for svg in [
        "heatmap.svg",
        "heatmap-near-misses.svg",
        "heatmap-probes.svg",
    ] {
        assert!(out.join(svg).is_file(), "{svg}");
    }
    // `/%61dmin` is a probe: its signature is in the probes' section.
    let tops = doc["probes"]["summary"]["top_signatures"]
        .as_array()
        .expect("tops");
    let escaped = tops
        .iter()
        .flat_map(|s| s["causes"].as_array().into_iter().flatten())
        .find(|c| c["cause"] == "decode-unreserved-escapes")
        .unwrap_or_else(|| panic!("no signature named decode-unreserved-escapes: {text}"));
    assert_eq!(escaped["oracle"], "google");
    assert_eq!(
        (&escaped["reference_answer"], &escaped["answer"]),
        (
            &serde_json::json!("disallowed"),
            &serde_json::json!("allowed")
        )
    );
    assert!(
        escaped["body"]
            .as_str()
            .is_some_and(|b| b.len() < 40 && !b.contains("comment")),
        "minimised: {escaped}"
    );
    assert!(
        escaped["ledger"]
            .as_array()
            .is_some_and(|l| l.iter().any(|e| e == "unreserved-escapes-not-decoded")),
        "{escaped}"
    );
    let md = std::fs::read_to_string(out.join("census.md")).expect("census.md");
    assert!(md.contains("`decode-unreserved-escapes`"), "{md}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `triage causes` once had a `--verbose` of its own, which clap cannot
/// tell from the global one: every use of the command panicked in parsing.
#[test]
fn triage_causes_parses_beside_the_global_verbose() {
    let out = repdiff(
        &[
            "-v",
            "triage",
            "causes",
            "--entry",
            "no-such-entry",
            "--pairs",
        ],
        b"",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {err}", out.status);
    assert!(!err.contains("panicked"), "{err}");
}

/// `repdiff ARGS` with `PATH` set to `path`.
fn repdiff_with_path(args: &[&str], path: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args(args)
        .current_dir(std::env::temp_dir())
        .env_remove("REPDIFF_ROOT")
        .env_remove("PYTHONHOME")
        .env("PATH", path)
        .stdin(Stdio::null())
        .output()
        .expect("repdiff runs")
}

/// Issue 52: the embedded interpreter finds its own standard library,
/// whatever `python3` is on PATH: Debian's 3.11.2 first (it made every
/// Python oracle fail with `No module named '_csv'`), or none at all.
#[test]
fn the_python_oracles_answer_with_debians_python_first_on_path_and_with_none() {
    let robots = std::env::temp_dir().join(format!("repdiff-py-path-{}.txt", std::process::id()));
    std::fs::write(&robots, "User-agent: bot\nDisallow: /\n").expect("robots");
    let robots = robots.display().to_string();
    let empty = std::env::temp_dir().join(format!("repdiff-no-python-{}", std::process::id()));
    std::fs::create_dir_all(&empty).expect("empty dir");
    assert!(
        Path::new("/usr/bin/python3").exists(),
        "this test needs Debian's /usr/bin/python3 (apt-get install python3)"
    );
    let debian_first = format!("/usr/bin:{}", std::env::var("PATH").unwrap_or_default());
    for path in [debian_first.as_str(), &empty.display().to_string()] {
        let mut args = vec!["check", "--no-setup", "--json", "--robots", &robots];
        args.extend(["--agent", "bot", "--url", "https://example.com/x"]);
        for o in ["cpython-3.11", "cpython-3.15", "protego", "protego-0.6.1"] {
            args.extend(["--oracle", o]);
        }
        let out = repdiff_with_path(&args, path);
        let text = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "PATH={path}\n{text}\n{err}");
        let doc: serde_json::Value = serde_json::from_str(&text).expect("one JSON object");
        for o in ["cpython-3.11", "cpython-3.15", "protego", "protego-0.6.1"] {
            assert_eq!(
                doc["oracles"][o]["outcome"], "disallowed",
                "PATH={path}: {o}\n{text}\n{err}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&empty);
}

/// Issue 52: exit codes a script can trust. A blank agent or a URL that
/// does not parse is refused (2) unless `--raw`; an over-size file is
/// refused (2) saying what crawlers would do; a cell that is a timeout is
/// exit 3, never 0.
#[test]
fn check_refuses_bad_questions_and_exits_3_on_a_timeout() {
    let dir = std::env::temp_dir().join(format!("repdiff-check-codes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let robots = dir.join("robots.txt");
    std::fs::write(&robots, "User-agent: *\nDisallow: /\n").expect("robots");
    let robots = robots.display().to_string();
    let ask = |agent: &str, url: &str, more: &[&str]| {
        let mut args = vec![
            "check",
            "--no-setup",
            "--oracle",
            "rfc9309",
            "--robots",
            &robots,
        ];
        args.extend(["--agent", agent, "--url", url]);
        args.extend(more);
        repdiff(&args, b"")
    };
    for (agent, url, says) in [
        ("", "https://example.com/", "blank"),
        ("  ", "https://example.com/", "blank"),
        ("bot", "not a url", "does not parse"),
        ("bot", "/just/a/path", "does not parse"),
        ("bot", "ftp://example.com/x", "not an http(s) URL"),
    ] {
        let out = ask(agent, url, &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{agent:?} {url:?}: {err}");
        assert!(err.contains(says) && err.contains("--raw"), "{err}");
        let raw = ask(agent, url, &["--raw"]);
        assert_eq!(raw.status.code(), Some(0), "--raw {agent:?} {url:?}");
    }
    let big = dir.join("big.txt");
    let mut body = b"User-agent: *\n".to_vec();
    body.resize(600 * 1024, b'#');
    std::fs::write(&big, &body).expect("big");
    let big = big.display().to_string();
    let mut args = vec![
        "check",
        "--no-setup",
        "--oracle",
        "rfc9309",
        "--robots",
        &big,
    ];
    args.extend([
        "--agent",
        "bot",
        "--url",
        "https://example.com/",
        "--max-size",
        "512",
    ]);
    let out = repdiff(&args, b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("500 KiB") && err.contains("--max-size"),
        "{err}"
    );
    // A harness that greets and never answers: a timeout cell, exit 3.
    let greeting = dir.join("greeting.json");
    std::fs::write(&greeting, format!("{SLOW_GREETING}\n")).expect("greeting");
    let cmd = format!("slow=cat '{}'; sleep 1000", greeting.display());
    let mut args = vec!["check", "--no-setup", "--timeout", "0.5", "--json"];
    args.extend([
        "--oracle-cmd",
        &cmd,
        "--oracle",
        "slow",
        "--oracle",
        "rfc9309",
    ]);
    args.extend([
        "--robots",
        &robots,
        "--agent",
        "bot",
        "--url",
        "https://example.com/",
    ]);
    let out = repdiff(&args, b"");
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{text}\n{err}");
    assert!(text.contains("\"timeout\""), "{text}");
    assert!(err.contains("no answer") && err.contains("slow"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

const SLOW_GREETING: &str = r#"{"v":2,"hello":{"name":"slow","library":"slow","version":"0","language":"sh","runtime":{"name":"sh","version":"0"},"provenance":{"registry":"local","package":"slow","version":"0"},"capabilities":{"can_fetch":true,"crawl_delay":false,"request_rate":false,"sitemaps":false,"http_fetch":false}}}"#;

/// Issue 52: a census whose input does not exist creates nothing: no
/// `--out` folder, no lock.
#[test]
fn a_census_of_a_missing_folder_creates_nothing() {
    let dir = std::env::temp_dir().join(format!("repdiff-census-none-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let out = dir.join("out");
    let missing = dir.join("no-such-folder");
    let o = repdiff(
        &[
            "census",
            "--no-setup",
            "--oracle",
            "rfc9309",
            "--out",
            &out.display().to_string(),
            &missing.display().to_string(),
        ],
        b"",
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        !out.exists(),
        "the refused census created {}",
        out.display()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
