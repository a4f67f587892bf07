//! `repdiff serve`: the multi-parser tester in a browser, for the people
//! who write robots.txt files. A page on loopback where one pastes or
//! uploads a file, types agents and URLs (or lets lint pick them) and sees
//! every oracle's verdict side by side, with lint's findings and links to
//! the ledger's write-ups; under it a JSON API (docs/serve.md).
//!
//! Served as a real service: the oracles start once, as supervised workers
//! in [`pool`]'s panels that every request shares through one bounded
//! queue; [`api`] holds the per-request limits and the refusals. The HTTP
//! server is tiny_http: it reads each connection's headers on a thread of
//! its own, so a client that sends them slowly holds one connection, not
//! the server; a longer body that stops arriving is cut after `--idle`
//! seconds (`conn`), so it holds a handler thread that long at most.

pub mod api;
mod conn;
pub mod pool;

use crate::shared::{seconds, Host, Usage};
use crate::{lint, paths, select};
use api::{Known, Limits, Reply, Request};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

const PAGE: &str = include_str!("page.html");

const AFTER_HELP: &str = "\
The first line on stdout is `repdiff serve: http://ADDR:PORT/` once the
oracles are up (with --port 0, the port the system chose). The API is
described in docs/serve.md: POST /api/check, POST /api/lint, POST /api/review,
GET /api/oracles.";

// The help text is the doc comment of the `Product` variant (cli.rs).
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct Opts {
    /// Address to bind (loopback by default: the page has no login)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    pub bind: String,
    /// Port to listen on (0: any free port)
    #[arg(long, default_value_t = 8309)]
    pub port: u16,
    /// Ask only this oracle (repeatable) [default: every registered one that is available]
    #[arg(long = "oracle", value_name = "NAME")]
    pub oracles: Vec<String>,
    /// One more oracle: any program speaking docs/protocol.md, run by `sh -c` (repeatable)
    #[arg(long = "oracle-cmd", value_name = "NAME='COMMAND'")]
    pub oracle_cmds: Vec<String>,
    /// Sets of workers (one per oracle each) serving requests side by side
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub panels: usize,
    /// Requests that may wait for a panel; more are refused with 503
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub queue: usize,
    /// Largest request body in KiB; larger ones are refused with 413 (a
    /// 2 MiB robots.txt fits, so the page shows what Google ignores past
    /// 500 KiB)
    #[arg(long, value_name = "KIB", default_value_t = 4096)]
    pub max_body: usize,
    /// Most questions one request may ask; more are refused with 422
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub max_queries: usize,
    /// Seconds a request may take, queueing included (then 504)
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = seconds)]
    pub request_time: Duration,
    /// Seconds a lint request may spend finding lines and rewrites
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = seconds)]
    pub lint_budget: Duration,
    /// Seconds for one oracle's call before its worker is killed (that
    /// cell reads `timeout`; the worker restarts for the next request)
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = seconds)]
    pub timeout: Duration,
    /// Let /api/lint fetch a site's /robots.txt (`fetch` field; the page's
    /// URL box); public addresses only, unless --allow-private
    #[arg(long)]
    pub allow_fetch: bool,
    /// With --allow-fetch: also loopback, private and link-local addresses
    /// (a visitor's request could then reach this machine's network)
    #[arg(long, requires = "allow_fetch")]
    pub allow_private: bool,
    /// Threads answering HTTP requests
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub threads: usize,
    /// Seconds a request's body may stop arriving, or our answer stop
    /// being taken, before the connection is closed (a cut body gets 408)
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = seconds)]
    pub idle: Duration,
    /// Do not run setup first
    #[arg(long)]
    pub no_setup: bool,
}

/// What every handler thread shares.
struct Ctx {
    pool: pool::Pool,
    limits: Limits,
    known: BTreeMap<String, Vec<Known>>,
    /// The ledger's measured causes per parser, for lint's attribution.
    causes: Arc<lint::attribute::KnownCauses>,
    /// Write-ups by file name (`<entry>.md`), read at start: the only
    /// files the server hands out.
    writeups: BTreeMap<String, String>,
    unavailable: Vec<serde_json::Value>,
    /// Where we listen, to find a request's connection by its addresses.
    local: Option<std::net::SocketAddr>,
    /// `--idle`: the read and write timeout of a connection whose body we read.
    idle: Duration,
    /// How hints name the program (the [`Host`]'s).
    program: &'static str,
}

