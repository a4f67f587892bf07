//! What the tests that stop, kill or race the command share: finding the
//! processes a run left behind, running the binary in the background,
//! signalling it, and comparing a folder before and after.

#![allow(dead_code)]

pub mod chromium;
pub mod registered;

use std::collections::BTreeMap;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The variable every process a run starts inherits (a harness's `sleep`
/// names nothing of ours on its command line, but carries this).
pub const MARK: &str = "REPDIFF_HOSTILE_TEST";

/// A fresh folder unique to this test process and `tag`.
pub fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("repdiff-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Write an executable `#!/bin/sh` script.
pub fn script(path: &Path, body: &str) {
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).expect("script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// Processes that carry `dir` in their command line or environment: every
/// process a harness starts inherits `MARK=dir` from the repdiff it was
/// started by, so a `sleep` a script left behind is found although its
/// command line names nothing of ours.
pub fn survivors(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().to_string();
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for e in entries.flatten() {
        let pid = e.file_name().to_string_lossy().to_string();
        if !pid.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let env = std::fs::read(e.path().join("environ")).unwrap_or_default();
        let env = String::from_utf8_lossy(&env);
        if cmd.contains(&needle) || env.contains(&needle) {
            found.push(format!("{pid}: {cmd}"));
        }
    }
    found
}

/// Poll until nothing of `dir` runs, up to 3 s.
pub fn assert_nothing_left(dir: &Path, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let left = survivors(dir);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: still running after the command exited:\n{}",
            left.join("\n")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Poll `cond` every 20 ms for up to `secs`; false if it never held.
pub fn wait_until(secs: u64, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    cond()
}

/// repdiff running in the background, its output going to files (read at
/// any time, and no pipe to fill up).
pub struct Running {
    child: Child,
    stdout: PathBuf,
    stderr: PathBuf,
}

/// Start `repdiff ARGS` with `MARK=mark` and the extra variables.
pub fn start(args: &[String], mark: &Path, env: &[(&str, &Path)]) -> Running {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let logs = mark.join("logs");
    std::fs::create_dir_all(&logs).expect("logs");
    let stdout = logs.join(format!("{n}.out"));
    let stderr = logs.join(format!("{n}.err"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_repdiff"));
    cmd.args(args)
        .env(MARK, mark)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).expect("stdout file"))
        .stderr(std::fs::File::create(&stderr).expect("stderr file"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = cmd.spawn().expect("repdiff starts");
    Running {
        child,
        stdout,
        stderr,
    }
}

impl Running {
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    pub fn stdout(&self) -> String {
        std::fs::read_to_string(&self.stdout).unwrap_or_default()
    }

    /// Send `sig` to the repdiff process (not its group: workers have
    /// their own, and it is repdiff's business to stop them).
    pub fn signal(&self, sig: i32) {
        let pid = i32::try_from(self.child.id()).expect("pid");
        // SAFETY: kill only sends a signal to our own child.
        assert_eq!(unsafe { libc::kill(pid, sig) }, 0, "kill {pid}");
    }

    /// Wait up to `secs` for it to exit (killed and failed after that).
    pub fn wait(&mut self, secs: u64) -> ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("repdiff did not exit within {secs} s:\n{}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn has_exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }
}

/// `repdiff ARGS` to the end: its status and stderr.
pub fn run_to_end(args: &[String], mark: &Path) -> (ExitStatus, String) {
    let mut r = start(args, mark, &[]);
    let status = r.wait(120);
    (status, format!("{}{}", r.stdout(), r.stderr()))
}

/// What a folder holds, recursively: each path's bytes, or its kind for
/// what is not a regular file (a FIFO is not read). Hidden temporaries
/// count, so a leftover shows as a difference; the output lock
/// (`.repdiff.lock`, empty, ignored by git, held by flock) does not, as it
/// is no output.
#[derive(Debug, PartialEq, Eq)]
pub enum Node {
    File(Vec<u8>),
    Dir,
    Other(String),
}

pub fn snapshot(dir: &Path) -> BTreeMap<String, Node> {
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Node>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let rel = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        let Ok(ty) = e.file_type() else { continue };
        if e.file_name() == ".repdiff.lock" {
            continue;
        }
        if ty.is_dir() {
            out.insert(rel, Node::Dir);
            walk(root, &path, out);
        } else if ty.is_file() {
            out.insert(rel, Node::File(std::fs::read(&path).unwrap_or_default()));
        } else if ty.is_fifo() {
            out.insert(rel, Node::Other("fifo".into()));
        } else {
            out.insert(rel, Node::Other(format!("{ty:?}")));
        }
    }
}

/// The paths where two snapshots differ, for a readable failure.
pub fn differences(a: &BTreeMap<String, Node>, b: &BTreeMap<String, Node>) -> Vec<String> {
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| {
            let state = |n: Option<&Node>| match n {
                None => "absent".to_string(),
                Some(Node::File(b)) => format!("{} bytes", b.len()),
                Some(Node::Dir) => "dir".into(),
                Some(Node::Other(o)) => o.clone(),
            };
            format!("{k}: {} -> {}", state(a.get(k)), state(b.get(k)))
        })
        .collect()
}

/// Make a named pipe: a read of it blocks, which holds a run at a known
/// point without timing.
pub fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

/// Open the FIFO for writing once a reader has it open (polling without
/// blocking, so a run that never gets there fails the test instead of
/// hanging it); None after `secs`.
pub fn fifo_reader_arrived(path: &Path, secs: u64) -> Option<std::fs::File> {
    let mut file = None;
    wait_until(secs, || {
        file = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .ok();
        file.is_some()
    });
    file
}

/// Copy a folder recursively (regular files only).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir").flatten() {
        let p = e.path();
        let dest = to.join(e.file_name());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else if p.is_file() {
            std::fs::copy(&p, &dest).expect("copy");
        }
    }
}

/// Where a stalling harness says it has answered, and what releases it.
pub struct Stall {
    pub script: PathBuf,
    pub started: PathBuf,
    pub release: PathBuf,
}

/// A `--oracle-cmd` harness that is the built-in rfc9309 worker with its
/// answers held back: the greeting and the first answer pass, then it
/// touches `started` and holds every further answer until `release`
/// exists. A run using it is mid-way, deterministically, once `started`
/// exists (it has the output lock and has done work).
pub fn stall_harness(dir: &Path) -> Stall {
    let s = Stall {
        script: dir.join("stall.sh"),
        started: dir.join("stall.started"),
        release: dir.join("stall.release"),
    };
    script(
        &s.script,
        &format!(
            "'{}' worker rfc9309 | {{\n\
             IFS= read -r line; printf '%s\\n' \"$line\"\n\
             IFS= read -r line; printf '%s\\n' \"$line\"\n\
             touch '{}'\n\
             while [ ! -e '{}' ]; do sleep 0.05; done\n\
             cat\n}}",
            env!("CARGO_BIN_EXE_repdiff"),
            s.started.display(),
            s.release.display()
        ),
    );
    s
}

/// `n` small robots.txt files for a census, named by host.
pub fn census_input(dir: &Path, n: usize) {
    std::fs::create_dir_all(dir).expect("input dir");
    for i in 0..n {
        std::fs::write(
            dir.join(format!("site{i:03}.example")),
            format!("User-agent: *\nDisallow: /private{i}\nAllow: /private{i}/open\n\nUser-agent: bot{i}\nDisallow: /\n"),
        )
        .expect("robots.txt");
    }
}
