//! The `repdiff` binary's output module: the one place in the product
//! that writes to stdout.
//!
//! What a command was asked for is its output and is written here,
//! whatever the level: `check`'s answers (`--json` too), `lint`'s
//! reports, `oracles`' list, `doctor`'s table, the summaries of
//! `conformance`, `census`, `suites`, `report`, `findings` and `triage`,
//! `serve`'s address, shell completions. Everything a command says about
//! its work (progress, notes, warnings, errors) goes through the `log`
//! facade to stderr instead ([`crate::logging`]), so a grep for
//! `println!` tells output from chatter.
//!
//! A reader that stops early is no error: `repdiff check … | head -1`
//! closes the pipe, and where `println!` would panic on the broken pipe,
//! a write here ends the process quietly with status 0, as `head`-style
//! consumers expect (the reader took what it wanted); the workers this
//! process started are stopped first, as an exit that skips destructors
//! must ([`engine::worker::kill_all_workers`]). Any other failure
//! to write (a full disk under a redirect) is an error on stderr and
//! status 5, the status of a failed write ([`crate::error::EXIT_IO`]).
//! This module imports no command: it sits at the bottom of the crate.

use std::fmt;
use std::io::{ErrorKind, Write};

/// One line of a command's output: `out!("{x} of {n}")`, `out!()` for an
/// empty line.
#[macro_export]
macro_rules! out {
    () => {
        $crate::output::line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::output::line(format_args!($($arg)*))
    };
}

/// One line of a command's output on stdout.
pub fn line(args: fmt::Arguments) {
    let mut out = std::io::stdout().lock();
    let written = out.write_fmt(args).and_then(|()| out.write_all(b"\n"));
    done(written);
}

/// Part of a line of a command's output (a table's cells, written one by
/// one), no newline added.
pub fn part(args: fmt::Arguments) {
    done(std::io::stdout().lock().write_fmt(args));
}

/// Text of a command's output as it is (a rendered report, its own
/// newlines included).
pub fn text(text: &str) {
    done(std::io::stdout().lock().write_all(text.as_bytes()));
}

/// Bytes of a command's output as they are (a script another program
/// wrote into a buffer).
pub fn bytes(bytes: &[u8]) {
    done(std::io::stdout().lock().write_all(bytes));
}

/// The end of a write: nothing when it went through; a quiet exit when
/// the reader is gone; an error and [`crate::error::EXIT_IO`] otherwise.
fn done(written: std::io::Result<()>) {
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {
            engine::worker::kill_all_workers();
            std::process::exit(0)
        }
        Err(e) => {
            engine::worker::kill_all_workers();
            log::error!("cannot write to stdout: {e}");
            std::process::exit(crate::error::EXIT_IO);
        }
    }
}
