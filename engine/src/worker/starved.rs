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
//!
//! The baseline is taken only once a call has run for [`ARM_AFTER`]:
//! reading the schedstat file of every thread of a JVM (twenty of them) on
//! every call cost the fuzz loop's lane threads more CPU than the JVM spent
//! parsing (4.4 s of 40 s per JVM lane), and a call that answers within a
//! few milliseconds has no deadline to move. The wait before arming is not
//! granted, at most [`ARM_AFTER`] of a call's timeout.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The deadline moves at most to this many times the call's timeout.
pub const CAP: u32 = 4;

/// A call taking longer than this (or a tenth of its timeout, if less)
/// reads the worker's run-queue waits; a faster one never does.
pub const ARM_AFTER: Duration = Duration::from_millis(50);

/// What a call had waited when it was armed, per thread of the worker.
pub struct Starvation {
    pid: u32,
    /// `None` until [`Starvation::arm`].
    base: Option<BTreeMap<u32, u64>>,
    granted: Duration,
    latest: Instant,
}

impl Starvation {
    /// Taken when the call is sent (`timeout` is its budget), armed later:
    /// the caller arms it after [`Starvation::arm_after`].
    pub fn deferred(pid: u32, timeout: Duration) -> Starvation {
        Starvation {
            pid,
            base: None,
            granted: Duration::ZERO,
            latest: Instant::now() + timeout.saturating_mul(CAP),
        }
    }

    /// How long into a call of `timeout` to arm it.
    pub fn arm_after(timeout: Duration) -> Duration {
        ARM_AFTER.min(timeout / 10)
    }

    /// Read the run-queue waits so far, unless already read.
    pub fn arm(&mut self) {
        if self.base.is_none() {
            self.base = Some(run_delays(self.pid));
        }
    }

    pub fn armed(&self) -> bool {
        self.base.is_some()
    }

    /// At the deadline: how much longer the call may take, for the queue
    /// wait not yet granted; `None` when there is none to grant, the call
    /// was never armed, or there is no /proc to read.
    pub fn more(&mut self) -> Option<Duration> {
        self.base.as_ref()?;
        let now = run_delays(self.pid);
        self.grant(&now)
    }

    /// [`Starvation::more`] for the waits `now` (thread id -> ns), apart
    /// from reading them so that the granting is tested on fixed figures.
    fn grant(&mut self, now: &BTreeMap<u32, u64>) -> Option<Duration> {
        let base = self.base.as_ref()?;
        let waited = now
            .iter()
            .map(|(tid, ns)| ns.saturating_sub(base.get(tid).copied().unwrap_or(0)))
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

    fn armed(pid: u32, timeout: Duration) -> Starvation {
        let mut s = Starvation::deferred(pid, timeout);
        s.arm();
        s
    }

    /// A sleeping thread waits in no run queue: nothing to grant.
    #[test]
    fn a_sleeping_worker_is_granted_nothing() {
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .expect("sleep");
        let mut s = armed(child.id(), Duration::from_secs(1));
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(s.more(), None);
        let _ = child.kill();
        let _ = child.wait();
    }

    /// Busy threads, more than the cores, wait in the run queue: that wait
    /// is read and granted, never past the cap, and never when unarmed. (The
    /// spinners go on waiting after the first read, and the other tests of
    /// this process wait too, so "granted once" is checked on fixed figures
    /// below, not on this live process.)
    #[test]
    fn queue_wait_is_read_and_capped() {
        let me = std::process::id();
        let mut long = armed(me, Duration::from_secs(1));
        let mut short = armed(me, Duration::from_millis(5));
        let mut unarmed = Starvation::deferred(me, Duration::from_secs(1));
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
        let never_armed = unarmed.more();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for t in spinners {
            let _ = t.join();
        }
        let first = first.expect("spinning threads waited in the run queue");
        assert!(first <= Duration::from_secs(4), "{first:?} is past the cap");
        assert_eq!(capped, None, "granted past the cap of a 5 ms call");
        assert_eq!(never_armed, None, "granted a wait it never measured");
    }

    /// The same wait is granted once; a new wait of 10 ms or more is
    /// granted again, a smaller one is not; the busiest thread counts; a
    /// thread born after arming counts from zero.
    #[test]
    fn a_wait_is_granted_once() {
        let ms = |n: u64| n * 1_000_000;
        let mut s = Starvation::deferred(1, Duration::from_secs(10));
        s.base = Some(BTreeMap::from([(1, ms(100)), (2, ms(0))]));
        let now = BTreeMap::from([(1, ms(150)), (2, ms(20))]);
        assert_eq!(s.grant(&now), Some(Duration::from_millis(50)));
        assert_eq!(s.grant(&now), None, "the same wait was granted twice");
        let later = BTreeMap::from([(1, ms(155)), (2, ms(20))]);
        assert_eq!(s.grant(&later), None, "under 10 ms is not worth a grant");
        let born = BTreeMap::from([(1, ms(155)), (2, ms(20)), (3, ms(80))]);
        assert_eq!(s.grant(&born), Some(Duration::from_millis(30)));
        let mut unarmed = Starvation::deferred(1, Duration::from_secs(10));
        assert_eq!(unarmed.grant(&now), None);
    }
}
