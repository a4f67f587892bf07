//! Setup of the cross-suite scoreboard: each parser's own test suite, taken
//! from the registry artifact the parser ships in (pinned by sha256), run in
//! its own runtime against a recording shim of its own parser
//! (`oracles/harness/<oracle>/suite/`, or `oracles/harness/suites/` for the
//! one several Python suites share), saved as `.cache/suites/<suite>.json`.
//!
//! Running the suite, rather than reading its source, is what makes the
//! expectations trustworthy: a call recorded in a test that passed returned
//! the verdict the test accepted. Idempotent: a suite whose inputs (pinned
//! files, shims, format) hash as the saved file says is not captured again.

pub mod golang;
pub mod jvm;
pub mod native;
pub mod node;
pub mod python;

use super::{sha256_file, sha256_hex, Ctx, Result};
use crate::suites::model::{self, PinnedFile, Raw, Suite};
use std::path::{Path, PathBuf};

const PIECE: &str = "suites";

/// What a suite is captured from, once fetched and verified.
pub struct Prepared {
    /// (label, path, sha256) of each third-party file the capture reads.
    pub files: Vec<(String, PathBuf, String)>,
    /// Our own files the capture runs (shims), hashed into the inputs.
    pub shims: Vec<PathBuf>,
    pub source: String,
    pub runtime: String,
    pub notes: Vec<String>,
}

type Prepare = fn(&Ctx, bool) -> Result<Prepared>;
type Capture = fn(&Ctx, &Prepared, &Path) -> Result<Raw>;

pub struct Spec {
    pub suite: &'static str,
    /// The oracle running the parser whose suite this is.
    pub oracle: &'static str,
    prepare: Prepare,
    capture: Capture,
}

/// Every suite setup knows how to capture, in scoreboard order.
pub fn specs() -> Vec<Spec> {
    vec![
        Spec {
            suite: "google",
            oracle: "google",
            prepare: native::prepare_google,
            capture: native::capture_google,
        },
        Spec {
            suite: "texting-robots",
            oracle: "texting-robots",
            prepare: native::prepare_texting,
            capture: native::capture_texting,
        },
        Spec {
            suite: "cpython",
            oracle: "cpython-3.11",
            prepare: python::prepare_cpython,
            capture: python::capture_cpython,
        },
        Spec {
            suite: "protego",
            oracle: "protego",
            prepare: python::prepare_protego,
            capture: python::capture_protego,
        },
        Spec {
            suite: "robotspy",
            oracle: "robotspy",
            prepare: python::prepare_robotspy,
            capture: python::capture_robotspy,
        },
        Spec {
            suite: "robots-parser",
            oracle: "robots-parser",
            prepare: node::prepare,
            capture: node::capture,
        },
        Spec {
            suite: "crawler-commons",
            oracle: "crawler-commons",
            prepare: jvm::prepare_crawler_commons,
            capture: jvm::capture_crawler_commons,
        },
        Spec {
            suite: "grobotstxt",
            oracle: "grobotstxt",
            prepare: golang::prepare_grobotstxt,
            capture: golang::capture_grobotstxt,
        },
        Spec {
            suite: "temoto-robotstxt",
            oracle: "temoto-robotstxt",
            prepare: golang::prepare_temoto_robotstxt,
            capture: golang::capture_temoto_robotstxt,
        },
        Spec {
            suite: "robotexclusionrulesparser",
            oracle: "robotexclusionrulesparser",
            prepare: python::prepare_rerp,
            capture: python::capture_rerp,
        },
    ]
}

/// The setup step: capture every suite that is missing or out of date.
/// One suite failing does not stop the others; the first error is returned
/// after all were tried, the rest printed.
pub fn ensure(ctx: &Ctx, verbose: bool) -> Result<()> {
    let mut first = None;
    for spec in specs() {
        if let Err(e) = ensure_one(ctx, verbose, &spec) {
            if first.is_some() {
                log::error!("{e}");
            } else {
                first = Some(e);
            }
        }
    }
    first.map_or(Ok(()), Err)
}

