//! Why a file read back could not be used, as a type: the libraries that
//! read their own outputs and data (census, report) say what failed and
//! where; the binary decides what it costs (its exit status: a machine
//! failure or a bad input file, `repdiff/src/error.rs`). One type for both,
//! so the binary maps it once.

use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub enum ReadError {
    /// The file could not be read (or written back) at all.
    Io {
        /// What was tried: `read`, `write`.
        doing: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file was read but is not what it should be: its path, the line
    /// where the parser knows it (JSON errors carry theirs in `message`),
    /// and what is wrong.
    Invalid {
        path: PathBuf,
        line: Option<usize>,
        message: String,
    },
}

impl ReadError {
    pub fn read(path: &Path, source: std::io::Error) -> ReadError {
        ReadError::Io {
            doing: "read",
            path: path.to_path_buf(),
            source,
        }
    }

    pub fn invalid(path: &Path, message: impl Into<String>) -> ReadError {
        ReadError::Invalid {
            path: path.to_path_buf(),
            line: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io {
                doing,
                path,
                source,
            } => write!(f, "{}: cannot {doing}: {source}", path.display()),
            ReadError::Invalid {
                path,
                line: Some(line),
                message,
            } => write!(f, "{}:{line}: {message}", path.display()),
            ReadError::Invalid {
                path,
                line: None,
                message,
            } => write!(f, "{}: {message}", path.display()),
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Io { source, .. } => Some(source),
            ReadError::Invalid { .. } => None,
        }
    }
}
