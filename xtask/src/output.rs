//! xtask's output module: the one place in xtask that writes to stdout.
//!
//! Everything xtask says about its work (progress, notes, warnings,
//! errors) goes through the `log` facade to stderr, under `-q`/`-v`
//! (repdiff's logger, installed by the global flags). What a command was
//! asked for is its output and is printed here, whatever the level, so a
//! pipe gets it and a grep for `println!` tells output from chatter:
//! `fuzz targets` (the list `.clusterfuzzlite/build.sh` reads), the bench's
//! tables and report path, `fuzz speed`/`fuzz coverage`'s measurement, the
//! import circles, and the verifications' result.

use std::fmt::Display;

/// One line of a command's output on stdout.
pub fn line(text: impl Display) {
    println!("{text}");
}

/// Text of a command's output on stdout as it is (a rendered table, its
/// own newlines included).
pub fn text(text: &str) {
    print!("{text}");
}
