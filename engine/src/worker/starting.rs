//! The greeting's deadline, moved on while the worker is busy starting.
//!
//! A greeting deadline in wall time turned working parsers into "not run" on
//! a loaded machine: nineteen workers start at once, a JVM or a Ruby
//! interpreter needs a second or two of CPU, and with two cores shared by a
//! build it gets a fraction of one. Such a worker is slow, not dead: it is
//! running, or waiting in the run queue for a core. A harness that cannot
//! start (a missing module it waits on, a script that sleeps) is neither.
//!
//! So the greeting timeout bounds the worker's *idle* time: at the deadline
//! the time its process group spent on a CPU or waiting for one (every
//! thread of every process in the group, from `/proc`, children it has
//! reaped included) is granted as more time, and again at the moved
//! deadline, until it is idle for a whole timeout or the wall time reaches
//! [`CAP`] times the timeout. A sleeping harness is still refused on time;
//! one that spins without greeting costs the cap.

use std::time::{Duration, Instant};

/// The greeting may take at most this many times the greeting timeout,
/// however busy the worker is. Measured on the 2-core machine with four
/// CPU-bound processes beside 19 starting workers, the slowest (a JVM)
/// greeted after about 22 s of wall time where an idle start takes 1 s; at
/// the default 5 s this allows 60 s.
pub const CAP: u32 = 12;

/// A starting worker's group and what has been granted it so far.
pub struct Starting {
    pgid: i32,
    granted: Duration,
    latest: Instant,
}

impl Starting {
    /// Watch group `pgid`, started now with a greeting timeout of `timeout`.
    pub fn new(pgid: i32, timeout: Duration) -> Starting {
        Starting {
            pgid,
            granted: Duration::ZERO,
            latest: Instant::now() + timeout.saturating_mul(CAP),
        }
    }

    /// At the deadline: how much longer the worker may take, for the busy
    /// time not yet granted; `None` when it was idle since the last grant,
    /// the cap is reached, or there is no /proc to read.
    pub fn more(&mut self) -> Option<Duration> {
        let busy = busy_time(self.pgid)?;
        let extra = busy.saturating_sub(self.granted);
        let room = self.latest.saturating_duration_since(Instant::now());
        let extra = extra.min(room);
        if extra < Duration::from_millis(10) {
            return None;
        }
        self.granted += extra;
        Some(extra)
    }
}

/// Time every thread of every process in group `pgid` has spent on a CPU
/// or in a run queue waiting for one, plus the CPU of children they have
/// reaped; `None` when `/proc` cannot be read.
pub fn busy_time(pgid: i32) -> Option<Duration> {
    // SAFETY: sysconf only reads a configuration value.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let dir = std::fs::read_dir("/proc").ok()?;
    let mut ns: u64 = 0;
    let mut reaped_ticks: u64 = 0;
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|s| s.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(2).and_then(|g| g.parse::<i32>().ok()) != Some(pgid) {
            continue;
        }
        // cutime and cstime, fields 16 and 17: children already reaped.
        reaped_ticks += fields
            .get(13..15)
            .unwrap_or_default()
            .iter()
            .filter_map(|f| f.parse::<u64>().ok())
            .sum::<u64>();
        ns += threads_busy_ns(pid);
    }
    let reaped = if ticks > 0 {
        Duration::from_secs_f64(reaped_ticks as f64 / ticks as f64)
    } else {
        Duration::ZERO
    };
    Some(Duration::from_nanos(ns) + reaped)
}

/// On-CPU plus run-queue time of every thread of `pid`, in ns
/// (`schedstat`'s first two fields).
fn threads_busy_ns(pid: &str) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .map(|text| {
            text.split_whitespace()
                .take(2)
                .filter_map(|f| f.parse::<u64>().ok())
                .sum::<u64>()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    fn group(script: &str) -> std::process::Child {
        std::process::Command::new("sh")
            .args(["-c", script])
            .process_group(0)
            .spawn()
            .expect("sh")
    }

    /// A sleeping group is granted nothing past its start-up; a spinning
    /// one is granted its busy time, and never past the cap.
    #[test]
    fn busy_is_granted_and_idle_is_not() {
        let mut idle = group("exec sleep 30");
        let mut busy = group("while :; do :; done");
        let mut i = Starting::new(idle.id() as i32, Duration::from_secs(1));
        let mut b = Starting::new(busy.id() as i32, Duration::from_secs(1));
        let mut capped = Starting::new(busy.id() as i32, Duration::ZERO);
        std::thread::sleep(Duration::from_millis(100));
        // What each start-up cost (on a loaded machine, its wait for a CPU).
        let _ = (i.more(), b.more());
        std::thread::sleep(Duration::from_millis(400));
        let (gi, gb, gc) = (i.more(), b.more(), capped.more());
        for c in [&mut idle, &mut busy] {
            let _ = c.kill();
            let _ = c.wait();
        }
        assert_eq!(gi, None, "a sleeping worker was granted time");
        let gb = gb.expect("a spinning worker is busy");
        assert!(gb >= Duration::from_millis(100), "granted only {gb:?}");
        assert_eq!(gc, None, "granted past a cap of zero");
    }
}
