//! The integration tests of `repdiff`, one binary (issue 50: one link of
//! the crate instead of one per file, as ripgrep does). Two tests keep a
//! binary of their own: `corpus` (a datatest-stable harness, not libtest)
//! and `busy_machine` (its CPU-bound load would slow every test beside it).

mod common;

mod broken_pipe;
mod causes_catalogue;
mod causes_external;
mod census_adoption;
mod census_ai_crawlers;
mod census_warc_sample;
mod cli;
mod doctor;
mod exit_codes;
mod findings;
mod harness_fidelity;
mod hostile_cli;
mod http_server;
mod isolation;
mod killed_run;
mod lint;
mod lint_fetch;
mod one_directory;
mod oracle_contract;
mod profile_http_pins;
mod protocol_schema;
mod question_cpu;
mod reference_consistency;
mod reproducers;
mod results_page;
mod serve;
mod site_browser;
mod site_diff;
mod site_render;
mod speed_loops;
mod suites;
mod two_checkouts;
mod two_runs;
