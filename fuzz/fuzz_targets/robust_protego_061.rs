//! Robustness of `protego-0.6.1` alone: panics, crashes and C++ exceptions fail the
//! run; hangs are libFuzzer timeouts.
#![no_main]
use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use repdiff_fuzz::robust;

fuzz_target!(
    init: { robust::init("protego-0.6.1"); },
    |data: &[u8]| {
        let Ok(input) = robust::Input::arbitrary_take_rest(Unstructured::new(data)) else {
            return;
        };
        let (body, queries) = input.render();
        robust::check("protego-0.6.1", &body, &queries);
    }
);
