//! `cargo xtask report`: the published site from a run's compat.json, and
//! `cargo xtask report diff OLD NEW`: what changed between two runs.

mod browser;

use crate::cli::{Args, Usage};
use crate::paths;
use report::compat::Report;
use report::history;
use report::site::{self, diff};
use std::path::{Path, PathBuf};

pub const HELP: &str = "\
cargo xtask report [--publish] [--json FILE] [--out DIR] [--ledger FILE] [--history FILE] [--no-screenshot]
cargo xtask report diff OLD.json NEW.json [--markdown]

report: renders the static site (index with the oracle x tag and oracle x RFC
section matrices, one page per oracle and per case, the ledger, versions)
and a shields.io badge endpoint per oracle from FILE (default
reports/run/latest/compat.json, the last full conformance run), the ledger
(cases/divergences.yaml) and the history (reports/history.jsonl) into DIR
(default reports/run/site, ignored by git), atomically: a failed render
leaves the old site. With Debian's chromium it also saves a screenshot of
the index as DIR/screenshot.png (`cargo xtask setup` installs it).

--publish: the one step that changes the published snapshot. It refuses a
run in which an oracle could not start; otherwise it copies the run to
reports/latest/, appends its records to reports/history.jsonl, renders the
site into reports/site/ and rewrites the README's summary.

report diff: every cell whose answer, status or triage changed between two
compat.json files, the divergences new and fixed (ledger entries and
untriaged cells), oracle versions and scores that changed; --markdown for a
CI summary. Exit status 0, 2 on unreadable input.";

pub fn main(raw: &[String]) -> Result<i32, Usage> {
    if raw.first().map(String::as_str) == Some("diff") {
        return diff_main(&raw[1..]);
    }
    let args = Args::parse(
        raw,
        &["no-screenshot", "publish", "help"],
        &["json", "out", "ledger", "history"],
    )?;
    if args.has("help") {
        println!("{HELP}");
        return Ok(0);
    }
    if let Some(p) = args.positional.first() {
        return Err(Usage(format!(
            "report: unexpected argument {p:?} (see --help)"
        )));
    }
    let root = paths::root();
    let publish = args.has("publish");
    let json = args
        .one("json")?
        .map(PathBuf::from)
        .unwrap_or_else(|| paths::run_dir().join("latest/compat.json"));
    let site_dir = root.join("reports/site");
    let out = match args.one("out")? {
        Some(_) if publish => {
            return Err(Usage(
                "--publish writes reports/site; it takes no --out".into(),
            ))
        }
        Some(d) => PathBuf::from(d),
        None if publish => site_dir.clone(),
        None => paths::run_dir().join("site"),
    };
    let ledger_path = args
        .one("ledger")?
        .map(PathBuf::from)
        .unwrap_or_else(paths::ledger);
    let history_path = args
        .one("history")?
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("reports/history.jsonl"));

    let report = load_report(&json)?;
    if publish {
        publish_run(&json, &report, &history_path)?;
    }
    let corpus = paths::load_corpus()?;
    let mut known = crate::select::known_names();
    known.extend(crate::chaos::NAMES.iter().map(|n| n.to_string()));
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    let ledger =
        engine::ledger::load(&ledger_path, &corpus, &known).map_err(|e| Usage(e.to_string()))?;
    let history = history::read(&history_path).map_err(Usage)?;

    let started = std::time::Instant::now();
    let files = site::render(&site::Inputs {
        report: &report,
        ledger: &ledger,
        history: &history,
    });
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    let staged = match site::stage(&out, &files) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "error: cannot write the site next to {}: {e}",
                out.display()
            );
            return Ok(1);
        }
    };
    if !args.has("no-screenshot") {
        let index = staged.path().join("index.html");
        let png = staged.path().join("screenshot.png");
        match browser::screenshot(&index, &png) {
            Ok(()) => eprintln!("report: screenshot of the index saved"),
            Err(e) => eprintln!("warning: no screenshot: {e}"),
        }
    }
    if let Err(e) = staged.commit() {
        eprintln!(
            "error: cannot swap the new site into {}: {e}",
            out.display()
        );
        return Ok(1);
    }
    // The published site: the README embeds its summary.
    if publish {
        update_readme(&root.join("README.md"), &site::summary_markdown(&report));
    }
    println!(
        "report: {} files ({} KiB) in {} ({} ms): {}",
        files.len(),
        bytes / 1024,
        out.display(),
        started.elapsed().as_millis(),
        out.join("index.html").display()
    );
    Ok(0)
}

