//! The fuzz targets' logger: the one place fuzzcore writes to stderr.
//!
//! fuzzcore speaks through the `log` facade like every library of the
//! workspace (under `repdiff` or `cargo xtask`, their logger and its
//! `-q`/`-v` decide). A libFuzzer binary in `fuzz/` has no logger of its
//! own, and what the harness says there matters (an oracle left out, the
//! lineup, a new signature, a lane that panicked at exit): so the targets'
//! `init:` ([`crate::Harness::init`], [`crate::robust::init`]) install
//! this one, which writes the lines as repdiff's logger does (`error: …`,
//! `warning: …`, a note as written, `debug: …`). Where a logger is already
//! installed, it is left alone, level and all.

use log::{Level, LevelFilter, Log, Metadata, Record};

struct Stderr;

impl Log for Stderr {
    fn enabled(&self, m: &Metadata) -> bool {
        m.level() <= log::max_level()
    }

    fn log(&self, r: &Record) {
        if !self.enabled(r.metadata()) {
            return;
        }
        match r.level() {
            Level::Error => eprintln!("error: {}", r.args()),
            Level::Warn => eprintln!("warning: {}", r.args()),
            Level::Info => eprintln!("{}", r.args()),
            Level::Debug | Level::Trace => eprintln!("debug: {}", r.args()),
        }
    }

    fn flush(&self) {}
}

/// Install the stderr logger at the notes' level, unless the process has
/// a logger already. Idempotent; cheap after the first call.
pub fn log_to_stderr() {
    if log::set_logger(&Stderr).is_ok() {
        log::set_max_level(LevelFilter::Info);
    }
}
