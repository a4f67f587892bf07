//! Slow inputs as findings (issue: "slow is a finding too"): an input on
//! which one oracle takes more than [`RATIO`] times its own median time per
//! input, and more than [`FLOOR_MS`], while every other oracle stays within
//! [`OTHERS_RATIO`] of its median, points at super-linear matching in that
//! one parser (regex backtracking, quadratic scans), not at a big input.
//! The sweep times every oracle's batched call per input; [`candidates`]
//! judges the table, [`cut`] gives a candidate at smaller sizes so the
//! write-up can show how the time grows.

use serde::{Deserialize, Serialize};

pub const RATIO: f64 = 100.0;
pub const FLOOR_MS: f64 = 10.0;
pub const OTHERS_RATIO: f64 = 10.0;

/// One slow input of one oracle.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
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

/// A slow input, with its growth re-timed at three sizes; read back by
/// `repdiff findings` for the write-ups of kind `slow`.
#[derive(Debug, Serialize, Deserialize)]
pub struct SlowFinding {
    #[serde(flatten)]
    pub slow: Slow,
    /// The fastest of three re-timings of the same batched call.
    pub confirmed_ms: f64,
    pub source: String,
    pub body: String,
    pub agent: String,
    pub url: String,
    /// (share, ms): the first question on the input cut to 1/4, 1/2 and
    /// all of its size ([`cut`]).
    pub growth: Vec<(String, f64)>,
    /// The input minimised on the time (still over the sweep's keep threshold).
    pub minimised: Minimised,
    pub minimised_body: String,
    /// (factor, ms): the minimised input stretched 1, 2 and 3 times
    /// ([`stretch`]).
    pub stretched: Vec<(String, f64)>,
    /// The slowest other oracle on the minimised input, and its ms.
    pub others_slowest: (String, f64),
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
    let (origin, path) = cause::split_url(url);
    let chars: Vec<char> = path.chars().collect();
    let path: String = chars[..keep(chars.len()).min(chars.len())].iter().collect();
    (kept.join(&b'\n'), format!("{origin}{path}"))
}

