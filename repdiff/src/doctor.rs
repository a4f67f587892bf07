//! `doctor [--json]`: which registered oracles can run on this machine, what
//! each one needs, and what fixes the rest. Each oracle is really started
//! (as `check` and `conformance` start it), so "ready" means its worker
//! greeted. It only reports: it runs no setup and installs nothing.

use crate::registry::External;
use crate::setup::runtimes;
use crate::shared::{Usage, EXIT_NOT_RUN};
use std::path::Path;

// The help text is the doc comment of the `Product` variant (cli.rs).
#[derive(Debug, clap::Args)]
pub struct Opts {
    /// One JSON array, an object per oracle: {name, runtime, program,
    /// found, ready, reason, fix}
    #[arg(long)]
    pub json: bool,
}

/// One oracle's line.
#[derive(Debug, serde::Serialize)]
struct Row {
    name: String,
    /// What its code runs on: `rust`, `python`, `google` (native C++) for a
    /// built-in; `java`, `node`, `ruby`, `perl`, `go`, ... for an external.
    runtime: String,
    /// The program its worker runs: a bare name found on PATH (`ruby`), a
    /// path setup builds (`.cache/go/grobotstxt/harness`), or `built in`.
    program: String,
    /// Whether that program is there (on PATH, or the file exists).
    found: bool,
    ready: bool,
    reason: Option<String>,
    fix: Option<String>,
    /// The program as the text output shows it.
    #[serde(skip)]
    shown: String,
}

/// What a built-in needs: this binary, or its harness binary (Google's).
fn builtin_row(e: &oracles::Entry) -> Row {
    let (found, shown) = match e.harness {
        Some(harness) => {
            let path = harness();
            let found = path.is_file();
            let shown = format!(
                "built in (harness {}, {})",
                in_cache(&path),
                if found { "present" } else { "absent" }
            );
            (found, shown)
        }
        None => (true, "built in".to_string()),
    };
    Row {
        name: e.name.to_string(),
        runtime: e.runtime.to_string(),
        program: "built in".into(),
        found,
        ready: false,
        reason: None,
        fix: None,
        shown,
    }
}

/// A path under the setup cache written as a manifest writes it
/// (`{cache}/google-target/...`), so the table stays narrow.
fn in_cache(path: &Path) -> String {
    let cache = oracles::cache_dir();
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    let rel = path
        .strip_prefix(&cache)
        .ok()
        .map(Path::to_path_buf)
        .or_else(|| {
            let (cache, dir) = (canonical(&cache)?, canonical(path.parent()?)?);
            let rel = dir.strip_prefix(cache).ok()?;
            Some(rel.join(path.file_name()?))
        });
    match rel {
        Some(rel) => format!("{{cache}}/{}", rel.display()),
        None => path.display().to_string(),
    }
}

/// What an external needs: its command's program, a bare name on PATH or
/// a file setup puts in the cache.
fn external_row(e: &External) -> Row {
    let argv = e.argv();
    let program = argv.first().cloned().unwrap_or_default();
    let written = e.command.first().cloned().unwrap_or_default();
    let (runtime, found, shown) = if runtimes::is_bare(&program) {
        let found = runtimes::which(&program).is_some();
        let shown = if found {
            program.clone()
        } else {
            format!("{program} (not on PATH)")
        };
        (program.clone(), found, shown)
    } else {
        let i = &e.install;
        let runtime = if i.go.is_some() {
            "go"
        } else if i.cargo.is_some() {
            "rust"
        } else if i.pip.is_some() {
            "python"
        } else if i.maven.is_some() {
            "java"
        } else if i.npm.is_some() {
            "node"
        } else {
            "program"
        };
        let found = !program.is_empty() && Path::new(&program).is_file();
        let shown = format!("{written} ({})", if found { "present" } else { "absent" });
        (runtime.to_string(), found, shown)
    };
    Row {
        name: e.name.clone(),
        runtime,
        program,
        found,
        ready: false,
        reason: None,
        fix: None,
        shown,
    }
}

