//! `census`: the census crate wired to the real oracles, started the way
//! `check` and `conformance` start them (`select::start`).

use crate::datasets::census_data::{
    self as default_data, dir as default_data_dir, present as default_data_present,
};
use crate::shared::{seconds, Host, Usage};
use crate::{paths, select};
use census::{Census, Options, Shard};
use clap::Subcommand;
use engine::oracle::Oracle;
use engine::worker::Limits;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub mod adoption;
mod adoption_causes;
pub mod ai_crawlers;
pub mod floor;

pub const HELP: &str = "\
Asks every available oracle (or those named) the queries derived from each
robots.txt of INPUT (docs/census.md) and writes census.json, census.md,
heatmap.svg, heatmap-near-misses.svg, heatmap-probes.svg and speed.json
into DIR (default reports/run/census/, ignored): the questions a crawler
asks as written first, the near misses and the probes we invent apart. INPUT: a directory of files, a .tar/.tar.gz, or .warc/.warc.gz files
(response records; non-2xx responses are counted, not asked). Without
INPUT: the 4,231 files of protego 0.7.0's sdist tests/test_data/ (fetched
by `repdiff setup`). `census merge DIR...` combines shard outputs into
the report of one run over everything; `census queries [INPUT]` writes the
queries a run would ask, one JSON line per file; `census speed` sets each
parser's own loop beside its worker on the first files.";

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Opts {
    #[command(subcommand)]
    sub: Option<Sub>,
    #[command(flatten)]
    run: RunOpts,
}

#[derive(Debug, Subcommand)]
enum Sub {
    /// Apply each edit of census/edits/ai-preferences.yaml (Cloudflare's
    /// managed block, Content-Usage, License, ...) to every file the way it
    /// is deployed and ask the file's as-written questions before and
    /// after: per (edit, parser), the sites where a verdict flips
    Adoption(adoption::AdoptionOpts),
    /// Ask, for every file, whether each AI crawler of the pinned list
    /// (PyPI ai-crawler-index) may fetch `/`: per crawler, the sites naming
    /// it and the sites where each parser keeps it out
    AiCrawlers(ai_crawlers::AiCrawlersOpts),
    /// Combine shard outputs (each a DIR with census.json) into one report
    Merge {
        /// Shard output folders
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
        /// Where to write the merged report [default: reports/run/census/]
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Write the queries a census asks, one JSON line per asked file
    /// ({name, host, body_hex, queries: [{agent, url, kind, probe}]}), for
    /// direct loops of a library and hand cross-checks
    Queries {
        /// Directories, .tar/.tar.gz or .warc/.warc.gz files [default: protego's test data]
        #[arg(value_name = "INPUT")]
        inputs: Vec<PathBuf>,
        /// Stop after the first N input files
        #[arg(long, value_name = "N")]
        limit: Option<u64>,
        /// Where to write [default: standard output]
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// The parsers' own speed over the first files of the default input:
    /// each oracle's library in a loop of its own (its manifest's `loop:`)
    /// beside the same files through its repdiff worker, CPU seconds and
    /// whether every answer agreed; one JSON line per oracle
    Speed {
        /// Only this oracle (repeatable) [default: every registered one]
        #[arg(long = "oracle", value_name = "NAME")]
        oracles: Vec<String>,
        /// Input files to take
        #[arg(long, value_name = "N", default_value_t = 200)]
        limit: u64,
    },
}

#[derive(Debug, clap::Args)]
struct RunOpts {
    /// Directories, .tar/.tar.gz or .warc/.warc.gz files [default: protego's test data]
    #[arg(value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// Only this oracle (repeatable)
    #[arg(long = "oracle", value_name = "NAME")]
    oracles: Vec<String>,
    /// Take the files whose sha256(name) mod N is K (K from 0, as JOB_COMPLETION_INDEX)
    #[arg(long, value_name = "K/N", value_parser = Shard::parse)]
    shard: Option<Shard>,
    /// Where to write [default: reports/run/census/]
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Stop after the first N input files (counted before sharding)
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
    /// A pair of widely used parsers for the high-impact list (repeatable)
    /// [default: google:robots-parser, google:cpython-3.11, ...]
    #[arg(long = "impact", value_name = "A:B", value_parser = impact_pair)]
    impact: Vec<(String, String)>,
    /// The oracle the others are compared with
    #[arg(long, value_name = "NAME", default_value = "rfc9309")]
    reference: String,
    /// Seconds per worker call before it is given up on (plus a quarter
    /// per query after the first)
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = seconds)]
    timeout: Duration,
    #[command(flatten)]
    workers: select::WorkerFlags,
    /// Print the shard plan (files per shard for --shard's N) and stop
    #[arg(long)]
    dry_run: bool,
    /// Do not run setup first
    #[arg(long)]
    no_setup: bool,
    /// After the census, run each parser's own loop over the same
    /// questions and publish the census beside that floor (speed.json,
    /// census.md); always on with --publish
    #[arg(long, conflicts_with = "shard")]
    floor: bool,
    /// Write the committed snapshot reports/census/ (only a run of every
    /// oracle over the whole default input; refused if an oracle is missing)
    #[arg(long, conflicts_with_all = ["inputs", "oracles", "shard", "limit", "out", "dry_run", "skip_oracles"])]
    publish: bool,
}

