//! What the Python oracles run, pinned. `repdiff setup` fetches exactly
//! this into the cache; the adapters refuse anything else.

/// protego 0.7.0, the PyPI wheel (pure Python, no dependencies).
pub const PROTEGO_VERSION: &str = "0.7.0";
pub const PROTEGO_WHEEL_SHA256: &str =
    "944638aaee608f6c83fcad442695f3f9381a60be8d5007248f46b00f201fa5fc";
/// Its venv, under the cache folder.
pub const PROTEGO_VENV: &str = "venv";

/// protego 0.6.1, the last release before the token-boundary agent match
/// (wheel sha256 from PyPI's JSON, `releases["0.6.1"]`).
pub const PROTEGO_061_VERSION: &str = "0.6.1";
pub const PROTEGO_061_WHEEL_SHA256: &str =
    "cc8e328c7698b352e8967e5feae770aa597e4965c60bbf7e8200ba8c5017d77b";
pub const PROTEGO_061_VENV: &str = "venv-protego-0.6.1";

/// The npm package that carries CPython 3.15.0rc1's standard library.
pub const PYODIDE_PACKAGE: &str = "pyodide";
pub const PYODIDE_VERSION: &str = "315.0.0-alpha.2";
pub const PYODIDE_TARBALL_URL: &str =
    "https://registry.npmjs.org/pyodide/-/pyodide-315.0.0-alpha.2.tgz";
pub const PYODIDE_TARBALL_SHA256: &str =
    "b4a12d58491af4e3fa4e4f19e79ba22aba972b55ecccf25a37903e1141c57dec";
/// The registry's own `dist.integrity` for the tarball.
pub const PYODIDE_TARBALL_INTEGRITY: &str =
    "sha512-t2S0rr9u1B2XHfooqGbOPT7EelM3kWkj1pJBgtVCn9Am6a1ByuU5FPq0wJHeapgyUM+r8MTx/1YRTXo3DaG2KA==";
/// `python_stdlib.zip` inside it.
pub const PYODIDE_STDLIB_ZIP_SHA256: &str =
    "49e7f2725e1b6e26c6820c05036920f2c177a1603a8f006543e6b62a7de56aad";
/// Where the extracted package lives, under the cache folder.
pub const PYODIDE_DIR: &str = "pyodide";

/// `urllib/robotparser.py` from that zip: CPython 3.15.0rc1's RFC 9309 rewrite.
pub const ROBOTPARSER_315_SHA256: &str =
    "621c586e66d917d99dad44ff698bf9492cf5afc82cf9b3794199a589d553c38f";
/// Where setup puts it, under the cache folder.
pub const ROBOTPARSER_315_PATH: &str = "cpython-3.15.0rc1/urllib/robotparser.py";
/// What it is, for version strings.
pub const CPYTHON_315_RELEASE: &str = "3.15.0rc1";
