//! Outputs that a signal cannot tear.
//!
//! Why this exists: Ctrl-C or SIGTERM used to end repdiff from the signal
//! thread ([`crate::worker::stop_workers_on_signal`]) wherever the main
//! thread happened to be: between two files of one set (a new compat.json
//! beside the old compat.md), or with a temporary file half written and
//! left behind. So every output goes through a [`Switch`]: its files are
//! staged beside their destinations under temporary names (registered
//! here), then renamed into place together while the *switch lock* is held.
//! The signal thread takes that lock and never gives it back
//! (`stop_for_signal`): it waits for a switch under way, no switch starts
//! after it, it removes every staged temporary and it says what the run had
//! not written yet ([`pending`]). A reader sees the old set or the new one,
//! never a mix.
//!
//! Not covered: SIGKILL or a power cut during the renames themselves (no
//! code of ours runs); that window is a few renames long, and the old files
//! are then beside their destinations as `.NAME.PID.old.tmp`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::ThreadId;

/// Who holds the switch lock, and how many times (a switch may stage a
/// file while it holds the lock for its own bookkeeping).
struct Owner {
    thread: Option<ThreadId>,
    depth: usize,
}

static OWNER: Mutex<Owner> = Mutex::new(Owner {
    thread: None,
    depth: 0,
});
static FREED: Condvar = Condvar::new();

/// Staged temporaries not yet renamed into place or removed.
static TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// What the run has said it will write and has not written yet.
static PENDING: Mutex<Vec<(u64, String)>> = Mutex::new(Vec::new());
static NEXT_PENDING: AtomicU64 = AtomicU64::new(0);

/// Set once a signal is stopping repdiff.
static STOPPING: AtomicBool = AtomicBool::new(false);

fn lock<T>(m: &'static Mutex<T>) -> MutexGuard<'static, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The switch lock, reentrant within one thread.
struct Hold;

fn hold() -> Hold {
    let me = std::thread::current().id();
    let mut o = lock(&OWNER);
    while o.thread.is_some_and(|t| t != me) {
        o = FREED.wait(o).unwrap_or_else(PoisonError::into_inner);
    }
    o.thread = Some(me);
    o.depth += 1;
    Hold
}

impl Drop for Hold {
    fn drop(&mut self) {
        let mut o = lock(&OWNER);
        o.depth = o.depth.saturating_sub(1);
        if o.depth == 0 {
            o.thread = None;
            FREED.notify_all();
        }
    }
}

/// Wait here for good once a signal is stopping repdiff: a loop that writes
/// many files into a staged directory calls it before each, so it cannot
/// refill the directory the signal thread is removing.
pub fn checkpoint() {
    drop(hold());
}

/// Whether a signal is stopping repdiff.
pub fn stopping() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

fn register(p: &Path) {
    lock(&TEMPS).push(p.to_path_buf());
}

fn unregister(p: &Path) {
    lock(&TEMPS).retain(|t| t != p);
}

/// Something the run will write, named for the message a signal prints
/// ("not written: ..."); dropping it (after the switch) says it is written.
#[must_use = "the pending note lasts as long as this value"]
pub struct Pending {
    id: u64,
}

/// Note that the run means to write `what` (a sentence fragment naming the
/// files), so a signal before it is written says so.
pub fn pending(what: impl Into<String>) -> Pending {
    let id = NEXT_PENDING.fetch_add(1, Ordering::SeqCst);
    lock(&PENDING).push((id, what.into()));
    Pending { id }
}

impl Drop for Pending {
    fn drop(&mut self) {
        lock(&PENDING).retain(|(id, _)| *id != self.id);
    }
}

/// For the signal thread, which exits right after: take the switch lock for
/// good (waiting for a switch under way), remove every staged temporary and
/// return what was not written.
pub(crate) fn stop_for_signal() -> Vec<String> {
    STOPPING.store(true, Ordering::SeqCst);
    std::mem::forget(hold());
    let temps = std::mem::take(&mut *lock(&TEMPS));
    for t in &temps {
        remove_until_gone(t);
    }
    lock(&PENDING).iter().map(|(_, w)| w.clone()).collect()
}

/// A stager may be finishing one file in a directory being removed (it
/// stops at its next [`checkpoint`]), so try for up to a second.
fn remove_until_gone(p: &Path) {
    for _ in 0..200 {
        remove_any(p);
        std::thread::sleep(std::time::Duration::from_millis(5));
        if std::fs::symlink_metadata(p).is_err() {
            return;
        }
    }
}

fn remove_any(p: &Path) {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => {
            let _ = std::fs::remove_dir_all(p);
        }
        Ok(_) => {
            let _ = std::fs::remove_file(p);
        }
        Err(_) => {}
    }
}

/// The temporary name beside `dest`: hidden, ending in `.tmp` (ignored by
/// git), with our pid so two processes never share one.
fn beside(dest: &Path, suffix: &str) -> PathBuf {
    let dir = dest.parent().unwrap_or(Path::new("."));
    let name = dest
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("output");
    dir.join(format!(".{name}.{}{suffix}.tmp", std::process::id()))
}

