//! The vocabulary every command shares, below them all: the usage error,
//! the exit codes, what differs between the binaries (`Host`, which carries
//! the program name), duration flags and globs. It imports no command, so a command
//! importing it closes no circle (`cargo xtask circles`).

/// A bad command line or unusable input: exit status 2, nothing written.
/// How most of the product still says "usage error"; `?` turns it into
/// [`crate::error::Error::Usage`], the typed error commands return.
#[derive(Debug)]
pub struct Usage(pub String);

/// The exit status of a run in which some parser was not asked or did not
/// answer: an oracle that could not start (and was not left out with
/// `--skip-oracle`), or, in `check`, a `timeout` or `crash` cell. Neither 0
/// (a pass) nor 1 (the parsers disagree): a script must not read a run that
/// is missing parsers as either.
pub const EXIT_NOT_RUN: i32 = 3;

/// What differs between the binaries that run the product commands. A
/// command takes it from its caller (`cli::Product::run`) and hands the
/// program name down to whatever builds a hint; there is no global.
pub struct Host {
    /// How the help and the hints name the program (`repdiff`, `cargo xtask`).
    pub program: &'static str,
    /// Make the setup cache usable before oracles start: both binaries run
    /// setup (`crate::setup::ensure_as`) for what the command [`Needs`],
    /// its hints naming `program`; neither links a library setup fetches,
    /// so neither has to be rebuilt afterwards.
    pub ensure_setup: fn(&'static str, Needs),
}

impl Host {
    /// Set up what the command [`Needs`] (see `ensure_setup`).
    pub fn ensure(&self, needs: Needs) {
        (self.ensure_setup)(self.program, needs)
    }
}

/// How hints name the program where no product command passes its
/// [`Host`] (xtask's bench, fuzz and verify commands call the product's
/// functions directly): the installed binary, as they always have.
pub const DEFAULT_PROGRAM: &str = "repdiff";

/// What a command needs set up before it starts. Every command that starts
/// oracles needs them; only the census reads its data set and only `suites`
/// the parsers' own test suites, so the first command on a fresh clone
/// (`conformance`) waits for neither (issue 51). `setup` itself, and so the
/// test command, sets up everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    Oracles,
    Census,
    Suites,
}

/// `--timeout SECS`: a finite, non-negative number of seconds (a negative
/// or NaN one would make `Duration::from_secs_f64` panic).
// String error: a clap value parser; clap prints the message as the flag's error.
pub fn seconds(s: &str) -> Result<std::time::Duration, String> {
    let v: f64 = s.parse().map_err(|_| format!("not a number: {s:?}"))?;
    std::time::Duration::try_from_secs_f64(v).map_err(|e| format!("{s:?}: {e}"))
}

/// Glob over case ids: `*` any run, `?` one character.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Iterative wildcard match with one backtrack point: linear-ish, no blow-up.
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("seed-*", "seed-18"));
        assert!(glob_match("*18", "seed-18"));
        assert!(glob_match("seed-1?", "seed-18"));
        assert!(!glob_match("seed-1?", "seed-1"));
        assert!(!glob_match("rfc-*", "seed-18"));
        assert!(glob_match("*", ""));
    }

    #[test]
    fn timeouts() {
        assert_eq!(seconds("2.5"), Ok(std::time::Duration::from_millis(2500)));
        assert!(seconds("-1").is_err());
        assert!(seconds("NaN").is_err());
        assert!(seconds("five").is_err());
    }
}
