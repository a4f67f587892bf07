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
//!
//! A hostile or broken harness must cost seconds, not a run, and leave
//! nothing behind: the greeting has its own short timeout
//! ([`Limits::greeting_timeout`]), no line may exceed
//! [`Limits::max_message`], each worker runs under a data-size limit
//! ([`Limits::memory_limit`]) in a process group of its own, and stopping
//! a worker stops its whole group (see [`kill_all_workers`] and
//! [`stop_workers_on_signal`] for the ends of repdiff a drop does not see).

pub mod cpu;
mod group;
mod pipeline;
mod sentinel;
pub mod starting;
mod starved;

pub use group::{kill_all_workers, stop_workers_on_signal};

use crate::oracle::{About, Answer, Capabilities, Oracle, Outcome, Query, Unavailable};
use group::Exit;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::process::ChildStdout;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

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
        explain: bool,
    },
    Fetch {
        url: String,
        queries: Vec<Query>,
        explain: bool,
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
        /// `false` when the parent will not read `explain` (protocol §2).
        #[serde(skip_serializing_if = "is_true")]
        explain: bool,
        /// [`Limits::question_cpu`] in ms (protocol §2), when set.
        #[serde(skip_serializing_if = "Option::is_none")]
        cpu_ms: Option<u64>,
    },
    Fetch {
        url: &'a str,
        queries: &'a [Query],
        #[serde(skip_serializing_if = "is_true")]
        explain: bool,
    },
}

fn is_true(b: &bool) -> bool {
    *b
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
    /// Optional (protocol §2): absent means the parent reads `explain`.
    #[serde(default = "yes")]
    explain: bool,
}

fn yes() -> bool {
    true
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
                explain: r.explain,
            },
            Op::Fetch => Request::Fetch {
                url: r.url.ok_or("missing field `url`")?,
                queries: r.queries,
                explain: r.explain,
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
    // The parent never asks for explanations again once it has said it
    // will not read them (it says so on every request from then on).
    let mut explaining = true;
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let req: Request = serde_json::from_str(&line)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        let wanted = match &req {
            Request::Run { explain, .. } | Request::Fetch { explain, .. } => *explain,
        };
        if explaining && !wanted {
            oracle.skip_explanations();
            explaining = false;
        }
        let answers = match req {
            Request::Run {
                body_len, queries, ..
            } => {
                let mut body = vec![0u8; body_len];
                input.read_exact(&mut body)?;
                oracle.run(&body, &queries)
            }
            Request::Fetch { url, queries, .. } => oracle.run_fetch(&url, &queries),
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
/// (`repdiff/tests/it/protocol_schema.rs`) and for debugging a harness.
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
    /// The time a starting worker may spend idle before its greeting line,
    /// separate from `timeout`: a harness that cannot start (a mistyped
    /// command, a missing module) is told within it, naming what it
    /// printed. Time the worker spends busy (on a CPU, or waiting in the
    /// run queue for one) moves the deadline on, up to
    /// [`starting::CAP`] times this ([`starting`]): a JVM starting beside a
    /// build is slow, not dead. 5 s fits every oracle we run (the slowest,
    /// a JVM, greets in about 1 s on an idle machine).
    /// A restart that fails to greet gives the worker up for the run
    /// instead of trying again, so one oracle costs at most one such wait
    /// after its first start.
    pub greeting_timeout: Duration,
    /// The longest line (greeting or answer) read from a worker, in bytes
    /// without its newline. A longer one is cut off at the limit: the
    /// worker is stopped and the call's cells are crashes naming the limit.
    /// repdiff never buffers more than this for one line, so a worker that
    /// floods stdout costs this much memory, not all of it.
    pub max_message: usize,
    /// The worker's `RLIMIT_DATA` in bytes (0 = none): past it, its
    /// allocations fail and it dies, one crash cell whose detail names the
    /// limit, instead of taking the machine's memory. Data, not address
    /// space: the JVM and V8 reserve large address ranges they never touch.
    pub memory_limit: u64,
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
    /// The CPU one question may use, told to the worker as `cpu_ms` on
    /// each `run` request (protocol §2; `None`: not sent). A harness that
    /// can stop its library's call (crawler4j's) answers `timeout` for the
    /// question past it and lives on; the others ignore it, and `timeout`
    /// stays the backstop. Why: a worker killed at the wall-clock timeout
    /// costs the whole timeout plus a restart (a JVM start), which the fuzz
    /// loop paid hundreds of times a run on crawler4j's backtracking regex.
    pub question_cpu: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(5),
            greeting_timeout: Duration::from_secs(5),
            max_message: 16 << 20,
            memory_limit: 4 << 30,
            max_restarts: 20,
            max_restarts_total: 1000,
            backoff: Duration::from_millis(20),
            question_cpu: None,
        }
    }
}