/// Remove what a killed repdiff left beside `dest`: its staged
/// `.NAME.PID.tmp`, and its `.NAME.PID.old.tmp` (put back as `dest` when a
/// SIGKILL came between the renames and `dest` is missing). Only for pids
/// no longer running, so a run beside us keeps its own.
fn sweep_stale(dest: &Path) {
    let dir = dest.parent().unwrap_or(Path::new("."));
    let Some(name) = dest.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    let prefix = format!(".{name}.");
    let Ok(listing) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in listing.flatten() {
        let file = entry.file_name();
        let Some(middle) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .and_then(|f| f.strip_suffix(".tmp"))
        else {
            continue;
        };
        let (pid, old) = match middle.strip_suffix(".old") {
            Some(pid) => (pid, true),
            None => (middle, false),
        };
        let Ok(pid) = pid.parse::<i32>() else {
            continue;
        };
        if pid <= 0 || alive(pid) {
            continue;
        }
        let path = entry.path();
        if old && std::fs::symlink_metadata(dest).is_err() {
            let _ = std::fs::rename(&path, dest);
        } else {
            remove_any(&path);
        }
    }
}

/// Is process `pid` running (or a zombie, or someone else's)?
fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

struct Entry {
    staged: PathBuf,
    dest: PathBuf,
    aside: PathBuf,
    moved_aside: bool,
}

/// A set of outputs that change together: staged one by one, then swapped
/// in by [`Switch::commit`] under the switch lock. Dropped uncommitted, it
/// removes what it staged and the destinations keep their old contents.
#[derive(Default)]
pub struct Switch {
    entries: Vec<Entry>,
    done: bool,
}

impl Switch {
    pub fn new() -> Switch {
        Switch::default()
    }

    /// Create the temporary beside `dest` (file or directory) under the
    /// lock, so the signal thread either sees it registered or never sees
    /// it created.
    fn create(&mut self, dest: &Path, dir: bool) -> std::io::Result<PathBuf> {
        let parent = dest.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent)?;
        sweep_stale(dest);
        let staged = beside(dest, "");
        let _h = hold();
        if dir {
            if staged.exists() {
                std::fs::remove_dir_all(&staged)?;
            }
            std::fs::create_dir(&staged)?;
        } else {
            std::fs::File::create(&staged)?;
        }
        register(&staged);
        self.entries.push(Entry {
            staged: staged.clone(),
            dest: dest.to_path_buf(),
            aside: beside(dest, ".old"),
            moved_aside: false,
        });
        Ok(staged)
    }

    /// Stage `bytes` for `dest`: written and synced beside it, not visible
    /// there until [`Switch::commit`].
    pub fn file(&mut self, dest: &Path, bytes: &[u8]) -> std::io::Result<()> {
        let staged = self.create(dest, false)?;
        let mut f = std::fs::OpenOptions::new().write(true).open(&staged)?;
        f.write_all(bytes)?;
        f.sync_all()
    }

    /// An empty directory to stage a tree into for `dest` (which, if it
    /// exists, is replaced whole); call [`checkpoint`] before each file.
    pub fn dir(&mut self, dest: &Path) -> std::io::Result<PathBuf> {
        self.create(dest, true)
    }

    /// Swap every staged output into place, in the order staged (so the
    /// last one staged is the last one visible). On a failure every
    /// destination is put back as it was and the error returned.
    pub fn commit(mut self) -> std::io::Result<()> {
        let _h = hold();
        for i in 0..self.entries.len() {
            if let Err(e) = self.move_aside(i) {
                self.restore();
                return Err(e);
            }
        }
        for i in 0..self.entries.len() {
            let e = &self.entries[i];
            if let Err(err) = std::fs::rename(&e.staged, &e.dest) {
                for placed in &self.entries[..i] {
                    let _ = std::fs::rename(&placed.dest, &placed.staged);
                }
                self.restore();
                return Err(err);
            }
        }
        self.done = true;
        for e in &self.entries {
            unregister(&e.staged);
            if e.moved_aside {
                remove_any(&e.aside);
            }
        }
        Ok(())
    }

    fn move_aside(&mut self, i: usize) -> std::io::Result<()> {
        let e = &mut self.entries[i];
        if std::fs::symlink_metadata(&e.dest).is_err() {
            return Ok(());
        }
        remove_any(&e.aside);
        std::fs::rename(&e.dest, &e.aside)?;
        e.moved_aside = true;
        Ok(())
    }

    /// Put every destination moved aside back.
    fn restore(&mut self) {
        for e in &mut self.entries {
            if e.moved_aside {
                let _ = std::fs::rename(&e.aside, &e.dest);
                e.moved_aside = false;
            }
        }
    }
}

impl Drop for Switch {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        for e in &self.entries {
            remove_any(&e.staged);
            unregister(&e.staged);
        }
    }
}

