//! `repdiff conformance`: the corpus through every oracle, triaged
//! against the ledger, reported.

use crate::shared::{glob_match, seconds, Host, Usage};
use crate::{paths, select};
use engine::case::{Case, Corpus};
use engine::ledger::Ledger;
use engine::run::{self, RunResult};
use std::path::{Path, PathBuf};
use std::time::Duration;

const AFTER_HELP: &str = "\
--oracle-cmd NAME='COMMAND' adds any program that speaks docs/protocol.md
as one more oracle (run by `sh -c`, in its own supervised worker); with
--oracle it is selected by NAME. Its unexplained cells are untriaged, with
reproducers, as for a registered oracle.

Writes compat.json and compat.md to reports/run/latest/ for a full run, to
reports/run/partial/ when filtered (or to --out); both are ignored by git,
so a run changes no tracked file. `repdiff report --publish` turns a full
run into the published snapshot (reports/latest/, the site, the history).

Exit status: 0 when every cell is triaged (and, with --strict, no ledger
entry is stale and no pin differs from what its oracle answered on a cell
the entry names); 1 otherwise or when an oracle could not run; 2 on bad input
(nothing is written).";

// The help text is the doc comment of the `Product` variant (cli.rs).
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct Opts {
    /// Run only this oracle (repeatable)
    #[arg(long = "oracle", value_name = "NAME")]
    pub oracles: Vec<String>,
    /// One more oracle: any program speaking docs/protocol.md, run by `sh -c` (repeatable)
    #[arg(long = "oracle-cmd", value_name = "NAME='COMMAND'")]
    pub oracle_cmds: Vec<String>,
    /// Only the cases whose id matches (`*` any run, `?` one character; repeatable)
    #[arg(long = "case", value_name = "GLOB")]
    pub cases: Vec<String>,
    /// Only the cases of this corpus file, e.g. seed.yaml (repeatable)
    #[arg(long = "file", value_name = "NAME")]
    pub files: Vec<String>,
    /// Also fail when a ledger entry explains nothing in this run
    #[arg(long)]
    pub strict: bool,
    /// Write compat.json and compat.md here instead of reports/run/
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Seconds before the oracle's worker is killed and the cells marked
    /// timeout (a case's batch gets it plus a quarter per further query)
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = seconds)]
    pub timeout: Duration,
    #[command(flatten)]
    pub workers: select::WorkerFlags,
    /// Run the built-in oracles in this process instead of supervised workers
    #[arg(long)]
    pub in_process: bool,
    /// Do not run setup first
    #[arg(long)]
    pub no_setup: bool,
}

impl Opts {
    /// A filtered run is partial: it never lands in reports/run/latest.
    fn filtered(&self) -> bool {
        !self.oracles.is_empty()
            || !self.workers.skip_oracles.is_empty()
            || !self.oracle_cmds.is_empty()
            || !self.cases.is_empty()
            || !self.files.is_empty()
    }
}