/// The `RLIMIT_DATA` a worker gets for `bytes`: soft and hard both, so the
/// worker cannot raise it, and never above the hard limit repdiff itself
/// runs under (raising that needs privilege, and setrlimit would fail).
fn data_limit(bytes: u64) -> libc::rlimit {
    let mut now = libc::rlimit {
        rlim_cur: libc::RLIM_INFINITY,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: one valid out-parameter; on failure `now` stays unlimited.
    unsafe {
        libc::getrlimit(libc::RLIMIT_DATA, &mut now);
    }
    let v = bytes.min(now.rlim_max);
    libc::rlimit {
        rlim_cur: v,
        rlim_max: v,
    }
}

/// A size as people write it: `16 MiB`, `4 GiB`, else bytes.
fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b => format!("{b} bytes"),
    }
}

/// A duration in the seconds people read: `5 s`, `0.25 s`.
fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// A running worker. Dropping it stops its whole process group (SIGTERM,
/// [`group::GRACE`], SIGKILL) and reaps it, on every path: an answered
/// run's end, a timeout, a failed greeting, and a panic unwinding through
/// the owner.
struct Live {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    /// Set by the stderr reader at end of file: the tail is then complete.
    stderr_done: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Live {
    /// The worker's pid, which is also its process group's id.
    fn pgid(&self) -> i32 {
        i32::try_from(self.child.id()).unwrap_or(i32::MAX)
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        group::stop_group(self.pgid());
        let _ = self.child.wait();
    }
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
    /// Restarts in a row that did not greet; at [`MAX_GREET_FAILURES`] the
    /// worker is given up and `broken` says why.
    greet_failures: u32,
    broken: Option<String>,
    /// [`Oracle::cap_call_time`]'s cap on the next calls' budget.
    cap: Option<Duration>,
    /// False after [`Oracle::skip_explanations`]: requests say `explain: false`.
    explain: bool,
    /// CPU time of the workers stopped so far (restarts keep the count).
    spent: Duration,
}

/// Restarts in a row that may fail to greet before the worker is given up
/// for the run: each costs up to [`Limits::greeting_timeout`], so two bound
/// what a harness that stops starting can cost (10 s at the default).
const MAX_GREET_FAILURES: u32 = 2;

/// Why a worker did not start: what a caller needs to choose the fix line
/// (setup for a registered oracle's missing library, the protocol document
/// for a harness of the user's that does not greet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartFailure {
    /// The worker greeted with `unavailable`: its library is missing. The
    /// worker's own `fix` is kept.
    Unavailable,
    /// The program could not be run at all (not found, not executable).
    Exec,
    /// It ran but did not greet as `docs/protocol.md` says: silent past the
    /// greeting timeout, exited, flooded stdout, or printed something that
    /// is not a protocol-2 greeting.
    Protocol,
}

/// A worker that did not start: its kind, and the oracle and reason (with
/// `fix` empty unless the worker gave one) for the caller to report.
#[derive(Debug, Clone)]
pub struct StartError {
    pub kind: StartFailure,
    pub unavailable: Unavailable,
}

/// The fix [`Supervised::start`] gives a failure the worker did not
/// explain. Generic on purpose: the engine knows no setup command; a caller
/// that does uses [`Supervised::launch`] and picks its own from
/// [`StartFailure`].
fn generic_fix(kind: StartFailure) -> &'static str {
    match kind {
        StartFailure::Unavailable => "",
        StartFailure::Exec => "check that the command exists and is executable",
        StartFailure::Protocol => "the worker must greet as docs/protocol.md says (protocol 2)",
    }
}

