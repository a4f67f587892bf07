//! The integration tests of `oracles`, one binary (issue 50: one link of the
//! crate instead of one per file, as ripgrep does).
//! `python_unavailable` keeps a binary of its own: it points `REPDIFF_CACHE`
//! at an empty folder for its whole process, which would hide the cache from
//! every test beside it.

mod aipref_profile;
mod google_ffi;
mod profile_pins;
mod python_fidelity;
mod python_runtime;
mod rfc9309_props;
mod roster;