/// `doctor`: every registered oracle, started once, one line each; exit 0
/// when every one is ready, else [`EXIT_NOT_RUN`].
pub fn main(opts: Opts, program: &'static str) -> Result<i32, crate::error::Error> {
    let externals = crate::registry::externals()?;
    let names = crate::select::known_names();
    let registry = oracles::registry();
    let root = crate::paths::root();
    let missing = runtimes::missing(&root, &externals);
    let mut rows: Vec<Row> = names
        .iter()
        .filter_map(|n| {
            if let Some(e) = registry.iter().find(|e| e.name == n.as_str()) {
                Some(builtin_row(e))
            } else {
                externals.iter().find(|e| &e.name == n).map(external_row)
            }
        })
        .collect();
    let selection = crate::select::start_for(
        program,
        &names,
        &[],
        false,
        engine::worker::Limits::default(),
    );
    let unavailable = selection.unavailable;
    // Stop the workers that started: doctor asks them nothing.
    drop(selection.oracles);
    for row in &mut rows {
        match unavailable.iter().find(|u| u.oracle == row.name) {
            None => row.ready = true,
            Some(u) => {
                row.reason = Some(u.reason.clone());
                // A runtime program it needs is missing: that is the fix,
                // and setup after it (which builds what it then can).
                let its: Vec<&runtimes::Missing> = missing
                    .iter()
                    .filter(|m| m.oracles.contains(&row.name))
                    .collect();
                row.fix = Some(if its.is_empty() {
                    u.fix_line(program)
                } else {
                    runtimes::fix(&its, &root, &externals, program)
                });
            }
        }
    }
    let ready = rows.iter().filter(|r| r.ready).count();
    if opts.json {
        let json = serde_json::to_string(&rows)
            .map_err(|e| Usage(format!("cannot write the report as JSON: {e}")))?;
        crate::out!("{json}");
        log::info!("{}", python_line());
    } else {
        print_text(&rows, &externals, &root, &missing);
        crate::out!("{ready} of {} oracles ready", rows.len());
        if ready < rows.len() {
            crate::out!(
                "doctor installs nothing: run the fixes above (`{program} setup` installs the \
                 runtimes from Debian's packages when run as root)"
            );
        }
    }
    Ok(if ready == rows.len() { 0 } else { EXIT_NOT_RUN })
}

fn print_text(rows: &[Row], externals: &[External], root: &Path, missing: &[runtimes::Missing]) {
    let name_w = rows.iter().map(|r| r.name.len()).max().unwrap_or(0).max(6);
    let runtime_w = rows
        .iter()
        .map(|r| r.runtime.len())
        .max()
        .unwrap_or(0)
        .max(7);
    let program_w = rows.iter().map(|r| r.shown.len()).max().unwrap_or(0).max(7);
    crate::out!(
        "{:<name_w$}  {:<runtime_w$}  {:<program_w$}  status",
        "oracle",
        "runtime",
        "program"
    );
    for r in rows {
        let status = match &r.reason {
            None => "ready".to_string(),
            Some(reason) => format!("missing: {reason}"),
        };
        crate::out!(
            "{:<name_w$}  {:<runtime_w$}  {:<program_w$}  {status}",
            r.name,
            r.runtime,
            r.shown
        );
        if let Some(fix) = &r.fix {
            let indent = name_w + runtime_w + program_w + 6;
            crate::out!("{:indent$}fix: {fix}", "");
        }
    }
    crate::out!();
    crate::out!("runtime programs (the oracles' and setup's):");
    let required_go = runtimes::go_required(root, externals);
    for need in runtimes::needed(externals) {
        let found = runtimes::which(&need.program);
        let mut line = match &found {
            Some(path) => format!("  {:<6} {}", need.program, path.display()),
            None => format!("  {:<6} not on PATH", need.program),
        };
        if need.program == "go" {
            if let Some(have) = found.as_ref().and_then(|_| runtimes::go_version()) {
                line.push_str(&format!(" (go {have})"));
            }
            if let Some(r) = &required_go {
                line.push_str(&format!("; the Go harnesses' go.mod want go >= {r}"));
            }
            if missing.iter().any(|m| m.program == "go") {
                let debian = runtimes::debian_go_version();
                line.push_str(&format!(
                    "; fix: {}",
                    runtimes::go_fix(required_go.as_deref(), debian.as_deref())
                ));
            }
        } else if found.is_none() {
            match runtimes::package(&need.program) {
                Some(p) => line.push_str(&format!(" (Debian package `{p}`)")),
                None => line.push_str(" (no Debian package known)"),
            }
        }
        line.push_str(&format!(" (for {})", need.oracles.join(", ")));
        crate::out!("{line}");
    }
    crate::out!();
    crate::out!("{}", python_line());
}

/// The first `python3` on PATH against the interpreter this binary embeds
/// (information only: the Python oracles run on the embedded one).
fn python_line() -> String {
    let embedded = format!(
        "embedded python: {} ({})",
        oracles::python::PYO3_PYTHON,
        first_line(oracles::python::PYO3_SYS_VERSION)
    );
    let Some(path) = runtimes::which("python3") else {
        return format!("python3 on PATH: none; {embedded}");
    };
    let asked = std::process::Command::new(&path)
        .args([
            "-c",
            "import sys; print(sys.executable); print(sys.version)",
        ])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    let on_path = match asked {
        Some(text) => {
            let mut lines = text.lines();
            let exe = lines.next().unwrap_or_default().to_string();
            let version = lines.next().unwrap_or_default().to_string();
            let same = version == first_line(oracles::python::PYO3_SYS_VERSION);
            format!(
                "python3 on PATH: {} = {exe} ({version}){}",
                path.display(),
                if same {
                    ", the embedded version"
                } else {
                    ", not the embedded version"
                }
            )
        }
        None => format!("python3 on PATH: {} (it did not run)", path.display()),
    };
    format!("{on_path}; {embedded}")
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or_default()
}
