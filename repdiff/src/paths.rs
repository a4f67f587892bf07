//! Where the corpus, the ledger and the reports live.

use crate::error::Error;
use crate::shared::Usage;
use std::path::PathBuf;

/// The checkout whose corpus, ledger and reports a command uses: the one
/// this binary was built in, or `REPDIFF_ROOT` (a second checkout of the
/// same commit; the tests use it to prove a run is the same from any path;
/// `--root DIR` sets it, so an installed `repdiff` can run anywhere).
pub fn root() -> PathBuf {
    oracles::root()
}

/// Where plain runs write (`conformance`, `report`, `fuzz`, `bench`):
/// ignored by git, so a run changes no tracked file. Only
/// `repdiff report --publish` writes the published snapshot.
pub fn run_dir() -> PathBuf {
    root().join("reports/run")
}

/// The published snapshot: written only by `repdiff report --publish`.
pub fn published_dir() -> PathBuf {
    root().join("reports/latest")
}

/// The published census: written only by `repdiff census --publish`.
pub fn published_census_dir() -> PathBuf {
    root().join("reports/census")
}

/// The published suites scoreboard: written only by `repdiff suites --publish`.
pub fn published_suites() -> PathBuf {
    root().join("reports/suites/suites.json")
}

pub fn corpus_dir() -> PathBuf {
    root().join("cases/corpus")
}

/// Every file of the checkout's known-divergence ledger, in load order
/// (`oracles::ledger_files`: the shared files, then each external oracle's
/// own beside its harness).
pub fn ledger_files() -> Result<Vec<PathBuf>, Error> {
    let root = root();
    oracles::ledger_files(&root).map_err(|e| Error::Ledger {
        path: root,
        line: None,
        message: format!("cannot list the ledger: {e}"),
    })
}

/// The checkout's ledger, checked against the corpus and the oracle names
/// a run could produce.
pub fn load_ledger(
    corpus: &engine::case::Corpus,
    known: &[&str],
) -> Result<engine::ledger::Ledger, Error> {
    engine::ledger::load_files(&ledger_files()?, corpus, known).map_err(Error::ledger)
}

/// Every ledger file's text, in load order (`oracles::ledger_text`).
pub fn ledger_text() -> Result<String, Usage> {
    let root = root();
    oracles::ledger_text(&root)
        .map_err(|e| Usage(format!("{}: cannot read the ledger: {e}", root.display())))
}

/// The checkout's corpus; a case file that does not load is an
/// [`Error::Input`] naming its file and line.
pub fn load_corpus() -> Result<engine::case::Corpus, Error> {
    let dir = corpus_dir();
    if !dir.is_dir() {
        return Err(Usage(format!(
            "no corpus at {}: pass --root DIR (a repdiff checkout) or set REPDIFF_ROOT",
            dir.display()
        ))
        .into());
    }
    engine::case::load_dir(&dir).map_err(Error::input)
}

/// An exclusive hold on one output folder for as long as it lives, so two
/// runs in one checkout never interleave their files: the second waits for
/// the first (saying so) and then writes whole outputs of its own. The lock
/// is the OS's (`flock`): a killed run's lock goes with its process.
pub struct DirLock {
    _file: std::fs::File,
}

/// Take the lock of `dir` (created if missing); the file is `.repdiff.lock`
/// inside it, ignored by git.
pub fn lock_dir(dir: &std::path::Path) -> Result<DirLock, Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let path = dir.join(".repdiff.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io("open", &path, e))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            log::info!(
                "waiting: another repdiff run is writing {} (it holds {}); this one writes when it is done",
                dir.display(),
                path.display()
            );
            file.lock().map_err(|e| Error::io("lock", &path, e))?;
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(Error::io("lock", &path, e));
        }
    }
    Ok(DirLock { _file: file })
}

#[cfg(test)]
mod lock_tests {
    use super::lock_dir;
    use std::sync::mpsc;
    use std::time::Duration;

    /// A second writer of the same folder waits for the first, then gets it.
    #[test]
    fn a_second_run_waits_for_the_first() {
        let dir = std::env::temp_dir().join(format!("repdiff-lock-{}", std::process::id()));
        let first = lock_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
        let (tx, rx) = mpsc::channel();
        let d = dir.clone();
        let second = std::thread::spawn(move || {
            let held = lock_dir(&d).map(|_| ()).map_err(|e| e.to_string());
            let _ = tx.send(held);
        });
        assert!(
            rx.recv_timeout(Duration::from_millis(300)).is_err(),
            "the second lock was taken while the first was held"
        );
        drop(first);
        let got = rx.recv_timeout(Duration::from_secs(10));
        assert!(matches!(got, Ok(Ok(()))), "{got:?}");
        second.join().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
