//! Progress of a conformance run on stderr. On a terminal: one live bar
//! (oracle-cases done, rate, ETA). Elsewhere (CI logs, pipes): a plain line
//! every few seconds and one when an oracle finishes, never one per case, so
//! a log stays readable and still shows a stuck oracle.

use engine::run::Progress;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// The bar: a constant, so a typo is a bug the tests catch.
const TEMPLATE: &str = "  {bar:30} {pos:>6}/{len} oracle-cases  {rate:>8}  ETA {eta:>4}  {msg}";

/// How often the plain fallback reports while nothing finishes.
const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// A progress note at most every few seconds, for a loop whose steps are
/// too many or too quick to report each (lint's stages, the census naming
/// causes): a whole line through `log` (so `-q` hides it and a log file
/// stays readable), never one redrawn with `\r`. Every two seconds on a
/// terminal, every five elsewhere, as the census's own progress.
pub struct Every {
    last: Option<Instant>,
    every: Duration,
}

impl Every {
    /// The first call to [`Every::due`] is due.
    pub fn new() -> Every {
        let every = if std::io::stderr().is_terminal() {
            Duration::from_secs(2)
        } else {
            PLAIN_EVERY
        };
        Every { last: None, every }
    }

    /// Is a line due now? If so, the next is due a period later.
    pub fn due(&mut self) -> bool {
        let now = Instant::now();
        if self.last.is_some_and(|l| now - l < self.every) {
            return false;
        }
        self.last = Some(now);
        true
    }
}

impl Default for Every {
    fn default() -> Every {
        Every::new()
    }
}

pub struct Reporter {
    total: usize,
    done: usize,
    started: Instant,
    mode: Mode,
}

enum Mode {
    Bar(ProgressBar),
    Plain {
        last: Instant,
    },
    /// `-q`: no progress at all.
    Off,
}

impl Reporter {
    /// `total` counts oracle-cases: every oracle answers every case.
    pub fn new(total: usize) -> Reporter {
        let mode = if !crate::logging::notes() {
            Mode::Off
        } else if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new(total as u64);
            // indicatif's own `per_sec` prints every decimal of the rate.
            let style = ProgressStyle::with_template(TEMPLATE)
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .with_key(
                    "rate",
                    |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{:.0}/s", s.per_sec());
                    },
                );
            bar.set_style(style);
            bar.enable_steady_tick(Duration::from_millis(200));
            Mode::Bar(bar)
        } else {
            Mode::Plain {
                last: Instant::now(),
            }
        };
        Reporter {
            total,
            done: 0,
            started: Instant::now(),
            mode,
        }
    }

    pub fn update(&mut self, p: Progress<'_>) {
        let Progress::CaseDone {
            oracle,
            done,
            total,
        } = p;
        self.done += 1;
        let finished = done == total;
        match &mut self.mode {
            Mode::Bar(bar) => {
                bar.set_position(self.done as u64);
                if finished {
                    bar.println(format!("  {oracle:<16} done ({total} cases)"));
                } else {
                    bar.set_message(format!("{oracle} {done}/{total}"));
                }
            }
            Mode::Plain { last } => {
                if finished || last.elapsed() >= PLAIN_EVERY {
                    *last = Instant::now();
                    log::info!("{}", self.plain_line(oracle, done, total));
                }
            }
            Mode::Off => {}
        }
    }

    fn plain_line(&self, oracle: &str, done: usize, total: usize) -> String {
        let secs = self.started.elapsed().as_secs_f64();
        let rate = self.done as f64 / secs.max(1e-3);
        let left = self.total.saturating_sub(self.done) as f64 / rate.max(1e-9);
        let what = if done == total {
            format!("{oracle} done ({total} cases)")
        } else {
            format!("{oracle} at {done}/{total}")
        };
        format!(
            "  {:>3}% ({}/{} oracle-cases, {rate:.0}/s, ETA {left:.0} s): {what}",
            self.done * 100 / self.total.max(1),
            self.done,
            self.total
        )
    }

    pub fn finish(self) {
        if let Mode::Bar(bar) = self.mode {
            bar.finish_and_clear();
        }
        log::info!(
            "  {} oracle-cases in {:.1} s",
            self.done,
            self.started.elapsed().as_secs_f64()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_is_due_first_then_not_within_its_period() {
        let mut e = Every::new();
        assert!(e.due());
        assert!(!e.due());
    }

    #[test]
    fn the_bar_template_parses() {
        assert!(ProgressStyle::with_template(TEMPLATE).is_ok());
    }

    #[test]
    fn a_plain_line_says_where_the_run_is() {
        let r = Reporter {
            total: 10,
            done: 5,
            started: Instant::now(),
            mode: Mode::Plain {
                last: Instant::now(),
            },
        };
        let line = r.plain_line("rfc9309", 5, 5);
        assert!(line.contains("50% (5/10 oracle-cases"), "{line}");
        assert!(line.contains("rfc9309 done (5 cases)"), "{line}");
    }
}