pub const README_BEGIN: &str =
    "<!-- summary: begin (written by `cargo xtask report` from reports/latest/compat.json) -->";
pub const README_END: &str = "<!-- summary: end -->";

/// Rewrite the README's summary between its markers (nothing else).
fn update_readme(path: &Path, summary: &str) {
    let Ok(doc) = std::fs::read_to_string(path) else {
        return;
    };
    match site::splice(&doc, README_BEGIN, README_END, summary) {
        Some(new) if new != doc => match engine::write_atomic(path, new.as_bytes()) {
            Ok(()) => eprintln!("report: summary updated in {}", path.display()),
            Err(e) => eprintln!("warning: cannot update {}: {e}", path.display()),
        },
        Some(_) => {}
        None => eprintln!(
            "warning: {} has no summary markers; the summary is in reports/site/summary.md",
            path.display()
        ),
    }
}

fn load_report(path: &Path) -> Result<Report, Usage> {
    if !path.exists() {
        return Err(Usage(format!(
            "{}: no such file (run `cargo xtask conformance` first)",
            path.display()
        )));
    }
    Report::load(path).map_err(Usage)
}

fn diff_main(raw: &[String]) -> Result<i32, Usage> {
    let args = Args::parse(raw, &["markdown", "help"], &[])?;
    if args.has("help") {
        println!("{HELP}");
        return Ok(0);
    }
    let [old, new] = args.positional.as_slice() else {
        return Err(Usage(
            "usage: cargo xtask report diff OLD.json NEW.json [--markdown]".into(),
        ));
    };
    let old = load_report(Path::new(old))?;
    let new = load_report(Path::new(new))?;
    let d = diff::diff(&old, &new);
    if args.has("markdown") {
        print!("{}", d.markdown());
    } else {
        print!("{}", d.text());
    }
    Ok(0)
}

/// The publishing half of `report --publish`: refuse a run that is not
/// whole, then copy it to reports/latest/ and append its history records
/// (keys already there are not written again). The site follows.
fn publish_run(json: &Path, report: &Report, history_path: &Path) -> Result<(), Usage> {
    if !report.unavailable.is_empty() {
        let names: Vec<&str> = report
            .unavailable
            .iter()
            .map(|u| u.oracle.as_str())
            .collect();
        return Err(Usage(format!(
            "{}: not published: {} oracle(s) could not run ({}); nothing was changed",
            json.display(),
            names.len(),
            names.join(", ")
        )));
    }
    let known = crate::select::known_names();
    let ran: Vec<&str> = report.oracles.iter().map(|o| o.name.as_str()).collect();
    let missing: Vec<&str> = known
        .iter()
        .map(String::as_str)
        .filter(|n| !ran.contains(n))
        .collect();
    if !missing.is_empty() {
        return Err(Usage(format!(
            "{}: not published: not a full run (missing {}); run `cargo xtask conformance` without filters",
            json.display(),
            missing.join(", ")
        )));
    }
    let from = json.parent().unwrap_or(Path::new("."));
    let to = paths::published_dir();
    for name in ["compat.json", "compat.md"] {
        let bytes = std::fs::read(from.join(name))
            .map_err(|e| Usage(format!("{}: cannot read: {e}", from.join(name).display())))?;
        engine::write_atomic(&to.join(name), &bytes)
            .map_err(|e| Usage(format!("cannot write {}: {e}", to.join(name).display())))?;
    }
    eprintln!("publish: {} -> {}", from.display(), to.display());
    match history::record(history_path, report) {
        Ok(n) => eprintln!("publish: {n} new record(s) in {}", history_path.display()),
        Err(e) => return Err(Usage(format!("history not updated: {e}"))),
    }
    Ok(())
}
