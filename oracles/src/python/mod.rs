//! What the Python oracles share: the embedded interpreter (PyO3,
//! `auto-initialize`), the glue module `glue.py`, and the mapping of the
//! glue's tagged answers onto [`engine::oracle::Value`].
//!
//! One interpreter per process serves every Python oracle: CPython's own
//! `urllib.robotparser`, the 3.15 file under its own module name, and each
//! protego venv under its own package name, so they never shadow each other.
//!
//! The rpath trap: a binary that links PyO3 without an rpath to the LIBDIR of
//! the interpreter PyO3 was configured with loads whatever
//! `libpython3.11.so.1.0` the loader finds first (Debian's 3.11.2). Every
//! constructor goes through [`check_runtime`], which compares the embedded
//! `sys.version` with the one recorded at build time and refuses to run
//! otherwise. The cure is in the binary's build script; see
//! `oracles/build/python.rs`.

pub mod adapter;
pub mod crosscheck;
pub mod pins;

use engine::oracle::{Answer, Outcome, Query, Unavailable, Value};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyModule, PyTuple};
use std::ffi::CString;
use std::path::{Path, PathBuf};

/// The interpreter PyO3 was built against (`sys.executable` of it).
pub const PYO3_PYTHON: &str = env!("REPDIFF_PYO3_PYTHON");
/// Its `sys.version`, recorded by the build script.
pub const PYO3_SYS_VERSION: &str = env!("REPDIFF_PYO3_SYS_VERSION");
/// Its LIBDIR, the directory of the libpython every final binary must rpath.
pub const PYO3_LIBDIR: &str = env!("REPDIFF_PYO3_LIBDIR");

/// The linked interpreter's home (`sys.base_prefix`), where its standard
/// library lives; empty when the build could not ask it.
pub const PYO3_HOME: &str = env!("REPDIFF_PYO3_HOME");

/// Start the embedded interpreter with [`PYO3_HOME`] as its home, before
/// PyO3 would start it on its own. Left alone, an embedded CPython finds
/// its standard library from the `python3` on PATH: with Debian's 3.11.2
/// first (or no python3 at all), the 3.11.7 library we link loaded another
/// standard library and every Python oracle failed with `No module named
/// '_csv'`, a message that said nothing of PATH. A `PYTHONHOME` the user
/// set is kept. The configuration is the interpreter's own, not an
/// environment variable of this process, so no harness started later
/// inherits it.
pub fn start_interpreter() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if PYO3_HOME.is_empty() || std::env::var_os("PYTHONHOME").is_some() {
            return;
        }
        let Ok(home) = CString::new(PYO3_HOME) else {
            return;
        };
        use pyo3::ffi;
        // SAFETY: the documented PyConfig sequence (init, set, initialise,
        // clear) on a config we own, before any other use of the C API in
        // this process (every Python oracle starts here, under this Once);
        // as PyO3's own initialisation does, the GIL is released after.
        unsafe {
            if ffi::Py_IsInitialized() != 0 {
                return;
            }
            let mut config = std::mem::MaybeUninit::<ffi::PyConfig>::uninit();
            let cfg = config.as_mut_ptr();
            ffi::PyConfig_InitPythonConfig(cfg);
            (*cfg).install_signal_handlers = 0;
            let set = ffi::PyConfig_SetBytesString(cfg, &raw mut (*cfg).home, home.as_ptr());
            if ffi::PyStatus_Exception(set) == 0 {
                let _ = ffi::Py_InitializeFromConfig(cfg);
            }
            ffi::PyConfig_Clear(cfg);
            if ffi::Py_IsInitialized() != 0 {
                ffi::PyEval_SaveThread();
            }
        }
    });
}

/// A Python oracle whose files setup provides is repaired by setup,
/// after `first` (may be empty).
pub fn setup_missing(
    oracle: &str,
    reason: impl Into<String>,
    first: impl Into<String>,
) -> Unavailable {
    Unavailable::needs_setup(oracle, reason, first)
}

const GLUE_SOURCE: &str = include_str!("glue.py");
const GLUE_MODULE: &str = "_repdiff_glue";

