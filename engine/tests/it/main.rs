//! The integration tests of `engine`, one binary (issue 50: one link of the
//! crate instead of one per file, as ripgrep does).

mod hostile;
mod loader;
mod runner;
