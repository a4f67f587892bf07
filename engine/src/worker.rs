//! Oracles in supervised worker processes.
//!
//! A C++ abort, a segfault or a regex blow-up must cost one cell, not the
//! run. So each oracle can run in a child process (the same binary in worker
//! mode) that the parent drives over stdin/stdout with this protocol:
//!
//! ```text
//! child -> parent, once:  {"v":1,"hello":{"name":..,"version":..,"capabilities":{..}}}
//!                     or  {"v":1,"unavailable":{"oracle":..,"reason":..,"fix":..}}
//! parent -> child:        {"op":"run","body_len":N,"queries":[..]}\n  then N raw body bytes
//!                         {"op":"fetch","url":"..","queries":[..]}\n
//! child -> parent:        {"answers":[..]}\n      (one answer per query, in order)
//! ```
//!
//! The body travels as raw bytes after the header line, so a 500 KiB body is
//! not inflated by an encoding. One message per case batches all its queries.
//! The parent enforces a timeout (per call, growing with its queries: [`Limits::budget`]), restarts a dead or hung worker
//! with exponential backoff up to a budget, and on a crash re-asks the
//! batch's queries one at a time so only the query that crashed is lost.

use crate::oracle::{About, Answer, Capabilities, Oracle, Outcome, Query, Unavailable};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::AsRawFd;
use std::process::ChildStdout;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

/// The protocol spoken here; `docs/protocol.md` documents it and
/// `docs/protocol/*.schema.json` are its messages.
pub const PROTOCOL_VERSION: u32 = 2;

/// The greeting's `hello`: the worker's name, its [`About`] flattened, and
/// what it can answer.
#[derive(Serialize, Deserialize)]
struct Hello {
    name: String,
    #[serde(flatten)]
    about: About,
    capabilities: Capabilities,
}

#[derive(Serialize, Deserialize)]
struct Greeting {
    v: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hello: Option<Hello>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    unavailable: Option<Unavailable>,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
#[serde(try_from = "FlatRequest")]
enum Request {
    Run {
        body_len: usize,
        queries: Vec<Query>,
    },
    Fetch {
        url: String,
        queries: Vec<Query>,
    },
}

/// A request as the parent writes it: borrowing the caller's queries, so a
/// call does not copy a hundred agents and URLs only to serialise them.
#[derive(Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum RequestRef<'a> {
    Run {
        body_len: usize,
        queries: &'a [Query],
    },
    Fetch {
        url: &'a str,
        queries: &'a [Query],
    },
}

/// A request as read: one plain struct. Read straight into the tagged
/// enum, serde first buffered the whole request (a hundred queries) into an
/// intermediate tree to find `op`.
#[derive(Deserialize)]
struct FlatRequest {
    op: Op,
    body_len: Option<usize>,
    url: Option<String>,
    queries: Vec<Query>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Op {
    Run,
    Fetch,
}

impl TryFrom<FlatRequest> for Request {
    type Error = &'static str;
    fn try_from(r: FlatRequest) -> Result<Self, Self::Error> {
        Ok(match r.op {
            Op::Run => Request::Run {
                body_len: r.body_len.ok_or("missing field `body_len`")?,
                queries: r.queries,
            },
            Op::Fetch => Request::Fetch {
                url: r.url.ok_or("missing field `url`")?,
                queries: r.queries,
            },
        })
    }
}

#[derive(Serialize, Deserialize)]
struct Response {
    answers: Vec<Answer>,
}

/// The worker side: greet, then answer requests until stdin closes.
/// `make` builds the oracle inside the child, so a library that cannot load
/// is reported as `unavailable` instead of crashing the parent.
pub fn serve(make: impl FnOnce() -> Result<Box<dyn Oracle>, Unavailable>) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut input = BufReader::with_capacity(PIPE_BUFFER, stdin.lock());
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut oracle = match make() {
        Ok(o) => o,
        Err(u) => {
            send(
                &mut out,
                &Greeting {
                    v: PROTOCOL_VERSION,
                    hello: None,
                    unavailable: Some(u),
                },
            )?;
            return Ok(());
        }
    };
    send(
        &mut out,
        &Greeting {
            v: PROTOCOL_VERSION,
            hello: Some(Hello {
                name: oracle.name().to_string(),
                about: oracle.about(),
                capabilities: oracle.capabilities(),
            }),
            unavailable: None,
        },
    )?;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let req: Request = serde_json::from_str(&line)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        let answers = match req {
            Request::Run { body_len, queries } => {
                let mut body = vec![0u8; body_len];
                input.read_exact(&mut body)?;
                oracle.run(&body, &queries)
            }
            Request::Fetch { url, queries } => oracle.run_fetch(&url, &queries),
        };
        send(&mut out, &Response { answers })?;
    }
}

