//! Google's C++ robotstxt (`googlebot::RobotsMatcher`), reached through our
//! `extern "C"` shim (`google/shim.cc`). The sources come from the PyPI sdist
//! `jwm-robotstxt` 1.0.8 at setup time; with the `google` feature,
//! `build/google.rs` compiles them when present and pinned, otherwise this
//! oracle is registered as unavailable.
//!
//! Only two programs link the C++: the fuzz targets (in process, on
//! libFuzzer's thread) and the harness binary `oracles/harness/google/`,
//! which setup builds once it has fetched the sources. Everything else
//! (the product, xtask) is built without the feature, so it never has to
//! be rebuilt after setup: there [`make`] starts that harness as a
//! supervised worker.
//!
//! Body, agent and URL cross as raw bytes: no UTF-8 decoding, no trimming.
//! Each query is one `OneAgentAllowedByRobots` call, which parses the body
//! again (the library has no parse-once API for a single agent). The library
//! answers only allow/disallow; it reads Sitemap and other lines but exposes
//! no accessor for them. A C++ exception is caught in the shim and recorded as
//! `Error`; a segfault would take the process down (the runner's worker
//! isolation is what catches that).

pub mod pins;

use engine::oracle::{Oracle, Unavailable};

pub const NAME: &str = "google";

/// The harness crate setup builds, relative to the checkout.
pub const HARNESS_MANIFEST: &str = "oracles/harness/google/Cargo.toml";
/// Its binary, relative to the setup cache.
pub const HARNESS_BINARY: &str = "google-target/release/google-oracle";

/// Build the oracle, or say why it was not built and how to fix that.
pub fn make() -> Result<Box<dyn Oracle>, Unavailable> {
    imp::make()
}

/// The program that serves this oracle when this build does not link the
/// C++ itself (see the registry's `Entry::harness`).
pub fn harness() -> Option<fn() -> std::path::PathBuf> {
    if cfg!(feature = "google") {
        None
    } else {
        Some(harness_path)
    }
}

/// Where setup puts the harness binary.
pub fn harness_path() -> std::path::PathBuf {
    crate::cache_dir().join(HARNESS_BINARY)
}

#[cfg(repdiff_google)]
mod imp {
    use super::NAME;
    use engine::oracle::{
        Answer, Ask, Capabilities, Deciding, Oracle, Outcome, Query, Unavailable,
    };

    mod ffi {
        extern "C" {
            pub fn repdiff_google_one_agent_allowed(
                body: *const u8,
                body_len: usize,
                agent: *const u8,
                agent_len: usize,
                url: *const u8,
                url_len: usize,
                line: *mut std::os::raw::c_int,
            ) -> std::os::raw::c_int;
        }
    }

    pub struct Google;

    pub fn make() -> Result<Box<dyn Oracle>, Unavailable> {
        Ok(Box::new(Google))
    }

    /// `OneAgentAllowedByRobots(body, agent, url)` and the matcher's
    /// `matching_line()` after it; `None` if it threw.
    fn one_agent_allowed(body: &[u8], agent: &[u8], url: &[u8]) -> Option<(bool, Deciding)> {
        let mut line: std::os::raw::c_int = 0;
        // SAFETY: each pointer/length pair comes from a live slice, `line`
        // from a live local; the shim only touches them during the call and
        // catches every C++ exception.
        let r = unsafe {
            ffi::repdiff_google_one_agent_allowed(
                body.as_ptr(),
                body.len(),
                agent.as_ptr(),
                agent.len(),
                url.as_ptr(),
                url.len(),
                &mut line,
            )
        };
        let line = Deciding::from_wire(u32::try_from(line).unwrap_or(0));
        match r {
            1 => Some((true, line)),
            0 => Some((false, line)),
            _ => None,
        }
    }

    impl Oracle for Google {
        fn name(&self) -> &str {
            NAME
        }

