//! What the `google` oracle is built from, pinned by sha256. The values are
//! written once, under `pins:` in `oracles/harness/google/oracle.yaml`, and
//! turned into these constants by the build script (`oracles/build/pins.rs`,
//! which also checks the compiled robots.cc against them). Shared by the
//! setup step (which fetches and checks) and the oracle (which names what it
//! was built from).

include!(concat!(env!("OUT_DIR"), "/pins/google.rs"));

/// robots.cc's pin: the first of [`FILES`] (the manifest lists it first).
pub const ROBOTS_CC_SHA256: &str = FILES[0].1;

/// What to call a robots.cc with this sha256: the pinned source by its
/// pins, anything else as of unknown origin.
pub fn describe_source(sha256: &str) -> String {
    if sha256 == ROBOTS_CC_SHA256 {
        format!(
            "google/robotstxt {UPSTREAM_COMMIT} (robots.cc from PyPI sdist {SDIST_NAME} {SDIST_VERSION})"
        )
    } else {
        format!("google/robotstxt of UNKNOWN origin (robots.cc sha256 {sha256})")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn robots_cc_is_the_first_pinned_file() {
        assert_eq!(super::FILES[0].0, "robots.cc");
        assert_eq!(super::ROBOTS_CC_SHA256.len(), 64);
    }
}
