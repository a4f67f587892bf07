//! Compiled into a copy of texting_robots (by `repdiff setup`, never
//! into the oracle): each answer `Robot::allowed` gives is appended, with the
//! test that asked, to the JSON-lines file named by REPDIFF_SUITE_OUT.
//!
//! libtest runs each test on a thread named after it; the test binary's name
//! (its file stem without cargo's hash) tells unit tests from integration
//! tests of the same name.

use std::io::Write;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn record(source: &(String, Vec<u8>), url: &str, allowed: bool) {
    let Some(out) = std::env::var_os("REPDIFF_SUITE_OUT") else {
        return;
    };
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let binary = exe.rsplit_once('-').map_or(exe.as_str(), |(b, _)| b);
    let test = std::thread::current().name().unwrap_or("").to_string();
    let line = format!(
        "{{\"test\":\"{}::{}\",\"body_hex\":\"{}\",\"agent_hex\":\"{}\",\"url_hex\":\"{}\",\"allowed\":{}}}\n",
        binary,
        test.replace('\\', "\\\\").replace('"', "\\\""),
        hex(&source.1),
        hex(source.0.as_bytes()),
        hex(url.as_bytes()),
        allowed
    );
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(out) {
        let _ = f.write_all(line.as_bytes());
    }
}
