//! `repdiff findings --verify`: every write-up's direct reproducer, run in
//! its own runtime against the library setup installed, must print the
//! outcome its ledger entry pins. A reproducer is only worth sending when
//! it reproduces; this is the check that it does, on every CI run.
//!
//! Each program is written to a scratch directory and run as its README
//! line says (`python3 repro.py`, `java Repro.java`, `go run .`, `cargo
//! run`, `g++ ...`). Compiled languages are built in one project per
//! library, so their dependencies compile once. A missing runtime is a
//! failure, not a skip: the check must not pass because nothing ran.

use super::repro::{Lang, Program};
use crate::paths;
use crate::shared::Usage;
use engine::oracle::{Ask, Label};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

mod build;

/// One write-up's program for one oracle, and what it must print.
pub struct Reproducer {
    /// The write-up's file stem (`reports/findings/<write_up>.md`).
    pub write_up: String,
    pub oracle: String,
    pub ask: Ask,
    pub program: Program,
    pub pinned: Label,
}

/// What running one reproducer gave.
pub struct Verdict<'a> {
    pub repro: &'a Reproducer,
    /// The outcome read from the program's output, in the ledger's spelling.
    // String error: the reason is a cell of the verification table, text only.
    pub printed: Result<String, String>,
}

impl Verdict<'_> {
    pub fn agrees(&self) -> bool {
        self.printed.as_deref() == Ok(self.repro.pinned.to_string().as_str())
    }
}

/// Runs every reproducer (`jobs` at a time) in a scratch directory under
/// `work`, building the compiled ones first.
pub fn run_all<'a>(
    repros: &'a [Reproducer],
    work: &Path,
    jobs: usize,
) -> Result<Vec<Verdict<'a>>, Usage> {
    let cache = oracles::cache_dir();
    let built = build_compiled(repros, work, &cache)?;
    let next = AtomicUsize::new(0);
    let out = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(r) = repros.get(i) else { break };
                let dir = work.join(format!("{i:03}-{}", r.oracle));
                let printed = run_one(r, &dir, &cache, built.get(i).and_then(Option::as_deref));
                // A poisoned lock still holds every verdict pushed so far:
                // none may go missing from the count.
                out.lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push((i, printed));
            });
        }
    });
    let mut got = out
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    got.sort_by_key(|(i, _)| *i);
    Ok(got
        .into_iter()
        .map(|(i, printed)| Verdict {
            repro: &repros[i],
            printed,
        })
        .collect())
}

// String error: the reason is a cell of the verification table, text only.
fn run_one(
    r: &Reproducer,
    dir: &Path,
    cache: &Path,
    binary: Option<&Path>,
) -> Result<String, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut cmd = match r.program.lang {
        Lang::Python => python(r, dir, cache)?,
        Lang::Js => {
            write(dir, "repro.js", &r.program.source)?;
            let mut c = Command::new("node");
            c.arg("repro.js")
                .env("NODE_PATH", cache.join("npm/node_modules"));
            c
        }
        Lang::Perl => {
            write(dir, "repro.pl", &r.program.source)?;
            let mut c = Command::new("perl");
            c.arg("repro.pl");
            c
        }
        Lang::Ruby => {
            write(dir, "repro.rb", &r.program.source)?;
            let mut c = Command::new("ruby");
            c.arg("repro.rb");
            c
        }
        Lang::Java => {
            write(dir, "Repro.java", &r.program.source)?;
            let mut c = Command::new("java");
            c.arg("-Dfile.encoding=UTF-8")
                .arg("-cp")
                .arg(cache.join("jvm").join(&r.oracle).join("lib/*"))
                .arg("Repro.java");
            c
        }
        Lang::Go => go(r, dir, cache)?,
        Lang::Rust | Lang::Cpp => match binary {
            Some(b) => Command::new(b),
            None => return Err("not built".into()),
        },
    };
    cmd.current_dir(dir);
    let out = run_with_timeout(cmd)?;
    Ok(read_outcome(r.ask, &out))
}

// String error: the reason is a cell of the verification table, text only.
fn write(dir: &Path, name: &str, text: &str) -> Result<(), String> {
    std::fs::write(dir.join(name), text).map_err(|e| format!("{name}: {e}"))
}

/// How the manifest says to run the oracle's reproducers.
// String error: the reason is a cell of the verification table, text only.
fn run_spec(oracle: &str) -> Result<&'static crate::registry::ReproRun, String> {
    crate::registry::reproducers()
        .map_err(|u| u.0)?
        .get(oracle)
        .map(|r| &r.run)
        .ok_or_else(|| format!("{oracle} has no `reproducer:` in its manifest"))
}

