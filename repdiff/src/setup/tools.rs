//! Tools the tests drive, fetched and pinned like the parsers: Playwright's
//! core from npm, the DevTools-protocol client the serve test uses to type
//! into the tester in Debian's chromium (`repdiff/tests/browser/`). It is a
//! client only: it downloads no browser.

use super::{Ctx, Result};
use crate::registry::NpmPin;

/// playwright-core as the npm registry lists it (it has no dependencies).
pub const PLAYWRIGHT_CORE: (&str, &str, &str) = (
    "playwright-core",
    "1.65.2",
    "sha512-aHu9F46Mx5ha9iiB+VLZMUUtex3PBw4am9MHptc0IXaJhz++6YXsH96eEyThwCwMkIUiB8TdZcwXqnb3xKDzmA==",
);

pub fn ensure(ctx: &Ctx, verbose: bool) -> Result<()> {
    let (package, version, integrity) = PLAYWRIGHT_CORE;
    super::external::ensure_npm(
        ctx,
        verbose,
        &NpmPin {
            package: package.into(),
            version: version.into(),
            integrity: integrity.into(),
            deps: Vec::new(),
        },
    )
}
