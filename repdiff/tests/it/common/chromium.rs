//! Debian's chromium, headless, run to its end with a deadline (its
//! stdout and stderr read on threads so a large DOM cannot block it).
//! Chromium missing is a failure, never a skip: `repdiff setup` installs it.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

pub use repdiff::report_site::browser::CHROMIUM;

pub fn chromium(args: &[String], profile: &Path) -> (bool, String, String) {
    let mut child = Command::new(CHROMIUM)
        .args(repdiff::report_site::browser::HEADLESS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {CHROMIUM}: {e}"));
    // Read stdout on a thread so a large DOM cannot block the browser.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut out, &mut s).ok();
        s
    });
    let ereader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut err, &mut s).ok();
        s
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 120 s: {args:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    (
        status.success(),
        reader.join().unwrap(),
        ereader.join().unwrap(),
    )
}
