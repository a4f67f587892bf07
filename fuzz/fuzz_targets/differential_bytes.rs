//! The raw input is the robots.txt; the queries are aimed at its own first
//! group and rule. Seeded with the corpus bodies.
#![no_main]
use libfuzzer_sys::fuzz_target;
use repdiff_fuzz::{generate::queries_for_body, Harness};

fuzz_target!(
    init: { Harness::init("differential_bytes"); },
    |data: &[u8]| {
        let queries = queries_for_body(data);
        Harness::check("differential_bytes", data, &queries, data);
    }
);
