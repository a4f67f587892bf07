//! `suites`: every oracle on every parser's own test suite.
//!
//! Each parser's suite is an independent corpus its authors wrote and keep
//! green; asking every other parser the same questions shows where they
//! part ways on cases nobody here made up. The suites are captured by
//! `repdiff setup` ([`crate::setup::suites`], which writes [`model`]'s
//! form); this command only asks and scores.

pub mod model;

use crate::shared::Host;
use crate::{paths, select};
use engine::oracle::{Ask, Oracle, Outcome, Query};
use engine::worker::Limits;
use model::{Assertion, Suite};
use report::suites::{Contradiction, Miss, SuiteRow, SuitesReport, UnavailableRec};
use std::collections::BTreeMap;
use std::time::Duration;

/// The captured suites, by name, and the oracle running each suite's own
/// parser. Setup captures exactly these (a test in xtask checks the two
/// lists agree); a suite missing from the cache is reported, not skipped.
pub const SUITES: &[(&str, &str)] = &[
    ("google", "google"),
    ("texting-robots", "texting-robots"),
    ("cpython", "cpython-3.11"),
    ("protego", "protego"),
    ("robotspy", "robotspy"),
    ("robots-parser", "robots-parser"),
    ("crawler-commons", "crawler-commons"),
    ("grobotstxt", "grobotstxt"),
    ("temoto-robotstxt", "temoto-robotstxt"),
    ("robotexclusionrulesparser", "robotexclusionrulesparser"),
];

pub const HELP: &str = "\
Runs every oracle (or those named) on every parser's own test suite, as
captured by `repdiff setup` into .cache/suites/ (Google's robots_test.cc,
CPython's test_robotparser.py, protego's, robotspy's, robots-parser's and
texting_robots' tests, crawler-commons' JUnit tests, grobotstxt's and
temoto/robotstxt's Go tests and robotexclusionrulesparser's unittest tests), and
prints the suite x oracle matrix of assertions passed. Under it: each assertion a parser fails in its own suite, with the
answer it gave and how the suite fed it, and every contradiction (two suites
expecting opposite verdicts for the same body, agent and URL).
--json prints {\"suites\": {\"<suite>\": {\"assertions\": N, \"skipped\": N,
\"scores\": {\"<oracle>\": passed}, ...}}, ...}. Also written to
reports/run/suites.json. Exit 1 when an oracle could not start or a suite is
missing.";

/// One oracle's answers: per suite, per assertion, the outcome it gave.
struct Column {
    oracle: String,
    version: String,
    outcomes: Vec<Vec<Outcome>>,
}

#[derive(Debug, clap::Args)]
pub struct Opts {
    /// Print one JSON object instead of the matrix
    #[arg(long)]
    json: bool,
    /// Only this oracle (repeatable)
    #[arg(long = "oracle", value_name = "NAME")]
    oracles: Vec<String>,
    /// Do not run setup (which captures missing suites) first
    #[arg(long)]
    no_setup: bool,
    /// Also write the committed reports/suites/suites.json (refused with
    /// --oracle, or when an oracle or a suite is missing)
    #[arg(long, conflicts_with = "oracles")]
    publish: bool,
    /// Seconds per query before a worker is given up on
    #[arg(long, default_value_t = 5.0, value_parser = positive_secs)]
    timeout: f64,
}

// String error: a clap value parser; clap prints the message as the flag's error.
fn positive_secs(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a positive number of seconds")),
    }
}

pub fn main(opts: Opts, host: &Host) -> Result<i32, crate::error::Error> {
    let names = opts.oracles.clone();
    select::validate(&names, &[])?;
    let timeout = Duration::from_secs_f64(opts.timeout);
    if !opts.no_setup {
        host.ensure(crate::shared::Needs::Suites);
    }
    let cache = oracles::cache_dir();
    let mut suites = Vec::new();
    let mut missing = Vec::new();
    for (suite, _) in SUITES {
        match model::load(&cache, suite) {
            Some(s) => suites.push(s),
            None => missing.push(suite.to_string()),
        }
    }
    let limits = Limits {
        timeout,
        ..Limits::default()
    };
    let mut sel = select::start_for(host.program, &names, &[], false, limits);
    let columns = score(&mut sel.oracles, &suites);
    let report = to_report(&suites, &columns, &sel, &missing);
    let out = paths::run_dir().join("suites.json");
    let written = std::fs::create_dir_all(paths::run_dir()).and_then(|()| {
        engine::write_atomic(
            &out,
            &serde_json::to_vec_pretty(&report).unwrap_or_default(),
        )
    });
    if let Err(e) = written {
        log::warn!("cannot write {}: {e}", out.display());
    }
    let complete = sel.unavailable.is_empty() && missing.is_empty() && !suites.is_empty();
    if opts.publish && complete {
        publish(&report)?;
    } else if opts.publish {
        log::error!("--publish refused: the scoreboard is incomplete (see below)");
    }
    if opts.json {
        crate::out!("{}", serde_json::to_string(&report).unwrap_or_default());
    } else {
        print_human(&suites, &columns, &report);
    }
    for u in &sel.unavailable {
        log::error!(
            "oracle `{}` could not run: {}\n  fix: {}",
            u.oracle,
            u.reason,
            u.fix_line(host.program)
        );
    }
    for m in &missing {
        log::error!("suite `{m}` is not captured\n  fix: {} setup", host.program);
    }
    Ok(i32::from(
        !sel.unavailable.is_empty() || !missing.is_empty() || suites.is_empty(),
    ))
}