/// Write `bytes` to `path` via a temporary file in the same directory and a
/// rename (a [`Switch`] of one file), so readers see the old file or the
/// new one, never a torn one, and a signal leaves no temporary behind.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut s = Switch::new();
    s.file(path, bytes)?;
    s.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("repdiff-switch-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// The old set: two files and a directory.
    fn old_set(d: &Path) {
        std::fs::write(d.join("a.json"), "old a").unwrap();
        std::fs::write(d.join("b.md"), "old b").unwrap();
        std::fs::create_dir_all(d.join("site")).unwrap();
        std::fs::write(d.join("site/index.html"), "old site").unwrap();
    }

    fn assert_old_contents(d: &Path) {
        assert_eq!(std::fs::read_to_string(d.join("a.json")).unwrap(), "old a");
        assert_eq!(std::fs::read_to_string(d.join("b.md")).unwrap(), "old b");
        assert_eq!(
            std::fs::read_to_string(d.join("site/index.html")).unwrap(),
            "old site"
        );
    }

    /// The old contents and nothing else: no temporary left.
    fn assert_old_set(d: &Path) {
        assert_old_contents(d);
        assert_eq!(listing(d), ["a.json", "b.md", "site"]);
        assert_eq!(listing(&d.join("site")), ["index.html"]);
    }

    fn stage_new_set(d: &Path) -> Switch {
        let mut s = Switch::new();
        let site = s.dir(&d.join("site")).unwrap();
        std::fs::write(site.join("index.html"), "new site").unwrap();
        s.file(&d.join("a.json"), b"new a").unwrap();
        s.file(&d.join("b.md"), b"new b").unwrap();
        s.file(&d.join("c.txt"), b"new c").unwrap();
        s
    }

    /// A SIGKILLed run's temporaries (pid no longer running) go with the
    /// next write of the same file: its staged copy is removed, and an old
    /// file moved aside before a missing destination is put back first; a
    /// live process's temporaries stay.
    #[test]
    fn a_write_removes_what_a_killed_run_left() {
        let d = scratch("stale");
        let dead = 999_999_999; // above any pid_max: never running
        std::fs::write(d.join(format!(".compat.json.{dead}.tmp")), "half").unwrap();
        std::fs::write(d.join(format!(".compat.md.{dead}.old.tmp")), "old md").unwrap();
        let mine = ".compat.json.1.tmp"; // pid 1 (init) is running
        std::fs::write(d.join(mine), "init's").unwrap();
        write_atomic(&d.join("compat.json"), b"new").unwrap();
        let md_aside = format!(".compat.md.{dead}.old.tmp");
        assert_eq!(listing(&d), [mine, md_aside.as_str(), "compat.json"]);
        // compat.md is missing: its moved-aside old file comes back, and the
        // new one replaces it as a whole.
        sweep_stale(&d.join("compat.md"));
        assert_eq!(
            std::fs::read_to_string(d.join("compat.md")).unwrap(),
            "old md"
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_commit_replaces_the_whole_set() {
        let d = scratch("ok");
        old_set(&d);
        let s = stage_new_set(&d);
        assert_old_contents(&d);
        s.commit().unwrap();
        assert_eq!(std::fs::read_to_string(d.join("a.json")).unwrap(), "new a");
        assert_eq!(std::fs::read_to_string(d.join("b.md")).unwrap(), "new b");
        assert_eq!(std::fs::read_to_string(d.join("c.txt")).unwrap(), "new c");
        assert_eq!(
            std::fs::read_to_string(d.join("site/index.html")).unwrap(),
            "new site"
        );
        assert_eq!(listing(&d), ["a.json", "b.md", "c.txt", "site"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    /// Staged, then one staged file lost before the swap (any failure
    /// between staging and the last rename): every destination keeps its
    /// old contents and nothing staged is left.
    #[test]
    fn a_failure_after_staging_leaves_the_old_set() {
        let d = scratch("fail");
        old_set(&d);
        let s = stage_new_set(&d);
        let lost = s.entries[2].staged.clone();
        std::fs::remove_file(&lost).unwrap();
        assert!(s.commit().is_err());
        assert_old_set(&d);
        assert!(lock(&TEMPS).iter().all(|t| !t.starts_with(&d)));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn an_uncommitted_switch_leaves_nothing() {
        let d = scratch("drop");
        old_set(&d);
        drop(stage_new_set(&d));
        assert_old_set(&d);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn the_lock_is_reentrant_and_exclusive() {
        let outer = hold();
        checkpoint();
        let (tx, rx) = std::sync::mpsc::channel();
        let t = std::thread::spawn(move || {
            checkpoint();
            let _ = tx.send(());
        });
        assert!(rx
            .recv_timeout(std::time::Duration::from_millis(200))
            .is_err());
        drop(outer);
        assert!(rx.recv_timeout(std::time::Duration::from_secs(10)).is_ok());
        t.join().unwrap();
    }
}