fn ensure_one(ctx: &Ctx, verbose: bool, spec: &Spec) -> Result<()> {
    let prepared = (spec.prepare)(ctx, verbose)?;
    let inputs = inputs_hash(ctx, &prepared)?;
    if model::load(&ctx.cache, spec.suite).is_some_and(|s| s.inputs == inputs) {
        if verbose {
            log::info!("setup: suites: {} captured", spec.suite);
        }
        return Ok(());
    }
    let work = model::dir(&ctx.cache).join("work").join(spec.suite);
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| io_err(ctx, &work, e))?;
    log::info!(
        "setup: suites: running {}'s own tests ({})",
        spec.suite,
        prepared.runtime
    );
    let raw = (spec.capture)(ctx, &prepared, &work)?;
    let (assertions, skipped) = model::normalise(spec.suite, &raw);
    let tests_passed = raw.tests.values().filter(|s| *s == "passed").count();
    let suite = Suite {
        format: model::FORMAT.into(),
        suite: spec.suite.into(),
        oracle: spec.oracle.into(),
        source: prepared.source.clone(),
        files: prepared
            .files
            .iter()
            .map(|(label, _, sha)| PinnedFile {
                file: label.clone(),
                sha256: sha.clone(),
            })
            .collect(),
        runtime: prepared.runtime.clone(),
        inputs,
        tests_total: raw.tests.len(),
        tests_passed,
        not_passed: raw
            .tests
            .iter()
            .filter(|(_, s)| *s != "passed")
            .map(|(t, s)| (t.clone(), s.clone()))
            .collect(),
        assertions,
        skipped,
        notes: prepared.notes.clone(),
    };
    if suite.assertions.is_empty() {
        return Err(ctx.err(
            PIECE,
            format!("{}: the capture recorded no assertion", spec.suite),
            format!(
                "look at {} and run `{} setup` again",
                work.display(),
                ctx.program
            ),
        ));
    }
    let path = model::path(&ctx.cache, spec.suite);
    let json = serde_json::to_vec_pretty(&suite).unwrap_or_default();
    std::fs::write(&path, json).map_err(|e| io_err(ctx, &path, e))?;
    log::info!(
        "setup: suites: {}: {}/{} tests passed, {} assertions, {} skipped -> {}",
        spec.suite,
        suite.tests_passed,
        suite.tests_total,
        suite.assertions.len(),
        suite.skipped.len(),
        path.display()
    );
    Ok(())
}

/// Every pinned hash and every shim's bytes, with the format: what decides
/// whether a saved capture is still the capture of these inputs.
fn inputs_hash(ctx: &Ctx, prepared: &Prepared) -> Result<String> {
    let mut all = String::from(model::FORMAT);
    for (label, _, sha) in &prepared.files {
        all.push_str(&format!("\n{label} {sha}"));
    }
    for shim in &prepared.shims {
        let sha = sha256_file(shim).map_err(|e| io_err(ctx, shim, e))?;
        all.push_str(&format!("\n{} {sha}", shim.display()));
    }
    Ok(sha256_hex(all.as_bytes()))
}

/// Where an oracle's capture shims live in the checkout: `suite/` of its
/// own directory.
pub fn shim(ctx: &Ctx, oracle: &str, name: &str) -> PathBuf {
    ctx.root
        .join("oracles/harness")
        .join(oracle)
        .join("suite")
        .join(name)
}

/// A capture shim several suites share (`capture_py.py`, for CPython's,
/// protego's and robotspy's pytest and unittest runs; `go_capture.py`, for
/// the two Go suites).
pub fn shared_shim(ctx: &Ctx, name: &str) -> PathBuf {
    ctx.root.join("oracles/harness/suites").join(name)
}

pub fn io_err(ctx: &Ctx, path: &Path, e: std::io::Error) -> super::SetupError {
    ctx.err(
        PIECE,
        format!("{}: {e}", path.display()),
        "check permissions on the cache folder (or set REPDIFF_CACHE)",
    )
}

/// Read the JSON a shim wrote, naming the run that should have written it.
pub fn read_raw(ctx: &Ctx, path: &Path, what: &str, log: &str) -> Result<Raw> {
    let bytes = std::fs::read(path).map_err(|e| {
        ctx.err(
            PIECE,
            format!(
                "{what} wrote no capture ({}: {e}); its output:\n    {log}",
                path.display()
            ),
            format!("{} setup", ctx.program),
        )
    })?;
    serde_json::from_slice(&bytes).map_err(|e| {
        ctx.err(
            PIECE,
            format!("{}: not a capture: {e}", path.display()),
            format!("{} setup", ctx.program),
        )
    })
}

/// The last lines of a command's output, for error messages.
pub fn tail(out: &std::process::Output) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text.lines().rev().take(12).collect();
    lines.into_iter().rev().collect::<Vec<_>>().join("\n    ")
}

#[cfg(test)]
mod tests {
    /// `suites` looks for exactly the suites setup captures: a suite added
    /// to one list and not the other would be silently never asked, or
    /// always reported missing.
    #[test]
    fn setup_captures_the_suites_the_command_asks() {
        let captured: Vec<(&str, &str)> =
            super::specs().iter().map(|s| (s.suite, s.oracle)).collect();
        assert_eq!(captured, crate::suites::SUITES);
    }
}
