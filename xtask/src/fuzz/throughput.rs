//! The rate of a stretch of `differential` fuzzing against the machine's
//! ceiling, from the fuzz processes' own counters (`fuzzcore::record`):
//! one computation for the nightly's whole run and for each speed mode, so
//! the two are compared like for like.
//!
//! - the rate: distinct inputs that reached every oracle
//!   (`DifferentialStats::reached_all`), summed over the processes, per
//!   second of the stretch's wall time;
//! - CPU per distinct input: the processes' CPU (every thread) and their
//!   workers' (`DifferentialStats::cpu_micros`) over those inputs, and the
//!   same split by lane: each lane's thread and workers, and the fuzzing
//!   threads with the rest of the process (libFuzzer, the in-process
//!   oracles), which sum to the whole;
//! - the ceiling: `cores / CPU per distinct input`, the rate the machine
//!   would give at that cost were its cores never idle.

use fuzzcore::record::DifferentialStats;
use std::collections::BTreeMap;

/// What a lane of the loop cost, over every process of a stretch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LaneCpu {
    /// The lane's label, or [`FUZZING_THREAD`].
    pub label: String,
    pub oracles: Vec<String>,
    /// Its thread's and its workers' CPU, µs.
    pub cpu_micros: u64,
}

/// The label of what is not on a lane: the fuzzing threads (libFuzzer, the
/// in-process oracles, the harness) and the rest of the process.
pub const FUZZING_THREAD: &str = "fuzzing thread and the rest";

/// One stretch of fuzzing `differential`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Throughput {
    /// Wall time of the stretch.
    pub seconds: f64,
    /// Distinct inputs every oracle answered, all processes.
    pub reached_all: u64,
    /// CPU of the processes and their workers, µs.
    pub cpu_micros: u64,
    /// The fuzzing threads first, then each lane by label.
    pub lanes: Vec<LaneCpu>,
}

impl Throughput {
    /// The stretch of `seconds` that the processes of `stats` fuzzed.
    pub fn of<'a>(stats: impl IntoIterator<Item = &'a DifferentialStats>, seconds: f64) -> Self {
        let mut t = Throughput {
            seconds,
            ..Throughput::default()
        };
        let mut fuzzing = 0u64;
        let mut lanes: BTreeMap<String, LaneCpu> = BTreeMap::new();
        for d in stats {
            t.reached_all += d.reached_all;
            t.cpu_micros += d.cpu_micros();
            let lane_threads: u64 = d.lanes.iter().map(|l| l.thread_cpu_micros).sum();
            fuzzing += d.process_cpu_micros.saturating_sub(lane_threads);
            for l in &d.lanes {
                let e = lanes.entry(l.label.clone()).or_insert_with(|| LaneCpu {
                    label: l.label.clone(),
                    oracles: l.oracles.clone(),
                    cpu_micros: 0,
                });
                e.cpu_micros += l.thread_cpu_micros + l.worker_cpu_micros;
            }
        }
        t.lanes.push(LaneCpu {
            label: FUZZING_THREAD.to_string(),
            oracles: Vec::new(),
            cpu_micros: fuzzing,
        });
        t.lanes.extend(lanes.into_values());
        t
    }

    /// Distinct inputs reaching every oracle, per second.
    pub fn rate(&self) -> f64 {
        if self.seconds > 0.0 {
            self.reached_all as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// µs of CPU per distinct input (`None`: no CPU read, or no input
    /// reached every oracle).
    pub fn cpu_per_input(&self) -> Option<f64> {
        (self.reached_all > 0 && self.cpu_micros > 0)
            .then(|| self.cpu_micros as f64 / self.reached_all as f64)
    }

    /// µs of CPU per distinct input of one lane.
    pub fn lane_per_input(&self, lane: &LaneCpu) -> Option<f64> {
        (self.reached_all > 0).then(|| lane.cpu_micros as f64 / self.reached_all as f64)
    }

    /// The rate `cores` would give at this CPU per input, never idle.
    pub fn ceiling(&self, cores: usize) -> Option<f64> {
        self.cpu_per_input().map(|c| cores as f64 * 1e6 / c)
    }

    /// The rate as a share of [`Self::ceiling`].
    pub fn of_ceiling(&self, cores: usize) -> Option<f64> {
        self.ceiling(cores)
            .filter(|c| *c > 0.0)
            .map(|c| self.rate() / c)
    }

    /// This stretch's rate as a share of `other`'s.
    pub fn of_rate(&self, other: &Throughput) -> Option<f64> {
        (other.rate() > 0.0).then(|| self.rate() / other.rate())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fuzzcore::record::LaneRecord;

    fn process(reached: u64, process_cpu: u64, lanes: &[(&str, u64, u64)]) -> DifferentialStats {
        DifferentialStats {
            target: "differential".into(),
            reached_all: reached,
            process_cpu_micros: process_cpu,
            lanes: lanes
                .iter()
                .map(|(label, thread, worker)| LaneRecord {
                    label: label.to_string(),
                    oracles: vec![format!("{label}-oracle")],
                    answered: reached,
                    wait_micros: 0,
                    thread_cpu_micros: *thread,
                    worker_cpu_micros: *worker,
                })
                .collect(),
            ..DifferentialStats::default()
        }
    }

    #[test]
    fn lanes_sum_to_the_whole_and_ratios_follow() {
        // Two processes of one stretch (a restart), 20 s of wall time.
        let a = process(
            1000,
            800_000,
            &[("python", 300_000, 0), ("spider", 50_000, 400_000)],
        );
        let b = process(
            600,
            400_000,
            &[("python", 100_000, 0), ("spider", 30_000, 220_000)],
        );
        let t = Throughput::of([&a, &b], 20.0);
        assert_eq!(t.reached_all, 1600);
        assert_eq!(t.cpu_micros, 1_200_000 + 620_000);
        assert_eq!(t.rate(), 80.0);
        // 1,820,000 µs / 1,600 inputs.
        assert_eq!(t.cpu_per_input(), Some(1137.5));
        let labels: Vec<_> = t.lanes.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels, [FUZZING_THREAD, "python", "spider"]);
        // fuzzing thread: (800 - 350) + (400 - 130) ms.
        assert_eq!(t.lanes[0].cpu_micros, 720_000);
        assert_eq!(t.lanes[2].cpu_micros, 700_000);
        let per_lane: f64 = t.lanes.iter().filter_map(|l| t.lane_per_input(l)).sum();
        assert!((per_lane - 1137.5).abs() < 1e-9, "{per_lane}");
        // 2 cores at 1137.5 µs: 1758.2/s; 80/s is 4.55% of it.
        let ceiling = t.ceiling(2).unwrap();
        assert!((ceiling - 2e6 / 1137.5).abs() < 1e-9);
        assert!((t.of_ceiling(2).unwrap() - 80.0 / ceiling).abs() < 1e-12);
        let speed_mode = Throughput::of([&a], 10.0);
        assert_eq!(speed_mode.rate(), 100.0);
        assert_eq!(t.of_rate(&speed_mode), Some(0.8));
    }

    #[test]
    fn nothing_reached_means_no_ratio() {
        let t = Throughput::of([&process(0, 5_000, &[])], 10.0);
        assert_eq!(t.rate(), 0.0);
        assert_eq!(
            (t.cpu_per_input(), t.ceiling(2), t.of_ceiling(2)),
            (None, None, None)
        );
        assert_eq!(Throughput::default().of_rate(&t), None);
        assert_eq!(t.lane_per_input(&t.lanes[0]), None);
    }
}