/// The interpreter each Python oracle runs in: the one the oracle itself
/// uses (the embedded 3.11.7, or the oracle's venv), as its manifest's
/// `reproducer.run.python` names it.
// String error: the reason is a cell of the verification table, text only.
fn python(r: &Reproducer, dir: &Path, cache: &Path) -> Result<Command, String> {
    write(dir, "repro.py", &r.program.source)?;
    let root = paths::root();
    let spec = run_spec(&r.oracle)?;
    let exe = spec
        .python()
        .ok_or_else(|| format!("{}: no `reproducer.run.python` in its manifest", r.oracle))?;
    let prelude = spec.robotparser_315.then(|| prelude_315(&root, cache));
    let mut c = Command::new(exe);
    c.env("PYTHONHASHSEED", "0");
    match prelude {
        Some(p) => c.arg("-c").arg(p),
        None => c.arg("repro.py"),
    };
    Ok(c)
}

/// CPython 3.15 is not an interpreter here: the oracle runs 3.15.0rc1's
/// `urllib/robotparser.py` on the 3.11 runtime (oracles/src/python/glue.py),
/// so its reproducers run the same way, with that module bound to
/// `urllib.robotparser` before the program starts.
fn prelude_315(root: &Path, cache: &Path) -> String {
    let glue = root.join("oracles/src/python");
    let module = cache.join(oracles::python::pins::ROBOTPARSER_315_PATH);
    format!(
        "import runpy, sys, urllib\n\
sys.path.insert(0, {glue:?})\n\
import glue\n\
glue.cpython315({module:?}, {sha:?})\n\
urllib.robotparser = sys.modules['urllib.robotparser'] = sys.modules[glue.ROBOTPARSER_315]\n\
runpy.run_path('repro.py', run_name='__main__')\n",
        glue = glue.display().to_string(),
        module = module.display().to_string(),
        sha = oracles::python::pins::ROBOTPARSER_315_SHA256,
    )
}

/// `go run .` in a module with the harness's own go.mod and go.sum, so the
/// program links the versions the oracle runs, from setup's module cache.
// String error: the reason is a cell of the verification table, text only.
fn go(r: &Reproducer, dir: &Path, cache: &Path) -> Result<Command, String> {
    let harness = paths::root().join("oracles/harness").join(&r.oracle);
    for f in ["go.mod", "go.sum"] {
        std::fs::copy(harness.join(f), dir.join(f)).map_err(|e| format!("{f}: {e}"))?;
    }
    write(dir, "main.go", &r.program.source)?;
    let mut c = Command::new("go");
    c.args(["run", "."])
        .env("GOMODCACHE", cache.join("gomod"))
        .env("GOCACHE", cache.join("gobuild"))
        .env("GOPROXY", "off")
        .env("GOSUMDB", "off")
        .env("GOFLAGS", "-mod=mod")
        .env("GOTOOLCHAIN", "local");
    Ok(c)
}

/// No reproducer needs more than a few seconds; one that hangs is killed
/// and reported, not waited for.
const LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