/// Write the committed scoreboard atomically (the site's suites page).
fn publish(report: &SuitesReport) -> Result<(), crate::error::Error> {
    let path = paths::published_suites();
    let bytes = serde_json::to_vec_pretty(report).unwrap_or_default();
    path.parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| engine::write_atomic(&path, &bytes))
        .map_err(|e| crate::error::Error::io("write", &path, e))?;
    log::info!("suites: published {}", path.display());
    Ok(())
}

/// Ask every oracle every suite's questions, one thread per oracle, one
/// batch per distinct body (the parse-once batching `Oracle::run` is for).
fn score(oracles: &mut [Box<dyn Oracle>], suites: &[Suite]) -> Vec<Column> {
    std::thread::scope(|s| {
        let handles: Vec<_> = oracles
            .iter_mut()
            .map(|o| {
                s.spawn(move || Column {
                    oracle: o.name().to_string(),
                    version: o.identity().to_string(),
                    outcomes: suites
                        .iter()
                        .map(|suite| ask(o.as_mut(), &suite.assertions))
                        .collect(),
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    })
}

fn ask(o: &mut dyn Oracle, assertions: &[Assertion]) -> Vec<Outcome> {
    let mut by_body: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, a) in assertions.iter().enumerate() {
        by_body.entry(a.body_hex.as_str()).or_default().push(i);
    }
    let mut outcomes = vec![
        Outcome::Error {
            kind: "protocol".into(),
            message: "no answer".into(),
        };
        assertions.len()
    ];
    for indices in by_body.values() {
        let queries: Vec<Query> = indices
            .iter()
            .map(|&i| Query {
                ask: Ask::CanFetch,
                agent: assertions[i].agent.clone(),
                url: assertions[i].url.clone(),
            })
            .collect();
        let answers = o.run(&assertions[indices[0]].body(), &queries);
        for (&i, answer) in indices.iter().zip(answers) {
            outcomes[i] = answer.outcome;
        }
    }
    outcomes
}

fn passes(a: &Assertion, o: &Outcome) -> bool {
    matches!(
        (a.allowed, o),
        (true, Outcome::Allowed) | (false, Outcome::Disallowed)
    )
}

fn verdict(allowed: bool) -> &'static str {
    if allowed {
        "allowed"
    } else {
        "disallowed"
    }
}

fn to_report(
    suites: &[Suite],
    columns: &[Column],
    sel: &select::Selection,
    missing: &[String],
) -> SuitesReport {
    let rows = suites
        .iter()
        .enumerate()
        .map(|(si, suite)| (suite.suite.clone(), row(suite, si, columns)))
        .collect();
    SuitesReport {
        suites: rows,
        oracles: columns
            .iter()
            .map(|c| (c.oracle.clone(), c.version.clone()))
            .collect(),
        contradictions: contradictions(suites),
        unavailable: sel
            .unavailable
            .iter()
            .map(|u| UnavailableRec {
                oracle: u.oracle.clone(),
                reason: u.reason.clone(),
                fix: u.fix_line(sel.program),
            })
            .collect(),
        missing_suites: missing.to_vec(),
    }
}

/// One suite's row: every oracle's score and the own parser's misses.
fn row(suite: &Suite, si: usize, columns: &[Column]) -> SuiteRow {
    let scores = columns
        .iter()
        .map(|c| {
            let passed = suite
                .assertions
                .iter()
                .zip(&c.outcomes[si])
                .filter(|(a, o)| passes(a, o))
                .count();
            (c.oracle.clone(), passed)
        })
        .collect();
    let own_misses = columns
        .iter()
        .filter(|c| c.oracle == suite.oracle)
        .flat_map(|c| suite.assertions.iter().zip(&c.outcomes[si]))
        .filter(|(a, o)| !passes(a, o))
        .map(|(a, o)| Miss {
            id: a.id.clone(),
            agent: a.agent.clone(),
            url: a.url.clone(),
            expected: verdict(a.allowed).into(),
            got: o.label(),
            note: a.note.clone(),
        })
        .collect();
    SuiteRow {
        assertions: suite.assertions.len(),
        skipped: suite.skipped.len(),
        scores,
        own_oracle: suite.oracle.clone(),
        own_misses,
        skipped_by_kind: count_by(suite.skipped.iter().map(|s| s.what.as_str())),
        tests_total: suite.tests_total,
        tests_passed: suite.tests_passed,
        not_passed: suite.not_passed.clone(),
        source: suite.source.clone(),
        runtime: suite.runtime.clone(),
        notes: suite.notes.clone(),
    }
}

fn count_by<'a>(items: impl Iterator<Item = &'a str>) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for i in items {
        *m.entry(i.to_string()).or_default() += 1;
    }
    m
}