pub fn main(opts: Opts, host: &Host) -> Result<i32, crate::error::Error> {
    match opts.sub {
        Some(Sub::Adoption(a)) => adoption::run(a, host),
        Some(Sub::AiCrawlers(a)) => ai_crawlers::run(a, host),
        Some(Sub::Merge { dirs, out }) => merge(&dirs, out, host.program),
        Some(Sub::Queries { inputs, limit, out }) => queries(&inputs, limit, out, host.program),
        Some(Sub::Speed { oracles, limit }) => speed(&oracles, limit, host.program),
        None => run(opts.run, host),
    }
}

fn run(args: RunOpts, host: &Host) -> Result<i32, crate::error::Error> {
    select::validate(&args.oracles, &[])?;
    if !args.no_setup {
        host.ensure(crate::shared::Needs::Census);
    }
    let (inputs, input_label) = inputs(&args.inputs, host.program)?;
    let out = match args.out {
        Some(out) => out,
        None if args.publish => paths::published_census_dir(),
        None => paths::run_dir().join("census"),
    };
    if args.dry_run {
        return dry_run(&inputs, args.shard, args.limit);
    }
    // The input is opened before the output folder is made or locked: a
    // refused input leaves nothing behind.
    let records = census::input::open(&inputs).map_err(|e| Usage(e.0))?;
    let wanted = args.workers.wanted(&args.oracles, &[])?;
    let _lock = paths::lock_dir(&out)?;
    let pending = engine::output::pending(format!(
        "{} (census.json, census.md, heatmap.svg, speed.json)",
        out.display()
    ));
    let limits = args.workers.limits(args.timeout);
    let mut sel = select::start_for(host.program, &wanted, &[], false, limits);
    for u in &sel.unavailable {
        log::error!("{u}");
    }
    if args.publish && !sel.unavailable.is_empty() {
        return Err(Usage(
            "--publish: the published census covers every oracle; fix the ones above first".into(),
        )
        .into());
    }
    let opts = Options {
        input: input_label,
        shard: args.shard,
        limit: args.limit,
        reference: args.reference,
        impact_pairs: if args.impact.is_empty() {
            default_impact_pairs()
        } else {
            args.impact
        },
        expected: expected_files(&inputs, args.limit, args.shard),
    };
    log::info!(
        "census: {} oracle(s): {}",
        sel.oracles.len(),
        sel.oracles
            .iter()
            .map(|o| o.name().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut helpers = start_helpers(&sel, limits);
    // The expectation profiles, asked beside the oracles: each oracle's
    // departure from each (CONTRIBUTING.md "Which standard? Five profiles").
    let mut profiles =
        select::start_for(host.program, &select::profile_names(), &[], false, limits);
    for u in &profiles.unavailable {
        log::error!("profile {u}");
    }
    if args.publish && !profiles.unavailable.is_empty() {
        return Err(Usage(
            "--publish: the published census compares every oracle with every profile; fix the ones above first".into(),
        ).into());
    }
    let (mut census, mut speed) = census::run(
        records,
        &mut sel.oracles,
        &mut helpers,
        &mut profiles.oracles,
        &opts,
    )
    .map_err(|e| Usage(e.0))?;
    drop(helpers);
    drop(profiles);
    name_causes(&mut census, &mut sel.oracles);
    if args.floor || args.publish {
        // The census's workers are stopped first, so the loops have the
        // machine the census had.
        sel.oracles.clear();
        speed.floor = Some(floor::measure(&inputs, args.limit, &speed).map_err(Usage)?);
    }
    census::write_outputs(&out, &census, Some(&speed))
        .map_err(|e| crate::error::Error::io("write", &out, e))?;
    drop(pending);
    print_headline(&census, &out);
    Ok(if sel.unavailable.is_empty() {
        0
    } else {
        crate::shared::EXIT_NOT_RUN
    })
}

/// More instances of the selected oracles whose registry entry asks for
/// them (`census_workers`); one that cannot start only costs time.
pub fn start_helpers(sel: &select::Selection, limits: Limits) -> Vec<(String, Box<dyn Oracle>)> {
    let externals = crate::registry::externals().unwrap_or_default();
    let names: Vec<String> = externals
        .iter()
        .filter(|e| sel.oracles.iter().any(|o| o.name() == e.name))
        .flat_map(|e| std::iter::repeat_n(e.name.clone(), e.census_workers.saturating_sub(1)))
        .collect();
    if names.is_empty() {
        return Vec::new();
    }
    let more = select::start_for(sel.program, &names, &[], false, limits);
    for u in &more.unavailable {
        log::info!("census: an extra instance did not start (the run goes on without it): {u}");
    }
    more.oracles
        .into_iter()
        .map(|o| (o.name().to_string(), o))
        .collect()
}

/// The input paths and how the report names them (file names only: no
/// machine path, so shards run on different machines agree).
fn inputs(given: &[PathBuf], program: &str) -> Result<(Vec<PathBuf>, String), Usage> {
    if !given.is_empty() {
        let label = given
            .iter()
            .map(|p| {
                p.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| p.display().to_string())
            })
            .collect::<Vec<_>>()
            .join(" ");
        return Ok((given.to_vec(), label));
    }
    let dir = default_data_dir(&oracles::cache_dir());
    if !default_data_present(&dir) {
        return Err(Usage(format!(
            "no INPUT and the default data ({} {} sdist tests/test_data) is not at {}: \
             run `{program} setup` (or pass --cache DIR, or name an INPUT)",
            default_data::SDIST_NAME,
            default_data::SDIST_VERSION,
            dir.display(),
        )));
    }
    Ok((
        vec![dir],
        format!(
            "protego {} sdist tests/test_data (PyPI, sha256 {})",
            default_data::SDIST_VERSION,
            default_data::SDIST_SHA256
        ),
    ))
}

fn default_impact_pairs() -> Vec<(String, String)> {
    census::DEFAULT_IMPACT_PAIRS
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

// String error: a clap value parser; clap prints the message as the flag's error.
fn impact_pair(s: &str) -> Result<(String, String), String> {
    s.split_once(':')
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .ok_or_else(|| format!("{s:?}: expected A:B"))
}

/// Files the run will ask about, for the ETA: counted only for
/// directories, where it costs a listing and not a read.
fn expected_files(inputs: &[PathBuf], limit: Option<u64>, shard: Option<Shard>) -> Option<u64> {
    let mut total = 0u64;
    for p in inputs {
        if !p.is_dir() {
            return None;
        }
        total += count_files(p);
    }
    let total = limit.map_or(total, |l| l.min(total));
    Some(shard.map_or(total, |s| total.div_ceil(s.n)))
}

fn count_files(dir: &Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |d| {
        d.flatten()
            .map(|e| {
                let p = e.path();
                if p.is_dir() {
                    count_files(&p)
                } else {
                    1
                }
            })
            .sum()
    })
}

fn dry_run(
    inputs: &[PathBuf],
    shard: Option<Shard>,
    limit: Option<u64>,
) -> Result<i32, crate::error::Error> {
    let n = shard.map_or(1, |s| s.n);
    let records = census::input::open(inputs).map_err(|e| Usage(e.0))?;
    let plan = census::shard_plan(records, n, limit).map_err(|e| Usage(e.0))?;
    crate::out!(
        "{} files in {n} shard(s) (sha256 of the file name or WARC record id, mod {n}):",
        plan.iter().sum::<u64>()
    );
    for (k, c) in plan.iter().enumerate() {
        let mark = if shard.is_some_and(|s| s.k == k as u64) {
            "  <- --shard"
        } else {
            ""
        };
        crate::out!("  shard {k}/{n}: {c} files{mark}");
    }
    Ok(0)
}

/// `census queries`: what a run over the same input would ask, file by
/// file (statuses not 2xx are skipped, as the run skips them).
fn queries(
    given: &[PathBuf],
    limit: Option<u64>,
    out: Option<PathBuf>,
    program: &str,
) -> Result<i32, crate::error::Error> {
    let (inputs, _) = inputs(given, program)?;
    let (text, _) = crate::speed::queries(&inputs, limit).map_err(Usage)?;
    match out {
        Some(path) => engine::write_atomic(&path, &text)
            .map_err(|e| crate::error::Error::io("write", &path, e))?,
        None => crate::output::bytes(&text),
    }
    Ok(0)
}

fn speed(names: &[String], limit: u64, program: &str) -> Result<i32, crate::error::Error> {
    select::validate(names, &[])?;
    let names = if names.is_empty() {
        select::known_names()
    } else {
        names.to_vec()
    };
    let sample = crate::speed::sample_for(program, limit).map_err(Usage)?;
    let mut status = 0;
    for n in &names {
        let row = crate::speed::measure_one(n, &sample);
        if row.error.is_some() || row.differ.is_some_and(|d| d > 0) {
            status = 1;
        }
        crate::out!(
            "{}",
            serde_json::to_string(&row).map_err(|e| Usage(e.to_string()))?
        );
    }
    Ok(status)
}

fn merge(
    dirs: &[PathBuf],
    out: Option<PathBuf>,
    program: &'static str,
) -> Result<i32, crate::error::Error> {
    let parts = dirs
        .iter()
        .map(|d| census::read_census(&d.join("census.json")))
        .collect::<Result<Vec<Census>, _>>()?;
    let mut merged = Census::merge(parts).map_err(Usage)?;
    // The causes are named on the merged top list, as one run names them;
    // an oracle missing here leaves its rows "not triaged".
    let names: Vec<String> = merged.oracles.iter().map(|o| o.name.clone()).collect();
    let mut sel = select::start_for(program, &names, &[], false, Limits::default());
    for u in &sel.unavailable {
        log::warn!("{u}");
    }
    name_causes(&mut merged, &mut sel.oracles);
    let out = out.unwrap_or_else(|| paths::run_dir().join("census"));
    census::write_outputs(&out, &merged, None)
        .map_err(|e| crate::error::Error::io("write", &out, e))?;
    print_headline(&merged, &out);
    Ok(0)
}

/// The checkout's ledger, which named causes link to (the top signatures'
/// and the adoption census's examples).
fn checkout_ledger() -> Result<engine::ledger::Ledger, crate::error::Error> {
    paths::load_corpus().and_then(|corpus| crate::conformance::load_ledger(&corpus, &[]))
}

/// Root-cause triage of the top signatures (`census_causes`), with the
/// ledger the causes link to. Without a checkout's ledger (a merge on a
/// collecting machine, say) the causes are left unnamed, with a warning,
/// rather than all shown as unexplained.
fn name_causes(census: &mut Census, oracles: &mut [Box<dyn Oracle>]) {
    let ledger = match checkout_ledger() {
        Ok(l) => l,
        Err(e) => {
            log::warn!("causes of the top signatures not named (no ledger): {e}");
            return;
        }
    };
    let started = std::time::Instant::now();
    crate::census_causes::triage(census, oracles, &ledger);
    log::info!(
        "census: named the causes of {} top signatures and {} headline examples in {:.1} s",
        [&census.written, &census.near_misses, &census.probes]
            .iter()
            .map(|s| s.summary.top_signatures.len())
            .sum::<usize>(),
        census
            .written
            .summary
            .headline
            .iter()
            .map(|p| p.examples.len())
            .sum::<usize>(),
        started.elapsed().as_secs_f64()
    );
}

/// The as-written figures first (the headline pairs, then the pairs most
/// often apart), the probes' after: what a reader repeats comes first.
fn print_headline(c: &Census, out: &Path) {
    crate::out!(
        "census: {} files, {} as-written questions, {} near misses and {} probes, {} oracles -> {}",
        c.written.tally.files,
        c.written.tally.queries,
        c.near_misses.tally.queries,
        c.probes.tally.queries,
        c.oracles.len(),
        out.join("census.md").display()
    );
    crate::out!(
        "  real sites on which a widely used pair disagrees on `/` or a path the rules name:"
    );
    for p in &c.written.summary.headline {
        let hosts: Vec<&str> = p.examples.iter().map(|e| e.example.host.as_str()).collect();
        crate::out!(
            "    {} vs {}: {} of {} sites (e.g. {})",
            p.a,
            p.b,
            p.files_disagree,
            p.files_compared,
            hosts.join(", ")
        );
    }
    for view in census::render::sections(c) {
        crate::out!(
            "  {}, the pairs most often apart:",
            view.title.to_lowercase()
        );
        for p in view.section.summary.pairs.iter().take(5) {
            crate::out!(
                "    {} vs {}: {:.1}% of queries, {:.1}% of files",
                p.a,
                p.b,
                p.query_share * 100.0,
                p.file_share * 100.0
            );
        }
    }
}