enum SpawnError {
    /// The worker loaded and said its library is missing.
    Unavailable(Unavailable),
    Failed(StartFailure, String),
}

fn exec_failure(reason: String) -> SpawnError {
    SpawnError::Failed(StartFailure::Exec, reason)
}

fn protocol_failure(reason: String) -> SpawnError {
    SpawnError::Failed(StartFailure::Protocol, reason)
}

enum CallError {
    Timeout,
    Died(String),
    /// The answer was cut off at [`Limits::max_message`]: asking again one
    /// query at a time would only read the same flood again.
    Cut(String),
}

/// How long [`describe_death`] waits for a worker that reached end of file
/// to finish dying and flush its stderr (a panic message comes last).
const DYING: Duration = Duration::from_secs(1);
/// How long it waits for a worker that is alive (silent, or talking
/// nonsense): only for the stderr reader to catch up.
const ALIVE: Duration = Duration::from_millis(100);

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
        Self::launch(name, command, env, limits).map_err(|e| {
            let mut u = e.unavailable;
            if e.kind != StartFailure::Unavailable {
                u.fix = generic_fix(e.kind).into();
            }
            u
        })
    }

    /// [`Supervised::start_with_env`], saying what kind of failure it was.
    pub fn launch(
        name: &str,
        command: Vec<String>,
        env: Vec<(String, String)>,
        limits: Limits,
    ) -> Result<Self, StartError> {
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
            greet_failures: 0,
            broken: None,
            cap: None,
            explain: true,
            spent: Duration::ZERO,
        };
        let hello = s.spawn()?;
        s.about = hello.about;
        s.capabilities = hello.capabilities;
        Ok(s)
    }

    fn spawn(&mut self) -> Result<Hello, StartError> {
        self.try_spawn().map_err(|e| match e {
            SpawnError::Unavailable(u) => StartError {
                kind: StartFailure::Unavailable,
                unavailable: u,
            },
            SpawnError::Failed(kind, reason) => StartError {
                kind,
                unavailable: Unavailable {
                    oracle: self.name.clone(),
                    reason,
                    fix: String::new(),
                    then_setup: false,
                },
            },
        })
    }

    /// The worker's command: its own process group, and its data limit set
    /// between fork and exec.
    fn command(&self, program: &str, args: &[String]) -> Command {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // A panic's message, not a backtrace, is what a report needs.
            .env("RUST_BACKTRACE", "0")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .process_group(0);
        if self.limits.memory_limit > 0 {
            let limit = data_limit(self.limits.memory_limit);
            // SAFETY: the closure runs in the child between fork and exec;
            // it calls only setrlimit, which is async-signal-safe, and
            // allocates nothing.
            unsafe {
                cmd.pre_exec(move || {
                    if libc::setrlimit(libc::RLIMIT_DATA, &limit) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                });
            }
        }
        cmd
    }

    /// Start the process, its stderr reader, and register its group.
    fn launch_process(&self) -> Result<Live, SpawnError> {
        let (program, args) = self
            .command
            .split_first()
            .ok_or_else(|| exec_failure("empty worker command".into()))?;
        let mut child = self
            .command(program, args)
            .spawn()
            .map_err(|e| exec_failure(format!("cannot start worker {program}: {e}")))?;
        let pgid = i32::try_from(child.id()).unwrap_or(i32::MAX);
        let registered = group::register(pgid);
        let (Some(stdin), Some(stdout), Some(mut stderr_pipe)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            group::stop_group(pgid);
            let _ = child.wait();
            return Err(exec_failure("worker has no stdin, stdout or stderr".into()));
        };
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
        let live = Live {
            child,
            stdin,
            stdout: BufReader::with_capacity(PIPE_BUFFER, stdout),
            stderr,
            stderr_done,
        };
        if !registered {
            // A signal is stopping repdiff: `live` is dropped, stopping it.
            return Err(exec_failure("repdiff is stopping".into()));
        }
        Ok(live)
    }

    fn try_spawn(&mut self) -> Result<Hello, SpawnError> {
        let mut live = self.launch_process()?;
        let hello = self.greet(&mut live)?;
        self.live = Some(live);
        Ok(hello)
    }

    /// Read and check the greeting. On an error `live` is dropped by the
    /// caller, which stops the worker's group.
    fn greet(&self, live: &mut Live) -> Result<Hello, SpawnError> {
        let l = &self.limits;
        let death = |live: &mut Live, patience, running| {
            describe_death(live, patience, running, l.memory_limit)
        };
        let began = Instant::now();
        let pgid = live.pgid();
        let mut starting = starting::Starting::new(pgid, l.greeting_timeout);
        let line = match read_line_until(
            &mut live.stdout,
            pgid,
            l.greeting_timeout,
            l.max_message,
            Deadline::Greeting(&mut starting),
        ) {
            Line::Text(line) => line,
            Line::Timeout(seen) => {
                return Err(protocol_failure(format!(
                    "worker did not greet within {} (idle that long, or busy past {}x it; \
                     waited {:.1} s in all): {}; it printed {seen}",
                    seconds(l.greeting_timeout),
                    starting::CAP,
                    began.elapsed().as_secs_f64(),
                    death(live, ALIVE, "worker stopped answering"),
                )))
            }
            Line::Eof(seen) => {
                return Err(protocol_failure(format!(
                    "worker did not greet: {}; it printed {seen}",
                    death(live, DYING, "worker closed its stdout"),
                )))
            }
            Line::TooLong(seen) => {
                return Err(protocol_failure(format!(
                    "worker did not greet: its first line is longer than the {} message limit; it starts {}",
                    size(l.max_message as u64),
                    seen.start(),
                )))
            }
            Line::Failed(e) => {
                return Err(protocol_failure(format!(
                    "worker did not greet: read error: {e}"
                )))
            }
        };
        tap(&self.name, "greeting", line.as_bytes());
        // The version first, so a worker of another version is told so
        // rather than that its greeting is malformed.
        let raw: serde_json::Value = serde_json::from_str(&line).map_err(|e| {
            protocol_failure(format!(
                "greeting is not JSON: {e}: it printed {}; {}",
                Seen::of(line.as_bytes()),
                death(live, ALIVE, "worker still running"),
            ))
        })?;
        let v = raw.get("v").and_then(serde_json::Value::as_u64);
        if v != Some(u64::from(PROTOCOL_VERSION)) {
            return Err(protocol_failure(format!(
                "worker speaks protocol {} but repdiff speaks {PROTOCOL_VERSION} (docs/protocol.md)",
                v.map_or("(no \"v\")".to_string(), |v| v.to_string())
            )));
        }
        let greeting: Greeting = serde_json::from_value(raw).map_err(|e| {
            protocol_failure(format!(
                "bad greeting from worker: {e}: it printed {}",
                Seen::of(line.as_bytes())
            ))
        })?;
        if let Some(u) = greeting.unavailable {
            return Err(SpawnError::Unavailable(u));
        }
        greeting
            .hello
            .ok_or_else(|| protocol_failure("greeting without hello".into()))
    }

    // String: why the worker is broken, kept and given as every later
    // answer's error detail.
    fn ensure_live(&mut self) -> Result<(), String> {
        if self.live.is_some() {
            return Ok(());
        }
        if let Some(why) = &self.broken {
            return Err(why.clone());
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
        match self.spawn() {
            Ok(_) => {
                self.greet_failures = 0;
                Ok(())
            }
            Err(e) if e.kind == StartFailure::Unavailable => Err(e.unavailable.to_string()),
            Err(e) => {
                self.greet_failures += 1;
                let why = format!("worker restart failed: {}", e.unavailable.reason);
                if self.greet_failures >= MAX_GREET_FAILURES {
                    self.broken = Some(format!(
                        "worker given up after {MAX_GREET_FAILURES} failed restarts in a row; the last: {}",
                        e.unavailable.reason
                    ));
                }
                Err(why)
            }
        }
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
            Err(_) => Err(CallError::Died(describe_death(
                live,
                DYING,
                "worker stopped answering",
                self.limits.memory_limit,
            ))),
            Ok(()) => read_answers(live, name, timeout, queries, &self.limits),
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

    /// [`Limits::question_cpu`] as a request's `cpu_ms` (at least 1).
    fn cpu_ms(&self) -> Option<u64> {
        self.limits
            .question_cpu
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1))
    }

    /// Stop the worker, if one runs: dropping [`Live`] stops its group.
    fn kill(&mut self) {
        if let Some(live) = self.live.take() {
            self.spent += cpu::of_group(live.pgid());
        }
    }

    /// Ask a batch; on a crash, re-ask one query at a time so only the query
    /// that takes the worker down is marked `Crash`. A timeout is not retried
    /// query by query: that could cost `timeout` per query; nor is an
    /// answer cut off at the message limit (each re-ask would flood again).
    fn batch(&mut self, fetch: Option<&str>, body: &[u8], queries: &[Query]) -> Vec<Answer> {
        let explain = self.explain;
        let cpu_ms = self.cpu_ms();
        let make = |queries| match fetch {
            None => RequestRef::Run {
                body_len: body.len(),
                queries,
                explain,
                cpu_ms,
            },
            Some(url) => RequestRef::Fetch {
                url,
                queries,
                explain,
            },
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
                    Err(CallError::Died(detail) | CallError::Cut(detail)) => {
                        Answer::from(Outcome::Crash { detail })
                    }
                })
                .collect(),
            Err(CallError::Cut(detail)) => queries
                .iter()
                .map(|_| {
                    Answer::from(Outcome::Crash {
                        detail: detail.clone(),
                    })
                })
                .collect(),
        }
    }

    pub fn restarts(&self) -> u32 {
        self.restarts
    }
}

