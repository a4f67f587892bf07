//! The protocol's own cost, apart from the machine's hand-off between CPUs.
//!
//! On an idle 2-core machine the kernel wakes a worker on the other CPU, so
//! each call pays two cross-CPU wake-ups and runs the parser with cold
//! caches: the main table's "added" holds that too. Here the bench thread
//! and a worker started from it (which inherits the thread's CPU mask) share
//! one CPU, and raw and worker are timed again on the small body. The
//! difference between the two tables is the hand-off; what is left is the
//! framing, the JSON and the pipe.

use super::*;

/// One oracle on the small body with bench thread and worker on one CPU.
pub struct OneCpuRow {
    pub oracle: String,
    pub cpu: usize,
    pub raw: Stats,
    pub repdiff: Stats,
}

impl OneCpuRow {
    pub fn added(&self) -> f64 {
        self.repdiff.median() - self.raw.median()
    }
}

/// The calling thread's CPU mask, to restore.
struct Pinned(libc::cpu_set_t);

impl Pinned {
    /// Pin the calling thread to `cpu`; `None` when the kernel refuses.
    fn to(cpu: usize) -> Option<Pinned> {
        // SAFETY: cpu_set_t is plain data; the calls get its true size.
        unsafe {
            let mut old: libc::cpu_set_t = std::mem::zeroed();
            let size = std::mem::size_of::<libc::cpu_set_t>();
            if libc::sched_getaffinity(0, size, &mut old) != 0 {
                return None;
            }
            let mut one: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut one);
            (libc::sched_setaffinity(0, size, &one) == 0).then_some(Pinned(old))
        }
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        // SAFETY: restores the mask read in `to`.
        unsafe {
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &self.0);
        }
    }
}

/// Every built-in oracle of `names` on `body`, pinned; an oracle that does
/// not start, answers differently or fails is left out (the main table
/// says why).
pub(super) fn measure(
    names: &[String],
    registry: &[oracles::Entry],
    body: &Body,
    plan: &Plan,
) -> Vec<OneCpuRow> {
    let cpu = std::thread::available_parallelism().map_or(0, |n| n.get() - 1);
    let Some(_pin) = Pinned::to(cpu) else {
        eprintln!("bench: cannot pin to CPU {cpu}; no one-CPU table");
        return Vec::new();
    };
    let mut rows = Vec::new();
    for name in names {
        let Some(entry) = registry.iter().find(|e| e.name == name.as_str()) else {
            continue;
        };
        // Started while pinned: the worker inherits the one-CPU mask.
        let Ok((mut raw, mut sup)) = start_both(name, entry) else {
            continue;
        };
        let row = measure_overhead(raw.as_mut(), &mut sup, body, plan);
        if !row.valid() {
            continue;
        }
        eprintln!(
            "bench:   {name} x {} on CPU {cpu}: raw {:>9}  repdiff {:>9}",
            body.name,
            fmt_ns(row.raw.median()),
            fmt_ns(row.repdiff.median())
        );
        rows.push(OneCpuRow {
            oracle: name.clone(),
            cpu,
            raw: row.raw,
            repdiff: row.repdiff,
        });
    }
    rows
}

/// The one-CPU table beside the main table's figure for the same body.
pub(super) fn to_markdown(one: &[OneCpuRow], main: &[Row]) -> String {
    if one.is_empty() {
        return String::new();
    }
    let mut md = format!(
        "\n## The protocol alone: bench thread and worker on one CPU\n\n\
         The small body again, with this process's bench thread and a worker started from it \
         pinned to CPU {}: no wake-up crosses CPUs and the worker runs on the caches the \
         parent just used. added (two CPUs) is the main table's, from the same run: the \
         gap between the columns is what the hand-off between CPUs costs, the one-CPU figure \
         what framing, JSON and the pipe cost. Both are medians on a shared machine; compare \
         them within this report. Target: added at most 50 µs per 100-query call.\n\n",
        one[0].cpu
    );
    let rows: Vec<Vec<String>> = one
        .iter()
        .map(|r| {
            let two = main
                .iter()
                .find(|m| m.oracle == r.oracle && m.body == "small")
                .map(|m| fmt_ns(m.repdiff.median() - m.raw.median()))
                .unwrap_or_else(|| "–".into());
            vec![
                format!("`{}`", r.oracle),
                fmt_ns(r.raw.median()),
                fmt_ns(r.repdiff.median()),
                fmt_ns(r.added()),
                two,
                if r.added() <= 50_000.0 { "yes" } else { "NO" }.into(),
                r.raw.samples.len().to_string(),
            ]
        })
        .collect();
    md.push_str(&table(
        &[
            "oracle",
            "raw batch",
            "repdiff batch",
            "added (one CPU)",
            "added (two CPUs)",
            "≤ 50 µs",
            "rounds",
        ],
        &rows,
    ));
    md
}

pub(super) fn to_json(one: &[OneCpuRow]) -> Value {
    Value::Array(
        one.iter()
            .map(|r| {
                serde_json::json!({
                    "oracle": r.oracle,
                    "cpu": r.cpu,
                    "raw": r.raw.to_json(BATCH),
                    "repdiff": r.repdiff.to_json(BATCH),
                    "added_ns": r.added(),
                })
            })
            .collect(),
    )
}
