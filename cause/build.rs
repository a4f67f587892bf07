//! The rpath trap (see oracles/build/python.rs), for this crate's test
//! binary: the catalogue's tests embed CPython through the oracles, and a
//! dependency's link-arg does not reach a test binary. Without an rpath to
//! the LIBDIR of the interpreter PyO3 was configured with, the loader picks
//! Debian's libpython3.11.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    pyo3_build_config::add_libpython_rpath_link_args();
}