pub fn main(opts: Opts, host: &Host) -> Result<i32, crate::error::Error> {
    let extra = select::oracle_cmds(&opts.oracle_cmds)?;
    select::validate(&opts.oracles, &extra)?;
    if opts.panels == 0 || opts.threads == 0 || opts.queue == 0 {
        return Err(Usage("--panels, --threads and --queue must be at least 1".into()).into());
    }
    let server = conn::listen(&opts.bind, opts.port)
        .map_err(|e| Usage(format!("cannot listen on {}:{}: {e}", opts.bind, opts.port)))?;
    if !opts.no_setup {
        host.ensure(crate::shared::Needs::Oracles);
    }
    let mut limits = opts.workers_limits();
    // A server lives long: a worker that keeps crashing on hostile files
    // is restarted for each, not given up after a run's worth of restarts.
    limits.max_restarts_total = u32::MAX;
    let mut panels = Vec::new();
    let mut unavailable = Vec::new();
    for n in 0..opts.panels {
        let sel = select::start_for(host.program, &opts.oracles, &extra, false, limits);
        if n == 0 {
            for u in &sel.unavailable {
                log::warn!("{u}");
                unavailable.push(serde_json::json!({ "oracle": u.oracle, "reason": u.reason }));
            }
        }
        panels.push(lint::panel::Panel::new(sel.oracles));
    }
    if panels[0].size() < 2 {
        log::error!("fewer than two oracles could start: nothing to compare");
        return Ok(1);
    }
    let (known, writeups, causes) = ledger_links();
    let ctx = Arc::new(Ctx {
        pool: pool::Pool::start(panels, opts.queue),
        limits: Limits {
            max_body: opts.max_body.saturating_mul(1024),
            max_queries: opts.max_queries,
            request_time: opts.request_time,
            lint_budget: opts.lint_budget.min(opts.request_time),
            fetch: opts.allow_fetch.then_some(if opts.allow_private {
                lint::fetch::Targets::Any
            } else {
                lint::fetch::Targets::Public
            }),
        },
        known,
        causes: Arc::new(causes),
        writeups,
        unavailable,
        local: server.server_addr().to_ip(),
        idle: opts.idle,
        program: host.program,
    });
    let address = server
        .server_addr()
        .to_ip()
        .map(|a| a.to_string())
        .unwrap_or_else(|| format!("{}:{}", opts.bind, opts.port));
    // The address is the answer (docs/serve.md: the first line on stdout,
    // what scripts and tests read, under `-q` too), not a note.
    crate::out!("repdiff serve: http://{address}/");
    let _ = std::io::stdout().flush();
    log::info!(
        "serving {} oracles in {} panel(s); Ctrl-C stops",
        ctx.pool.names.len(),
        opts.panels
    );
    let server = Arc::new(server);
    let handlers: Vec<_> = (0..opts.threads)
        .map(|_| {
            let (server, ctx) = (Arc::clone(&server), Arc::clone(&ctx));
            std::thread::spawn(move || {
                while let Ok(rq) = server.recv() {
                    handle(rq, &ctx);
                }
            })
        })
        .collect();
    for h in handlers {
        let _ = h.join();
    }
    Ok(0)
}

impl Opts {
    fn workers_limits(&self) -> engine::worker::Limits {
        lint::panel::limits(self.timeout)
    }
}

/// The ledger's entries per cause and the write-ups, for the page's links,
/// and the causes it measured per parser, for lint. A ledger that cannot
/// be read costs the links and the measured causes, not the server.
fn ledger_links() -> (
    BTreeMap<String, Vec<Known>>,
    BTreeMap<String, String>,
    lint::attribute::KnownCauses,
) {
    let dir = paths::root().join("reports/findings");
    let mut writeups = BTreeMap::new();
    if let Ok(list) = std::fs::read_dir(&dir) {
        for f in list.flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            if name.ends_with(".md") {
                if let Ok(text) = std::fs::read_to_string(f.path()) {
                    writeups.insert(name, text);
                }
            }
        }
    }
    let mut known: BTreeMap<String, Vec<Known>> = BTreeMap::new();
    let entries = paths::load_corpus().and_then(|c| {
        let names = select::known_names();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        paths::load_ledger(&c, &names)
    });
    let mut causes = lint::attribute::KnownCauses::default();
    match entries {
        Ok(ledger) => {
            causes = lint::attribute::KnownCauses::from_ledger(&ledger);
            for e in &ledger.entries {
                let Some(name) = e.cause.as_ref().and_then(|c| c.name()) else {
                    continue;
                };
                let file = format!("{}.md", e.id);
                known.entry(name.to_string()).or_default().push(Known {
                    entry: e.id.clone(),
                    title: e.title.clone(),
                    oracles: e.oracles.clone(),
                    writeup: writeups
                        .contains_key(&file)
                        .then(|| format!("/findings/{file}")),
                });
            }
        }
        Err(why) => log::warn!("no ledger links on the page: {why}"),
    }
    (known, writeups, causes)
}