static GLUE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// The glue module, loaded once per process.
pub fn glue<'py>(py: Python<'py>) -> PyResult<&'py Bound<'py, PyModule>> {
    let module = GLUE.get_or_try_init(py, || -> PyResult<Py<PyModule>> {
        let code = CString::new(GLUE_SOURCE).expect("glue.py has no NUL byte");
        let file = CString::new("oracles/src/python/glue.py").unwrap();
        let name = CString::new(GLUE_MODULE).unwrap();
        let module = PyModule::from_code(py, &code, &file, &name)?;
        Ok(module.unbind())
    })?;
    Ok(module.bind(py))
}

/// `3.11.7` of a `sys.version` (`3.11.7 (main, May  9 2026, ...) [GCC ...]`):
/// the release, without the build stamp, which differs between machines.
pub fn release(sys_version: &str) -> String {
    sys_version
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// The embedded runtime, as an oracle announces it.
pub fn runtime_of(sys_version: &str) -> engine::oracle::Runtime {
    engine::oracle::Runtime {
        name: "CPython".into(),
        version: release(sys_version),
    }
}

/// `sys.version` of the embedded interpreter and the libpython file mapped
/// into this process.
pub fn runtime() -> PyResult<(String, String)> {
    start_interpreter();
    Python::attach(|py| glue(py)?.call_method0("runtime")?.extract())
}

/// The embedded interpreter's `sys.version`, if it is the one PyO3 was built
/// against; otherwise why not, for `oracle`.
pub fn check_runtime(oracle: &str) -> Result<String, Unavailable> {
    let (version, lib) = runtime().map_err(|e| {
        unavailable(
            oracle,
            format!(
                "the embedded Python cannot load repdiff's glue: {}",
                describe(&e)
            ),
            "check that PyO3's interpreter (PYO3_PYTHON) is a working CPython 3.11",
        )
    })?;
    if PYO3_SYS_VERSION.is_empty() {
        return Err(unavailable(
            oracle,
            format!("the build could not run `{PYO3_PYTHON}` to record its sys.version"),
            "make PYO3_PYTHON (or python3 on PATH) a working interpreter, then cargo build",
        ));
    }
    if version != PYO3_SYS_VERSION {
        return Err(unavailable(
            oracle,
            format!(
                "the embedded interpreter is `{version}` (libpython {lib}), but PyO3 was built \
                 against `{PYO3_SYS_VERSION}` ({PYO3_PYTHON}): this binary has no rpath to \
                 {PYO3_LIBDIR}"
            ),
            format!(
                "call pyo3_build_config::add_libpython_rpath_link_args() in the build script \
                 of the crate that links this binary (see oracles/build/python.rs), or run \
                 with LD_LIBRARY_PATH={PYO3_LIBDIR}"
            ),
        ));
    }
    Ok(version)
}

pub fn unavailable(oracle: &str, reason: impl Into<String>, fix: impl Into<String>) -> Unavailable {
    Unavailable {
        oracle: oracle.to_string(),
        reason: reason.into(),
        fix: fix.into(),
        then_setup: false,
    }
}

/// `site-packages` of a venv made by setup, if present.
pub fn site_packages(venv: &Path) -> Option<PathBuf> {
    let lib = venv.join("lib");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&lib)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("site-packages"))
        .filter(|p| p.is_dir())
        .collect();
    found.sort();
    found.pop()
}

/// "TypeName: message" of a Python exception.
pub fn describe(err: &PyErr) -> String {
    Python::attach(|py| {
        let (kind, message) = error_parts(py, err);
        format!("{kind}: {message}")
    })
}

fn error_parts(py: Python<'_>, err: &PyErr) -> (String, String) {
    let kind = err
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "BaseException".to_string());
    let message = err
        .value(py)
        .str()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    (kind, message)
}

/// Every query answered by the exception `err` (raised while parsing, or by
/// the glue itself).
pub fn error_all(py: Python<'_>, err: &PyErr, n: usize) -> Vec<Answer> {
    let (kind, message) = error_parts(py, err);
    (0..n)
        .map(|_| {
            Answer::from(Outcome::Error {
                kind: kind.clone(),
                message: message.clone(),
            })
        })
        .collect()
}

/// Queries as the glue takes them: `[(ask, agent, url), ...]`.
pub fn py_queries(queries: &[Query]) -> Vec<(&'static str, &str, &str)> {
    queries
        .iter()
        .map(|q| (q.ask.as_str(), q.agent.as_str(), q.url.as_str()))
        .collect()
}