pub fn main(opts: Opts, host: &Host) -> Result<i32, crate::error::Error> {
    let extra = select::oracle_cmds(&opts.oracle_cmds)?;
    select::validate(&opts.oracles, &extra)?;
    let profiles = select::profile_names();
    if let Some(p) = opts.oracles.iter().find(|n| profiles.contains(n)) {
        return Err(Usage(format!(
            "`{p}` is an expectation profile, a reference rather than a parser under test: \
             ask it with `check --oracle {p}`"
        ))
        .into());
    }
    let corpus = paths::load_corpus()?;
    let ledger = load_ledger(&corpus, &extra)?;
    let cases = select_cases(&corpus, &opts)?;
    let limits = opts.workers.limits(opts.timeout);
    if !opts.no_setup {
        host.ensure(crate::shared::Needs::Oracles);
    }
    crate::http::check_fetch_timeout();
    let wanted = opts.workers.wanted(&opts.oracles, &extra)?;
    let sel = select::start_for(host.program, &wanted, &extra, opts.in_process, limits);
    let refs = select::start_for(host.program, &profiles, &[], opts.in_process, limits);
    for u in sel.unavailable.iter().chain(&refs.unavailable) {
        log::error!("{u}");
    }
    let out_dir = out_dir(&opts, sel.has_chaos, host)?;
    let _lock = paths::lock_dir(&out_dir)?;
    let pending =
        engine::output::pending(format!("{} (compat.json, compat.md)", out_dir.display()));
    let result = run_cases(&cases, sel, refs, &ledger);
    let compat =
        report::compat::Report::from_run(&result, &cases, &ledger, &corpus.hash, &paths::root());
    // A report that cannot be written is the machine's failure (exit 5),
    // not a disagreement.
    write_reports(&out_dir, &compat, &ledger)?;
    drop(pending);
    print_summary(&compat, host.program);
    print_profile_matrix(&compat);
    print_slowest(&result);
    let untriaged = print_untriaged(&result);
    print_stale(&result, opts.strict);
    let drifted = print_drifted(&result, &ledger, opts.strict);
    print_next_step(&result, &out_dir, host);
    if !result.unavailable.is_empty() {
        return Ok(crate::shared::EXIT_NOT_RUN);
    }
    let failed = untriaged > 0 || (opts.strict && (!result.stale.is_empty() || drifted > 0));
    Ok(if failed { 1 } else { 0 })
}

/// The ledger, checked against every name a run could produce.
pub(crate) fn load_ledger(
    corpus: &Corpus,
    extra: &[crate::registry::External],
) -> Result<Ledger, crate::error::Error> {
    let mut known = select::known_names();
    known.extend(crate::chaos::NAMES.iter().map(|n| n.to_string()));
    known.extend(extra.iter().map(|e| e.name.clone()));
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    paths::load_ledger(corpus, &known)
}

/// The cases `--case` and `--file` keep; none at all is a usage error.
fn select_cases<'c>(corpus: &'c Corpus, opts: &Opts) -> Result<Vec<&'c Case>, Usage> {
    let cases: Vec<&Case> = corpus
        .cases
        .iter()
        .filter(|c| opts.cases.is_empty() || opts.cases.iter().any(|g| glob_match(g, &c.id)))
        .filter(|c| {
            opts.files.is_empty()
                || opts
                    .files
                    .iter()
                    .any(|f| c.file.file_name().is_some_and(|n| n == f.as_str()))
        })
        .collect();
    if cases.is_empty() {
        let asked: Vec<&str> = opts
            .cases
            .iter()
            .chain(&opts.files)
            .map(String::as_str)
            .collect();
        return Err(Usage(format!("no case matches {}", asked.join(", "))));
    }
    Ok(cases)
}

/// Where this run writes. A partial run or one with a fake oracle never
/// overwrites the last full run, and nothing writes the published snapshot.
fn out_dir(opts: &Opts, has_chaos: bool, host: &Host) -> Result<PathBuf, Usage> {
    let latest = paths::run_dir().join("latest");
    let dir = match &opts.out {
        Some(d) => d.clone(),
        None if opts.filtered() || has_chaos => paths::run_dir().join("partial"),
        None => latest.clone(),
    };
    if has_chaos && dir == latest {
        return Err(Usage(
            "a run with a chaos oracle never writes reports/run/latest".into(),
        ));
    }
    if dir == paths::published_dir() {
        return Err(Usage(format!(
            "{} is the published snapshot: run without --out, then `{} report --publish`",
            dir.display(),
            host.program
        )));
    }
    Ok(dir)
}

