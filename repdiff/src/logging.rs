//! What the product says on stderr goes through the `log` facade, so one
//! pair of flags governs all of it: `-q` keeps errors and warnings, the
//! default adds notes and progress, `-v` adds debug detail. The lines read
//! as they always have: `error: …`, `warning: …`, a note as written
//! (`setup: …`, `publish: …`). The engine's signal handler logs too, as
//! an error and warnings, so `-q` keeps them. Messages of the worker
//! protocol are not log lines: they are printed whatever the level.

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

/// The level for `-q` and `-v` (given more than once, still debug).
pub fn level(quiet: bool, verbose: u8) -> LevelFilter {
    match (quiet, verbose) {
        (true, _) => LevelFilter::Warn,
        (false, 0) => LevelFilter::Info,
        (false, _) => LevelFilter::Debug,
    }
}

/// Install the logger once; later calls only change the level.
pub fn init(filter: LevelFilter) {
    let _ = log::set_logger(&Stderr);
    log::set_max_level(filter);
}

/// Are notes (and progress) shown? Not under `-q`.
pub fn notes() -> bool {
    log::log_enabled!(Level::Info)
}

/// Is debug detail shown (`-v`)?
pub fn debug() -> bool {
    log::log_enabled!(Level::Debug)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_map_to_levels() {
        assert_eq!(level(true, 0), LevelFilter::Warn);
        assert_eq!(level(true, 2), LevelFilter::Warn);
        assert_eq!(level(false, 0), LevelFilter::Info);
        assert_eq!(level(false, 1), LevelFilter::Debug);
    }
}
