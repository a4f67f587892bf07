//! What failed, as a type: the error every command returns, and the exit
//! status of each kind. The binaries (`repdiff`, `cargo xtask`) map kinds
//! to statuses here and nowhere else ([`crate::cli::exit_code`]).
//!
//! | status | meaning |
//! |---|---|
//! | 0 | the run passed |
//! | 1 | the parsers disagree (an untriaged difference, a failed check): a command's own `Ok(1)`, no error |
//! | 2 | [`Error::Usage`]: a bad flag or command line; [`Error::Input`]: a bad file the user gave (a case file of the corpus, a robots.txt, a report) |
//! | 3 | [`Error::OracleStart`] ([`EXIT_NOT_RUN`]): an oracle could not start, so some parser was not asked |
//! | 4 | [`Error::Ledger`]: the checkout's data, the ledger of known divergences, did not load |
//! | 5 | [`Error::Io`]: the machine: a file or folder could not be read, written or created |
//!
//! It imports no command, only the bottom vocabulary ([`crate::shared`]).

use crate::shared::{Usage, EXIT_NOT_RUN};
use std::path::{Path, PathBuf};

/// Exit status of a usage error or a bad input file.
pub const EXIT_USAGE: i32 = 2;
/// Exit status of checkout data (the ledger) that did not load.
pub const EXIT_DATA: i32 = 4;
/// Exit status of a failure of the machine (a file that could not be
/// read, written or created).
pub const EXIT_IO: i32 = 5;

/// What failed. Each variant's text is what `error: …` says on stderr;
/// [`Error::exit_code`] is its status (the table in the module doc and
/// README.md's "Exit status").
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A bad flag or command line, or a request that cannot be met as
    /// given: nothing was run or written.
    #[error("{0}")]
    Usage(String),
    /// A file the user gave (a corpus case file, a robots.txt, a report)
    /// that cannot be used: the file and, where known, the line.
    #[error("{}: {message}", at(path, *line))]
    Input {
        path: PathBuf,
        line: Option<usize>,
        message: String,
    },
    /// The ledger of known divergences (cases/divergences.yaml and each
    /// harness's own) did not load: the file and, where known, the line.
    #[error("{}: {message}", at(path, *line))]
    Ledger {
        path: PathBuf,
        line: Option<usize>,
        message: String,
    },
    /// An oracle the command cannot do without did not start: which one,
    /// why, and the command line that fixes it.
    #[error("oracle `{oracle}` is unavailable: {reason} (fix: {fix})")]
    OracleStart {
        oracle: String,
        reason: String,
        fix: String,
    },
    /// Reading, writing or creating `path` failed.
    #[error("cannot {doing} {}: {source}", path.display())]
    Io {
        /// What was tried: `read`, `write`, `create`.
        doing: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

impl Error {
    /// The process's exit status for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) | Error::Input { .. } => EXIT_USAGE,
            Error::OracleStart { .. } => EXIT_NOT_RUN,
            Error::Ledger { .. } => EXIT_DATA,
            Error::Io { .. } => EXIT_IO,
        }
    }

    /// `doing` (`read`, `write`, `create`) `path` failed with `source`.
    pub fn io(doing: &'static str, path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            doing,
            path: path.to_path_buf(),
            source,
        }
    }

    /// A bad case file (or any file the engine's loaders read as input).
    pub fn input(e: engine::case::LoadError) -> Error {
        Error::Input {
            path: e.file,
            line: e.line,
            message: e.message,
        }
    }

    /// A ledger file that did not load.
    pub fn ledger(e: engine::case::LoadError) -> Error {
        Error::Ledger {
            path: e.file,
            line: e.line,
            message: e.message,
        }
    }

    /// An oracle that did not start, its fix naming `program`.
    pub fn oracle_start(u: &engine::oracle::Unavailable, program: &str) -> Error {
        Error::OracleStart {
            oracle: u.oracle.clone(),
            reason: u.reason.clone(),
            fix: u.fix_line(program),
        }
    }
}

/// The ~250 sites that build a usage error as `Usage(message)` stay as they
/// are; `?` turns one into [`Error::Usage`].
impl From<Usage> for Error {
    fn from(Usage(message): Usage) -> Error {
        Error::Usage(message)
    }
}

/// A file read back by the census or the report (`census.json`,
/// `adoption.json`, the AI-crawler list, `compat.json`, `suites.json`, the
/// history): the machine's failure or a bad file, as the library says.
impl From<engine::read_error::ReadError> for Error {
    fn from(e: engine::read_error::ReadError) -> Error {
        use engine::read_error::ReadError as R;
        match e {
            R::Io {
                doing,
                path,
                source,
            } => Error::Io {
                doing,
                path,
                source,
            },
            R::Invalid {
                path,
                line,
                message,
            } => Error::Input {
                path,
                line,
                message,
            },
        }
    }
}

/// `file:line` or `file`.
fn at(path: &Path, line: Option<usize>) -> String {
    match line {
        Some(line) => format!("{}:{line}", path.display()),
        None => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_status_and_says_where() {
        let input = Error::input(engine::case::LoadError {
            file: "cases/corpus/x.yaml".into(),
            line: Some(3),
            message: "bad".into(),
        });
        assert_eq!(input.to_string(), "cases/corpus/x.yaml:3: bad");
        assert_eq!(input.exit_code(), 2);
        assert_eq!(Error::from(Usage("no".into())).exit_code(), 2);
        let ledger = Error::Ledger {
            path: "cases/divergences.yaml".into(),
            line: None,
            message: "bad".into(),
        };
        assert_eq!(ledger.to_string(), "cases/divergences.yaml: bad");
        assert_eq!(ledger.exit_code(), 4);
        let u = engine::oracle::Unavailable {
            oracle: "ghost".into(),
            reason: "gone".into(),
            fix: String::new(),
            then_setup: true,
        };
        let start = Error::oracle_start(&u, "cargo xtask");
        assert_eq!(
            start.to_string(),
            "oracle `ghost` is unavailable: gone (fix: cargo xtask setup)"
        );
        assert_eq!(start.exit_code(), EXIT_NOT_RUN);
        let io = Error::io("write", Path::new("out"), std::io::Error::other("full"));
        assert_eq!(io.to_string(), "cannot write out: full");
        assert_eq!(io.exit_code(), 5);
    }
}
