//! The integration tests of `report`, one binary (issue 50: one link of the
//! crate instead of one per file, as ripgrep does).

mod pages;
mod render;
mod snapshots;
