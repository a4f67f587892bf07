//! What the `google` oracle is built from, pinned by sha256. Shared by the
//! setup step (which fetches and checks), the build script (which compiles
//! only the pinned source) and the oracle (which names what it was built
//! from). Kept free of dependencies so the build script can `#[path]` it in.

/// The PyPI sdist that carries upstream google/robotstxt under `robotstxt/`.
pub const SDIST_NAME: &str = "jwm-robotstxt";
pub const SDIST_VERSION: &str = "1.0.8";
pub const SDIST_FILE: &str = "jwm_robotstxt-1.0.8.tar.gz";
pub const SDIST_SHA256: &str = "e0042e368bfab415e70ce393bd449959d534c343cdb0568c32efd84de6aac94d";
/// The folder inside the sdist that holds upstream's files.
pub const SDIST_PREFIX: &str = "jwm_robotstxt-1.0.8/robotstxt/";

/// The upstream google/robotstxt commit the sdist's robots.cc is.
pub const UPSTREAM_COMMIT: &str = "a732377";

pub const ROBOTS_CC_SHA256: &str =
    "a7c6aed20037648bd2297c9b897bfb157e97fed8210b5c7cf2cc4c532e99ac08";

/// Every file setup extracts into `<cache>/google/`, with its sha256.
pub const FILES: &[(&str, &str)] = &[
    ("robots.cc", ROBOTS_CC_SHA256),
    (
        "robots.h",
        "f3ded89bee67d53e6889fc564c286460639f8c0e21b94cf0ecf7972d844214e3",
    ),
    (
        "robots_test.cc",
        "9868caef2ba44991331e90418f0e45a0c13893b0e4e11c8b0385166face9d670",
    ),
    (
        "LICENSE",
        "c79a7fea0e3cac04cd43f20e7b648e5a0ff8fa5344e644b0ee09ca1162b62747",
    ),
];

/// The sources whose robots.cc hash we know, and what to call them.
pub const KNOWN_SOURCES: &[(&str, &str)] = &[(
    ROBOTS_CC_SHA256,
    "google/robotstxt a732377 (robots.cc from PyPI sdist jwm-robotstxt 1.0.8)",
)];

/// What to call a robots.cc with this sha256.
pub fn describe_source(sha256: &str) -> String {
    KNOWN_SOURCES
        .iter()
        .find(|(h, _)| *h == sha256)
        .map(|(_, name)| name.to_string())
        .unwrap_or_else(|| {
            format!("google/robotstxt of UNKNOWN origin (robots.cc sha256 {sha256})")
        })
}
