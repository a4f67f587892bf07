//! `cargo xtask report`: the published site from a run's compat.json, and
//! `cargo xtask report diff OLD NEW`: what changed between two runs.

mod browser;

use crate::cli::Usage;
use crate::paths;
use clap::Subcommand;
use report::compat::Report;
use report::history;
use report::site::{self, diff};
use std::path::{Path, PathBuf};

const AFTER_HELP: &str = "\
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
site into reports/site/ and rewrites the README's summary.";

// The help text is the doc comment of the `Product` variant (cli.rs).
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP, args_conflicts_with_subcommands = true)]
pub struct Opts {
    #[command(subcommand)]
    pub diff: Option<Sub>,
    /// Copy the run to reports/latest/, append the history, render reports/site/
    /// and the README summary (refuses a run an oracle missed)
    #[arg(long)]
    pub publish: bool,
    /// The run's compat.json [default: reports/run/latest/compat.json]
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Where the site goes [default: reports/run/site]
    #[arg(long, value_name = "DIR", conflicts_with = "publish")]
    pub out: Option<PathBuf>,
    /// One ledger file instead of the checkout's ledger [default:
    /// cases/divergences.yaml, cases/divergences/*.yaml and each external
    /// oracle's oracles/harness/NAME/divergences.yaml]
    #[arg(long, value_name = "FILE")]
    pub ledger: Option<PathBuf>,
    /// The history [default: reports/history.jsonl]
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
    /// Skip the screenshot of the index
    #[arg(long)]
    pub no_screenshot: bool,
}

#[derive(Debug, Subcommand)]
pub enum Sub {
    /// What changed between two runs
    ///
    /// Every cell whose answer, status or triage changed between two
    /// compat.json files, the divergences new and fixed (ledger entries and
    /// untriaged cells), oracle versions and scores that changed. Exit status
    /// 0, 2 on unreadable input.
    Diff {
        /// The older run's compat.json
        #[arg(value_name = "OLD.json")]
        old: PathBuf,
        /// The newer run's compat.json
        #[arg(value_name = "NEW.json")]
        new: PathBuf,
        /// Markdown, for a CI summary
        #[arg(long)]
        markdown: bool,
    },
}

pub fn main(opts: Opts) -> Result<i32, Usage> {
    if let Some(Sub::Diff { old, new, markdown }) = &opts.diff {
        return diff_main(old, new, *markdown);
    }
    let root = paths::root();
    let publish = opts.publish;
    let json = opts
        .json
        .clone()
        .unwrap_or_else(|| paths::run_dir().join("latest/compat.json"));
    let out = match &opts.out {
        Some(d) => d.clone(),
        None if publish => root.join("reports/site"),
        None => paths::run_dir().join("site"),
    };
    let history_path = opts
        .history
        .clone()
        .unwrap_or_else(|| root.join("reports/history.jsonl"));

    let report = load_report(&json)?;
    if publish {
        publish_run(&json, &report, &history_path)?;
    }
    let corpus = paths::load_corpus()?;
    let mut known = crate::select::known_names();
    known.extend(crate::chaos::NAMES.iter().map(|n| n.to_string()));
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    let ledger = match &opts.ledger {
        Some(path) => engine::ledger::load_files(std::slice::from_ref(path), &corpus, &known)
            .map_err(|e| Usage(e.to_string()))?,
        None => paths::load_ledger(&corpus, &known)?,
    };
    let history = history::read(&history_path).map_err(Usage)?;
    let census = load_census(publish)?;
    let suites = load_suites(publish)?;
    let slow = load_slow(&root.join("cases/findings.yaml"))?;
    let inputs = site::Inputs {
        report: &report,
        ledger: &ledger,
        history: &history,
        census: census.as_ref(),
        suites: suites.as_ref(),
        slow: &slow,
    };
    if !render(&inputs, &out, !opts.no_screenshot) {
        return Ok(1);
    }
    // The published site: the README embeds its summary and the census's
    // headline, both from the snapshots the site was rendered from.
    if publish {
        let readme = root.join("README.md");
        update_readme(
            &readme,
            README_BEGIN,
            README_END,
            &site::summary_markdown(&report),
        );
        if let Some(c) = &census {
            let table = census::render::headline_table(&c.written.summary.headline);
            update_readme(&readme, CENSUS_BEGIN, CENSUS_END, &table);
        }
    }
    Ok(0)
}

