//! The rpath trap, final-binary half (see oracles/build/python.rs): every
//! fuzz target embeds CPython through the oracles, and a dependency's
//! link-arg does not reach a final binary. Without this rpath to the LIBDIR
//! of the interpreter PyO3 was configured with, the loader picks Debian's
//! libpython3.11 and every Python oracle reports itself unavailable.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    pyo3_build_config::add_libpython_rpath_link_args();
}