// String error: the reason is a cell of the verification table, text only.
fn run_with_timeout(mut cmd: Command) -> Result<Output, String> {
    use std::process::Stdio;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let program = cmd.get_program().to_string_lossy().into_owned();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let started = std::time::Instant::now();
    // Output is a line or a traceback, far below a pipe's buffer, so
    // polling for the exit cannot deadlock on a full pipe.
    while child.try_wait().map_err(|e| e.to_string())?.is_none() {
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "{program} ran over {} s and was killed",
                LIMIT.as_secs()
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child
        .wait_with_output()
        .map_err(|e| format!("{program}: {e}"))
}

/// The outcome a program printed, in the ledger's spelling: the last line
/// of its output as each language prints a verdict or a value, or the
/// exception it died of.
fn read_outcome(ask: Ask, out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Go and Rust templates print `error: <type>: <message>`, and a
    // message may run over several lines.
    if let Some(kind) = stdout.lines().find_map(|l| l.strip_prefix("error: ")) {
        let kind = kind.split(": ").next().unwrap_or(kind);
        return format!("error:{kind}");
    }
    if let Some(last) = stdout.lines().rev().find(|l| !l.trim().is_empty()) {
        let last = last.trim();
        return match (ask, last) {
            (Ask::CanFetch, "True" | "true" | "allowed") => "allowed".into(),
            (Ask::CanFetch, "False" | "false" | "disallowed") => "disallowed".into(),
            (_, "None" | "nil" | "null" | "undefined") => "value:none".into(),
            (_, v) => format!("value:{v}"),
        };
    }
    exception(&stderr).unwrap_or_else(|| {
        format!(
            "nothing printed (exit {}): {}",
            out.status,
            stderr.trim().chars().take(300).collect::<String>()
        )
    })
}

/// The exception a Python, Ruby or Java program died of.
fn exception(stderr: &str) -> Option<String> {
    // Ruby: `repro.rb:5:in 'm': message (Encoding::CompatibilityError)`.
    let first = stderr.lines().next()?;
    if first.ends_with(')') && first.contains(".rb:") {
        let kind = first.rsplit_once('(')?.1.trim_end_matches(')');
        return Some(format!("error:{kind}"));
    }
    // Java: `Exception in thread "main" java.lang.IllegalArgumentException: ...`.
    if let Some(rest) = first.strip_prefix("Exception in thread \"main\" ") {
        let class = rest.split(':').next()?;
        return Some(format!("error:{}", class.rsplit('.').next()?));
    }
    // Python: the traceback's last line, `UnicodeDecodeError: 'utf-8' codec ...`.
    let last = stderr.lines().rev().find(|l| !l.trim().is_empty())?;
    let kind = last.split(':').next()?;
    let kind = kind.rsplit('.').next()?;
    (!kind.contains(' ')).then(|| format!("error:{kind}"))
}

/// Builds the Rust and C++ reproducers: one binary each, indexed like
/// `repros` (`None` for the interpreted ones).
fn build_compiled(
    repros: &[Reproducer],
    work: &Path,
    cache: &Path,
) -> Result<Vec<Option<PathBuf>>, Usage> {
    let mut built = vec![None; repros.len()];
    let mut rust_crates: Vec<&str> = repros
        .iter()
        .filter(|r| r.program.lang == Lang::Rust)
        .map(|r| r.oracle.as_str())
        .collect();
    rust_crates.sort_unstable();
    rust_crates.dedup();
    for krate in rust_crates {
        let mine: Vec<usize> = (0..repros.len())
            .filter(|&i| repros[i].oracle == krate && repros[i].program.lang == Lang::Rust)
            .collect();
        if mine.is_empty() {
            continue;
        }
        let bins = build::rust(krate, &mine, repros, work, cache)?;
        for (i, b) in mine.into_iter().zip(bins) {
            built[i] = Some(b);
        }
    }
    let cpp: Vec<usize> = (0..repros.len())
        .filter(|&i| repros[i].program.lang == Lang::Cpp)
        .collect();
    if !cpp.is_empty() {
        let bins = build::cpp(&cpp, repros, work, cache)?;
        for (i, b) in cpp.into_iter().zip(bins) {
            built[i] = Some(b);
        }
    }
    Ok(built)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    fn output(stdout: &str, stderr: &str, code: i32) -> Output {
        Output {
            status: std::process::ExitStatus::from_raw(code << 8),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
        }
    }

    #[test]
    fn each_language_s_way_of_printing_reads_as_the_ledger_spells_it() {
        let cases = [
            (Ask::CanFetch, "True\n", "", "allowed"),
            (Ask::CanFetch, "false\n", "", "disallowed"),
            (Ask::CanFetch, "x\ndisallowed\n", "", "disallowed"),
            (Ask::CrawlDelay, "None\n", "", "value:none"),
            (Ask::CrawlDelay, "-1.0\n", "", "value:-1.0"),
            (
                Ask::CanFetch,
                "error: *robotstxt.ParseError: Parse error(s): \nDisallow before User-agent\n",
                "",
                "error:*robotstxt.ParseError",
            ),
            (
                Ask::CanFetch,
                "",
                "Traceback (most recent call last):\n  File \"repro.py\", line 3\nUnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9\n",
                "error:UnicodeDecodeError",
            ),
            (
                Ask::CanFetch,
                "",
                "repro.rb:5:in 'match': invalid byte sequence (Encoding::CompatibilityError)\n\tfrom repro.rb:7\n",
                "error:Encoding::CompatibilityError",
            ),
            (
                Ask::CanFetch,
                "",
                "Exception in thread \"main\" java.lang.IllegalArgumentException: bad\n\tat Repro.main\n",
                "error:IllegalArgumentException",
            ),
        ];
        for (ask, out, err, want) in cases {
            assert_eq!(
                read_outcome(ask, &output(out, err, 0)),
                want,
                "{out:?} {err:?}"
            );
        }
    }

    #[test]
    fn a_program_that_prints_nothing_is_not_read_as_an_answer() {
        let got = read_outcome(Ask::CanFetch, &output("", "Segmentation fault\n", 139));
        assert!(got.starts_with("nothing printed"), "{got}");
        assert!(
            !got.starts_with("allowed") && !got.starts_with("error:"),
            "{got}"
        );
    }
}
