//! Slow inputs as findings (issue: "slow is a finding too"): an input on
//! which one oracle takes more than [`RATIO`] times its own median time per
//! input, and more than [`FLOOR_MS`], while every other oracle stays within
//! [`OTHERS_RATIO`] of its median, points at super-linear matching in that
//! one parser (regex backtracking, quadratic scans), not at a big input.
//! The sweep times every oracle's batched call per input; [`candidates`]
//! judges the table, [`cut`] gives a candidate at smaller sizes so the
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

/// The input cut to `num/den` of its size: the first share of the body's
/// lines after the first one, and of the URL path's characters. Timing the
/// input at 1/4, 1/2 and all of its size shows the growth without running
/// anything larger than what already finished once: an in-process oracle
/// has no timeout, and robotstxt-rs grown twice ran for minutes.
pub fn cut(body: &[u8], url: &str, num: usize, den: usize) -> (Vec<u8>, String) {
    let lines: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    let keep = |n: usize| (n * num).div_ceil(den.max(1));
    let head = lines.len().min(1);
    let tail = &lines[head..];
    let mut kept: Vec<&[u8]> = lines[..head].to_vec();
    kept.extend_from_slice(&tail[..keep(tail.len()).min(tail.len())]);
    let (origin, path) = fuzzcore::cause::split_url(url);
    let chars: Vec<char> = path.chars().collect();
    let path: String = chars[..keep(chars.len()).min(chars.len())].iter().collect();
    (kept.join(&b'\n'), format!("{origin}{path}"))
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
    fn cut_keeps_a_share_of_rules_and_path() {
        let body = b"User-agent: *\nDisallow: /a\nDisallow: /b\nDisallow: /c\nDisallow: /d";
        let (b, u) = cut(body, "https://h.test/abcdefgh", 1, 2);
        assert_eq!(b, b"User-agent: *\nDisallow: /a\nDisallow: /b".to_vec());
        assert_eq!(u, "https://h.test/abcd");
        let (b, u) = cut(body, "https://h.test/abcdefgh", 1, 1);
        assert_eq!(
            (b.as_slice(), u.as_str()),
            (&body[..], "https://h.test/abcdefgh")
        );
    }
}