fn handle(mut rq: tiny_http::Request, ctx: &Ctx) {
    use tiny_http::Method;
    let path = rq.url().split('?').next().unwrap_or("").to_string();
    let reply = match (rq.method(), path.as_str()) {
        (Method::Get, "/") => return respond(rq, 200, "text/html; charset=utf-8", PAGE.as_bytes()),
        (Method::Get, "/api/oracles") => Reply::ok(serde_json::json!({
            "oracles": api::oracle_list(&ctx.pool.names),
            "unavailable": ctx.unavailable,
        })),
        (Method::Get, p) if p.starts_with("/findings/") => {
            return match ctx.writeups.get(&p["/findings/".len()..]) {
                Some(text) => respond(rq, 200, "text/markdown; charset=utf-8", text.as_bytes()),
                None => json(rq, Reply::error(404, "no such write-up")),
            };
        }
        (Method::Post, "/api/check" | "/api/lint" | "/api/review") => {
            match read_body(&mut rq, ctx) {
                Ok(bytes) => match Request::parse(&bytes) {
                    Ok(req) if path == "/api/check" => api::check(&ctx.pool, &ctx.limits, &req),
                    Ok(req) if path == "/api/review" => api::review(&ctx.pool, &ctx.limits, &req),
                    Ok(req) => api::lint(
                        &ctx.pool,
                        &ctx.limits,
                        &ctx.known,
                        &ctx.causes,
                        &req,
                        ctx.program,
                    ),
                    Err(r) => r,
                },
                Err(r) => r,
            }
        }
        (_, "/" | "/api/oracles" | "/api/check" | "/api/lint" | "/api/review") => {
            Reply::error(405, "method not allowed here")
        }
        _ => Reply::error(404, "no such page"),
    };
    json(rq, reply)
}

/// The body, at most `max` bytes: a longer one is refused (413) before
/// it is read when it says its length, and as soon as it passes `max`
/// when it does not.
///
/// A body over 1 KiB is ours to read (a shorter one came with the
/// headers): its connection gets `--idle` as read timeout first, so a
/// body that stops arriving costs this thread that long and gets 408.
fn read_body(rq: &mut tiny_http::Request, ctx: &Ctx) -> Result<Vec<u8>, Reply> {
    let max = ctx.limits.max_body;
    let too_large = || {
        Reply::error(
            413,
            format!("the request body is over this server's {} KiB", max / 1024),
        )
    };
    if rq.body_length().is_some_and(|n| n > max) {
        return Err(too_large());
    }
    if rq.body_length().is_none_or(|n| n > 1024) {
        if let (Some(local), Some(peer)) = (ctx.local, rq.remote_addr()) {
            conn::time_out(local, *peer, ctx.idle);
        }
    }
    let mut bytes = Vec::new();
    rq.as_reader()
        .take(max as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => Reply::error(
                408,
                "the request body stopped arriving (see --idle in docs/serve.md)",
            ),
            _ => Reply::error(400, format!("cannot read the request body: {e}")),
        })?;
    if bytes.len() > max {
        return Err(too_large());
    }
    Ok(bytes)
}

fn json(rq: tiny_http::Request, reply: Reply) {
    let text = reply.json.to_string();
    respond(rq, reply.status, "application/json", text.as_bytes());
}

fn respond(rq: tiny_http::Request, status: u16, content_type: &str, body: &[u8]) {
    let mut response = tiny_http::Response::from_data(body.to_vec()).with_status_code(status);
    for (name, value) in [
        ("Content-Type", content_type),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
    ] {
        if let Ok(h) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            response.add_header(h);
        }
    }
    if status == 503 {
        if let Ok(h) = tiny_http::Header::from_bytes(&b"Retry-After"[..], &b"1"[..]) {
            response.add_header(h);
        }
    }
    // A refused body may still be on its way: close rather than read it.
    if status == 413 || status == 408 {
        if let Ok(h) = tiny_http::Header::from_bytes(&b"Connection"[..], &b"close"[..]) {
            response.add_header(h);
        }
    }
    if let Err(e) = rq.respond(response) {
        log::debug!("a client left before its answer: {e}");
    }
}
