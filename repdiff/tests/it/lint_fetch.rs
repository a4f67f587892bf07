//! `lint URL` against a loopback server, one status each: the file is
//! fetched as RFC 9309 §2.3 says (redirects followed hop by hop, five at
//! most), a 2xx file is linted, and a 4xx, a 5xx, six redirects or no
//! server at all is said with its paragraph and exit 1, never a pass.

use std::process::{Command, Output};

const BODY: &str = "User-agent: *\nDisallow: /private/\n";

/// Serves `/ok/robots.txt` (200), `/hop/K/robots.txt` (K redirects, then
/// 200) and `/sNNN/robots.txt` (status NNN) until the test ends.
fn server() -> String {
    let server = tiny_http::Server::http("127.0.0.1:0").expect("a loopback port");
    let addr = server
        .server_addr()
        .to_ip()
        .expect("an IP address")
        .to_string();
    std::thread::spawn(move || {
        for req in server.incoming_requests() {
            let parts: Vec<String> = req.url().split('/').map(str::to_string).collect();
            let response = match parts.get(1).map(String::as_str) {
                Some("hop") => {
                    let k: u32 = parts[2].parse().unwrap_or(0);
                    if k == 0 {
                        tiny_http::Response::from_string(BODY)
                    } else {
                        let to = format!("/hop/{}/robots.txt", k - 1);
                        tiny_http::Response::from_string("")
                            .with_status_code(301)
                            .with_header(tiny_http::Header::from_bytes("Location", to).unwrap())
                    }
                }
                Some(s) if s.starts_with('s') => tiny_http::Response::from_string("no")
                    .with_status_code(s[1..].parse::<u16>().unwrap_or(500)),
                _ => tiny_http::Response::from_string(BODY),
            };
            let _ = req.respond(response);
        }
    });
    addr
}

fn lint(url: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_repdiff"))
        .args([
            "lint",
            url,
            "--no-setup",
            "--oracle",
            "rfc9309",
            "--oracle",
            "google",
        ])
        .env("REPDIFF_ROOT", concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("repdiff runs")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn each_status_is_taken_as_rfc_9309_says() {
    let addr = server();
    let url = |path: &str| format!("http://{addr}{path}");

    let ok = lint(&url("/ok/robots.txt"));
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));
    assert!(text(&ok).contains("fetched: "), "{}", text(&ok));
    assert!(text(&ok).contains("HTTP 200"), "{}", text(&ok));

    // A site's root names its /robots.txt.
    let root = lint(&url("/"));
    assert_eq!(root.status.code(), Some(0), "{}", text(&root));
    assert!(
        text(&root).contains("/robots.txt: HTTP 200"),
        "{}",
        text(&root)
    );

    let three = lint(&url("/hop/3/robots.txt"));
    assert_eq!(three.status.code(), Some(0), "{}", text(&three));
    assert!(
        text(&three).contains("after 3 redirect(s), at "),
        "{}",
        text(&three)
    );

    let six = lint(&url("/hop/6/robots.txt"));
    assert_eq!(six.status.code(), Some(1), "{}", text(&six));
    assert!(text(&six).contains("§2.3.1.2"), "{}", text(&six));

    let missing = lint(&url("/s404/robots.txt"));
    assert_eq!(missing.status.code(), Some(1), "{}", text(&missing));
    assert!(text(&missing).contains("§2.3.1.3"), "{}", text(&missing));
    assert!(
        text(&missing).contains("corpus case http-404"),
        "{}",
        text(&missing)
    );

    let down = lint(&url("/s503/robots.txt"));
    assert_eq!(down.status.code(), Some(1), "{}", text(&down));
    assert!(text(&down).contains("§2.3.1.4"), "{}", text(&down));

    // Nothing listening: unreachable, complete disallow.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let refused = lint(&format!("http://127.0.0.1:{port}/"));
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    assert!(text(&refused).contains("unreachable"), "{}", text(&refused));
}
