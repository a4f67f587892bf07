//! `cargo xtask conformance`: the corpus through every oracle, triaged
//! against the ledger, reported.

use crate::cli::{glob_match, Args, Usage};
use crate::{paths, select, setup};
use engine::case::Case;
use engine::run::{self, Progress};
use engine::worker::Limits;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

pub const HELP: &str = "\
cargo xtask conformance [--oracle NAME]... [--oracle-cmd NAME='COMMAND']... [--case GLOB]...
                        [--file NAME]... [--strict] [--out DIR] [--timeout SECS]
                        [--in-process] [--no-setup]

Runs every case of cases/corpus/ through every oracle (or those named),
compares each answer with the case's RFC 9309 expectation, and explains every
deviation or disagreement by an entry of cases/divergences.yaml.

--oracle-cmd NAME='COMMAND' adds any program that speaks docs/protocol.md
as one more oracle (run by `sh -c`, in its own supervised worker); with
--oracle it is selected by NAME. Its unexplained cells are untriaged, with
reproducers, as for a registered oracle.

Writes compat.json and compat.md to reports/run/latest/ for a full run, to
reports/run/partial/ when filtered (or to --out); both are ignored by git,
so a run changes no tracked file. `cargo xtask report --publish` turns a full
run into the published snapshot (reports/latest/, the site, the history). --timeout is per query
(default 5 s; a case's batch of n queries gets n times it) before the
oracle's worker is killed and the cells marked timeout. Exit status: 0 when every cell
is triaged (and, with --strict, no ledger entry is stale); 1 otherwise or
when an oracle could not run; 2 on bad input (nothing is written).";

pub fn main(raw: &[String]) -> Result<i32, Usage> {
    let args = Args::parse(
        raw,
        &["strict", "in-process", "no-setup", "help"],
        &["oracle", "oracle-cmd", "case", "file", "out", "timeout"],
    )?;
    if args.has("help") {
        println!("{HELP}");
        return Ok(0);
    }
    let names = args.all("oracle");
    let extra = select::oracle_cmds(&args.all("oracle-cmd"))?;
    select::validate(&names, &extra)?;
    let globs = args.all("case");
    let files = args.all("file");
    let corpus = paths::load_corpus()?;
    let mut known = select::known_names();
    known.extend(crate::chaos::NAMES.iter().map(|n| n.to_string()));
    known.extend(extra.iter().map(|e| e.name.clone()));
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    let ledger = engine::ledger::load(&paths::ledger(), &corpus, &known)
        .map_err(|e| Usage(e.to_string()))?;
    let cases: Vec<&Case> = corpus
        .cases
        .iter()
        .filter(|c| globs.is_empty() || globs.iter().any(|g| glob_match(g, &c.id)))
        .filter(|c| {
            files.is_empty()
                || files
                    .iter()
                    .any(|f| c.file.file_name().is_some_and(|n| n == f.as_str()))
        })
        .collect();
    if cases.is_empty() {
        return Err(Usage(format!(
            "no case matches {}",
            globs
                .iter()
                .chain(&files)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let timeout = Duration::from_secs_f64(args.number("timeout", 5.0)?);
    let limits = Limits {
        timeout,
        ..Limits::default()
    };
    if !args.has("no-setup") {
        setup::ensure_or_reexec();
    }

    crate::http::check_fetch_timeout();
    let sel = select::start(&names, &extra, args.has("in-process"), limits);
    for u in &sel.unavailable {
        eprintln!("ERROR: {u}");
    }
    let filtered = !names.is_empty()
        || !extra.is_empty()
        || !globs.is_empty()
        || !files.is_empty()
        || sel.has_chaos;
    let out_dir = match args.one("out")? {
        Some(d) => PathBuf::from(d),
        None if filtered => paths::run_dir().join("partial"),
        None => paths::run_dir().join("latest"),
    };
    if sel.has_chaos && out_dir == paths::run_dir().join("latest") {
        return Err(Usage(
            "a run with a chaos oracle never writes reports/run/latest".into(),
        ));
    }
    if out_dir == paths::published_dir() {
        return Err(Usage(format!(
            "{} is the published snapshot: run without --out, then `cargo xtask report --publish`",
            out_dir.display()
        )));
    }

    let queries: usize = cases.iter().map(|c| c.queries.len()).sum();
    eprintln!(
        "conformance: {} cases, {} queries, {} oracles",
        cases.len(),
        queries,
        sel.oracles.len()
    );
    let tty = std::io::stderr().is_terminal();
    let total_cells = cases.len() * sel.oracles.len();
    let mut done_cells = 0usize;
    let mut last_shown = 0usize;
    let mut progress = |p: Progress<'_>| {
        let Progress::CaseDone {
            oracle,
            done,
            total,
        } = p;
        done_cells += 1;
        if tty {
            eprint!("\r  [{done_cells:>5}/{total_cells}] {oracle:<16} {done}/{total}   ");
        } else if done_cells * 10 / total_cells.max(1) > last_shown {
            last_shown = done_cells * 10 / total_cells.max(1);
            eprintln!(
                "  {}% ({done_cells}/{total_cells} oracle-cases)",
                last_shown * 10
            );
        }
    };
    let http = crate::http::Server::start(&cases);
    let url_for = |case: &Case| http.as_ref().and_then(|s| s.url_for(case));
    let result = run::run(
        &cases,
        sel.oracles,
        sel.unavailable,
        &ledger,
        &url_for,
        &mut progress,
    );
    if tty {
        eprintln!();
    }

    let compat = report::compat::Report::from_run(&result, &cases, &corpus.hash, &paths::root());
    let json = match compat.to_json() {
        Ok(json) => json,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(1);
        }
    };
    let md = report::markdown::render(&compat, &ledger);
    for (name, text) in [("compat.json", &json), ("compat.md", &md)] {
        let path = out_dir.join(name);
        if let Err(e) = engine::write_atomic(&path, text.as_bytes()) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return Ok(1);
        }
    }

    print_summary(&compat);
    let untriaged: Vec<_> = result.untriaged().collect();
    if !untriaged.is_empty() {
        println!(
            "\nUNTRIAGED: {} cell(s) not explained by cases/divergences.yaml:",
            untriaged.len()
        );
        for c in &untriaged {
            println!(
                "  {:<28} {:<14} {:<11} {:?}   {}",
                c.query_ref(),
                c.oracle,
                c.answer.outcome.label(),
                c.status,
                report::reproducer(&c.case, c.query, &c.oracle)
            );
        }
    }
    if !result.stale.is_empty() {
        println!(
            "\n{}: {} ledger entr{} explain nothing in this run: {}",
            if args.has("strict") {
                "STALE"
            } else {
                "warning"
            },
            result.stale.len(),
            if result.stale.len() == 1 { "y" } else { "ies" },
            result.stale.join(", ")
        );
    }
    println!("\nreport: {}", out_dir.join("compat.md").display());
    if !result.unavailable.is_empty() {
        println!(
            "not publishable: {} oracle(s) could not run",
            result.unavailable.len()
        );
    } else if out_dir == paths::run_dir().join("latest") {
        println!(
            "publish it (snapshot, site, history, README summary): cargo xtask report --publish"
        );
    }
    let failed = !untriaged.is_empty()
        || !result.unavailable.is_empty()
        || (args.has("strict") && !result.stale.is_empty());
    Ok(if failed { 1 } else { 0 })
}

fn print_summary(result: &report::compat::Report) {
    let cards = report::score::cards(result);
    println!(
        "\n{:<16} {:>6} {:>7} {:>6} {:>5} {:>6} {:>7} {:>9} {:>8}  version",
        "oracle", "match", "deviate", "failed", "split", "unsup", "score", "untriaged", "ms"
    );
    for o in &result.oracles {
        if let Some(s) = cards.get(&o.name).map(|c| c.all) {
            println!(
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
                o.version
            );
        }
    }
    for u in &result.unavailable {
        println!("{:<16} NOT RUN: {} (fix: {})", u.oracle, u.reason, u.fix);
    }
}
