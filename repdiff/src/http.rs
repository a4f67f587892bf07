//! The local HTTP server for the status matrix: 127.0.0.1 on an ephemeral
//! port, in-process, stopped when the run ends. Each HTTP case is served at
//! `/<case-id>/robots.txt` with its status, headers, redirect chain, body
//! and fault, so oracles that own a fetcher (CPython's `read()`) really
//! fetch over a socket.
//!
//! The HTTP itself (request parsing, response framing, connections) is
//! `tiny_http`'s; this module only decides what each case answers. The
//! three faults:
//!
//! * `slow`: the handler sleeps `SLOW` before answering, on its own
//!   thread so other fetches are not held up.
//! * `redirect-loop`: a 302 whose `Location` is the URL just asked for.
//! * `reset`: the request is turned into its raw writer
//!   (`Request::into_writer`) and that writer is dropped unwritten, so not
//!   one response byte is sent and tiny_http's automatic 500 (what it sends
//!   for a `Request` dropped unanswered) is never triggered. tiny_http then
//!   closes the socket because the request was the connection's last:
//!   it said `Connection: close` or was HTTP/1.0, as every fetcher of the
//!   matrix's does (the RFC 9309 oracle's and the profiles' client in
//!   `oracles::rfc9309::fetch`, CPython's urllib). A keep-alive request
//!   would instead be left waiting for an answer that never comes (a
//!   timeout, not a reset; measured: no byte and no close in 3 s):
//!   tiny_http 0.12 gives no public way to close a connection that expects
//!   more requests, so `reset` is the one fault that would need the raw
//!   socket, and only for a keep-alive fetcher.
//!
//! What tiny_http adds to a response besides the case's own: `Server` and
//! `Date` headers, and its own reason phrases (418 reads "Unknown"). No
//! fetcher's answer depends on either.

use engine::case::{Case, Fault, HttpSpec};
use std::collections::BTreeMap;
use std::io::Write;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;
use tiny_http::{Header, Request, Response};

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
        log::warn!(
            "REPDIFF_FETCH_TIMEOUT is {:.1} s, not below the status matrix's slow \
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

type Table = BTreeMap<String, Served>;

pub struct Server {
    port: u16,
    http: Arc<tiny_http::Server>,
    ids: Vec<String>,
}

impl Server {
    /// None when no case needs HTTP or the socket cannot be bound (the HTTP
    /// cases are then `Unsupported` for everyone, and the run says why).
    pub fn start(cases: &[&Case]) -> Option<Server> {
        let served: Table = cases
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
        // Bound here rather than by tiny_http so the port is known without
        // its listen-address type and a bind failure reads like any other.
        let listener = match TcpListener::bind("127.0.0.1:0") {
            Ok(l) => l,
            Err(e) => {
                log::error!("cannot start the local HTTP server: {e}");
                return None;
            }
        };
        let port = listener.local_addr().ok()?.port();
        let http = match tiny_http::Server::from_listener(listener, None) {
            Ok(s) => Arc::new(s),
            Err(e) => {
                log::error!("cannot start the local HTTP server: {e}");
                return None;
            }
        };
        let ids = served.keys().cloned().collect();
        let inbox = http.clone();
        let served = Arc::new(served);
        std::thread::spawn(move || {
            // Ends when `Drop` unblocks it (or tiny_http's accept fails).
            while let Ok(request) = inbox.recv() {
                let served = served.clone();
                // One thread per request: a slow answer must not hold up
                // the fetches of other cases running in parallel.
                std::thread::spawn(move || {
                    let _ = handle(request, &served);
                });
            }
        });
        Some(Server { port, http, ids })
    }

    pub fn url_for(&self, case: &Case) -> Option<String> {
        self.ids
            .contains(&case.id)
            .then(|| format!("http://127.0.0.1:{}/{}/robots.txt", self.port, case.id))
    }
}

impl Drop for Server {
    /// Wakes the request loop, which then drops the last handle on the
    /// tiny_http server; that stops its accept thread and frees the port.
    fn drop(&mut self) {
        self.http.unblock();
    }
}

/// The answer to one request: `/<id>/robots.txt` starts the case's redirect
/// chain, `/<id>/hop/<k>/robots.txt` is its k-th hop, and after the last
/// hop comes the fault or the final response.
fn handle(request: Request, served: &Table) -> std::io::Result<()> {
    let path = request.url().to_owned();
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let (id, hop) = match parts.as_slice() {
        [id, "robots.txt"] => (*id, 0usize),
        [id, "hop", k, "robots.txt"] => (*id, k.parse().unwrap_or(usize::MAX)),
        _ => ("", 0),
    };
    let Some(s) = served.get(id) else {
        return respond(request, 404, &[], b"no such case\n".to_vec());
    };
    if hop < s.spec.redirects.len() {
        let location = format!("/{id}/hop/{}/robots.txt", hop + 1);
        let status = s.spec.redirects[hop];
        return respond(request, status, &[("Location", &location)], Vec::new());
    }
    match s.spec.fault {
        Some(Fault::Reset) => {
            // See the module doc: the raw writer, dropped unwritten, sends
            // nothing, and the connection is closed behind it.
            drop(request.into_writer());
            return Ok(());
        }
        Some(Fault::Slow) => std::thread::sleep(SLOW),
        Some(Fault::RedirectLoop) => {
            let location = format!("/{id}/robots.txt");
            return respond(request, 302, &[("Location", &location)], Vec::new());
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
        headers.push(("Content-Encoding", "gzip"));
        return respond(request, s.spec.status, &headers, gzip(&s.body)?);
    }
    respond(request, s.spec.status, &headers, s.body.clone())
}

/// One response with a `Content-Length` (never chunked, whatever the body's
/// size: the 600 KiB case must reach the fetchers framed as before) and
/// `Content-Type: text/plain` unless the case names its own.
fn respond(
    request: Request,
    status: u16,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> std::io::Result<()> {
    let mut response = Response::from_data(body)
        .with_status_code(status)
        .with_chunked_threshold(usize::MAX);
    let has_type = headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-type"));
    let default_type: &[(&str, &str)] = if has_type {
        &[]
    } else {
        &[("Content-Type", "text/plain")]
    };
    for (k, v) in default_type.iter().chain(headers) {
        match Header::from_bytes(k.as_bytes(), v.as_bytes()) {
            Ok(h) => response.add_header(h),
            // tiny_http takes ASCII headers only; a case's other header is
            // said, not sent silently wrong.
            Err(()) => {
                log::warn!("status matrix header {k:?}: {v:?} is not ASCII, not sent")
            }
        }
    }
    request.respond(response)
}

fn gzip(body: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(body)?;
    enc.finish()
}
