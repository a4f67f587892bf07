//! `repdiff serve` as a service: the seed's `bot`/`MyBot` split through the
//! API and in headless chromium (typed into by Playwright's core), lint's findings with their ledger links,
//! and hostile requests (10 MiB body, 10,000 questions, invalid UTF-8, a
//! parser that hangs or crashes, slow headers, a full queue), each answered
//! or refused while other requests are served. The oracles are real (the
//! RFC reference, Google's C++ and CPython 3.11) plus the clearly named
//! `chaos` fake, which hangs or crashes when the agent asks it to.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BOT: &str = "User-agent: bot\nDisallow: /\n";

/// A running server, stopped when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(extra: &[&str]) -> Server {
    let three = [
        "--oracle",
        "rfc9309",
        "--oracle",
        "google",
        "--oracle",
        "cpython-3.11",
    ];
    serve_with(&[&three[..], extra].concat())
}

/// A server with exactly these arguments (no `--oracle`: every oracle).
fn serve_with(args: &[&str]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args(["serve", "--port", "0", "--no-setup", "-q"])
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .expect("cannot start repdiff serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("repdiff serve: http://")
        .and_then(|a| a.strip_suffix('/'))
        .unwrap_or_else(|| panic!("serve printed no address: {line:?}"))
        .to_string();
    Server { child, addr }
}

/// One HTTP/1.0 exchange on a fresh connection (1.0, so the answer comes
/// whole rather than chunked): status and body.
fn http(addr: &str, method: &str, path: &str, body: &[u8]) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let head = format!(
        "{method} {path} HTTP/1.0\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    // A server that refuses early may close before a large body is sent.
    let _ = s.write_all(body);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no HTTP status in {text:?}"));
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

fn post(addr: &str, path: &str, json: &serde_json::Value) -> (u16, serde_json::Value) {
    let (status, body) = http(addr, "POST", path, json.to_string().as_bytes());
    let value =
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: not JSON ({e}): {body}"));
    (status, value)
}

/// The seed's file, one agent, `https://example.com/`.
fn ask(agent: &str) -> serde_json::Value {
    serde_json::json!({"robots": BOT, "agents": [agent], "urls": ["https://example.com/"]})
}

fn outcome<'a>(answer: &'a serde_json::Value, query: usize, oracle: &str) -> &'a str {
    answer["queries"][query]["answers"][oracle]["outcome"]
        .as_str()
        .unwrap_or_else(|| panic!("no answer of {oracle} to query {query}: {answer}"))
}