/// Read and check one call's response.
fn read_answers(
    live: &mut Live,
    name: &str,
    timeout: Duration,
    queries: usize,
    limits: &Limits,
) -> Result<Vec<Answer>, CallError> {
    let mut starved = starved::Starvation::deferred(live.child.id(), timeout);
    let pgid = live.pgid();
    let line = match read_line_until(
        &mut live.stdout,
        pgid,
        timeout,
        limits.max_message,
        Deadline::Call(&mut starved),
    ) {
        Line::Text(line) => line,
        Line::Failed(e) => return Err(CallError::Died(format!("read error: {e}"))),
        Line::Timeout(_) => return Err(CallError::Timeout),
        Line::Eof(_) => {
            return Err(CallError::Died(describe_death(
                live,
                DYING,
                "worker closed its stdout but kept running",
                limits.memory_limit,
            )))
        }
        Line::TooLong(seen) => {
            return Err(CallError::Cut(format!(
                "answer cut off: longer than the {} message limit; it starts {}",
                size(limits.max_message as u64),
                seen.start()
            )))
        }
    };
    tap(name, "response", line.as_bytes());
    let r = serde_json::from_str::<Response>(&line).map_err(|e| {
        CallError::Died(format!(
            "bad response: {e}: it printed {}",
            Seen::of(line.as_bytes())
        ))
    })?;
    // A worker that miscounts is broken, not a verdict.
    if r.answers.len() == queries {
        Ok(r.answers)
    } else {
        Err(CallError::Died(format!(
            "protocol error: {} answers for {queries} queries",
            r.answers.len()
        )))
    }
}