/// Call glue function `func(target, body, queries, *extra)` and map its answers.
pub fn call_glue<'py>(
    py: Python<'py>,
    func: &str,
    args: Bound<'py, PyTuple>,
    n: usize,
) -> Vec<Answer> {
    let result = glue(py).and_then(|g| g.call_method1(func, args));
    match result.and_then(|list| list.extract::<Vec<Bound<'py, PyAny>>>()) {
        Ok(items) if items.len() == n => items
            .iter()
            .map(|item| {
                answer(item).unwrap_or_else(|e| {
                    Answer::from(Outcome::Error {
                        kind: "repdiff.GlueError".into(),
                        message: format!("cannot read the glue's answer: {}", describe(&e)),
                    })
                })
            })
            .collect(),
        Ok(items) => (0..n)
            .map(|_| {
                Answer::from(Outcome::Error {
                    kind: "repdiff.GlueError".into(),
                    message: format!("glue returned {} answers for {n} queries", items.len()),
                })
            })
            .collect(),
        Err(e) => error_all(py, &e, n),
    }
}

/// `func(target, body, queries)`: the one call shape every parse-and-ask
/// glue function has, for the adapters that differ only in which one.
pub fn run_glue(target: &Py<PyAny>, func: &str, body: &[u8], queries: &[Query]) -> Vec<Answer> {
    Python::attach(|py| {
        let args = (
            target.bind(py).clone(),
            py_body(py, body),
            py_queries(queries),
        );
        match args.into_pyobject(py) {
            Ok(args) => call_glue(py, func, args, queries.len()),
            Err(e) => error_all(py, &e, queries.len()),
        }
    })
}

/// The body as Python `bytes`.
pub fn py_body<'py>(py: Python<'py>, body: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, body)
}

fn value(value: Value) -> Answer {
    Answer::from(Outcome::Value { value })
}

/// One tagged tuple of the glue (see glue.py's docstring) as an answer.
fn answer(item: &Bound<'_, PyAny>) -> PyResult<Answer> {
    let tag: String = item.get_item(0)?.extract()?;
    Ok(match tag.as_str() {
        "allowed" => Answer::from(Outcome::Allowed),
        "disallowed" => Answer::from(Outcome::Disallowed),
        "none" => value(Value::None),
        "int" => value(Value::Int(item.get_item(1)?.extract()?)),
        "bigint" => {
            // Value::Int is an i64: a larger Python int is shown as the float
            // a user comparing numbers would see, and the explanation says so.
            let digits: String = item.get_item(1)?.extract()?;
            Answer {
                outcome: Outcome::Value {
                    value: Value::Float(digits.parse().unwrap_or(f64::NAN)),
                },
                explain: format!("int {digits} does not fit i64; shown as float"),
                line: None,
            }
        }
        "float" => value(Value::Float(item.get_item(1)?.extract()?)),
        "rate" => Answer {
            outcome: Outcome::Value {
                value: Value::Rate {
                    requests: item.get_item(1)?.extract()?,
                    seconds: item.get_item(2)?.extract()?,
                },
            },
            explain: item.get_item(3)?.extract()?,
            line: None,
        },
        "list" => {
            let raw: Vec<Vec<u8>> = item.get_item(1)?.extract()?;
            value(Value::List(
                raw.iter()
                    .map(|b| String::from_utf8_lossy(b).into_owned())
                    .collect(),
            ))
        }
        "error" => Answer::from(Outcome::Error {
            kind: item.get_item(1)?.extract()?,
            message: item.get_item(2)?.extract()?,
        }),
        "unrepresentable" => Answer::from(Outcome::Error {
            kind: "repdiff.Unrepresentable".into(),
            message: format!(
                "{} does not fit Value::Rate (u64/u64)",
                item.get_item(1)?.extract::<String>()?
            ),
        }),
        _ => Answer::from(Outcome::Error {
            kind: "repdiff.UnexpectedType".into(),
            message: item.get_item(1)?.extract()?,
        }),
    })
}

#[cfg(test)]
mod tests {
    /// The lib's own unit-test binary links libpython too: the build script's
    /// rpath must reach it.
    #[test]
    fn unit_test_binary_embeds_the_python_pyo3_was_built_against() {
        let (version, lib) = super::runtime().expect("glue loads");
        assert_eq!(
            version,
            super::PYO3_SYS_VERSION,
            "embedded libpython is {lib}, not the one in {}",
            super::PYO3_LIBDIR
        );
    }
}
