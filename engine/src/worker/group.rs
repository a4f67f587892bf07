//! Each worker in its own process group, and the means to stop them all.
//!
//! A harness is often a shell script whose child is the real parser, and a
//! parser may trap SIGTERM or fork helpers (a JVM, a Go program's
//! subprocesses). Killing the pid we spawned left those running after
//! repdiff exited. So every worker leads a process group of its own
//! (`process_group(0)`), and stopping it signals the whole group: SIGTERM,
//! a short grace, then SIGKILL.
//!
//! Which ends of repdiff this covers:
//! - normal exit, an error return and a panic: the [`super::Supervised`]
//!   values are dropped (a panic unwinds through their `Drop`), and each
//!   drop stops its group;
//! - SIGINT, SIGTERM, SIGHUP: [`stop_workers_on_signal`], installed by the
//!   binaries at start-up, stops every group in the registry and exits;
//! - `std::process::exit` or SIGKILL of repdiff itself, where no code of
//!   ours runs: the [`sentinel`] process, told of every group as it is
//!   registered and unregistered, sees repdiff's end of its pipe close and
//!   SIGKILLs every group still registered, a worker busy in a request and
//!   a harness's children included.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The time a worker's group gets between SIGTERM and SIGKILL: enough for
/// an interpreter to run its exit handlers, short enough that a worker
/// that traps TERM costs a third of a second, not a run.
pub(super) const GRACE: Duration = Duration::from_millis(300);

/// The process group ids (each its leader's pid) of every worker this
/// process has started and not yet reaped. A pgid stays here until its
/// leader is reaped, so the id cannot have been reused when it is signalled.
static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Set once a signal asked repdiff to stop: a worker spawned after that
/// (by a thread that has not noticed yet) is stopped at birth.
static STOPPING: AtomicBool = AtomicBool::new(false);

fn groups() -> MutexGuard<'static, Vec<i32>> {
    GROUPS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Record a new worker's group (with the sentinel too). False when
/// repdiff is stopping: the caller must then stop the worker itself.
pub(super) fn register(pgid: i32) -> bool {
    let mut g = groups();
    if STOPPING.load(Ordering::SeqCst) {
        return false;
    }
    g.push(pgid);
    super::sentinel::watch(pgid);
    true
}

/// Forget a group; called after its SIGKILL and before its leader is reaped.
pub(super) fn unregister(pgid: i32) {
    let mut g = groups();
    g.retain(|&p| p != pgid);
    super::sentinel::forget(pgid);
}

fn signal_group(pgid: i32, sig: i32) {
    // SAFETY: killpg only sends a signal; a group that is gone is ESRCH.
    unsafe {
        libc::killpg(pgid, sig);
    }
}

/// Has `pid` (our child) exited? Asked with `WNOWAIT`, so the child stays a
/// zombie and its pid, which is also its group's id, is not reused until
/// the owner reaps it.
pub(super) fn exit_of(pid: i32) -> Option<Exit> {
    // SAFETY: a zeroed siginfo_t is a valid out-parameter for waitid.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let Ok(id) = libc::id_t::try_from(pid) else {
        return None;
    };
    let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
    // SAFETY: `info` outlives the call; WNOWAIT leaves the child waitable.
    let r = unsafe { libc::waitid(libc::P_PID, id, &mut info, flags) };
    // SAFETY: waitid filled `info` (si_pid 0 means: not exited yet).
    if r != 0 || unsafe { info.si_pid() } == 0 {
        return None;
    }
    // SAFETY: as above; si_status is set for CLD_* codes.
    let status = unsafe { info.si_status() };
    Some(match info.si_code {
        libc::CLD_EXITED => Exit::Code(status),
        _ => Exit::Signal(status),
    })
}

/// How a worker ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Exit {
    Code(i32),
    Signal(i32),
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // The wording std's ExitStatus used, which reports quote.
            Exit::Code(c) => write!(f, "worker exited with exit status: {c}"),
            Exit::Signal(s) => write!(f, "worker killed by signal {s}"),
        }
    }
}

/// Stop one worker's group: SIGTERM, up to [`GRACE`] for its leader to
/// exit, then SIGKILL to the group (its children may outlive the leader),
/// and unregister it. The caller reaps the leader afterwards.
pub(super) fn stop_group(pgid: i32) {
    signal_group(pgid, libc::SIGTERM);
    let deadline = Instant::now() + GRACE;
    while exit_of(pgid).is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    signal_group(pgid, libc::SIGKILL);
    unregister(pgid);
}

/// Stop every worker this process started and has not reaped: SIGTERM to
/// each group, up to 300 ms for their leaders to exit, SIGKILL to each
/// group. The groups stay registered (their owners still reap them), so a
/// later drop of a [`super::Supervised`] is harmless. For exits that skip
/// destructors; a drop stops its own worker.
pub fn kill_all_workers() {
    let g = groups();
    if g.is_empty() {
        return;
    }
    for &pgid in g.iter() {
        signal_group(pgid, libc::SIGTERM);
    }
    let deadline = Instant::now() + GRACE;
    while g.iter().any(|&p| exit_of(p).is_none()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    for &pgid in g.iter() {
        signal_group(pgid, libc::SIGKILL);
    }
}

/// Make SIGINT, SIGTERM and SIGHUP stop every worker group
/// ([`kill_all_workers`]), let a set of outputs being swapped in finish
/// and remove every staged one ([`crate::output`]), name what was not
/// written, and then exit with 128 + the signal (130, 143, 129), as a shell
/// reports a process killed by it. Workers sit in their
/// own groups, so a Ctrl-C at the terminal no longer reaches them directly:
/// a binary that starts workers calls this once at start-up. A second call
/// does nothing. A failure to install is a warning, not fatal. What the
/// handler says goes through `log` (a library never prints; the binary's
/// logger shows errors and warnings even under `-q`).
pub fn stop_workers_on_signal() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        if let Err(e) = install() {
            log::warn!(
                "cannot handle SIGINT/SIGTERM ({e}): an interrupted run may leave workers running"
            );
        }
    });
}

fn install() -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("stop-workers".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                STOPPING.store(true, Ordering::SeqCst);
                kill_all_workers();
                // Outputs last: a switch under way finishes first, none
                // starts after, staged temporaries go (crate::output).
                let unwritten = crate::output::stop_for_signal();
                log::error!("stopped by signal {sig}; its workers were stopped");
                for what in unwritten {
                    log::warn!("not written (what was there is unchanged): {what}");
                }
                std::process::exit(128 + sig);
            }
        })?;
    Ok(())
}