/// Same body, agent and URL, opposite expectations, from different suites.
fn contradictions(suites: &[Suite]) -> Vec<Contradiction> {
    type Sides<'a> = (Vec<&'a str>, Vec<&'a str>, Vec<&'a str>, Vec<&'a str>);
    let mut seen: BTreeMap<(&str, &str, &str), Sides> = BTreeMap::new();
    for suite in suites {
        for a in &suite.assertions {
            let e = seen
                .entry((a.body_hex.as_str(), a.agent.as_str(), a.url.as_str()))
                .or_default();
            if a.allowed {
                e.0.push(&a.id);
                e.2.push(&suite.suite);
            } else {
                e.1.push(&a.id);
                e.3.push(&suite.suite);
            }
        }
    }
    let owned = |ids: Vec<&str>| ids.into_iter().map(str::to_string).collect();
    seen.into_iter()
        .filter(|(_, (yes, no, ys, ns))| {
            !yes.is_empty() && !no.is_empty() && ys.iter().any(|s| !ns.contains(s))
        })
        .map(|((body, agent, url), (yes, no, ..))| Contradiction {
            body: String::from_utf8_lossy(&model::from_hex(body).unwrap_or_default()).into_owned(),
            agent: agent.into(),
            url: url.into(),
            allowed: owned(yes),
            disallowed: owned(no),
        })
        .collect()
}

fn print_human(suites: &[Suite], columns: &[Column], report: &SuitesReport) {
    let width = columns
        .iter()
        .map(|c| c.oracle.len())
        .max()
        .unwrap_or(6)
        .max(9);
    let label = suites
        .iter()
        .map(|s| s.suite.len())
        .max()
        .unwrap_or(5)
        .max(5);
    crate::output::part(format_args!(
        "{:<label$} {:>7} {:>5}",
        "suite", "asserts", "skip"
    ));
    for c in columns {
        crate::output::part(format_args!(" {:>width$}", c.oracle));
    }
    crate::out!();
    for suite in suites {
        crate::output::part(format_args!(
            "{:<label$} {:>7} {:>5}",
            suite.suite,
            suite.assertions.len(),
            suite.skipped.len()
        ));
        let row = report.suites.get(&suite.suite);
        for c in columns {
            let passed = row.and_then(|r| r.scores.get(&c.oracle)).copied();
            let own = if c.oracle == suite.oracle { "*" } else { "" };
            let cell = format!("{own}{}/{}", passed.unwrap_or(0), suite.assertions.len());
            crate::output::part(format_args!(" {cell:>width$}"));
        }
        crate::out!();
    }
    crate::out!(
        "\n* = the parser's own suite; asserts = allow/disallow calls made by passing tests; skip = calls the protocol cannot express."
    );
    for (name, row) in &report.suites {
        if row.own_misses.is_empty() {
            continue;
        }
        crate::out!(
            "\n{} on its own suite `{name}`: {} miss(es)",
            row.own_oracle,
            row.own_misses.len()
        );
        for m in &row.own_misses {
            let note = m
                .note
                .as_ref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default();
            crate::out!(
                "  {}  {} {}: expected {}, got {}{note}",
                m.id,
                m.agent,
                m.url,
                m.expected,
                m.got
            );
        }
    }
    crate::out!(
        "\n{} contradiction(s) between suites",
        report.contradictions.len()
    );
    for c in &report.contradictions {
        crate::out!(
            "  agent {:?} url {}: allowed by {:?}, disallowed by {:?}\n    body {:?}",
            c.agent,
            c.url,
            c.allowed,
            c.disallowed,
            c.body
        );
    }
}
