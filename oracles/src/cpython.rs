//! CPython's `urllib.robotparser`, two generations, embedded through PyO3.
//!
//! - `cpython-3.11`: the standard library of the interpreter PyO3 links
//!   (pyenv's CPython 3.11.7): the pre-RFC parser.
//! - `cpython-3.15`: `urllib/robotparser.py` of CPython 3.15.0rc1 (from the
//!   npm package pyodide 315.0.0-alpha.2, fetched by `repdiff setup`),
//!   the RFC 9309 rewrite, loaded unmodified under its own module name with a
//!   private `urllib` namespace (see `python/glue.py`), run on the 3.11 runtime.
//!
//! Fed as each version's `read()` feeds it: `body.decode("utf-8")` (3.11,
//! strict: a byte that is not UTF-8 makes `read()` raise, so every
//! question fails) or `body.decode("utf-8", "surrogateescape")` (3.15),
//! `.splitlines()` into `parse()`, once per case; then `can_fetch(agent, url)`,
//! `crawl_delay(agent)`, `request_rate(agent)`, `site_maps()` (its `None` is
//! [`Value::None`], not an empty list). Both own a fetcher (`set_url` +
//! `read`), so `run_fetch` is real HTTP with the socket timeout of
//! [`crate::fetch_timeout`].
//!
//! [`Value::None`]: engine::oracle::Value::None

use crate::python::adapter::{Fetcher, GlueOracle};
use crate::python::{self, pins};
use engine::oracle::{About, Oracle, Provenance, Unavailable};
use pyo3::prelude::*;

pub const NAME_311: &str = "cpython-3.11";

/// How both CPythons are fed (see `run_cpython_311`/`_315` in glue.py).
const FEEDING: &str =
    "RobotFileParser.parse(lines) with the body decoded as this version's read() does, or read() itself for HTTP cases";
pub const NAME_315: &str = "cpython-3.15";

/// `RobotFileParser` fed by `run` (the glue function that decodes as this
/// version's `read()` does), its own `read()` by `fetch_cpython`.
fn adapter(
    name: &'static str,
    run: &'static str,
    about: About,
    class: Py<PyAny>,
) -> Box<dyn Oracle> {
    Box::new(GlueOracle {
        name,
        about,
        class,
        run,
        fetcher: Some(Fetcher {
            glue: "fetch_cpython",
            timeout_secs: crate::fetch_timeout().as_secs_f64(),
        }),
    })
}

/// `cpython-3.11`: the runtime's own `urllib.robotparser`.
pub fn make_311() -> Result<Box<dyn Oracle>, Unavailable> {
    let sys_version = python::check_runtime(NAME_311)?;
    if !sys_version.starts_with("3.11.") {
        return Err(python::unavailable(
            NAME_311,
            format!("PyO3 links CPython {sys_version}, not 3.11"),
            "build with PYO3_PYTHON pointing at pyenv's CPython 3.11 (e.g. ~/.pyenv/versions/3.11.7/bin/python3)",
        ));
    }
    let class = Python::attach(|py| -> PyResult<Py<PyAny>> {
        Ok(python::glue(py)?.call_method0("cpython_stdlib")?.unbind())
    })
    .map_err(|e| {
        python::unavailable(
            NAME_311,
            python::describe(&e),
            "check the CPython 3.11 install",
        )
    })?;
    let release = python::release(&sys_version);
    Ok(adapter(
        NAME_311,
        "run_cpython_311",
        About {
            library: "urllib.robotparser".into(),
            version: release.clone(),
            language: "python".into(),
            runtime: python::runtime_of(&sys_version),
            provenance: Provenance {
                registry: "python.org".into(),
                package: "cpython".into(),
                version: release,
                build: "pyenv's build, embedded through PyO3".into(),
                ..Provenance::default()
            },
            feeding: FEEDING.into(),
        },
        class,
    ))
}

/// `cpython-3.15`: robotparser.py of 3.15.0rc1 from the setup cache.
pub fn make_315() -> Result<Box<dyn Oracle>, Unavailable> {
    let path = crate::cache_dir().join(pins::ROBOTPARSER_315_PATH);
    if !path.is_file() {
        return Err(python::setup_missing(
            NAME_315,
            format!(
                "{} is missing (robotparser.py of CPython {} from pyodide {})",
                path.display(),
                pins::CPYTHON_315_RELEASE,
                pins::PYODIDE_VERSION
            ),
            "",
        ));
    }
    let sys_version = python::check_runtime(NAME_315)?;
    let path_str = path.to_string_lossy().into_owned();
    let class = Python::attach(|py| -> PyResult<Py<PyAny>> {
        let glue = python::glue(py)?;
        Ok(glue
            .call_method1(
                "cpython315",
                (path_str.as_str(), pins::ROBOTPARSER_315_SHA256),
            )?
            .unbind())
    })
    .map_err(|e| {
        python::setup_missing(
            NAME_315,
            format!("cannot load {path_str}: {}", python::describe(&e)),
            format!("rm -rf {}", path.display()),
        )
    })?;
    Ok(adapter(
        NAME_315,
        "run_cpython_315",
        About {
            library: "urllib.robotparser".into(),
            version: pins::CPYTHON_315_RELEASE.into(),
            language: "python".into(),
            runtime: python::runtime_of(&sys_version),
            provenance: Provenance {
                registry: "npm".into(),
                package: pins::PYODIDE_PACKAGE.into(),
                version: pins::PYODIDE_VERSION.into(),
                artifact: format!("python_stdlib.zip: {}", pins::ROBOTPARSER_315_PATH),
                sha256: pins::ROBOTPARSER_315_SHA256.into(),
                integrity: pins::PYODIDE_TARBALL_INTEGRITY.into(),
                ..Provenance::default()
            },
            feeding: FEEDING.into(),
        },
        class,
    ))
}
