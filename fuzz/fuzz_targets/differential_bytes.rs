//! The raw input is the robots.txt; the queries are aimed at its own first
//! group and rule. Seeded with the corpus bodies.
#![no_main]
use fuzzcore::{generate::queries_for_body, Harness};
use libfuzzer_sys::{fuzz_target, Corpus};

fuzz_target!(
    init: { Harness::init("differential_bytes"); },
    |data: &[u8]| -> Corpus {
        let queries = queries_for_body(data);
        // Down-weighted (fuzzcore/src/downweight.rs): kept out of the corpus.
        if Harness::check("differential_bytes", data, &queries, data) {
            return Corpus::Reject;
        }
        Corpus::Keep
    }
);