/// The smallest input found that keeps `probe` (one oracle's time in ms
/// on a body and URL) at or over `keep_ms`: ever smaller character chunks
/// of the URL path first, then whole lines, then byte chunks of the body,
/// keeping each deletion that stays slow (a ddmin-style greedy pass,
/// repeated until nothing more goes or `budget` is spent). Every probe is
/// on a candidate smaller than one that already finished, so an oracle
/// without a timeout is never asked anything larger than it has answered.
pub fn minimise(
    body: &[u8],
    url: &str,
    mut probe: impl FnMut(&[u8], &str) -> f64,
    keep_ms: f64,
    budget: std::time::Duration,
) -> Minimised {
    let start = std::time::Instant::now();
    let (mut origin, path) = cause::split_url(url);
    // The path's leading `/` stays: without it the URL is another shape.
    let path = match path.strip_prefix('/') {
        Some(rest) => {
            origin.push('/');
            rest.to_string()
        }
        None => path,
    };
    let mut body = body.to_vec();
    let mut path: Vec<char> = path.chars().collect();
    let mut probes = 0;
    let mut slow = |b: &[u8], p: &[char]| {
        probes += 1;
        let url = format!("{origin}{}", p.iter().collect::<String>());
        probe(b, &url) >= keep_ms
    };
    let out_of_time = || start.elapsed() >= budget;
    let mut changed = true;
    while changed && !out_of_time() {
        changed = false;
        // The URL's path first: every probe costs the slow time, which
        // usually grows with the URL, and a budget spent on the body left
        // a sweep finding with a 400-character URL.
        let b = body.clone();
        changed |= shrink_chunks(&mut path, &out_of_time, |p| slow(&b, p));
        // Lines.
        let mut i = 0;
        loop {
            let lines: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
            if i >= lines.len() || lines.len() < 2 || out_of_time() {
                break;
            }
            let mut rest = lines.clone();
            rest.remove(i);
            let cand = rest.join(&b'\n');
            if slow(&cand, &path) {
                body = cand;
                changed = true;
            } else {
                i += 1;
            }
        }
        // Byte chunks of the body.
        changed |= shrink_chunks(&mut body, &out_of_time, |b| slow(b, &path));
    }
    Minimised {
        body,
        url: format!("{origin}{}", path.iter().collect::<String>()),
        probes,
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// A minimised slow input and what minimising it cost.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Minimised {
    /// The body's bytes (JSON numbers: unambiguous, unlike an escape).
    pub body: Vec<u8>,
    pub url: String,
    pub probes: usize,
    pub seconds: f64,
}

/// Delete chunks of `v` (half its length, then a quarter, ... one item)
/// while `keep` holds; true when something went.
fn shrink_chunks<T: Clone>(
    v: &mut Vec<T>,
    out_of_time: &dyn Fn() -> bool,
    mut keep: impl FnMut(&[T]) -> bool,
) -> bool {
    let mut changed = false;
    let mut size = v.len() / 2;
    while size >= 1 && !out_of_time() {
        let mut at = 0;
        while at < v.len() && !out_of_time() {
            let end = (at + size).min(v.len());
            let mut cand = v[..at].to_vec();
            cand.extend_from_slice(&v[end..]);
            if keep(&cand) {
                *v = cand;
                changed = true;
            } else {
                at = end;
            }
        }
        size /= 2;
    }
    changed
}

/// The input with every run of three or more equal bytes (body, agent) or
/// characters (URL) repeated `k` times: the minimised slow input at `k`
/// times its size along the dimension that makes it slow (a long run
/// matched against a wildcard, a repeated character in a pattern), so the
/// write-up can show how the time grows.
pub fn stretch(body: &[u8], agent: &str, url: &str, k: usize) -> (Vec<u8>, String, String) {
    fn runs<T: PartialEq + Clone>(v: &[T], k: usize) -> Vec<T> {
        let mut out = Vec::with_capacity(v.len() * k);
        let mut i = 0;
        while i < v.len() {
            let mut j = i;
            while j < v.len() && v[j] == v[i] {
                j += 1;
            }
            let times = if j - i >= 3 { k } else { 1 };
            for _ in 0..times {
                out.extend_from_slice(&v[i..j]);
            }
            i = j;
        }
        out
    }
    let chars = |s: &str| -> String {
        runs(&s.chars().collect::<Vec<_>>(), k)
            .into_iter()
            .collect()
    };
    let (origin, path) = cause::split_url(url);
    let path = chars(&path);
    (runs(body, k), chars(agent), format!("{origin}{path}"))
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

    /// A fake probe: "slow" grows with the product of the A-runs in the
    /// rule and the URL, as a wildcard scan does; noise lines do nothing.
    fn fake_ms(body: &[u8], url: &str) -> f64 {
        let a_body = body.iter().filter(|&&b| b == b'A').count() as f64;
        let star = body.contains(&b'*');
        let a_url = url.chars().filter(|&c| c == 'A').count() as f64;
        if star {
            a_body * a_url
        } else {
            0.0
        }
    }

    #[test]
    fn minimise_keeps_only_what_keeps_it_slow() {
        let body =
            b"User-agent: *\n# noise\nAllow: /x\nDisallow: /*AAAAAAAAAAAAAAAAAAAA\nSitemap: q";
        let url = "https://h.test/AAAAAAAAAAAAAAAAAAAAzzzz";
        assert!(fake_ms(body, url) >= 100.0);
        let m = minimise(
            body,
            url,
            fake_ms,
            100.0,
            std::time::Duration::from_secs(10),
        );
        assert!(fake_ms(&m.body, &m.url) >= 100.0);
        // The URL shrinks first (against the 20 A's of the rule), then
        // the body loses only what does not count.
        assert_eq!(
            m.body,
            format!("*{}", "A".repeat(20)).into_bytes(),
            "{:?}",
            String::from_utf8_lossy(&m.body)
        );
        assert_eq!(m.url, format!("https://h.test/{}", "A".repeat(5)));
        assert!(m.probes > 10);
    }

    #[test]
    fn minimise_stops_at_its_budget() {
        let body = b"*AAAA\nb\nc\nd";
        let m = minimise(
            body,
            "https://h.test/AAAA",
            fake_ms,
            1.0,
            std::time::Duration::ZERO,
        );
        assert_eq!((m.body.as_slice(), m.probes), (&body[..], 0));
    }

    #[test]
    fn stretch_repeats_long_runs_only() {
        let (b, a, u) = stretch(b"Disallow: /*AAAA", "BBBot", "https://h.test/xAAAy", 2);
        assert_eq!(b, b"Disallow: /*AAAAAAAA".to_vec());
        assert_eq!(a, "BBBBBBot");
        assert_eq!(u, "https://h.test/xAAAAAAy");
        // Both runs doubled: four times the fake wildcard scan.
        assert_eq!(
            fake_ms(&b, &u),
            4.0 * fake_ms(b"Disallow: /*AAAA", "https://h.test/xAAAy")
        );
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