/// One message, one write: a 25 KB answer line written through an 8 KiB
/// buffer went out in four pieces, and each woke the parent for nothing.
fn send<T: Serialize>(out: &mut impl Write, msg: &T) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(msg)?;
    line.push(b'\n');
    out.write_all(&line)?;
    out.flush()
}

/// Read buffers on both ends of the pipe, as large as a pipe's default
/// capacity (64 KiB): a hundred answers fit in one read.
const PIPE_BUFFER: usize = 64 * 1024;

/// With `REPDIFF_PROTOCOL_LOG=FILE`, every protocol line the parent sends
/// (request headers) or reads (greetings, responses) is appended to FILE as
/// `{"oracle", "kind", "line"}`: real traffic, for the schema test
/// (`xtask/tests/protocol_schema.rs`) and for debugging a harness.
/// The variable is read once: `tap` sits on every call's path.
fn tap(oracle: &str, kind: &str, line: &[u8]) {
    static LOG: std::sync::OnceLock<Option<std::ffi::OsString>> = std::sync::OnceLock::new();
    let Some(path) = LOG.get_or_init(|| std::env::var_os("REPDIFF_PROTOCOL_LOG")) else {
        return;
    };
    let record = serde_json::json!({
        "oracle": oracle,
        "kind": kind,
        "line": String::from_utf8_lossy(line),
    });
    let mut text = record.to_string();
    text.push('\n');
    // One write of one line in append mode: lines of parallel workers do
    // not interleave.
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = f.write_all(text.as_bytes());
    }
}

impl Limits {
    /// The time a call of `queries` queries may take. The first query
    /// carries the parse, which is most of a call's cost in every oracle we
    /// run; the rest are look-ups, so each adds a quarter of `timeout`, not
    /// a whole one. (It was `queries x timeout`: a parser that hangs on a
    /// two-query case then held the whole conformance run for 10 s.)
    pub fn budget(&self, queries: usize) -> Duration {
        let more = u32::try_from(queries.saturating_sub(1)).unwrap_or(u32::MAX);
        self.timeout + self.timeout / 4 * more
    }
}

/// Limits for a supervised worker.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// A call (one case's batch of n queries) may take this plus a quarter
    /// of it for each query after the first ([`Limits::budget`]) before the
    /// worker is killed and the batch marked `Timeout`.
    pub timeout: Duration,
    /// Restarts allowed in a row, with no call answered in between, before
    /// the worker is given up as broken. A success resets the count, so a
    /// case whose body kills the worker on each of its queries costs those
    /// queries and not the rest of the run.
    pub max_restarts: u32,
    /// Restarts allowed over the oracle's lifetime, whatever came between:
    /// the cap on a worker that crashes on every other call.
    pub max_restarts_total: u32,
    /// First backoff before a restart; doubles on consecutive failures.
    pub backoff: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(5),
            max_restarts: 20,
            max_restarts_total: 1000,
            backoff: Duration::from_millis(20),
        }
    }
}

struct Live {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    /// Set by the stderr reader at end of file: the tail is then complete.
    stderr_done: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// The parent side: an [`Oracle`] whose calls go to a worker process.
pub struct Supervised {
    command: Vec<String>,
    /// Extra environment for the worker (an external harness's NODE_PATH).
    env: Vec<(String, String)>,
    limits: Limits,
    name: String,
    about: About,
    capabilities: Capabilities,
    live: Option<Live>,
    restarts: u32,
    /// Restarts since the last answered call.
    restarts_in_a_row: u32,
    consecutive_failures: u32,
    /// [`Oracle::cap_call_time`]'s cap on the next calls' budget.
    cap: Option<Duration>,
}

enum SpawnError {
    /// The worker loaded and said its library is missing.
    Unavailable(Unavailable),
    Other(String),
}

impl From<String> for SpawnError {
    fn from(s: String) -> Self {
        SpawnError::Other(s)
    }
}

impl From<&str> for SpawnError {
    fn from(s: &str) -> Self {
        SpawnError::Other(s.to_string())
    }
}

enum CallError {
    Timeout,
    Died(String),
}

impl Supervised {
    /// Start the worker and read its greeting. `command` is argv (program
    /// first). Fails with `Unavailable` when the worker says it cannot load
    /// its library or does not start.
    pub fn start(name: &str, command: Vec<String>, limits: Limits) -> Result<Self, Unavailable> {
        Self::start_with_env(name, command, Vec::new(), limits)
    }

