//! Why a file this crate reads could not be used, as a type: the library
//! says what failed and where; the binary decides what it costs (its exit
//! status: a machine failure or a bad input file, `repdiff/src/error.rs`).

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be read (or written back) at all.
    #[error("{}: cannot {doing}: {source}", path.display())]
    Io {
        /// What was tried: `read`, `write`.
        doing: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file was read but is not what it should be: its path, the line
    /// where the parser knows it (JSON errors carry theirs in `message`),
    /// and what is wrong.
    #[error("{}{}: {message}", path.display(), line.map_or(String::new(), |l| format!(":{l}")))]
    Invalid {
        path: PathBuf,
        line: Option<usize>,
        message: String,
    },
}

impl ReadError {
    pub(crate) fn read(path: &Path, source: std::io::Error) -> ReadError {
        ReadError::Io {
            doing: "read",
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn invalid(path: &Path, message: impl Into<String>) -> ReadError {
        ReadError::Invalid {
            path: path.to_path_buf(),
            line: None,
            message: message.into(),
        }
    }
}
