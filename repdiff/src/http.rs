//! The local HTTP server for the status matrix: 127.0.0.1 on an ephemeral
//! port, in-process, stopped when the run ends. Each HTTP case is served at
//! `/<case-id>/robots.txt` with its status, headers, redirect chain, body
//! and fault, so oracles that own a fetcher (CPython's `read()`) really
//! fetch over a socket.

use engine::case::{Case, Fault, HttpSpec};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long a `slow` response waits: longer than the fetchers' socket
/// timeout (`oracles::fetch_timeout`, 1 s unless `REPDIFF_FETCH_TIMEOUT`
/// says otherwise), so it shows as each fetcher's own timeout, and shorter
/// than a worker call.
const SLOW: Duration = Duration::from_secs(3);

/// Say so when `REPDIFF_FETCH_TIMEOUT` is set so high that the matrix's slow
/// response would no longer be a timeout for the fetchers.
pub fn check_fetch_timeout() {
    let t = oracles::fetch_timeout();
    if t >= SLOW {
        eprintln!(
            "warning: REPDIFF_FETCH_TIMEOUT is {:.1} s, not below the status matrix's slow \
             response ({} s): fetchers will wait it out instead of timing out",
            t.as_secs_f64(),
            SLOW.as_secs()
        );
    }
}

struct Served {
    spec: HttpSpec,
    body: Vec<u8>,
}

pub struct Server {
    port: u16,
    stop: Arc<AtomicBool>,
    ids: Vec<String>,
}

impl Server {
    /// None when no case needs HTTP or the socket cannot be bound (the HTTP
    /// cases are then `Unsupported` for everyone, and the run says why).
    pub fn start(cases: &[&Case]) -> Option<Server> {
        let served: BTreeMap<String, Served> = cases
            .iter()
            .filter_map(|c| {
                c.http.as_ref().map(|spec| {
                    (
                        c.id.clone(),
                        Served {
                            spec: spec.clone(),
                            body: c.body.clone(),
                        },
                    )
                })
            })
            .collect();
        if served.is_empty() {
            return None;
        }
        let listener = match TcpListener::bind("127.0.0.1:0") {
            Ok(l) => l,
            Err(e) => {
                eprintln!("ERROR: cannot start the local HTTP server: {e}");
                return None;
            }
        };
        let port = listener.local_addr().ok()?.port();
        let stop = Arc::new(AtomicBool::new(false));
        let ids = served.keys().cloned().collect();
        let served = Arc::new(served);
        let flag = stop.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let served = served.clone();
                std::thread::spawn(move || {
                    let _ = handle(stream, &served);
                });
            }
        });
        Some(Server { port, stop, ids })
    }

    pub fn url_for(&self, case: &Case) -> Option<String> {
        self.ids
            .contains(&case.id)
            .then(|| format!("http://127.0.0.1:{}/{}/robots.txt", self.port, case.id))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        410 => "Gone",
        418 => "I'm a teapot",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn handle(stream: TcpStream, served: &BTreeMap<String, Served>) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
    }
    let path = request_line.split_whitespace().nth(1).unwrap_or("/");
    // /<id>/robots.txt or /<id>/hop/<k>/robots.txt
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (id, hop) = match parts.as_slice() {
        [id, "robots.txt"] => (*id, 0usize),
        [id, "hop", k, "robots.txt"] => (*id, k.parse().unwrap_or(usize::MAX)),
        _ => ("", 0),
    };
    let mut out = stream;
    let Some(s) = served.get(id) else {
        return respond(&mut out, 404, &[], b"no such case\n");
    };
    if hop < s.spec.redirects.len() {
        let location = format!("/{id}/hop/{}/robots.txt", hop + 1);
        return respond(
            &mut out,
            s.spec.redirects[hop],
            &[("Location", &location)],
            b"",
        );
    }
    match s.spec.fault {
        Some(Fault::Reset) => return Ok(()), // dropped: closed without a response
        Some(Fault::Slow) => std::thread::sleep(SLOW),
        Some(Fault::RedirectLoop) => {
            let location = format!("/{id}/robots.txt");
            return respond(&mut out, 302, &[("Location", &location)], b"");
        }
        None => {}
    }
    let mut headers: Vec<(&str, &str)> = s
        .spec
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    if s.spec.gzip {
        let gz = gzip(&s.body)?;
        headers.push(("Content-Encoding", "gzip"));
        return respond(&mut out, s.spec.status, &headers, &gz);
    }
    respond(&mut out, s.spec.status, &headers, &s.body)
}

fn respond(
    out: &mut TcpStream,
    status: u16,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<()> {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
    {
        head.push_str("Content-Type: text/plain\r\n");
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    out.write_all(head.as_bytes())?;
    out.write_all(body)?;
    out.flush()
}

fn gzip(body: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(body)?;
    enc.finish()
}