    /// [`Supervised::start`] with extra environment variables.
    pub fn start_with_env(
        name: &str,
        command: Vec<String>,
        env: Vec<(String, String)>,
        limits: Limits,
    ) -> Result<Self, Unavailable> {
        let mut s = Supervised {
            command,
            env,
            limits,
            name: name.to_string(),
            about: About::default(),
            capabilities: Capabilities::default(),
            live: None,
            restarts: 0,
            restarts_in_a_row: 0,
            consecutive_failures: 0,
            cap: None,
        };
        let hello = s.spawn()?;
        s.about = hello.about;
        s.capabilities = hello.capabilities;
        Ok(s)
    }

    fn spawn(&mut self) -> Result<Hello, Unavailable> {
        self.try_spawn().map_err(|e| match e {
            SpawnError::Unavailable(u) => u,
            SpawnError::Other(reason) => Unavailable {
                oracle: self.name.clone(),
                reason,
                fix: "cargo xtask setup".into(),
            },
        })
    }

    fn try_spawn(&mut self) -> Result<Hello, SpawnError> {
        let (program, args) = self
            .command
            .split_first()
            .ok_or_else(|| "empty worker command".to_string())?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // A panic's message, not a backtrace, is what a report needs.
            .env("RUST_BACKTRACE", "0")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .spawn()
            .map_err(|e| format!("cannot start worker {program}: {e}"))?;
        let stdin = child.stdin.take().ok_or("worker has no stdin")?;
        let stdout = child.stdout.take().ok_or("worker has no stdout")?;
        let mut stderr_pipe = child.stderr.take().ok_or("worker has no stderr")?;
        // Keep only the tail of stderr: enough to say why a worker died.
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = stderr.clone();
        let stderr_done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let done = stderr_done.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr_pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut v) = sink.lock() {
                    v.extend_from_slice(&buf[..n]);
                    let excess = v.len().saturating_sub(4096);
                    v.drain(..excess);
                }
            }
            done.store(true, std::sync::atomic::Ordering::Release);
        });
        let mut live = Live {
            child,
            stdin,
            stdout: BufReader::with_capacity(PIPE_BUFFER, stdout),
            stderr,
            stderr_done,
        };
        // Loading an interpreter can take a while: allow a generous start.
        let first = read_line(
            &mut live.stdout,
            self.limits.timeout.max(Duration::from_secs(30)),
        );
        let line = match first {
            Line::Text(line) => line,
            _ => {
                let why = describe_death(&mut live);
                let _ = live.child.kill();
                let _ = live.child.wait();
                return Err(format!("worker did not greet: {why}").into());
            }
        };
        tap(&self.name, "greeting", line.as_bytes());
        // The version first, so a worker of another version is told so
        // rather than that its greeting is malformed.
        let raw: serde_json::Value = serde_json::from_str(&line)
            .map_err(|e| format!("greeting is not JSON: {e}: {line:?}"))?;
        let v = raw.get("v").and_then(serde_json::Value::as_u64);
        if v != Some(u64::from(PROTOCOL_VERSION)) {
            let _ = live.child.kill();
            let _ = live.child.wait();
            return Err(format!(
                "worker speaks protocol {} but repdiff speaks {PROTOCOL_VERSION} (docs/protocol.md)",
                v.map_or("(no \"v\")".to_string(), |v| v.to_string())
            )
            .into());
        }
        let greeting: Greeting = serde_json::from_value(raw)
            .map_err(|e| format!("bad greeting from worker: {e}: {line:?}"))?;
        if let Some(u) = greeting.unavailable {
            let _ = live.child.wait();
            return Err(SpawnError::Unavailable(u));
        }
        let hello = greeting.hello.ok_or("greeting without hello")?;
        self.live = Some(live);
        Ok(hello)
    }

    fn ensure_live(&mut self) -> Result<(), String> {
        if self.live.is_some() {
            return Ok(());
        }
        if self.restarts_in_a_row >= self.limits.max_restarts {
            return Err(format!(
                "worker restart budget exhausted: {} restarts in a row without an answer",
                self.limits.max_restarts
            ));
        }
        if self.restarts >= self.limits.max_restarts_total {
            return Err(format!(
                "worker restart budget exhausted: {} restarts in all",
                self.limits.max_restarts_total
            ));
        }
        self.restarts += 1;
        self.restarts_in_a_row += 1;
        let backoff = self.limits.backoff * 2u32.saturating_pow(self.consecutive_failures.min(6));
        std::thread::sleep(backoff.min(Duration::from_secs(2)));
        self.spawn().map(|_| ()).map_err(|u| u.to_string())
    }

    fn call(&mut self, header: &RequestRef<'_>, body: &[u8]) -> Result<Vec<Answer>, CallError> {
        self.ensure_live().map_err(CallError::Died)?;
        let queries = match header {
            RequestRef::Run { queries, .. } | RequestRef::Fetch { queries, .. } => queries.len(),
        };
        let budget = self.limits.budget(queries);
        let timeout = self.cap.map_or(budget, |cap| cap.min(budget));
        let Some(live) = self.live.as_mut() else {
            return Err(CallError::Died("worker not running".into()));
        };
        // One write per message: a JSON writer straight on the pipe would
        // make a system call per token.
        let name = &self.name;
        let sent = (|| {
            // Sized for the header and the body: no regrowing while writing.
            let mut message = Vec::with_capacity(96 * queries + body.len() + 64);
            serde_json::to_writer(&mut message, header)?;
            tap(name, "request", &message);
            message.push(b'\n');
            message.extend_from_slice(body);
            live.stdin.write_all(&message)?;
            live.stdin.flush()
        })();
        let outcome = match sent {
            Err(_) => Err(CallError::Died(describe_death(live))),
            Ok(()) => match read_line(&mut live.stdout, timeout) {
                Line::Text(line) => {
                    tap(name, "response", line.as_bytes());
                    serde_json::from_str::<Response>(&line)
                        .map_err(|e| CallError::Died(format!("bad response: {e}")))
                        .and_then(|r| {
                            // A worker that miscounts is broken, not a verdict.
                            if r.answers.len() == queries {
                                Ok(r.answers)
                            } else {
                                Err(CallError::Died(format!(
                                    "protocol error: {} answers for {queries} queries",
                                    r.answers.len()
                                )))
                            }
                        })
                }
                Line::Failed(e) => Err(CallError::Died(format!("read error: {e}"))),
                Line::Timeout => Err(CallError::Timeout),
                Line::Eof => Err(CallError::Died(describe_death(live))),
            },
        };
        if outcome.is_err() {
            self.kill();
            self.consecutive_failures += 1;
        } else {
            self.consecutive_failures = 0;
            self.restarts_in_a_row = 0;
        }
        outcome
    }

    fn kill(&mut self) {
        if let Some(mut live) = self.live.take() {
            let _ = live.child.kill();
            let _ = live.child.wait();
        }
    }

    /// Ask a batch; on a crash, re-ask one query at a time so only the query
    /// that takes the worker down is marked `Crash`. A timeout is not retried
    /// query by query: that could cost `timeout` per query.
    fn batch(&mut self, fetch: Option<&str>, body: &[u8], queries: &[Query]) -> Vec<Answer> {
        let make = |queries| match fetch {
            None => RequestRef::Run {
                body_len: body.len(),
                queries,
            },
            Some(url) => RequestRef::Fetch { url, queries },
        };
        match self.call(&make(queries), body) {
            Ok(answers) => answers,
            Err(CallError::Timeout) => queries
                .iter()
                .map(|_| Answer::from(Outcome::Timeout))
                .collect(),
            Err(CallError::Died(detail)) if queries.len() == 1 => {
                vec![Answer::from(Outcome::Crash { detail })]
            }
            Err(CallError::Died(_)) => queries
                .iter()
                .map(|q| match self.call(&make(std::slice::from_ref(q)), body) {
                    Ok(mut a) if a.len() == 1 => a.remove(0),
                    Ok(a) => Answer::from(Outcome::Crash {
                        detail: format!("worker returned {} answers for 1 query", a.len()),
                    }),
                    Err(CallError::Timeout) => Answer::from(Outcome::Timeout),
                    Err(CallError::Died(detail)) => Answer::from(Outcome::Crash { detail }),
                })
                .collect(),
        }
    }

    pub fn restarts(&self) -> u32 {
        self.restarts
    }
}