#[test]
fn the_bot_mybot_split_through_the_api_with_lint_and_its_ledger_links() {
    let s = serve(&[]);
    let (status, oracles) = post(&s.addr, "/api/check", &serde_json::json!({}));
    assert_eq!(
        status, 400,
        "a request without a robots.txt is refused: {oracles}"
    );
    let (_, list) = {
        let (st, b) = http(&s.addr, "GET", "/api/oracles", b"");
        (st, serde_json::from_str::<serde_json::Value>(&b).unwrap())
    };
    let names: Vec<&str> = list["oracles"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["rfc9309", "google", "cpython-3.11"],
        "every oracle asked for runs: {list}"
    );

    let req = ask("MyBot");
    let (status, answer) = post(&s.addr, "/api/check", &req);
    assert_eq!(status, 200, "{answer}");
    assert_eq!(outcome(&answer, 0, "google"), "allowed");
    assert_eq!(outcome(&answer, 0, "rfc9309"), "allowed");
    assert_eq!(outcome(&answer, 0, "cpython-3.11"), "disallowed");
    assert_eq!(answer["queries"][0]["split"], true);
    assert!(
        answer["queries"][0]["answers"]["google"]
            .get("deciding")
            .is_none(),
        "no deciding line unless asked: {answer}"
    );
    // Asked for lines: Google tells its own (none of its rules matched
    // MyBot), CPython 3.11 gets a derived one, the `Disallow: /` of line 2.
    let mut with_lines = req.clone();
    with_lines["lines"] = true.into();
    let (status, answer) = post(&s.addr, "/api/check", &with_lines);
    assert_eq!(status, 200, "{answer}");
    let deciding = |oracle: &str| answer["queries"][0]["answers"][oracle]["deciding"].clone();
    assert_eq!(deciding("google")["how"], "told", "{answer}");
    assert_eq!(
        deciding("google")["lines"],
        serde_json::json!([]),
        "{answer}"
    );
    assert_eq!(deciding("cpython-3.11")["how"], "derived", "{answer}");
    assert_eq!(
        deciding("cpython-3.11")["lines"],
        serde_json::json!([2]),
        "{answer}"
    );
    assert!(
        deciding("cpython-3.11")["text"]
            .as_str()
            .is_some_and(|t| t.contains("`Disallow: /`")),
        "{answer}"
    );

    let (status, linted) = post(
        &s.addr,
        "/api/lint",
        &serde_json::json!({"robots": BOT, "agents": ["MyBot"]}),
    );
    assert_eq!(status, 200, "{linted}");
    let cause = linted["lint"]["groups"][0]["cause"]["name"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(cause, "rename-substring-groups", "{linted}");
    assert_eq!(
        linted["lint"]["groups"][0]["apart"],
        serde_json::json!([{"oracle": "cpython-3.11", "cause": "rename-substring-groups",
                            "plain": linted["lint"]["groups"][0]["cause"]["plain"], "measured": true}]),
        "{linted}"
    );
    let runs_in = linted["oracles"]
        .as_array()
        .expect("oracles")
        .iter()
        .find(|o| o["name"] == "google")
        .map(|o| o["runs_in"].clone());
    assert_eq!(runs_in, Some("Googlebot".into()), "{linted}");
    let known = linted["known"][cause]
        .as_array()
        .expect("the ledger's entries of the cause");
    let writeup = known
        .iter()
        .find(|k| k["entry"] == "ua-substring-match-cpython")
        .and_then(|k| k["writeup"].as_str())
        .expect("CPython's substring entry links its write-up");
    let (status, text) = http(&s.addr, "GET", writeup, b"");
    assert_eq!(status, 200);
    assert!(text.contains("substring"), "{text}");
    // The change review: both versions asked, what moved and for whom.
    let (status, reviewed) = post(
        &s.addr,
        "/api/review",
        &serde_json::json!({"before": "User-agent: *\nDisallow: /a\n",
                            "robots": "User-agent: *\nDisallow: /b\n", "agents": ["MyBot"]}),
    );
    assert_eq!(status, 200, "{reviewed}");
    let changes = reviewed["review"]["changes"].as_array().expect("changes");
    let moved_a = changes
        .iter()
        .find(|c| c["url"] == "https://example.com/a" && c["agent"] == "MyBot")
        .unwrap_or_else(|| panic!("/a's verdict moved: {reviewed}"));
    let google = moved_a["moved"]
        .as_array()
        .expect("moved")
        .iter()
        .find(|m| m["oracle"] == "google")
        .unwrap_or_else(|| panic!("google moved: {moved_a}"));
    assert_eq!(google["before"], "disallowed", "{moved_a}");
    assert_eq!(google["after"], "allowed", "{moved_a}");
    assert_eq!(google["runs_in"], "Googlebot", "{moved_a}");
    let (status, refused) = post(&s.addr, "/api/review", &serde_json::json!({"robots": "x"}));
    assert_eq!(status, 400, "{refused}");
    // The lines written for AI use come back as hazards, for the page.
    let (status, linted) = post(
        &s.addr,
        "/api/lint",
        &serde_json::json!({"robots": "User-agent: *\nDisallowAITraining: /\n", "agents": ["Googlebot"]}),
    );
    assert_eq!(status, 200, "{linted}");
    assert_eq!(linted["lint"]["hazards"][0]["line"], 2, "{linted}");
    assert_eq!(
        linted["lint"]["hazards"][0]["key"], "DisallowAITraining",
        "{linted}"
    );
    // A Content-Usage file: each question carries its usage preference.
    let (status, checked) = post(
        &s.addr,
        "/api/check",
        &serde_json::json!({"robots": "User-agent: *\nContent-Usage: train-ai=n\nDisallow: /x\n",
                            "agents": ["GPTBot"], "urls": ["https://e.test/a", "https://e.test/x"]}),
    );
    assert_eq!(status, 200, "{checked}");
    assert_eq!(checked["usage_draft"], "draft-ietf-aipref-attach-05");
    let usage = &checked["queries"][0]["usage"];
    assert_eq!(usage["preferences"]["train-ai"], "disallow", "{checked}");
    assert!(
        usage["text"]
            .as_str()
            .unwrap_or_default()
            .contains("line 2"),
        "{checked}"
    );
    assert_eq!(checked["queries"][1]["usage"]["kind"], "not_crawlable");
    assert!(
        answer["usage_draft"].is_null(),
        "no usage without Content-Usage"
    );
    // The page's AI-crawler toggle: `bot` keeps GPTBot out for CPython alone.
    let (status, linted) = post(
        &s.addr,
        "/api/lint",
        &serde_json::json!({"robots": BOT, "ai_crawlers": true}),
    );
    assert_eq!(status, 200, "{linted}");
    let gpt = linted["lint"]["ai_crawlers"]
        .as_array()
        .and_then(|a| a.iter().find(|v| v["token"] == "GPTBot"))
        .cloned()
        .unwrap_or_else(|| panic!("GPTBot asked: {linted}"));
    assert_eq!(
        gpt["disallowed_by"],
        serde_json::json!(["cpython-3.11"]),
        "{gpt}"
    );
    assert_eq!(http(&s.addr, "GET", "/findings/../Cargo.toml", b"").0, 404);
    assert_eq!(http(&s.addr, "GET", "/nothing", b"").0, 404);
    assert_eq!(http(&s.addr, "GET", "/api/check", b"").0, 405);
}

#[test]
fn hostile_requests_are_answered_or_refused_while_others_are_served() {
    let s = serve(&["--oracle", "chaos", "--timeout", "3", "--panels", "2"]);
    let ok = |addr: &str| {
        let req = ask("MyBot");
        let (status, answer) = post(addr, "/api/check", &req);
        assert_eq!(status, 200, "{answer}");
        assert_eq!(outcome(&answer, 0, "cpython-3.11"), "disallowed");
    };
    // Slow headers: one byte every 100 ms on a connection of its own.
    let addr = s.addr.clone();
    let slow = std::thread::spawn(move || {
        let mut c = TcpStream::connect(&addr).unwrap();
        for b in b"GET /api/oracles HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaa" {
            if c.write_all(&[*b]).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    // A parser that hangs costs its cell (a timeout) and not the others.
    let addr = s.addr.clone();
    let hang = std::thread::spawn(move || {
        let req = ask("hang");
        (post(&addr, "/api/check", &req), Instant::now())
    });
    std::thread::sleep(Duration::from_millis(300));
    ok(&s.addr);
    let answered_while_hanging = Instant::now();
    let ((status, hung), hang_done) = hang.join().unwrap();
    assert_eq!(status, 200, "{hung}");
    assert_eq!(outcome(&hung, 0, "chaos"), "timeout");
    assert_eq!(outcome(&hung, 0, "google"), "allowed");
    assert!(
        answered_while_hanging < hang_done,
        "a request waited for the hanging parser"
    );
    // A crashing parser: one crash cell, and the worker is back for the next.
    let req = ask("crash");
    let (status, crashed) = post(&s.addr, "/api/check", &req);
    assert_eq!(status, 200, "{crashed}");
    assert_eq!(outcome(&crashed, 0, "chaos"), "crash");
    assert_eq!(outcome(&crashed, 0, "rfc9309"), "allowed");
    let req = ask("x");
    assert_eq!(
        outcome(&post(&s.addr, "/api/check", &req).1, 0, "chaos"),
        "allowed"
    );

    // 10 MiB: refused before the panels see it.
    let big = serde_json::json!({"robots": "a".repeat(10 << 20)}).to_string();
    let (status, body) = http(&s.addr, "POST", "/api/check", big.as_bytes());
    assert_eq!(status, 413, "{body}");
    // 10,000 questions.
    let agents: Vec<String> = (0..100).map(|i| format!("bot{i}")).collect();
    let urls: Vec<String> = (0..100)
        .map(|i| format!("https://example.com/{i}"))
        .collect();
    let (status, body) = post(
        &s.addr,
        "/api/check",
        &serde_json::json!({"robots": BOT, "agents": agents, "urls": urls}),
    );
    assert_eq!(status, 422, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("10000 questions"),
        "{body}"
    );
    // A hundred agents, each asked every path lint takes from a long file:
    // what lint would ask is bounded, not only what was sent.
    let long: String = (0..600).map(|i| format!("Disallow: /p{i}\n")).collect();
    let agents: Vec<String> = (0..100).map(|i| format!("bot{i}")).collect();
    let req = serde_json::json!({"robots": format!("User-agent: *\n{long}"), "agents": agents});
    let (status, body) = post(&s.addr, "/api/lint", &req);
    assert_eq!(status, 422, "{body}");
    // A request that is not UTF-8 JSON.
    let (status, body) = http(&s.addr, "POST", "/api/check", b"{\"robots\": \"\xff\xfe\"}");
    assert_eq!(status, 400, "{body}");
    // A robots.txt that is not UTF-8, sent as its bytes: answered.
    let req = serde_json::json!({"robots_base64": "VXNlci1hZ2VudDogKgpEaXNhbGxvdzogL1z/Cg==", "agents": ["x"], "urls": ["https://example.com/a"]});
    let (status, body) = post(&s.addr, "/api/check", &req);
    assert_eq!(status, 200, "{body}");
    // A binary file is lint's clear refusal, not a crash.
    let (status, body) = post(
        &s.addr,
        "/api/lint",
        &serde_json::json!({"robots_base64": "AAECAwQFBgcICQ=="}),
    );
    assert_eq!(status, 422, "{body}");
    ok(&s.addr);
    slow.join().unwrap();
    ok(&s.addr);
}

/// Bodies that stop arriving, more of them than there are handler
/// threads: each is cut with a 408 after `--idle`, and a good request sent
/// behind them is answered once they are (without the timeout it would
/// wait for good: tiny_http gives a body over 1 KiB to our threads to
/// read, and has no timeout of its own).
#[test]
fn bodies_that_stop_arriving_are_cut_after_the_idle_time() {
    let s = serve(&["--threads", "2", "--idle", "2"]);
    let started = Instant::now();
    let stalled: Vec<_> = (0..4)
        .map(|_| {
            let addr = s.addr.clone();
            std::thread::spawn(move || {
                let mut c = TcpStream::connect(&addr).unwrap();
                c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
                let head = "POST /api/check HTTP/1.0\r\nContent-Type: application/json\r\n\
                            Content-Length: 4096\r\n\r\n{\"robots\": ";
                c.write_all(head.as_bytes()).unwrap();
                let mut raw = Vec::new();
                let _ = c.read_to_end(&mut raw);
                String::from_utf8_lossy(&raw).into_owned()
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let (status, answer) = post(&s.addr, "/api/check", &ask("MyBot"));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(outcome(&answer, 0, "cpython-3.11"), "disallowed");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "the good request waited {:?} behind stalled bodies",
        started.elapsed()
    );
    for t in stalled {
        let text = t.join().unwrap();
        assert!(text.starts_with("HTTP/1.0 408 "), "{text:?}");
        assert!(text.contains("stopped arriving"), "{text:?}");
    }
}

#[test]
fn a_full_queue_is_refused_at_once_not_queued_without_bound() {
    let s = serve(&[
        "--oracle",
        "chaos",
        "--timeout",
        "4",
        "--panels",
        "1",
        "--queue",
        "1",
    ]);
    let hang = |addr: String| {
        std::thread::spawn(move || {
            let req = ask("hang");
            post(&addr, "/api/check", &req).0
        })
    };
    // The first occupies the only panel, the second the only place in the
    // queue; the third finds no room.
    let first = hang(s.addr.clone());
    std::thread::sleep(Duration::from_millis(700));
    let second = hang(s.addr.clone());
    std::thread::sleep(Duration::from_millis(700));
    let req = ask("x");
    let (status, body) = post(&s.addr, "/api/check", &req);
    assert_eq!(status, 503, "{body}");
    assert_eq!(first.join().unwrap(), 200);
    assert_eq!(second.join().unwrap(), 200);
    assert_eq!(post(&s.addr, "/api/check", &req).0, 200);
}

#[test]
fn the_tester_shows_the_split_in_chromium() {
    let s = serve(&[]);
    let profile = common::scratch("serve-chromium");
    let query: String = [
        ("robots", BOT),
        ("agents", "MyBot"),
        ("urls", "https://example.com/"),
        ("run", "check"),
    ]
    .iter()
    .map(|(k, v)| format!("{k}={}", percent(v)))
    .collect::<Vec<_>>()
    .join("&");
    let url = format!("http://{}/?{query}", s.addr);
    let (ok, dom, err) = common::chromium::chromium(
        &[
            "--virtual-time-budget=20000".into(),
            "--dump-dom".into(),
            url.clone(),
        ],
        &profile,
    );
    assert!(ok, "chromium --dump-dom {url} failed:\n{err}");
    let row = dom
        .split("<tr ")
        .find(|r| r.contains("data-agent=\"MyBot\""))
        .unwrap_or_else(|| panic!("the page shows no row for MyBot:\n{dom}"));
    assert!(row.starts_with("class=\"split\""), "{row}");
    assert!(
        row.contains("class=\"allowed\" data-oracle=\"google\""),
        "{row}"
    );
    assert!(
        row.contains("class=\"disallowed\" data-oracle=\"cpython-3.11\""),
        "{row}"
    );
}

/// A person's session, driven by Playwright's core over the DevTools
/// protocol (`tests/browser/tester.js`, installed by setup's `test-tools`
/// step): the seed's file pasted into the box, the agent and URL typed,
/// Check pressed, then Lint. Missing node or playwright-core is a failure.
#[test]
fn a_person_pastes_the_file_types_the_agent_and_sees_the_split() {
    let s = serve(&[]);
    let dir = common::scratch("serve-playwright");
    let robots = dir.join("robots.txt");
    std::fs::write(&robots, BOT).unwrap();
    let seen = tester(&s.addr, &robots, "MyBot", "https://example.com/", None);
    let rows = seen["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 1, "one agent x one URL: {seen}");
    let row = &rows[0];
    assert_eq!(row["agent"], "MyBot", "{row}");
    assert_eq!(row["url"], "https://example.com/", "{row}");
    assert_eq!(row["split"], true, "{row}");
    assert_eq!(row["cells"]["google"], "allowed", "{row}");
    assert_eq!(row["cells"]["cpython-3.11"], "disallowed", "{row}");
    assert_eq!(row["cells"]["rfc9309"], "allowed", "{row}");
    let findings = seen["findings"].as_str().unwrap_or_default();
    assert!(
        findings.contains("line 1: User-agent: bot"),
        "lint names the line that makes the difference: {findings}"
    );
}

/// `tests/browser/tester.js` against the server at `addr`: its JSON, or a
/// failure with what it printed. `screenshots` is the prefix of the PNGs it
/// saves.
fn tester(
    addr: &str,
    robots: &Path,
    agents: &str,
    urls: &str,
    screenshots: Option<&Path>,
) -> serde_json::Value {
    tester_with(addr, robots, agents, urls, screenshots, None)
}

/// [`tester`], then, with `before`, the change review of that earlier
/// version against `robots` (its text under `review`).
fn tester_with(
    addr: &str,
    robots: &Path,
    agents: &str,
    urls: &str,
    screenshots: Option<&Path>,
    before: Option<&Path>,
) -> serde_json::Value {
    let cache = std::env::var_os("REPDIFF_CACHE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.cache"));
    let mut cmd = Command::new("node");
    cmd.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/browser/tester.js"
    ))
    .arg(format!("http://{addr}/"))
    .arg(common::chromium::CHROMIUM)
    .arg(robots)
    .args([agents, urls])
    .args(repdiff::report_site::browser::HEADLESS)
    .env("NODE_PATH", cache.join("npm/node_modules"));
    if let Some(prefix) = screenshots {
        cmd.env("TESTER_SCREENSHOTS", prefix);
    }
    if let Some(before) = before {
        cmd.env("TESTER_BEFORE", before);
    }
    let out = cmd.output().expect("cannot run node");
    assert!(
        out.status.success(),
        "tester.js failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "tester.js printed {:?}: {e}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// A Cloudflare-style file (its managed block's `*` group before the
/// site's own) asked by every parser in a 1280-px window: the columns are
/// grouped by who runs each parser, a group whose parsers agree on every
/// question is one column, the page is no wider than the window, and each
/// verdict shows its deciding line. With `REPDIFF_SCREENSHOTS=DIR` the
/// screenshots are saved there (`docs/img/` holds the ones the README
/// shows: `REPDIFF_SCREENSHOTS=docs/img cargo test --release -p repdiff
/// --test it serve::the_page_fits`).
#[test]
fn the_page_fits_1280_px_with_every_parser_grouped_by_who_runs_it() {
    let s = serve_with(&["--panels", "1"]);
    let dir = common::scratch("serve-grouped");
    let robots = dir.join("robots.txt");
    std::fs::write(
        &robots,
        "User-Agent: *\nContent-signal: search=yes, ai-train=no\nAllow: /\n\n\
         User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\n",
    )
    .unwrap();
    // The earlier version had no GPTBot group: the review says GPTBot's
    // access moved, for which parsers, under who runs them.
    let before = dir.join("before.txt");
    std::fs::write(
        &before,
        "User-Agent: *\nContent-signal: search=yes, ai-train=no\nAllow: /\n\n\
         User-agent: *\nDisallow: /private/\n",
    )
    .unwrap();
    let shots = std::env::var_os("REPDIFF_SCREENSHOTS")
        .map(|d| std::path::PathBuf::from(d).join("serve-grouped"));
    let seen = tester_with(
        &s.addr,
        &robots,
        "MyBot\nGPTBot",
        "https://example.com/private/x\nhttps://example.com/",
        shots.as_deref(),
        Some(&before),
    );
    let width = seen["width"].as_u64().expect("the page's width");
    assert!(width <= 1280, "the page is {width} px wide at 1280: {seen}");
    let (_, list) = http(&s.addr, "GET", "/api/oracles", b"");
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    let all: Vec<&str> = list["oracles"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert!(all.len() >= 20, "every oracle runs: {list}");
    let rows = seen["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 4, "two agents x two URLs: {seen}");
    let mut folded = 0;
    for row in rows {
        // Every parser is in a column of its own or in a folded group.
        let mut shown: Vec<String> = row["cells"].as_object().unwrap().keys().cloned().collect();
        for members in row["groups"].as_object().unwrap().values() {
            folded += 1;
            shown.extend(members.as_str().unwrap().split(' ').map(String::from));
        }
        shown.sort();
        let mut want: Vec<String> = all.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(shown, want, "{row}");
        if let Some(line) = row["lines"]["rfc9309"].as_str() {
            assert!(line.starts_with("l.") || line == "none", "{row}");
        } else {
            panic!("no deciding line for rfc9309: {row}");
        }
    }
    assert!(
        folded > 0,
        "some group of parsers agrees and is folded: {seen}"
    );
    // A ledger entry is linked under a finding only where its parser
    // splits: heritrix's lower-casing under the GPTBot group it splits,
    // not robotexclusionrulesparser's URL error under `Allow: /`, where
    // only spider allows.
    let findings = seen["findings"].as_str().unwrap_or_default();
    assert!(
        findings.contains("ua-names-lowercased-ua-not-heritrix"),
        "{findings}"
    );
    assert!(
        !findings.contains("network-path-url-raises-rerp"),
        "{findings}"
    );
    // The lint view names parsers under who runs them, each question's
    // deciding lines, and a cause per parser apart.
    assert!(
        findings.contains("Internet Archive: heritrix"),
        "{findings}"
    );
    assert!(findings.contains("decided by line"), "{findings}");
    assert!(
        findings.contains("heritrix: the group names matched case-sensitively"),
        "{findings}"
    );
    let review = seen["review"].as_str().unwrap_or_default();
    assert!(review.contains("+   5 User-agent: GPTBot"), "{review}");
    assert!(
        review.contains("allowed \u{2192} disallowed: RFC 9309: rfc9309; Googlebot: google"),
        "{review}"
    );
    assert!(review.contains("GPTBot https://example.com/"), "{review}");
}

fn percent(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            b => format!("%{b:02X}"),
        })
        .collect()
}

/// `/api/lint` with `fetch`: refused (403) unless the server was started
/// with --allow-fetch; with it, a loopback site is refused (422) unless
/// --allow-private; with both, the file is fetched and linted.
#[test]
fn the_server_fetches_only_when_allowed_and_never_an_internal_address_by_default() {
    let site = tiny_http::Server::http("127.0.0.1:0").expect("a loopback port");
    let site_addr = site.server_addr().to_ip().expect("an IP").to_string();
    std::thread::spawn(move || {
        for req in site.incoming_requests() {
            let _ = req.respond(tiny_http::Response::from_string(
                "User-agent: *\nDisallow: /x\n",
            ));
        }
    });
    let req = serde_json::json!({"fetch": format!("http://{site_addr}/"), "agents": ["MyBot"]});

    let off = serve(&[]);
    let (status, body) = post(&off.addr, "/api/lint", &req);
    assert_eq!(status, 403, "{body}");
    drop(off);

    let public = serve(&["--allow-fetch"]);
    let (status, body) = post(&public.addr, "/api/lint", &req);
    assert_eq!(status, 422, "{body}");
    assert!(
        body["error"]
            .as_str()
            .unwrap_or_default()
            .contains("public addresses only"),
        "{body}"
    );
    drop(public);

    let private = serve(&["--allow-fetch", "--allow-private"]);
    let (status, body) = post(&private.addr, "/api/lint", &req);
    assert_eq!(status, 200, "{body}");
    let fetched = body["lint"]["file"]["fetched"].as_str().unwrap_or_default();
    assert!(fetched.contains("HTTP 200"), "{body}");
    assert_eq!(body["lint"]["agree"], true, "{body}");
}
