//! Interleaved sampling: contenders take turns so drift hits all alike.

use super::*;

/// What one contender's samples say, in nanoseconds per unit of work.
#[derive(Debug, Clone)]
pub struct Stats {
    pub samples: Vec<f64>,
    /// Calls per sample.
    pub reps: usize,
}

impl Stats {
    pub fn median(&self) -> f64 {
        quantile(&self.samples, 0.5)
    }
    pub(super) fn to_json(&self, per: usize) -> Value {
        json!({
            "median_ns": self.median(),
            "per_query_ns": self.median() / per.max(1) as f64,
            "p25_ns": quantile(&self.samples, 0.25),
            "p75_ns": quantile(&self.samples, 0.75),
            "samples": self.samples.len(),
            "calls_per_sample": self.reps,
        })
    }
}

pub fn quantile(xs: &[f64], q: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = q * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// Sample each unit of work in turn, rotating who goes first each round,
/// until the plan is satisfied. Callers warm their works up (the answer
/// check does); here each is called for a quarter of a sample's target (at
/// least once) to choose its repetitions per sample.
pub fn interleave(works: &mut [&mut dyn FnMut()], plan: &Plan) -> Vec<Stats> {
    let n = works.len();
    let mut stats: Vec<Stats> = Vec::with_capacity(n);
    let target = plan.sample_target.as_secs_f64();
    for w in works.iter_mut() {
        let t = Instant::now();
        let mut calls = 0usize;
        while calls == 0 || t.elapsed().as_secs_f64() < target / 4.0 {
            w();
            calls += 1;
        }
        let once = (t.elapsed().as_secs_f64() / calls as f64).max(1e-9);
        let reps = (target / once).ceil() as usize;
        stats.push(Stats {
            samples: Vec::new(),
            reps: reps.clamp(1, 100_000),
        });
    }
    let start = Instant::now();
    let mut spent = vec![0.0f64; n];
    let mut round = 0;
    loop {
        for k in 0..n {
            let i = (k + round) % n;
            let reps = stats[i].reps;
            let t = Instant::now();
            for _ in 0..reps {
                works[i]();
            }
            let el = t.elapsed().as_secs_f64();
            spent[i] += el;
            stats[i].samples.push(el * 1e9 / reps as f64);
        }
        round += 1;
        let enough =
            round >= plan.min_rounds && spent.iter().all(|s| *s >= plan.min_time.as_secs_f64());
        if enough
            || round >= plan.max_rounds
            || (round >= plan.floor_rounds && start.elapsed() >= plan.max_wall)
        {
            return stats;
        }
    }
}

/// Per-round ratios b/a of two contenders sampled in the same rounds.
pub(super) fn paired_ratios(a: &Stats, b: &Stats) -> Vec<f64> {
    a.samples
        .iter()
        .zip(&b.samples)
        .map(|(x, y)| y / x)
        .collect()
}
