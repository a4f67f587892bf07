//! The nightly's measured figures (each speed mode's rate and CPU, the
//! coverage of `differential`'s corpus): what `nightly` measures and
//! `report` writes, held apart from both so neither imports the other.

use super::throughput::Throughput;

/// One mode's figures.
#[derive(Debug, Clone, Default)]
pub struct SpeedRow {
    pub label: String,
    pub oracles: usize,
    /// exec/s of each libFuzzer process (one, or each -jobs worker).
    pub workers: Vec<u64>,
    /// Share of the wall time the fuzzing thread waited on its lanes.
    pub lane_wait: Option<f64>,
    /// Its wall time, distinct inputs that reached every oracle of the
    /// mode, and the CPU they cost (the processes' and their workers').
    pub run: Throughput,
}

impl SpeedRow {
    pub fn total(&self) -> u64 {
        self.workers.iter().sum()
    }

    /// `a + b` for several -jobs workers, nothing for one process.
    pub fn workers_text(&self) -> Option<String> {
        (self.workers.len() > 1).then(|| {
            self.workers
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(" + ")
        })
    }
}

/// exec/s of `differential` in each of [`MODES`](super::nightly::MODES), one after the other in
/// one run, on the same corpus.
#[derive(Debug, Clone, Default)]
pub struct Speed {
    pub seconds: u64,
    /// Cores of the machine it ran on.
    pub cores: usize,
    pub rows: Vec<SpeedRow>,
}

impl Speed {
    pub fn describe(&self) -> String {
        let mut out = format!("differential, {} s per mode, same run:", self.seconds);
        for r in &self.rows {
            out.push_str(&format!(
                "\n  {:<66} {:>6} exec/s{} ({:.0} distinct inputs/s reached all {} oracles){}{}",
                r.label,
                r.total(),
                r.workers_text()
                    .map_or(String::new(), |w| format!(" = {w}")),
                r.run.rate(),
                r.oracles,
                r.lane_wait.map_or(String::new(), |w| format!(
                    "; the fuzzing thread waited on lanes {:.0}% of the time",
                    w * 100.0
                )),
                r.run.cpu_per_input().zip(r.run.ceiling(self.cores)).map_or(
                    String::new(),
                    |(c, most)| format!(
                        "; {c:.0} us of CPU per distinct input, at most {most:.0}/s on {} cores ({:.0}% of it)",
                        self.cores,
                        100.0 * r.run.rate() / most
                    )
                )
            ));
        }
        out
    }
}

/// Coverage of `differential` over its corpus, from libFuzzer's
/// `-print_coverage` on the AddressSanitizer build (whose runtime symbolises).
#[derive(Debug, Clone, Default)]
pub struct Coverage {
    pub corpus_files: usize,
    /// Edges covered / instrumented, whole binary (functions with coverage
    /// info: every instrumented function is listed).
    pub edges_covered: u64,
    pub edges_total: u64,
    pub google_covered: u64,
    pub google_total: u64,
    pub google_functions_covered: u64,
    pub google_functions: u64,
    /// libFuzzer's `cov:` after replaying the corpus (plain build).
    pub cov: u64,
    pub ft: u64,
}

impl Coverage {
    pub fn describe(&self) -> String {
        format!(
            "coverage of differential over {} corpus inputs: libFuzzer cov {} / ft {}; edges {}/{} in all \
             instrumented code, {}/{} in googlebot:: ({} of {} functions reached)",
            self.corpus_files,
            self.cov,
            self.ft,
            self.edges_covered,
            self.edges_total,
            self.google_covered,
            self.google_total,
            self.google_functions_covered,
            self.google_functions
        )
    }
}