        fn about(&self) -> engine::oracle::About {
            use super::pins as g;
            use engine::oracle::{About, Provenance, Runtime};
            let sha = env!("REPDIFF_GOOGLE_ROBOTS_CC_SHA256");
            let version = if sha == g::ROBOTS_CC_SHA256 {
                g::UPSTREAM_COMMIT.to_string()
            } else {
                format!("unknown (robots.cc sha256 {sha})")
            };
            About {
                library: "google/robotstxt".into(),
                version,
                language: "c++".into(),
                runtime: Runtime {
                    name: "native (FFI)".into(),
                    version: env!("REPDIFF_GOOGLE_CXX").into(),
                },
                provenance: Provenance {
                    registry: "pypi".into(),
                    package: g::SDIST_NAME.into(),
                    version: g::SDIST_VERSION.into(),
                    artifact: g::SDIST_FILE.into(),
                    sha256: g::SDIST_SHA256.into(),
                    commit: g::UPSTREAM_COMMIT.into(),
                    build: format!(
                        "robots.cc (sha256 {sha}) built with {} against {}",
                        env!("REPDIFF_GOOGLE_CXX"),
                        env!("REPDIFF_GOOGLE_ABSL")
                    ),
                    ..Provenance::default()
                },
                feeding:
                    "RobotsMatcher::OneAgentAllowedByRobots(body, agent, url) through a C shim"
                        .into(),
            }
        }

        fn capabilities(&self) -> Capabilities {
            Capabilities {
                can_fetch: true,
                ..Capabilities::default()
            }
        }

        fn run(&mut self, body: &[u8], queries: &[Query]) -> Vec<Answer> {
            queries
                .iter()
                .map(|q| {
                    if q.ask != Ask::CanFetch {
                        return Answer::from(Outcome::Unsupported {
                            reason: "google/robotstxt's RobotsMatcher answers only allow/disallow"
                                .into(),
                        });
                    }
                    match one_agent_allowed(body, q.agent.as_bytes(), q.url.as_bytes()) {
                        Some((allowed, line)) => Answer {
                            outcome: if allowed {
                                Outcome::Allowed
                            } else {
                                Outcome::Disallowed
                            },
                            explain: String::new(),
                            line: Some(line),
                        },
                        None => Answer::from(Outcome::Error {
                            kind: "c++ exception".into(),
                            message: "OneAgentAllowedByRobots threw (caught in shim.cc)".into(),
                        }),
                    }
                })
                .collect()
        }
    }
}

#[cfg(all(feature = "google", not(repdiff_google)))]
mod imp {
    use engine::oracle::{Oracle, Unavailable};

    pub fn make() -> Result<Box<dyn Oracle>, Unavailable> {
        // Every reason the build gives is repaired by setup, after the
        // build's own first step.
        Err(Unavailable::needs_setup(
            super::NAME,
            env!("REPDIFF_GOOGLE_UNAVAILABLE"),
            env!("REPDIFF_GOOGLE_FIX"),
        ))
    }
}

/// Built without the C++: the harness binary, as a supervised worker.
#[cfg(not(feature = "google"))]
mod imp {
    use engine::oracle::{Oracle, Unavailable};
    use engine::worker::{Limits, Supervised};

    pub fn make() -> Result<Box<dyn Oracle>, Unavailable> {
        let path = super::harness_path();
        if !path.is_file() {
            return Err(Unavailable::needs_setup(
                super::NAME,
                format!(
                    "{} is not built (setup compiles Google's robots.cc into it)",
                    path.display()
                ),
                "",
            ));
        }
        // Not an oracle start of its own: this is the adapter's
        // constructor, in a build without the C++. The roster starts
        // `google` as a worker through `Entry::harness` directly; this path
        // serves the callers that construct the adapter itself (the
        // `googlebot` profile wraps it; `--in-process` runs it).
        Supervised::launch(
            super::NAME,
            vec![path.display().to_string()],
            Vec::new(),
            Limits::default(),
        )
        .map(|s| Box::new(s) as Box<dyn Oracle>)
        .map_err(|e| {
            let mut u = e.unavailable;
            u.then_setup = true;
            u
        })
    }
}
