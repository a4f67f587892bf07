//! Robustness of one oracle alone (`REPDIFF_FUZZ_ORACLE`, or the binary's
//! name `robust_<oracle>`): panics, crashes and C++ exceptions fail the run;
//! hangs are libFuzzer timeouts. See fuzzcore::robust.
#![no_main]
use arbitrary::{Arbitrary, Unstructured};
use fuzzcore::robust;
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: { robust::init(); },
    |data: &[u8]| {
        let Ok(input) = robust::Input::arbitrary_take_rest(Unstructured::new(data)) else {
            return;
        };
        let (body, queries) = input.render();
        robust::check(&body, &queries);
    }
);
