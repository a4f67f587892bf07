//! repdiff, the product: conformance runs, ad-hoc checks, lint for a
//! robots.txt's authors, the report site,
//! the oracle list, the census, the suites matrix and the worker entry point. A library so that two binaries
//! serve the same commands: the installed `repdiff` and `cargo xtask` (whose
//! own binary is also the worker every supervised oracle is started as).
//! This crate never imports xtask: developer tooling builds on the product,
//! not the other way round.

pub mod census_causes;
pub mod census_cmd;
pub mod chaos;
pub mod check;
pub mod cli;
pub mod conformance;
pub mod datasets;
pub mod deciding;
pub mod doctor;
pub mod error;
pub mod findings;
pub mod http;
pub mod lint;
pub mod logging;
pub mod output;
pub mod paths;
pub mod progress;
pub mod registry;
pub mod report_site;
pub mod select;
pub mod serve;
pub mod setup;
pub mod shared;
pub mod slow;
pub mod speed;
pub mod suites;
pub mod template;
pub mod triage;
