//! The status-matrix server on its own, seen by a plain std `TcpStream`
//! client speaking HTTP/1.1 with `Connection: close` as the matrix's
//! fetchers do: statuses, bodies, framing, the redirect chain and the three
//! faults (reset must send zero bytes, slow must miss a 1 s read timeout).

use engine::case::{Case, Fault, HttpSpec};
use repdiff::http::Server;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn case(id: &str, body: &[u8], spec: HttpSpec) -> Case {
    Case {
        id: id.to_string(),
        title: id.to_string(),
        tags: vec!["http-status".to_string()],
        source: "repdiff/tests/it/http_server.rs".to_string(),
        body: body.to_vec(),
        queries: Vec::new(),
        http: Some(spec),
        family: None,
        notes: None,
        file: PathBuf::from("repdiff/tests/it/http_server.rs"),
        line: 1,
    }
}

fn spec(status: u16) -> HttpSpec {
    HttpSpec {
        status,
        headers: Default::default(),
        redirects: Vec::new(),
        fault: None,
        gzip: false,
        googlebot: None,
    }
}

/// What the server sent for `path` before closing, or the read error.
fn get(port: u16, path: &str, timeout: Duration) -> Result<Vec<u8>, std::io::Error> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(timeout))?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )?;
    let mut out = Vec::new();
    s.read_to_end(&mut out)?;
    Ok(out)
}

/// (status line, lower-cased header lines, body)
fn split(raw: &[u8]) -> (String, Vec<String>, Vec<u8>) {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no end of head in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..end]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap_or_default().to_string();
    let headers = lines.map(|l| l.to_ascii_lowercase()).collect();
    (status, headers, raw[end + 4..].to_vec())
}

fn started(cases: &[Case]) -> (Server, u16) {
    let refs: Vec<&Case> = cases.iter().collect();
    let server = Server::start(&refs).expect("the status server starts");
    let url = server.url_for(&cases[0]).expect("served");
    let port = url
        .trim_start_matches("http://127.0.0.1:")
        .split('/')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {url}"));
    (server, port)
}

#[test]
fn serves_statuses_bodies_and_redirect_chains() {
    let big = vec![b'#'; 600 * 1024];
    let mut chain = spec(200);
    chain.redirects = vec![301, 302];
    let mut looped = spec(200);
    looped.fault = Some(Fault::RedirectLoop);
    let cases = [
        case("ok", b"User-agent: *\nDisallow: /x\n", spec(200)),
        case("gone", b"", spec(410)),
        case("chain", b"Disallow: /c\n", chain),
        case("loop", b"", looped),
        case("big", &big, spec(200)),
    ];
    let (server, port) = started(&cases);
    assert_eq!(
        server.url_for(&cases[0]).as_deref(),
        Some(format!("http://127.0.0.1:{port}/ok/robots.txt").as_str())
    );
    let t = Duration::from_secs(10);

    let (status, headers, body) = split(&get(port, "/ok/robots.txt", t).expect("ok"));
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_header(&headers, "content-type: text/plain");
    assert_header(&headers, "content-length: 27");
    assert_eq!(body, b"User-agent: *\nDisallow: /x\n");

    let (status, _, _) = split(&get(port, "/gone/robots.txt", t).expect("gone"));
    assert_eq!(status, "HTTP/1.1 410 Gone");

    let (status, headers, _) = split(&get(port, "/chain/robots.txt", t).expect("hop 0"));
    assert_eq!(status, "HTTP/1.1 301 Moved Permanently");
    assert_header(&headers, "location: /chain/hop/1/robots.txt");
    let (status, headers, _) = split(&get(port, "/chain/hop/1/robots.txt", t).expect("hop 1"));
    assert_eq!(status, "HTTP/1.1 302 Found");
    assert_header(&headers, "location: /chain/hop/2/robots.txt");
    let (status, _, body) = split(&get(port, "/chain/hop/2/robots.txt", t).expect("hop 2"));
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(body, b"Disallow: /c\n");

    let (status, headers, _) = split(&get(port, "/loop/robots.txt", t).expect("loop"));
    assert_eq!(status, "HTTP/1.1 302 Found");
    assert_header(&headers, "location: /loop/robots.txt");

    // Framed by Content-Length, not chunked, however large.
    let (_, headers, body) = split(&get(port, "/big/robots.txt", t).expect("big"));
    assert!(
        headers.contains(&format!("content-length: {}", big.len())),
        "{headers:?}"
    );
    assert!(
        !headers.iter().any(|h| h.starts_with("transfer-encoding")),
        "{headers:?}"
    );
    assert_eq!(body.len(), big.len());

    let (status, _, body) = split(&get(port, "/nope/robots.txt", t).expect("unknown"));
    assert_eq!(status, "HTTP/1.1 404 Not Found");
    assert_eq!(body, b"no such case\n");
}

#[test]
fn gzip_sends_the_encoded_body() {
    let mut gz = spec(200);
    gz.gzip = true;
    let cases = [case("gz", b"User-agent: *\nDisallow: /g\n", gz)];
    let (_server, port) = started(&cases);
    let raw = get(port, "/gz/robots.txt", Duration::from_secs(10)).expect("gz");
    let (status, headers, body) = split(&raw);
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_header(&headers, "content-encoding: gzip");
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(&body[..])
        .read_to_end(&mut plain)
        .expect("a gzip body");
    assert_eq!(plain, b"User-agent: *\nDisallow: /g\n");
}

#[test]
fn reset_closes_without_a_single_byte() {
    let mut reset = spec(200);
    reset.fault = Some(Fault::Reset);
    let cases = [case("reset", b"User-agent: *\nDisallow: /\n", reset)];
    let (_server, port) = started(&cases);
    let t0 = Instant::now();
    // A timeout here would mean the connection was left open (or answered
    // late): both are errors distinct from "closed with nothing".
    match get(port, "/reset/robots.txt", Duration::from_secs(5)) {
        Ok(bytes) => assert!(
            bytes.is_empty(),
            "reset sent {:?}",
            String::from_utf8_lossy(&bytes)
        ),
        Err(e) => assert_eq!(e.kind(), ErrorKind::ConnectionReset, "{e}"),
    }
    assert!(
        t0.elapsed() < Duration::from_secs(2),
        "closed only after {:?}",
        t0.elapsed()
    );
}

#[test]
fn slow_answers_after_a_fetchers_timeout() {
    let mut slow = spec(200);
    slow.fault = Some(Fault::Slow);
    let cases = [case("slow", b"User-agent: *\nDisallow: /s\n", slow)];
    let (_server, port) = started(&cases);
    let early = get(port, "/slow/robots.txt", Duration::from_secs(1));
    let kind = early.as_ref().map_err(|e| e.kind());
    assert!(
        matches!(kind, Err(ErrorKind::WouldBlock | ErrorKind::TimedOut)),
        "within 1 s: {kind:?}"
    );
    // A patient client gets the full answer after the delay.
    let t0 = Instant::now();
    let (status, _, body) =
        split(&get(port, "/slow/robots.txt", Duration::from_secs(10)).expect("slow"));
    assert!(
        t0.elapsed() >= Duration::from_secs(2),
        "answered after {:?}",
        t0.elapsed()
    );
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(body, b"User-agent: *\nDisallow: /s\n");
}

/// The response carries this header line (names lower-cased by `split`).
fn assert_header(headers: &[String], line: &str) {
    assert!(
        headers.iter().any(|h| h == line),
        "no `{line}` in {headers:?}"
    );
}