enum Line {
    Text(String),
    Timeout,
    Eof,
    Failed(std::io::Error),
}

/// Read one line from the worker within `timeout`, on the calling thread:
/// `poll(2)` waits for the pipe, so no reader thread (and no thread hand-off
/// per call) stands between the worker's answer and the runner.
fn read_line(reader: &mut BufReader<ChildStdout>, timeout: Duration) -> Line {
    let deadline = std::time::Instant::now() + timeout;
    let mut line = Vec::new();
    loop {
        let buffered = reader.buffer();
        if let Some(i) = buffered.iter().position(|&b| b == b'\n') {
            line.extend_from_slice(&buffered[..=i]);
            reader.consume(i + 1);
            return Line::Text(
                String::from_utf8(line)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            );
        }
        line.extend_from_slice(buffered);
        let n = buffered.len();
        reader.consume(n);
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Line::Timeout;
        }
        let mut pfd = libc::pollfd {
            fd: reader.get_ref().as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd for the duration of the call.
        let ready = unsafe { libc::poll(&mut pfd, 1, ms) };
        if ready < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Line::Failed(e);
        }
        if ready == 0 {
            continue; // the deadline check above decides
        }
        match reader.fill_buf() {
            Ok([]) => return Line::Eof,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Line::Failed(e),
        }
    }
}

