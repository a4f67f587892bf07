//! npm `robots-parser` 3.0.1's own test/Robots.js, which its tarball ships
//! (the external setup installs the tarball, integrity checked, into
//! `.cache/npm`), run by node through `capture_js.js`.

use super::{read_raw, shim, tail, Prepared, PIECE};
use crate::setup::{verify, Ctx, Result};
use crate::suites::model::Raw;
use std::path::Path;
use std::process::Command;

const TEST_SHA256: &str = "a4ccbe5c310a274c2f66c1e358e3b4bca25cb75b8c2ee2df3ec741ed1c81aaf2";

pub fn prepare(ctx: &Ctx, _verbose: bool) -> Result<Prepared> {
    let test = package(ctx).join("test/Robots.js");
    verify(ctx, PIECE, &test, TEST_SHA256)?;
    Ok(Prepared {
        files: vec![(
            "npm robots-parser@3.0.1 test/Robots.js".into(),
            test,
            TEST_SHA256.into(),
        )],
        shims: vec![shim(ctx, "robots-parser", "capture_js.js")],
        source: "test/Robots.js of the npm tarball robots-parser 3.0.1".into(),
        runtime: format!(
            "node {} (describe/it and chai's expect provided by the shim)",
            node_version()
        ),
        notes: vec![
            "robots-parser takes the robots.txt URL with the body; its suite parses bodies as \
             http://www.example.com/robots.txt and asks about other origins and relative URLs, \
             where the protocol derives the robots URL from the query URL"
                .into(),
        ],
    })
}

pub fn capture(ctx: &Ctx, _p: &Prepared, work: &Path) -> Result<Raw> {
    let out_file = work.join("capture.json");
    let out = Command::new("node")
        .arg(shim(ctx, "robots-parser", "capture_js.js"))
        .arg(package(ctx))
        .arg(&out_file)
        .output()
        .map_err(|e| ctx.err(PIECE, format!("cannot run node: {e}"), "install node"))?;
    read_raw(ctx, &out_file, "node capture_js.js", &tail(&out))
}

fn package(ctx: &Ctx) -> std::path::PathBuf {
    ctx.cache.join("npm/node_modules/robots-parser")
}

fn node_version() -> String {
    Command::new("node")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}
