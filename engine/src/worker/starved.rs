//! Time a worker wanted the CPU and did not get it.
//!
//! A call's timeout is wall-clock time, but on a loaded machine (two cores,
//! a build beside the run) a worker can spend most of it waiting in the
//! scheduler's run queue: a 1.5 s parse then times out at 5 s, and the run
//! reports a parser bug that is the machine's. Linux counts that wait per
//! thread (`/proc/PID/task/TID/schedstat`, second field, in ns), so the
//! deadline is moved on by the wait the worker's busiest thread suffered,
//! up to [`CAP`] times the timeout. A worker that hangs while sleeping
//! waits in no queue and still times out on time.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The deadline moves at most to this many times the call's timeout.
pub const CAP: u32 = 4;

/// What a call had waited when it started, per thread of the worker.
pub struct Starvation {
    pid: u32,
    base: BTreeMap<u32, u64>,
    granted: Duration,
    latest: Instant,
}

impl Starvation {
    /// Taken when the call is sent; `timeout` is its budget.
    pub fn start(pid: u32, timeout: Duration) -> Starvation {
        Starvation {
            pid,
            base: run_delays(pid),
            granted: Duration::ZERO,
            latest: Instant::now() + timeout.saturating_mul(CAP),
        }
    }

    /// At the deadline: how much longer the call may take, for the queue
    /// wait not yet granted; `None` when there is none to grant (or no
    /// /proc to read).
    pub fn more(&mut self) -> Option<Duration> {
        let now = run_delays(self.pid);
        let waited = now
            .iter()
            .map(|(tid, ns)| ns.saturating_sub(self.base.get(tid).copied().unwrap_or(0)))
            .max()
            .map(Duration::from_nanos)?;
        let extra = waited.saturating_sub(self.granted);
        let room = self.latest.saturating_duration_since(Instant::now());
        let extra = extra.min(room);
        if extra < Duration::from_millis(10) {
            return None;
        }
        self.granted += extra;
        Some(extra)
    }
}

/// Run-queue wait so far of every thread of `pid`, in ns.
fn run_delays(pid: u32) -> BTreeMap<u32, u64> {
    let mut out = BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for task in tasks.flatten() {
        let Some(tid) = task.file_name().to_str().and_then(|t| t.parse().ok()) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(task.path().join("schedstat")) else {
            continue;
        };
        if let Some(ns) = text.split_whitespace().nth(1).and_then(|f| f.parse().ok()) {
            out.insert(tid, ns);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sleeping thread waits in no run queue: nothing to grant.
    #[test]
    fn a_sleeping_worker_is_granted_nothing() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .expect("sleep");
        let mut s = Starvation::start(child.id(), Duration::from_secs(1));
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(s.more(), None);
        let _ = child.kill();
        let _ = child.wait();
    }

    /// Busy threads, more than the cores, wait in the run queue: that
    /// wait is granted once, and never past the cap.
    #[test]
    fn queue_wait_is_granted_once_and_capped() {
        let me = std::process::id();
        let mut long = Starvation::start(me, Duration::from_secs(1));
        let mut short = Starvation::start(me, Duration::from_millis(5));
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let spinners: Vec<_> = (0..cores * 4)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        std::hint::black_box(0u64);
                    }
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        let first = long.more();
        let capped = short.more();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for t in spinners {
            let _ = t.join();
        }
        let first = first.expect("spinning threads waited in the run queue");
        assert!(first <= Duration::from_secs(4), "{first:?} is past the cap");
        assert_eq!(long.more(), None, "the same wait was granted twice");
        assert_eq!(capped, None, "granted past the cap of a 5 ms call");
    }
}
