//! Debian's chromium, headless: the screenshot of the index for the README.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const CHROMIUM: &str = "/usr/bin/chromium";

/// How every headless run here starts chromium: no sandbox (CI runs as
/// root), no GPU, nothing fetched in the background, no first-run pages.
pub const HEADLESS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
];

/// The browser, or why there is none.
// String error: a reason shown as is (the site is written without the screenshot).
pub fn chromium() -> Result<PathBuf, String> {
    let p = PathBuf::from(CHROMIUM);
    if p.is_file() {
        Ok(p)
    } else {
        Err(format!(
            "{CHROMIUM} is missing (`repdiff setup` installs Debian's chromium)"
        ))
    }
}

/// Screenshot `html` (a local file) into `png`.
// String error: a reason shown as is (the site is written without the screenshot).
pub fn screenshot(html: &Path, png: &Path) -> Result<(), String> {
    let exe = chromium()?;
    let profile = std::env::temp_dir().join(format!("repdiff-chromium-{}", std::process::id()));
    let html = html
        .canonicalize()
        .map_err(|e| format!("{}: {e}", html.display()))?;
    let mut child = Command::new(exe)
        .args(HEADLESS)
        .arg("--hide-scrollbars")
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1280,1500")
        .arg(format!("file://{}", html.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {CHROMIUM}: {e}"))?;
    let deadline = Instant::now() + Duration::from_secs(90);
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Ok(s),
            Ok(None) if Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break Err("chromium took more than 90 s".to_string());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => break Err(e.to_string()),
        }
    };
    let _ = std::fs::remove_dir_all(&profile);
    let status = status?;
    let ok = std::fs::metadata(png)
        .map(|m| m.len() > 1000)
        .unwrap_or(false);
    if status.success() && ok {
        Ok(())
    } else {
        Err(format!(
            "chromium exited with {status} and wrote no screenshot"
        ))
    }
}
