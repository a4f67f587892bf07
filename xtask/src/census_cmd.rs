//! `cargo xtask census`: the census crate wired to the real oracles, started
//! the way `check` and `conformance` start them (`select::start`).

use crate::cli::{Args, Usage};
use crate::{paths, select, setup};
use census::{Census, Options, Shard};
use engine::worker::Limits;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const HELP: &str = "\
cargo xtask census [INPUT...] [--oracle NAME]... [--shard K/N] [--out DIR] [--limit N]
                   [--impact A:B]... [--reference NAME] [--timeout SECS] [--dry-run] [--no-setup]
cargo xtask census merge DIR... [--out DIR]

Asks every available oracle (or those named) the queries derived from each
robots.txt of INPUT (docs/census.md) and writes census.json, census.md,
heatmap.svg and speed.json into DIR (default reports/run/census/, ignored).
INPUT: a directory of files, a .tar/.tar.gz, or .warc/.warc.gz files
(response records; non-2xx responses are counted, not asked). Without
INPUT: the 4,231 files of protego 0.7.0's sdist tests/test_data/ (fetched
by `cargo xtask setup`).
--shard K/N    take the files whose sha256(name) mod N is K (K from 0, as
               JOB_COMPLETION_INDEX); `census merge` of the N outputs gives
               the report of one run over everything.
--limit N      stop after the first N input files (counted before sharding).
--impact A:B   a pair of widely used parsers for the high-impact list
               (default: google:robots-parser, google:cpython-3.11, ...).
--reference    the oracle others are compared with (default rfc9309).
--dry-run      print the shard plan (files per shard for --shard's N) and stop.";

pub fn main(raw: &[String]) -> Result<i32, Usage> {
    if raw.first().map(String::as_str) == Some("merge") {
        return merge(&raw[1..]);
    }
    let args = Args::parse(
        raw,
        &["dry-run", "no-setup", "help"],
        &[
            "oracle",
            "shard",
            "out",
            "limit",
            "impact",
            "reference",
            "timeout",
        ],
    )?;
    if args.has("help") {
        println!("{HELP}");
        return Ok(0);
    }
    let shard = match args.one("shard")? {
        Some(s) => Some(Shard::parse(&s).map_err(Usage)?),
        None => None,
    };
    let limit: Option<u64> = match args.one("limit")? {
        Some(_) => Some(args.number("limit", 0u64)?),
        None => None,
    };
    let names = args.all("oracle");
    select::validate(&names, &[])?;
    let (inputs, input_label) = inputs(&args)?;
    let out = args
        .one("out")?
        .map(PathBuf::from)
        .unwrap_or_else(|| paths::run_dir().join("census"));
    if args.has("dry-run") {
        return dry_run(&inputs, shard, limit);
    }
    let records = census::input::open(&inputs).map_err(|e| Usage(e.0))?;
    if !args.has("no-setup") {
        setup::ensure_or_reexec();
    }
    let limits = Limits {
        timeout: Duration::from_secs_f64(args.number("timeout", 5.0)?),
        ..Limits::default()
    };
    let mut sel = select::start(&names, &[], false, limits);
    for u in &sel.unavailable {
        eprintln!("ERROR: {u}");
    }
    let expected = expected_files(&inputs, limit, shard);
    let opts = Options {
        input: input_label,
        shard,
        limit,
        reference: args.one("reference")?.unwrap_or_else(|| "rfc9309".into()),
        impact_pairs: impact_pairs(&args.all("impact"))?,
        expected,
    };
    eprintln!(
        "census: {} oracle(s): {}",
        sel.oracles.len(),
        sel.oracles
            .iter()
            .map(|o| o.name().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (census, speed) = census::run(records, &mut sel.oracles, &opts).map_err(|e| Usage(e.0))?;
    census::write_outputs(&out, &census, Some(&speed))
        .map_err(|e| Usage(format!("cannot write {}: {e}", out.display())))?;
    print_headline(&census, &out);
    Ok(if sel.unavailable.is_empty() { 0 } else { 1 })
}

/// The input paths and how the report names them (file names only: no
/// machine path, so shards run on different machines agree).
fn inputs(args: &Args) -> Result<(Vec<PathBuf>, String), Usage> {
    if !args.positional.is_empty() {
        let paths: Vec<PathBuf> = args.positional.iter().map(PathBuf::from).collect();
        let label = paths
            .iter()
            .map(|p| {
                p.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| p.display().to_string())
            })
            .collect::<Vec<_>>()
            .join(" ");
        return Ok((paths, label));
    }
    let ctx = setup::Ctx::new();
    if let Err(e) = setup::protego_sdist::ensure(&ctx, false) {
        return Err(Usage(format!(
            "no INPUT and the default data is missing: {e}"
        )));
    }
    Ok((
        vec![setup::protego_sdist::data_dir(&ctx)],
        format!(
            "protego {} sdist tests/test_data (PyPI, sha256 {})",
            setup::protego_sdist::SDIST_VERSION,
            setup::protego_sdist::SDIST_SHA256
        ),
    ))
}

fn impact_pairs(specs: &[String]) -> Result<Vec<(String, String)>, Usage> {
    if specs.is_empty() {
        return Ok(census::DEFAULT_IMPACT_PAIRS
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect());
    }
    specs
        .iter()
        .map(|s| {
            s.split_once(':')
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .ok_or_else(|| Usage(format!("--impact {s:?}: expected A:B")))
        })
        .collect()
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

fn dry_run(inputs: &[PathBuf], shard: Option<Shard>, limit: Option<u64>) -> Result<i32, Usage> {
    let n = shard.map_or(1, |s| s.n);
    let records = census::input::open(inputs).map_err(|e| Usage(e.0))?;
    let plan = census::shard_plan(records, n, limit).map_err(|e| Usage(e.0))?;
    println!(
        "{} files in {n} shard(s) (sha256 of the file name or WARC record id, mod {n}):",
        plan.iter().sum::<u64>()
    );
    for (k, c) in plan.iter().enumerate() {
        let mark = if shard.is_some_and(|s| s.k == k as u64) {
            "  <- --shard"
        } else {
            ""
        };
        println!("  shard {k}/{n}: {c} files{mark}");
    }
    Ok(0)
}

fn merge(raw: &[String]) -> Result<i32, Usage> {
    let args = Args::parse(raw, &["help"], &["out"])?;
    if args.has("help") || args.positional.is_empty() {
        println!("{HELP}");
        return Ok(if args.has("help") { 0 } else { 2 });
    }
    let parts = args
        .positional
        .iter()
        .map(|d| census::read_census(&Path::new(d).join("census.json")))
        .collect::<Result<Vec<Census>, String>>()
        .map_err(Usage)?;
    let merged = Census::merge(parts).map_err(Usage)?;
    let out = args
        .one("out")?
        .map(PathBuf::from)
        .unwrap_or_else(|| paths::run_dir().join("census"));
    census::write_outputs(&out, &merged, None)
        .map_err(|e| Usage(format!("cannot write {}: {e}", out.display())))?;
    print_headline(&merged, &out);
    Ok(0)
}

fn print_headline(c: &Census, out: &Path) {
    println!(
        "census: {} files, {} queries, {} oracles -> {}",
        c.tally.files,
        c.tally.queries,
        c.oracles.len(),
        out.join("census.md").display()
    );
    for p in c.summary.pairs.iter().take(10) {
        println!(
            "  {} vs {}: {:.1}% of queries, {:.1}% of files",
            p.a,
            p.b,
            p.query_share * 100.0,
            p.file_share * 100.0
        );
    }
}
