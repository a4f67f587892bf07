//! One structured input (a robots.txt model plus queries aimed at it) to
//! every in-process oracle and rfc9309; disagreements triaged in the loop.
#![no_main]
use arbitrary::{Arbitrary, Unstructured};
use fuzzcore::{generate::Model, Harness};
use libfuzzer_sys::{fuzz_target, Corpus};

fuzz_target!(
    init: { Harness::init("differential"); },
    |data: &[u8]| -> Corpus {
        let Ok(model) = Model::arbitrary_take_rest(Unstructured::new(data)) else {
            return Corpus::Keep;
        };
        let (body, queries) = model.render();
        // Down-weighted (fuzzcore/src/downweight.rs): kept out of the corpus.
        if Harness::check("differential", &body, &queries, data) {
            return Corpus::Reject;
        }
        Corpus::Keep
    }
);
