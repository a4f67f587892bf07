//! Why a file this crate reads could not be used: the engine's
//! [`ReadError`], shared with the other crates that read files back, so the
//! binary maps one type onto its exit statuses.

pub use engine::read_error::ReadError;
