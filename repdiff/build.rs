//! The rpath trap, final-binary half (see oracles/build/python.rs): xtask
//! embeds CPython through the oracles, and a link-arg of a dependency's build
//! script does not reach this binary. Without this rpath to the LIBDIR of the
//! interpreter PyO3 was configured with, the loader picks Debian's
//! libpython3.11 (3.11.2) instead of pyenv's 3.11.7, and every Python oracle
//! reports itself unavailable. Applies to the bin and test binaries of this crate.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    pyo3_build_config::add_libpython_rpath_link_args();
}