/// The run itself, with the local HTTP server for the status matrix up for
/// its duration. The expectation profiles' references (`refs`) are asked
/// every query through the same workers and server, for the profile matrix;
/// one that cannot start is unavailable like an oracle (the run fails, named).
fn run_cases(
    cases: &[&Case],
    sel: select::Selection,
    refs: select::Selection,
    ledger: &Ledger,
) -> RunResult {
    let queries: usize = cases.iter().map(|c| c.queries.len()).sum();
    log::info!(
        "conformance: {} cases, {} queries, {} oracles",
        cases.len(),
        queries,
        sel.oracles.len()
    );
    let mut progress = crate::progress::Reporter::new(cases.len() * sel.oracles.len());
    let http = crate::http::Server::start(cases);
    let url_for = |case: &Case| http.as_ref().and_then(|s| s.url_for(case));
    let mut unavailable = sel.unavailable;
    unavailable.extend(refs.unavailable);
    let result = run::run_with_references(
        cases,
        sel.oracles,
        refs.oracles,
        unavailable,
        ledger,
        &url_for,
        &mut |p| progress.update(p),
    );
    progress.finish();
    result
}

/// compat.json and compat.md from the run's own typed report (history is
/// recorded from the same value at `report --publish`), as one switch: a
/// failure or a signal leaves the previous pair, never one of each.
fn write_reports(
    out_dir: &Path,
    compat: &report::compat::Report,
    ledger: &Ledger,
) -> Result<(), crate::error::Error> {
    use crate::error::Error;
    let json_path = out_dir.join("compat.json");
    let json = compat
        .to_json()
        .map_err(|e| Error::io("write", &json_path, std::io::Error::other(e)))?;
    let md = report::markdown::render(compat, ledger);
    let mut set = engine::output::Switch::new();
    for (name, text) in [("compat.json", &json), ("compat.md", &md)] {
        let path = out_dir.join(name);
        set.file(&path, text.as_bytes())
            .map_err(|e| Error::io("write", &path, e))?;
    }
    set.commit().map_err(|e| Error::io("write", out_dir, e))
}

/// Every cell no ledger entry explains, with a command that reproduces it.
fn print_untriaged(result: &RunResult) -> usize {
    let untriaged: Vec<_> = result.untriaged().collect();
    if !untriaged.is_empty() {
        crate::out!(
            "\nUNTRIAGED: {} cell(s) not explained by cases/divergences.yaml:",
            untriaged.len()
        );
        for c in &untriaged {
            crate::out!(
                "  {:<28} {:<14} {:<11} {:?}   {}",
                c.query_ref(),
                c.oracle,
                c.answer.outcome.label(),
                c.status,
                report::reproducer(&c.case, c.query, &c.oracle)
            );
        }
    }
    untriaged.len()
}

fn print_stale(result: &RunResult, strict: bool) {
    if result.stale.is_empty() {
        return;
    }
    crate::out!(
        "\n{}: {} ledger entr{} explain nothing in this run: {}",
        if strict { "STALE" } else { "warning" },
        result.stale.len(),
        if result.stale.len() == 1 { "y" } else { "ies" },
        result.stale.join(", ")
    );
}

/// Pins that name a cell of this run but not what its oracle answered:
/// a cell that needed no explanation never reached the ledger, so a wrong
/// pin there would otherwise stand (issue 53). Returns how many.
fn print_drifted(result: &RunResult, ledger: &Ledger, strict: bool) -> usize {
    let cells = result.cells.iter().map(|c| {
        (
            c.oracle.as_str(),
            c.case.as_str(),
            c.query,
            &c.answer.outcome,
        )
    });
    let drifted = ledger.drifted(cells);
    if drifted.is_empty() {
        return 0;
    }
    crate::out!(
        "\n{}: {} ledger pin{} no longer say what the oracle answered:",
        if strict { "DRIFTED" } else { "warning" },
        drifted.len(),
        if drifted.len() == 1 { "" } else { "s" },
    );
    for d in &drifted {
        crate::out!("  {d}");
    }
    drifted.len()
}

fn print_next_step(result: &RunResult, out_dir: &Path, host: &Host) {
    crate::out!("\nreport: {}", out_dir.join("compat.md").display());
    if !result.unavailable.is_empty() {
        crate::out!(
            "not publishable: {} oracle(s) could not run",
            result.unavailable.len()
        );
    } else if out_dir == paths::run_dir().join("latest") {
        crate::out!(
            "publish it (snapshot, site, history, results page): {} report --publish",
            host.program
        );
    }
}

