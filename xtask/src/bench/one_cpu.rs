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

/// The fake oracle whose row is the protocol's floor: it answers without
/// parsing, so its added cost is the protocol's alone (framing, JSON both
/// ways, the pipe), with no library slowed by running in another process.
pub const FLOOR: &str = "chaos";

fn floor_raw() -> Result<Box<dyn Oracle>, Unavailable> {
    repdiff::chaos::make(FLOOR).ok_or_else(|| Unavailable {
        oracle: FLOOR.into(),
        reason: "no fake oracle named chaos".into(),
        fix: String::new(),
        then_setup: false,
    })
}

/// One oracle on the small body with bench thread and worker on one CPU.
pub struct OneCpuRow {
    pub oracle: String,
    pub cpu: usize,
    pub raw: Stats,
    pub repdiff: Stats,
    /// The added cost measured unpinned, for the floor (whose two-CPU
    /// figure the main table does not have).
    pub two_cpus_added: Option<f64>,
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
            let size = size_of::<libc::cpu_set_t>();
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
            libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &self.0);
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
    // The floor on two CPUs, before pinning: the main table has no row for it.
    let floor_two_cpus = start_pair(FLOOR, floor_raw())
        .ok()
        .map(|(mut raw, mut sup)| measure_overhead(raw.as_mut(), &mut sup, body, plan))
        .filter(Row::valid)
        .map(|r| r.repdiff.median() - r.raw.median());
    let Some(_pin) = Pinned::to(cpu) else {
        log::warn!("bench: cannot pin to CPU {cpu}; no one-CPU table");
        return Vec::new();
    };
    let mut rows = Vec::new();
    let real = names.iter().filter_map(|name| {
        // A harness-served oracle has no in-process form here (as above).
        let entry = registry
            .iter()
            .find(|e| e.name == name.as_str() && e.harness.is_none())?;
        Some((name.clone(), (entry.make)()))
    });
    for (name, raw) in std::iter::once((FLOOR.to_string(), floor_raw())).chain(real) {
        // Started while pinned: the worker inherits the one-CPU mask.
        let Ok((mut raw, mut sup)) = start_pair(&name, raw) else {
            continue;
        };
        let row = measure_overhead(raw.as_mut(), &mut sup, body, plan);
        if !row.valid() {
            continue;
        }
        log::info!(
            "bench:   {name} x {} on CPU {cpu}: raw {:>9}  repdiff {:>9}",
            body.name,
            fmt_ns(row.raw.median()),
            fmt_ns(row.repdiff.median())
        );
        rows.push(OneCpuRow {
            two_cpus_added: (name == FLOOR).then_some(floor_two_cpus).flatten(),
            oracle: name,
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
         what framing, JSON and the pipe cost. The first row is the fake `chaos` oracle, which \
         answers without parsing: its added cost is the protocol's floor, and what a real \
         oracle adds beyond it is its library running slower in a process of its own (cold \
         caches, and for rfc9309 the explanation text it sends with each answer). Both \
         columns are medians on a shared machine; compare them within this report. Target: \
         added at most 50 µs per 100-query call.\n\n",
        one[0].cpu
    );
    let rows: Vec<Vec<String>> = one
        .iter()
        .map(|r| {
            let two = main
                .iter()
                .find(|m| m.oracle == r.oracle && m.body == "small")
                .map(|m| m.repdiff.median() - m.raw.median())
                .or(r.two_cpus_added)
                .map_or_else(|| "–".into(), fmt_ns);
            let oracle = if r.oracle == FLOOR {
                format!("`{FLOOR}` (protocol floor)")
            } else {
                format!("`{}`", r.oracle)
            };
            vec![
                oracle,
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
                    "two_cpus_added_ns": r.two_cpus_added,
                })
            })
            .collect(),
    )
}
