//! Slow inputs as findings (issue: "slow is a finding too"): an input on
//! which one oracle takes more than [`RATIO`] times its own median time per
//! input, and more than [`FLOOR_MS`], while every other oracle stays within
//! [`OTHERS_RATIO`] of its median, points at super-linear matching in that
//! one parser (regex backtracking, quadratic scans), not at a big input.
//! The sweep times every oracle's batched call per input; [`candidates`]
//! judges the table, [`growth`] re-times a candidate at larger sizes so the
//! write-up can show how the time grows.

use serde::Serialize;

pub const RATIO: f64 = 100.0;
pub const FLOOR_MS: f64 = 10.0;
pub const OTHERS_RATIO: f64 = 10.0;

/// One slow input of one oracle.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Slow {
    pub oracle: String,
    /// Index of the input in the sweep's list.
    pub input: usize,
    pub ms: f64,
    pub median_ms: f64,
}

impl Slow {
    pub fn ratio(&self) -> f64 {
        self.ms / self.median_ms.max(f64::MIN_POSITIVE)
    }
}

/// The median of `v` (0 for none).
pub fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return 0.0;
    }
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

/// The slow inputs in `times[i][o]` (ms of oracle `o` on input `i`), the
/// slowest first. An oracle's median is over every input it answered.
pub fn candidates(names: &[String], times: &[Vec<f64>]) -> Vec<Slow> {
    let medians: Vec<f64> = (0..names.len())
        .map(|o| {
            median(
                &times
                    .iter()
                    .filter_map(|t| t.get(o).copied())
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let mut out = Vec::new();
    for (i, row) in times.iter().enumerate() {
        for (o, &ms) in row.iter().enumerate() {
            let med = medians[o];
            if ms <= FLOOR_MS || ms <= RATIO * med {
                continue;
            }
            let others_fast = row
                .iter()
                .enumerate()
                .all(|(k, &t)| k == o || t <= (OTHERS_RATIO * medians[k]).max(FLOOR_MS));
            if others_fast {
                out.push(Slow {
                    oracle: names[o].clone(),
                    input: i,
                    ms,
                    median_ms: med,
                });
            }
        }
    }
    out.sort_by(|a, b| b.ratio().total_cmp(&a.ratio()));
    out
}

/// The input grown `k` times: the body's lines after the first group line
/// repeated `k` times, and the URL's path repeated `k` times. Growing both
/// reaches the two usual super-linear paths (many rules, long paths).
pub fn grow(body: &[u8], url: &str, k: usize) -> (Vec<u8>, String) {
    let mut lines: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    let head = lines
        .iter()
        .position(|l| !l.is_empty())
        .map_or(0, |p| p + 1);
    let tail: Vec<&[u8]> = lines.split_off(head.min(lines.len()));
    let mut out: Vec<u8> = lines.join(&b'\n');
    for _ in 0..k {
        for l in &tail {
            if !out.is_empty() {
                out.push(b'\n');
            }
            out.extend_from_slice(l);
        }
    }
    let (origin, path) = fuzzcore::cause::split_url(url);
    let path = if path.is_empty() {
        "/".to_string()
    } else {
        path
    };
    let grown = format!("{origin}{}", path.repeat(k));
    (out, grown)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("o{i}")).collect()
    }

    #[test]
    fn one_oracle_far_past_its_median_is_slow() {
        let mut times = vec![vec![0.05, 0.02]; 99];
        times.push(vec![40.0, 0.03]);
        let c = candidates(&names(2), &times);
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].oracle.as_str(), c[0].input), ("o0", 99));
        assert!(c[0].ratio() > 700.0);
    }

    #[test]
    fn an_input_slow_for_everyone_or_under_the_floor_is_not() {
        let mut times = vec![vec![0.01, 0.01]; 99];
        times.push(vec![40.0, 35.0]);
        times.push(vec![5.0, 0.01]);
        assert!(candidates(&names(2), &times).is_empty());
    }

    #[test]
    fn median_of_even_and_odd() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn grow_repeats_rules_and_path() {
        let (b, u) = grow(b"User-agent: *\nDisallow: /a*b", "https://h.test/ab", 3);
        assert_eq!(
            b,
            b"User-agent: *\nDisallow: /a*b\nDisallow: /a*b\nDisallow: /a*b".to_vec()
        );
        assert_eq!(u, "https://h.test/ab/ab/ab");
    }
}
