//! CPU time a worker's process group has used, from /proc: what the
//! census sets beside the parser's own direct time, so that the time a run
//! spends in a worker (its parser, its harness's JSON) is told apart from
//! the time repdiff spends driving it and the time it waited for a core.

use std::time::Duration;

/// User plus system time of every process in group `pgid` (a worker is its
/// group's leader), children it has waited for included.
pub fn of_group(pgid: i32) -> Duration {
    // SAFETY: sysconf only reads a configuration value.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks <= 0 {
        return Duration::ZERO;
    }
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Duration::ZERO;
    };
    let mut total: u64 = 0;
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
        // After the command in parentheses (which may hold spaces): state,
        // ppid, pgrp, ... utime stime cutime cstime are fields 14 to 17.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(2).and_then(|g| g.parse::<i32>().ok()) != Some(pgid) {
            continue;
        }
        total += fields
            .get(11..15)
            .unwrap_or_default()
            .iter()
            .filter_map(|f| f.parse::<u64>().ok())
            .sum::<u64>();
    }
    Duration::from_secs_f64(total as f64 / ticks as f64)
}

/// CPU time of the calling thread so far.
pub fn of_this_thread() -> Duration {
    clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// CPU time of this process so far, every thread (not its children).
pub fn of_this_process() -> Duration {
    clock(libc::CLOCK_PROCESS_CPUTIME_ID)
}

fn clock(id: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec for the call to fill.
    if unsafe { libc::clock_gettime(id, &mut ts) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shell that counts to 100,000 and then becomes `sleep` (exec keeps
    /// the process and its times) is measured once it sleeps, so the test
    /// waits for the work, not for a wall-clock span a loaded machine
    /// might not grant.
    #[test]
    fn a_busy_child_is_counted_and_a_sleeping_one_is_not() {
        use std::os::unix::process::CommandExt;
        let start = |script: &str| {
            std::process::Command::new("sh")
                .args(["-c", script])
                .process_group(0)
                .spawn()
                .expect("sh")
        };
        let mut busy = start("i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; exec sleep 30");
        let mut idle = start("exec sleep 30");
        let comm =
            |pid: u32| std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while comm(busy.id()).trim() != "sleep" || comm(idle.id()).trim() != "sleep" {
            assert!(
                std::time::Instant::now() < deadline,
                "the shell never finished counting"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let b = of_group(busy.id() as i32);
        let i = of_group(idle.id() as i32);
        for c in [&mut busy, &mut idle] {
            let _ = c.kill();
            let _ = c.wait();
        }
        assert!(
            b >= Duration::from_millis(20),
            "a counting shell used {b:?}"
        );
        assert!(
            i < Duration::from_millis(20),
            "a sleeping process used {i:?}"
        );
    }

    #[test]
    fn this_thread_counts_its_own_work() {
        let before = of_this_thread();
        let process_before = of_this_process();
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        assert!(of_this_thread() > before);
        assert!(of_this_process() > process_before);
    }
}