fn describe_death(live: &mut Live) -> String {
    // Give the process a moment to finish dying so the status is known, and
    // the stderr reader to drain what it wrote last (the panic message):
    // on a loaded machine that thread may run well after the exit.
    let mut status = None;
    let done = || live.stderr_done.load(std::sync::atomic::Ordering::Acquire);
    for _ in 0..500 {
        if status.is_none() {
            status = live.child.try_wait().ok().flatten();
        }
        if status.is_some() && done() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let tail = live
        .stderr
        .lock()
        .map(|v| String::from_utf8_lossy(&v).trim().to_string())
        .unwrap_or_default();
    let lines: Vec<&str> = tail.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail: String = lines[lines.len().saturating_sub(3)..]
        .join(" / ")
        .chars()
        .take(400)
        .collect();
    let status = match status {
        Some(s) => {
            use std::os::unix::process::ExitStatusExt;
            match s.signal() {
                Some(sig) => format!("worker killed by signal {sig}"),
                None => format!("worker exited with {s}"),
            }
        }
        None => "worker stopped answering".to_string(),
    };
    if tail.is_empty() {
        status
    } else {
        format!("{status}: {tail}")
    }
}

impl Drop for Supervised {
    fn drop(&mut self) {
        self.kill();
    }
}

impl Oracle for Supervised {
    fn name(&self) -> &str {
        &self.name
    }
    fn about(&self) -> About {
        self.about.clone()
    }
    fn capabilities(&self) -> Capabilities {
        self.capabilities
    }
    fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
        self.batch(None, body, queries)
    }
    fn run_fetch(&mut self, robots_url: &str, queries: &[Query]) -> Vec<Answer> {
        self.batch(Some(robots_url), &[], queries)
    }
    fn cap_call_time(&mut self, cap: Option<Duration>) {
        self.cap = cap;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_the_timeout_plus_a_quarter_per_further_query() {
        let l = Limits {
            timeout: Duration::from_secs(4),
            ..Limits::default()
        };
        assert_eq!(l.budget(0), Duration::from_secs(4));
        assert_eq!(l.budget(1), Duration::from_secs(4));
        assert_eq!(l.budget(2), Duration::from_secs(5));
        assert_eq!(l.budget(101), Duration::from_secs(104));
    }

    #[test]
    fn a_request_reads_as_the_tagged_enum_and_needs_its_fields() {
        let run: Request =
            serde_json::from_str(r#"{"op":"run","body_len":3,"queries":[]}"#).unwrap();
        assert!(matches!(run, Request::Run { body_len: 3, .. }));
        let text = serde_json::to_string(&run).unwrap();
        assert!(text.contains(r#""op":"run""#), "{text}");
        for bad in [
            r#"{"op":"run","queries":[]}"#,
            r#"{"op":"fetch","queries":[]}"#,
            r#"{"op":"walk","body_len":3,"queries":[]}"#,
            r#"{"op":"run","body_len":3}"#,
        ] {
            assert!(serde_json::from_str::<Request>(bad).is_err(), "{bad}");
        }
    }
}
