//! The raw input is the robots.txt; the queries are aimed at its own first
//! group and rule. Seeded with the corpus bodies.
#![no_main]
use fuzzcore::{generate::queries_for_body, Harness};
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: { Harness::init("differential_bytes"); },
    |data: &[u8]| {
        let queries = queries_for_body(data);
        Harness::check("differential_bytes", data, &queries, data);
    }
);