enum Line {
    Text(String),
    Timeout(Seen),
    Eof(Seen),
    /// Longer than the limit: reading stopped there.
    TooLong(Seen),
    Failed(std::io::Error),
}

/// What a worker printed of a line it did not finish: its length and its
/// first [`Seen::HEAD`] bytes, for a message a person can act on.
struct Seen {
    head: Vec<u8>,
    len: usize,
}

impl Seen {
    const HEAD: usize = 80;

    fn of(bytes: &[u8]) -> Seen {
        Seen {
            head: bytes[..bytes.len().min(Self::HEAD)].to_vec(),
            len: bytes.len(),
        }
    }
}

impl Seen {
    /// The head alone, escaped and quoted, `…` when there was more.
    fn start(&self) -> String {
        let more = if self.len > self.head.len() {
            "…"
        } else {
            ""
        };
        format!("\"{}\"{more}", self.head.escape_ascii())
    }
}

impl std::fmt::Display for Seen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.len == 0 {
            return f.write_str("nothing");
        }
        write!(f, "{} bytes: {}", self.len, self.start())
    }
}

/// How a line's deadline may move once it is reached.
enum Deadline<'a> {
    /// A call: by the time the worker waited for a CPU ([`starved`]),
    /// armed once the line has been waited for a while.
    Call(&'a mut starved::Starvation),
    /// A greeting: by the time the starting worker was busy
    /// ([`starting`]), so only an idle worker times out.
    Greeting(&'a mut starting::Starting),
}

impl Deadline<'_> {
    fn more(&mut self) -> Option<Duration> {
        match self {
            Deadline::Call(s) => s.more(),
            Deadline::Greeting(s) => s.more(),
        }
    }
}