/// Render, stage and swap the site into `out`; false (said why) on failure.
fn render(inputs: &site::Inputs<'_>, out: &Path, screenshot: bool) -> bool {
    let started = std::time::Instant::now();
    let files = site::render(inputs);
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    let staged = match site::stage(out, &files) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "error: cannot write the site next to {}: {e}",
                out.display()
            );
            return false;
        }
    };
    if screenshot {
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
        return false;
    }
    println!(
        "report: {} files ({} KiB) in {} ({} ms): {}",
        files.len(),
        bytes / 1024,
        out.display(),
        started.elapsed().as_millis(),
        out.join("index.html").display()
    );
    true
}

pub const README_BEGIN: &str =
    "<!-- summary: begin (written by `cargo xtask report` from reports/latest/compat.json) -->";
pub const README_END: &str = "<!-- summary: end -->";
pub const CENSUS_BEGIN: &str =
    "<!-- census headline: begin (written by `cargo xtask report --publish` from reports/census/census.json) -->";
pub const CENSUS_END: &str = "<!-- census headline: end -->";

/// Rewrite one generated part of the README between its markers (nothing
/// else).
fn update_readme(path: &Path, begin: &str, end: &str, summary: &str) {
    let Ok(doc) = std::fs::read_to_string(path) else {
        return;
    };
    match site::splice(&doc, begin, end, summary) {
        Some(new) if new != doc => match engine::write_atomic(path, new.as_bytes()) {
            Ok(()) => eprintln!("report: summary updated in {}", path.display()),
            Err(e) => eprintln!("warning: cannot update {}: {e}", path.display()),
        },
        Some(_) => {}
        None => eprintln!(
            "warning: {} has no `{begin}` ... `{end}` markers; not updated",
            path.display()
        ),
    }
}

/// The first of `candidates` that exists; a published site uses only the
/// published snapshot, a plain render prefers this checkout's last run.
fn first_existing(candidates: Vec<PathBuf>) -> Option<PathBuf> {
    candidates.into_iter().find(|p| p.is_file())
}

/// The `slow:` entries of cases/findings.yaml (none when the file is
/// missing; its other keys are `cargo xtask findings`' business).
fn load_slow(path: &Path) -> Result<Vec<site::SlowFinding>, Usage> {
    #[derive(serde::Deserialize)]
    struct Notes {
        #[serde(default)]
        slow: Vec<site::SlowFinding>,
    }
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Usage(format!("{}: {e}", path.display()))),
    };
    serde_yaml::from_str::<Notes>(&text)
        .map(|n| n.slow)
        .map_err(|e| Usage(format!("{}: {e}", path.display())))
}

fn load_census(publish: bool) -> Result<Option<census::Census>, Usage> {
    let published = paths::published_census_dir().join("census.json");
    let run = paths::run_dir().join("census/census.json");
    let candidates = if publish {
        vec![published]
    } else {
        vec![run, published]
    };
    first_existing(candidates)
        .map(|p| census::read_census(&p).map_err(Usage))
        .transpose()
}

fn load_suites(publish: bool) -> Result<Option<report::suites::SuitesReport>, Usage> {
    let published = paths::published_suites();
    let run = paths::run_dir().join("suites.json");
    let candidates = if publish {
        vec![published]
    } else {
        vec![run, published]
    };
    first_existing(candidates)
        .map(|p| report::suites::SuitesReport::read(&p).map_err(Usage))
        .transpose()
}

fn load_report(path: &Path) -> Result<Report, Usage> {
    if !path.exists() {
        return Err(Usage(format!(
            "{}: no such file (run `{} conformance` first)",
            path.display(),
            crate::cli::program()
        )));
    }
    Report::load(path).map_err(Usage)
}

fn diff_main(old: &Path, new: &Path, markdown: bool) -> Result<i32, Usage> {
    let old = load_report(old)?;
    let new = load_report(new)?;
    let d = diff::diff(&old, &new);
    if markdown {
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
            "{}: not published: not a full run (missing {}); run `{} conformance` without filters",
            json.display(),
            missing.join(", "),
            crate::cli::program()
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