/// The oracle x profile matrix (share of the queries each oracle answers as
/// each profile expects) and the closest profile, as compat.md shows it.
fn print_profile_matrix(report: &report::compat::Report) {
    let profiles = report.profile_names();
    if profiles.is_empty() {
        return;
    }
    crate::output::part(format_args!("\n{:<16}", "oracle x profile"));
    for p in &profiles {
        crate::output::part(format_args!(" {p:>12}"));
    }
    crate::out!("  closest");
    for o in &report.oracles {
        crate::output::part(format_args!("{:<16}", o.name));
        let row = report.profile_matrix.get(&o.name);
        for p in &profiles {
            match row.and_then(|r| r.get(p)).and_then(|s| s.share()) {
                Some(v) => crate::output::part(format_args!(" {:>11.1}%", v)),
                None => crate::output::part(format_args!(" {:>12}", "-")),
            }
        }
        crate::out!(
            "  {}",
            report
                .closest_profile
                .get(&o.name)
                .map_or("-", String::as_str)
        );
    }
}

/// Where a slow oracle's time went: its slowest cases, for any oracle that
/// took over a second (the run's wall time is its slowest oracle's).
fn print_slowest(result: &RunResult) {
    let slow: Vec<_> = result.oracles.iter().filter(|o| o.millis > 1000).collect();
    if slow.is_empty() {
        return;
    }
    crate::out!("\nslowest cases (oracles over 1 s):");
    for o in slow {
        let cases: Vec<String> = o
            .slowest
            .iter()
            .map(|(case, took)| format!("{case} {} ms", took.as_millis()))
            .collect();
        crate::out!("  {:<16} {}", o.name, cases.join(", "));
    }
}

fn print_summary(result: &report::compat::Report, program: &str) {
    let cards = report::score::cards(result);
    crate::out!(
        "\n{:<16} {:>6} {:>7} {:>6} {:>5} {:>6} {:>7} {:>9} {:>8}  version",
        "oracle",
        "match",
        "deviate",
        "failed",
        "split",
        "unsup",
        "score",
        "untriaged",
        "ms"
    );
    for o in &result.oracles {
        if let Some(s) = cards.get(&o.name).map(|c| c.all) {
            crate::out!(
                "{:<16} {:>6} {:>7} {:>6} {:>5} {:>6} {:>6.1}% {:>9} {:>8}  {}",
                o.name,
                s.matched,
                s.deviated,
                s.failed,
                s.split,
                s.unsupported,
                s.percent(),
                s.untriaged,
                o.millis,
                o.identity
            );
        }
    }
    for u in &result.unavailable {
        crate::out!(
            "{:<16} NOT RUN: {} (fix: {})",
            u.oracle,
            u.reason,
            u.fix_line(program)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every ledger pin says what its oracle answered in the published run,
    /// on every cell its entry names, not only on the cells that needed an
    /// explanation (issue 53: an entry said protego keeps a leading BOM
    /// while protego strips it). The published run is the one the site
    /// quotes; `conformance --strict` checks a fresh run the same way.
    #[test]
    fn every_pin_says_what_the_published_run_answered() {
        let corpus = paths::load_corpus().expect("the corpus loads");
        let ledger = load_ledger(&corpus, &[]).expect("the ledger loads");
        let published = paths::published_dir().join("compat.json");
        let report = report::compat::Report::load(&published).expect("the published run");
        let cells = report.cells.iter().map(|c| {
            (
                c.oracle.as_str(),
                c.case.as_str(),
                c.query,
                &c.answer.outcome,
            )
        });
        let drifted: Vec<String> = ledger
            .drifted(cells)
            .iter()
            .map(|d| d.to_string())
            .collect();
        assert!(
            report.cells.len() > 10_000 && ledger.entries.len() > 100,
            "a real run and ledger"
        );
        assert!(
            drifted.is_empty(),
            "{} pins drifted:\n{}",
            drifted.len(),
            drifted.join("\n")
        );
    }
}
