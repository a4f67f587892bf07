//! protego (Scrapy's robots.txt parser), embedded through PyO3, one oracle
//! per venv made by `repdiff setup`:
//!
//! - `protego`: 0.7.0 in `.cache/venv` (token-boundary agent match);
//! - `protego-0.6.1`: 0.6.1 in `.cache/venv-protego-0.6.1` (substring match:
//!   `User-agent: bot` still applies to `MyBot`).
//!
//! Each venv's package is loaded under its own module name, so both versions
//! live in one interpreter. Fed as `Protego.parse(text)` with the body decoded
//! as Scrapy's `ProtegoRobotParser` decodes it (`utf-8-sig`, errors
//! ignored: a BOM goes, a byte that is not UTF-8 is dropped), once per case; then `can_fetch(url, agent)`
//! (protego's argument order), `crawl_delay(agent)`, `request_rate(agent)`
//! (its start/end times go to the answer's explanation), `sitemaps`.

use crate::python::adapter::GlueOracle;
use crate::python::{self, pins};
use engine::oracle::{About, Oracle, Provenance, Unavailable};
use pyo3::prelude::*;

pub const NAME: &str = "protego";
pub const NAME_061: &str = "protego-0.6.1";

pub fn make() -> Result<Box<dyn Oracle>, Unavailable> {
    make_from_venv(
        NAME,
        pins::PROTEGO_VENV,
        pins::PROTEGO_VERSION,
        pins::PROTEGO_WHEEL_SHA256,
    )
}

pub fn make_061() -> Result<Box<dyn Oracle>, Unavailable> {
    make_from_venv(
        NAME_061,
        pins::PROTEGO_061_VENV,
        pins::PROTEGO_061_VERSION,
        pins::PROTEGO_061_WHEEL_SHA256,
    )
}

/// The adapter for the protego of `<cache>/<venv>`, which must be `expected`.
pub fn make_from_venv(
    name: &'static str,
    venv: &str,
    expected: &str,
    wheel_sha256: &str,
) -> Result<Box<dyn Oracle>, Unavailable> {
    let venv_dir = crate::cache_dir().join(venv);
    let Some(site) = python::site_packages(&venv_dir) else {
        return Err(python::setup_missing(
            name,
            format!(
                "venv {} is missing (protego {expected})",
                venv_dir.display()
            ),
            "",
        ));
    };
    if !site.join("protego").join("__init__.py").is_file() {
        return Err(python::setup_missing(
            name,
            format!("protego is not installed in {}", site.display()),
            "",
        ));
    }
    let sys_version = python::check_runtime(name)?;
    let module_name = format!(
        "_repdiff_protego_{}",
        venv.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
    );
    let site_str = site.to_string_lossy().into_owned();
    let loaded = Python::attach(|py| -> PyResult<(Py<PyAny>, String)> {
        let glue = python::glue(py)?;
        let (class, version): (Bound<'_, PyAny>, String) = glue
            .call_method1("protego", (site_str.as_str(), module_name.as_str()))?
            .extract()?;
        Ok((class.unbind(), version))
    });
    let (class, version) = loaded.map_err(|e| {
        python::setup_missing(
            name,
            format!(
                "cannot load protego from {site_str}: {}",
                python::describe(&e)
            ),
            format!("rm -rf {}", venv_dir.display()),
        )
    })?;
    if version != expected {
        return Err(python::setup_missing(
            name,
            format!(
                "{} holds protego {version}, expected {expected}",
                venv_dir.display()
            ),
            format!("rm -rf {}", venv_dir.display()),
        ));
    }
    Ok(Box::new(GlueOracle {
        name,
        about: About {
            library: "protego".into(),
            version: version.clone(),
            language: "python".into(),
            runtime: python::runtime_of(&sys_version),
            provenance: Provenance {
                registry: "pypi".into(),
                package: "protego".into(),
                version,
                artifact: "wheel".into(),
                sha256: wheel_sha256.into(),
                ..Provenance::default()
            },
            feeding: "Protego.parse(body.decode(\"utf-8-sig\", errors=\"ignore\")), as Scrapy's ProtegoRobotParser feeds it".into(),
        },
        class,
        run: "run_protego",
        // Protego parses text; fetching is left to Scrapy.
        fetcher: None,
    }))
}
