//! The measurements: raw vs worker overhead, and rfc9309 against google.

use super::*;

/// One oracle on one body, raw and through repdiff.
pub struct Row {
    pub oracle: String,
    pub version: String,
    pub body: &'static str,
    pub raw: Stats,
    pub repdiff: Stats,
    /// Median of the per-round ratios repdiff / raw (each round times the
    /// two back to back, so drift between rounds cancels): the headline.
    pub ratio: f64,
    /// Median repdiff / median raw, for comparison.
    pub ratio_of_medians: f64,
    pub ratio_p25: f64,
    pub ratio_p75: f64,
    /// Queries where raw and repdiff answered differently.
    pub mismatches: usize,
    /// Failure outcomes (error, crash, timeout) in the repdiff answers.
    pub failures: usize,
    pub first_failure: String,
}

impl Row {
    /// Figures that mean something: same answers, no failed calls.
    pub fn valid(&self) -> bool {
        self.mismatches == 0 && self.failures == 0
    }
    pub fn met(&self) -> bool {
        self.valid() && self.ratio < TARGET_OVERHEAD
    }
}

pub(super) fn measure_overhead(
    raw: &mut dyn Oracle,
    sup: &mut Supervised,
    body: &Body,
    plan: &Plan,
) -> Row {
    let bytes = body.text.as_bytes();
    let q = &body.queries;
    let raw_answers = raw.run(bytes, q);
    let sup_answers = sup.run(bytes, q);
    let mismatches = raw_answers
        .iter()
        .zip(&sup_answers)
        .filter(|(a, b)| a != b)
        .count()
        + raw_answers.len().abs_diff(sup_answers.len());
    let failed: Vec<&Answer> = sup_answers
        .iter()
        .filter(|a| a.outcome.is_failure())
        .collect();
    let first_failure = failed
        .first()
        .map(|a| format!("{}: {}", a.outcome.label(), a.outcome.detail()))
        .unwrap_or_default();
    let failures = failed.len();
    let (raw_stats, sup_stats) = if failures > 0 {
        // A crashed or timed-out worker is not a speed: do not time it.
        let none = || Stats {
            samples: Vec::new(),
            reps: 0,
        };
        (none(), none())
    } else {
        let mut a = || {
            black_box(raw.run(black_box(bytes), black_box(q)));
        };
        let mut b = || {
            black_box(sup.run(black_box(bytes), black_box(q)));
        };
        let mut s = interleave(&mut [&mut a, &mut b], plan).into_iter();
        (
            s.next().unwrap_or_else(empty),
            s.next().unwrap_or_else(empty),
        )
    };
    let ratios = paired_ratios(&raw_stats, &sup_stats);
    Row {
        oracle: raw.name().to_string(),
        version: raw.identity().to_string(),
        body: body.name,
        ratio: quantile(&ratios, 0.5),
        ratio_of_medians: sup_stats.median() / raw_stats.median(),
        ratio_p25: quantile(&ratios, 0.25),
        ratio_p75: quantile(&ratios, 0.75),
        raw: raw_stats,
        repdiff: sup_stats,
        mismatches,
        failures,
        first_failure,
    }
}

pub(super) fn empty() -> Stats {
    Stats {
        samples: Vec::new(),
        reps: 0,
    }
}

/// `rfc9309` against `google` on one body: the batch in one call, and each
/// query in a call of its own (what a one-question caller pays).
pub struct HeadToHead {
    pub body: &'static str,
    pub bytes: usize,
    pub rfc_batch: Stats,
    pub google_batch: Stats,
    pub rfc_alone: Stats,
    pub google_alone: Stats,
    pub disagreements: usize,
}

pub(super) fn head_to_head(
    rfc: &mut dyn Oracle,
    google: &mut dyn Oracle,
    body: &Body,
    plan: &Plan,
) -> HeadToHead {
    let bytes = body.text.as_bytes();
    let q = &body.queries;
    let disagreements = rfc
        .run(bytes, q)
        .iter()
        .zip(google.run(bytes, q))
        .filter(|(a, b)| a.outcome != b.outcome)
        .count();
    let (r, g) = (
        std::cell::RefCell::new(rfc),
        std::cell::RefCell::new(google),
    );
    let mut rb = || {
        black_box(r.borrow_mut().run(black_box(bytes), black_box(q)));
    };
    let mut gb = || {
        black_box(g.borrow_mut().run(black_box(bytes), black_box(q)));
    };
    let mut ra = || {
        for one in q.chunks(1) {
            black_box(r.borrow_mut().run(black_box(bytes), black_box(one)));
        }
    };
    let mut ga = || {
        for one in q.chunks(1) {
            black_box(g.borrow_mut().run(black_box(bytes), black_box(one)));
        }
    };
    let mut s = interleave(&mut [&mut rb, &mut gb, &mut ra, &mut ga], plan).into_iter();
    let mut next = || s.next().unwrap_or_else(empty);
    HeadToHead {
        body: body.name,
        bytes: bytes.len(),
        rfc_batch: next(),
        google_batch: next(),
        rfc_alone: next(),
        google_alone: next(),
        disagreements,
    }
}
