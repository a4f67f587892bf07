//! How each oracle was obtained, for its page: the registry, the pinned
//! version and hash, and the step that fetched it. Built from the same pins
//! `cargo xtask setup` and the build use, and from Cargo.lock for the crates,
//! so the page cannot drift from what really ran.

use std::collections::BTreeMap;

use oracles::locked;

pub fn all() -> BTreeMap<String, String> {
    let lock = std::fs::read_to_string(crate::paths::root().join("Cargo.lock")).unwrap_or_default();
    let krate = |name: &str| {
        match locked(&lock, name) {
        Some((v, sum)) => format!(
            "the crates.io crate {name} {v}, pinned `={v}` in oracles/Cargo.toml; cargo fetched it and \
             checked it against Cargo.lock (sha256 {sum}); linked into the xtask binary and run in-process \
             in its worker"
        ),
        None => format!("the crates.io crate {name} (not found in Cargo.lock)"),
    }
    };
    let mut m = BTreeMap::new();
    m.insert(
        oracles::rfc9309::NAME.to_string(),
        "repdiff's own executable reading of RFC 9309 (oracles/src/rfc9309/ in this repository), \
         compiled into the xtask binary; the reference the others are compared with, not a third-party parser"
            .to_string(),
    );
    m.insert(
        oracles::texting_robots::NAME.to_string(),
        krate("texting_robots"),
    );
    m.insert(oracles::robotstxt_rs::NAME.to_string(), krate("robotstxt"));
    {
        use oracles::google::pins as g;
        m.insert(
            oracles::google::NAME.to_string(),
            format!(
                "Google's C++ robots.cc, robots.h (upstream google/robotstxt) from the PyPI sdist {}=={} \
                 ({}, sha256 {}), fetched by `cargo xtask setup` with pip --require-hashes; robots.cc \
                 checked against sha256 {}; compiled by oracles/build.rs with g++ against Debian's \
                 libabsl-dev and called through a C shim (oracles/src/google/shim.cc)",
                g::SDIST_NAME,
                g::SDIST_VERSION,
                g::SDIST_FILE,
                g::SDIST_SHA256,
                g::ROBOTS_CC_SHA256
            ),
        );
    }
    {
        use oracles::python::pins as p;
        m.insert(
            oracles::cpython::NAME_311.to_string(),
            format!(
                "urllib.robotparser of the CPython PyO3 was built against ({}; sys.version {}), \
                 embedded through PyO3 (pyenv's build, not Debian's python3)",
                oracles::python::PYO3_PYTHON,
                oracles::python::PYO3_SYS_VERSION.replace('\n', " ")
            ),
        );
        m.insert(
            oracles::cpython::NAME_315.to_string(),
            format!(
                "urllib/robotparser.py of CPython {} (the RFC 9309 rewrite), extracted by `cargo xtask setup` \
                 from python_stdlib.zip (sha256 {}) of the npm package {}@{} ({}, sha256 {}); the file is \
                 checked against sha256 {} and run on the embedded CPython 3.11 runtime; \
                 `cargo xtask verify-cpython315` compares it with CPython {} itself",
                p::CPYTHON_315_RELEASE,
                p::PYODIDE_STDLIB_ZIP_SHA256,
                p::PYODIDE_PACKAGE,
                p::PYODIDE_VERSION,
                p::PYODIDE_TARBALL_URL,
                p::PYODIDE_TARBALL_SHA256,
                p::ROBOTPARSER_315_SHA256,
                p::CPYTHON_315_RELEASE
            ),
        );
        m.insert(
            oracles::protego::NAME.to_string(),
            format!(
                "protego=={} from PyPI (wheel sha256 {}), installed by `cargo xtask setup` with pip \
                 --require-hashes into .cache/{} and embedded through PyO3",
                p::PROTEGO_VERSION,
                p::PROTEGO_WHEEL_SHA256,
                p::PROTEGO_VENV
            ),
        );
        m.insert(
            oracles::protego::NAME_061.to_string(),
            format!(
                "protego=={} from PyPI (wheel sha256 {}), installed by `cargo xtask setup` with pip \
                 --require-hashes into .cache/{} and embedded through PyO3; kept beside the current \
                 release to show how the parser moved",
                p::PROTEGO_061_VERSION,
                p::PROTEGO_061_WHEEL_SHA256,
                p::PROTEGO_061_VENV
            ),
        );
    }
    m
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_cargo_lock() {
        let lock = "[[package]]\nname = \"a\"\nversion = \"1.0.0\"\n\n[[package]]\nname = \"texting_robots\"\nversion = \"0.2.2\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"abc\"\n";
        assert_eq!(
            super::locked(lock, "texting_robots"),
            Some(("0.2.2".into(), "abc".into()))
        );
        assert_eq!(super::locked(lock, "nope"), None);
    }
}
