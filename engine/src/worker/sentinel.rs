//! A process that outlives a SIGKILLed repdiff just long enough to stop
//! its workers.
//!
//! Every worker leads a process group that repdiff stops on every end it
//! sees ([`super::group`]). SIGKILL (the OOM killer, `timeout -s KILL`, a CI
//! runner cancelling a job) is not one of them: no code of ours runs, and a
//! worker busy inside a request, or a harness's child that inherited its
//! pipes, ran on for up to 25 s after a census was killed. `PR_SET_PDEATHSIG`
//! would not do: it fires when the *thread* that spawned the worker ends
//! (workers start on short-lived threads), and reaches only that one
//! process, not a shell harness's children.
//!
//! So the first worker a process registers forks a sentinel: a child that
//! does nothing but read its pipe from repdiff, where each group is written
//! as it is registered (`+`) and unregistered (`-`). When the pipe reaches
//! end of file, repdiff is gone (however it ended), and the sentinel sends
//! SIGKILL to every group still registered, then exits. Its end of the pipe
//! is close-on-exec, so no worker holds it open.
//!
//! The sentinel is forked without exec from a process that may run many
//! threads, so it calls only async-signal-safe functions (`dup2`, `close`,
//! `setpgid`, `signal`, `read`, `killpg`, `_exit`) and allocates nothing: its
//! groups live in a fixed array on its stack.

use std::sync::{Mutex, PoisonError};

/// The most groups the sentinel holds at once; more are not watched (a run
/// has one per oracle, a few hundred at most with restarts under way).
const MAX_GROUPS: usize = 4096;

/// The write end of this process's sentinel pipe, and the process it was
/// made for (a forked child makes its own).
struct Pipe {
    fd: i32,
    owner: u32,
}

static PIPE: Mutex<Option<Pipe>> = Mutex::new(None);

/// Tell the sentinel about a new group, starting the sentinel if this
/// process has none. A sentinel that cannot start is reported once; the
/// other ends of repdiff still stop their workers.
pub(super) fn watch(pgid: i32) {
    send(b'+', pgid);
}

/// Tell the sentinel a group is stopped.
pub(super) fn forget(pgid: i32) {
    send(b'-', pgid);
}

fn send(op: u8, pgid: i32) {
    let mut pipe = PIPE.lock().unwrap_or_else(PoisonError::into_inner);
    let me = std::process::id();
    if pipe.as_ref().is_none_or(|p| p.owner != me) {
        if op == b'-' {
            return;
        }
        match start() {
            Ok(fd) => *pipe = Some(Pipe { fd, owner: me }),
            Err(e) => {
                static WARNED: std::sync::Once = std::sync::Once::new();
                WARNED.call_once(|| {
                    log::warn!(
                        "cannot start the worker sentinel ({e}): a SIGKILLed run may leave workers running"
                    )
                });
                return;
            }
        }
    }
    let Some(p) = pipe.as_ref() else { return };
    let mut record = [0u8; 5];
    record[0] = op;
    record[1..].copy_from_slice(&pgid.to_le_bytes());
    // SAFETY: a 5-byte buffer we own; a write of at most PIPE_BUF bytes to
    // a pipe is atomic. A failed write (the sentinel is gone) is ignored.
    unsafe {
        libc::write(p.fd, record.as_ptr().cast(), record.len());
    }
}

/// Fork the sentinel; the write end of its pipe is returned.
fn start() -> std::io::Result<i32> {
    let mut fds = [0i32; 2];
    // SAFETY: two valid out-slots; both ends close on exec.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let (read, write) = (fds[0], fds[1]);
    // SAFETY: the child runs only `watch_until_closed`, which calls
    // async-signal-safe functions and never returns.
    match unsafe { libc::fork() } {
        -1 => {
            let e = std::io::Error::last_os_error();
            // SAFETY: both descriptors are ours.
            unsafe {
                libc::close(read);
                libc::close(write);
            }
            Err(e)
        }
        // SAFETY: in the child, with only this thread.
        0 => unsafe { watch_until_closed(read) },
        _ => {
            // SAFETY: the read end is the sentinel's now.
            unsafe {
                libc::close(read);
            }
            Ok(write)
        }
    }
}

/// The sentinel's whole life: keep only the pipe (as fd 0), leave the
/// terminal's process group (a Ctrl-C goes to repdiff, which stops the
/// workers itself and exits, closing the pipe), record groups, and on end
/// of file SIGKILL each one still recorded.
///
/// # Safety
/// Only in a child just forked from repdiff.
unsafe fn watch_until_closed(read: i32) -> ! {
    // SAFETY: plain system calls on descriptors of this process.
    unsafe {
        if read != 0 {
            libc::dup2(read, 0);
        }
        if libc::syscall(libc::SYS_close_range, 1u32, u32::MAX, 0u32) != 0 {
            for fd in 1..65536 {
                libc::close(fd);
            }
        }
        libc::setpgid(0, 0);
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGPIPE] {
            libc::signal(sig, libc::SIG_IGN);
        }
    }
    let mut groups = [0i32; MAX_GROUPS];
    let mut count = 0usize;
    let mut buf = [0u8; 5 * 64];
    let mut held = 0usize;
    loop {
        // SAFETY: reading into the unused tail of our own buffer.
        let n = unsafe { libc::read(0, buf[held..].as_mut_ptr().cast(), buf.len() - held) };
        // SAFETY: errno of this thread.
        if n < 0 && unsafe { *libc::__errno_location() } == libc::EINTR {
            continue;
        }
        if n <= 0 {
            break;
        }
        held += n as usize;
        let whole = held - held % 5;
        for record in buf[..whole].chunks_exact(5) {
            let pgid = i32::from_le_bytes([record[1], record[2], record[3], record[4]]);
            match record[0] {
                b'+' if count < MAX_GROUPS => {
                    groups[count] = pgid;
                    count += 1;
                }
                b'-' => {
                    if let Some(i) = groups[..count].iter().position(|&g| g == pgid) {
                        groups[i] = groups[count - 1];
                        count -= 1;
                    }
                }
                _ => {}
            }
        }
        buf.copy_within(whole..held, 0);
        held -= whole;
    }
    for &pgid in &groups[..count] {
        // SAFETY: a signal to a group repdiff registered and never stopped.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
    // SAFETY: leaves without running any of the parent's exit handlers.
    unsafe { libc::_exit(0) }
}