/// How often a wait for a line checks whether the worker has exited: a
/// worker whose child still holds its stdout never gives end of file, and
/// its exit must be a crash now, not a timeout later.
const EXIT_CHECK: Duration = Duration::from_millis(100);

/// Read one line from worker `pid` within `timeout`, on the calling thread:
/// `poll(2)` waits for the pipe, so no reader thread (and no thread hand-off
/// per call) stands between the worker's answer and the runner. A line
/// longer than `max` bytes (without its newline) is [`Line::TooLong`] as
/// soon as that many have come: at most `max` plus one pipe buffer is held.
/// The deadline moves as `deadline` says when it is reached; a worker that
/// has exited is [`Line::Eof`] once its pipe has nothing more, whoever else
/// still holds the pipe open.
fn read_line_until(
    reader: &mut BufReader<ChildStdout>,
    pid: i32,
    timeout: Duration,
    max: usize,
    mut deadline_rule: Deadline<'_>,
) -> Line {
    let start = Instant::now();
    let mut deadline = start + timeout;
    let arm_at = start + starved::Starvation::arm_after(timeout);
    let mut exited = false;
    let mut line = Vec::new();
    loop {
        let buffered = reader.buffer();
        let newline = buffered.iter().position(|&b| b == b'\n');
        let content = line.len() + newline.unwrap_or(buffered.len());
        if content > max {
            let mut head = line;
            head.truncate(Seen::HEAD);
            let room = Seen::HEAD - head.len();
            head.extend_from_slice(&buffered[..room.min(buffered.len())]);
            return Line::TooLong(Seen { head, len: content });
        }
        if let Some(i) = newline {
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
        let now = Instant::now();
        let left = deadline.saturating_duration_since(now);
        let mut wait = left.min(EXIT_CHECK);
        if let Deadline::Call(s) = &mut deadline_rule {
            if !s.armed() {
                if now >= arm_at {
                    s.arm();
                } else {
                    wait = wait.min(arm_at - now);
                }
            }
        }
        if left.is_zero() {
            match deadline_rule.more() {
                Some(extra) => {
                    deadline += extra;
                    continue;
                }
                None => return Line::Timeout(Seen::of(&line)),
            }
        }
        let mut pfd = libc::pollfd {
            fd: reader.get_ref().as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = wait.as_millis().clamp(1, i32::MAX as u128) as i32;
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
            // Nothing came within a whole check after the worker exited:
            // what is left holding its stdout is not the worker.
            if exited {
                return Line::Eof(Seen::of(&line));
            }
            exited = group::exit_of(pid).is_some();
            continue; // the deadline check above decides
        }
        match reader.fill_buf() {
            Ok([]) => return Line::Eof(Seen::of(&line)),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Line::Failed(e),
        }
    }
}

/// Why a worker stopped: its exit status or signal (or `running`, the
/// caller's words for a worker still alive after `patience`), and the last
/// lines of its stderr; and, when those speak of memory, the memory limit
/// it ran under, the likely cause.
fn describe_death(live: &mut Live, patience: Duration, running: &str, memory_limit: u64) -> String {
    // Give the process a moment to finish dying so the status is known, and
    // the stderr reader to drain what it wrote last (the panic message):
    // on a loaded machine that thread may run well after the exit.
    let deadline = Instant::now() + patience;
    let done = || live.stderr_done.load(std::sync::atomic::Ordering::Acquire);
    let mut status = group::exit_of(live.pgid());
    while !(status.is_some() && done()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(2));
        if status.is_none() {
            status = group::exit_of(live.pgid());
        }
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
    let status = status.map_or(running.to_string(), |s: Exit| s.to_string());
    let lower = tail.to_ascii_lowercase();
    let memory = if memory_limit > 0 && (lower.contains("memory") || lower.contains("alloc")) {
        format!(
            " (over its memory limit? the worker runs under a {} data limit, RLIMIT_DATA)",
            size(memory_limit)
        )
    } else {
        String::new()
    };
    if tail.is_empty() {
        format!("{status}{memory}")
    } else {
        format!("{status}: {tail}{memory}")
    }
}

/// Dropping a supervised oracle stops its worker's process group. A panic
/// unwinds through this drop, so a panicking run takes its workers with it
/// too; only an exit that skips destructors needs [`kill_all_workers`].
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
    fn run_many(&mut self, inputs: &[(&[u8], &[Query])]) -> Vec<Vec<Answer>> {
        self.many(inputs)
    }
    fn run_fetch(&mut self, robots_url: &str, queries: &[Query]) -> Vec<Answer> {
        self.batch(Some(robots_url), &[], queries)
    }
    fn cap_call_time(&mut self, cap: Option<Duration>) {
        self.cap = cap;
    }
    fn skip_explanations(&mut self) {
        self.explain = false;
    }
    fn process_cpu(&self) -> Option<Duration> {
        let live = self
            .live
            .as_ref()
            .map_or(Duration::ZERO, |l| cpu::of_group(l.pgid()));
        Some(self.spent + live)
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
    fn sizes_and_excerpts_read_as_people_write_them() {
        assert_eq!(size(16 << 20), "16 MiB");
        assert_eq!(size(4 << 30), "4 GiB");
        assert_eq!(size(1000), "1000 bytes");
        assert_eq!(Seen::of(b"").to_string(), "nothing");
        assert_eq!(Seen::of(b"ok\x01\n").to_string(), r#"4 bytes: "ok\x01\n""#);
        let long = Seen::of(&[b'A'; 100]);
        assert_eq!(long.start(), format!("\"{}\"…", "A".repeat(80)));
    }

    #[test]
    fn cpu_ms_is_written_only_when_a_question_cpu_is_set() {
        let line = |cpu_ms| {
            serde_json::to_string(&RequestRef::Run {
                body_len: 0,
                queries: &[],
                explain: true,
                cpu_ms,
            })
            .unwrap()
        };
        assert_eq!(line(None), r#"{"op":"run","body_len":0,"queries":[]}"#);
        assert_eq!(
            line(Some(40)),
            r#"{"op":"run","body_len":0,"queries":[],"cpu_ms":40}"#
        );
    }

    #[test]
    fn explain_false_is_written_only_when_explanations_are_skipped() {
        let line = |explain| {
            serde_json::to_string(&RequestRef::Run {
                body_len: 3,
                queries: &[],
                explain,
                cpu_ms: None,
            })
            .unwrap()
        };
        assert_eq!(line(true), r#"{"op":"run","body_len":3,"queries":[]}"#);
        assert_eq!(
            line(false),
            r#"{"op":"run","body_len":3,"queries":[],"explain":false}"#
        );
        // The worker side reads it (and then asks its oracle to skip its
        // accounts); absent, the parent reads them.
        let read: Request = serde_json::from_str(&line(false)).unwrap();
        assert!(matches!(
            read,
            Request::Run {
                body_len: 3,
                explain: false,
                ..
            }
        ));
        let read: Request = serde_json::from_str(&line(true)).unwrap();
        assert!(matches!(read, Request::Run { explain: true, .. }));
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
