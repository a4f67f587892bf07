//! The rpath trap (see oracles/build/python.rs), for this crate's own test
//! binaries: they embed CPython through the oracles, and a dependency's
//! link-arg does not reach them. Without an rpath to the LIBDIR of the
//! interpreter PyO3 was configured with, the loader picks Debian's
//! libpython3.11 and the lane's tests find no Python oracle. (The fuzz
//! targets are final binaries of another crate: fuzz/build.rs does the same
//! for them.)

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    pyo3_build_config::add_libpython_rpath_link_args();
}
