//! Build-script half of the Python oracles (feature `python`).
//!
//! 1. The rpath trap: without an rpath, a binary linking PyO3 silently loads
//!    the first `libpython3.11.so.1.0` the dynamic loader finds (Debian's
//!    3.11.2 in /usr/lib) instead of the one of the interpreter PyO3 was
//!    configured with (pyenv's 3.11.7). `cargo::rustc-link-arg` from this
//!    build script reaches this package's own test, bench and example
//!    binaries only; every other final binary (xtask, fuzz targets) needs the
//!    same line from its own build script: `pyo3_build_config::
//!    add_libpython_rpath_link_args()` with a direct `pyo3` dependency.
//! 2. What PyO3 was built against, recorded for run-time checks: the
//!    interpreter's path (`REPDIFF_PYO3_PYTHON`), its `sys.version`
//!    (`REPDIFF_PYO3_SYS_VERSION`) and its LIBDIR (`REPDIFF_PYO3_LIBDIR`).
//!    `src/python/mod.rs` refuses to run when the embedded interpreter's
//!    `sys.version` differs from the recorded one.
//! 3. Its home (`sys.base_prefix`, `REPDIFF_PYO3_HOME`): an embedded
//!    interpreter finds its standard library from the `python3` it looks up
//!    on PATH, so with Debian's 3.11.2 first on PATH (or none) the 3.11.7
//!    library loaded Debian's modules and failed on `_csv`.
//!    `src/python/mod.rs` starts the interpreter with this home instead.

pub fn build() {
    println!("cargo::rerun-if-changed=build/python.rs");
    #[cfg(feature = "python")]
    imp::build();
}

#[cfg(feature = "python")]
mod imp {
    use std::process::Command;

    fn env(key: &str, value: &str) {
        // rustc-env values end at the newline.
        println!("cargo::rustc-env={key}={}", value.replace('\n', " "));
    }

    pub fn build() {
        let config = pyo3_build_config::get();
        pyo3_build_config::add_libpython_rpath_link_args();
        let exe = config.executable().unwrap_or_default().to_string();
        let lib_dir = config.lib_dir().unwrap_or_default().to_string();
        // Two prefixes, then the version (which may itself hold a newline).
        let script =
            "import sys; print(sys.base_prefix); print(sys.base_exec_prefix); print(sys.version)";
        let out = if exe.is_empty() {
            String::new()
        } else {
            match Command::new(&exe).args(["-c", script]).output() {
                Ok(out) if out.status.success() => {
                    String::from_utf8_lossy(&out.stdout).into_owned()
                }
                _ => String::new(),
            }
        };
        let mut lines = out.lines();
        let (prefix, exec_prefix) = (lines.next().unwrap_or(""), lines.next().unwrap_or(""));
        let sys_version = lines.collect::<Vec<_>>().join("\n").trim().to_string();
        // PYTHONHOME's form: `prefix`, or `prefix:exec_prefix` when they differ.
        let home = if prefix == exec_prefix || exec_prefix.is_empty() {
            prefix.to_string()
        } else {
            format!("{prefix}:{exec_prefix}")
        };
        if sys_version.is_empty() {
            println!(
                "cargo::warning=cannot run `{exe}` (the Python PyO3 uses) to record its sys.version; \
                 the Python oracles will report themselves unavailable"
            );
        }
        env("REPDIFF_PYO3_PYTHON", &exe);
        env("REPDIFF_PYO3_LIBDIR", &lib_dir);
        env("REPDIFF_PYO3_SYS_VERSION", &sys_version);
        env("REPDIFF_PYO3_HOME", &home);
    }
}
