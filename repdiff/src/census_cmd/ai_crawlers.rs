//! `census ai-crawlers`: the census crate's AI-crawler run over the real
//! oracles, the crawlers read from the pinned list setup fetched
//! (docs/census.md).

use super::{expected_files, inputs};
use crate::select::WorkerFlags;
use crate::shared::{Host, Usage};
use crate::{paths, select};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, clap::Args)]
pub struct AiCrawlersOpts {
    /// Directories, .tar/.tar.gz or .warc/.warc.gz files [default: protego's test data]
    #[arg(value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// Only this oracle (repeatable)
    #[arg(long = "oracle", value_name = "NAME")]
    oracles: Vec<String>,
    /// Stop after the first N input files
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
    /// Where to write ai-crawlers.json and ai-crawlers.md [default: reports/run/ai-crawlers/]
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Seconds per worker call before it is given up on (plus a quarter
    /// per query after the first)
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = crate::shared::seconds)]
    timeout: Duration,
    #[command(flatten)]
    workers: WorkerFlags,
    /// Do not run setup first
    #[arg(long)]
    no_setup: bool,
    /// Write the committed snapshot reports/census/ai-crawlers.{json,md}
    /// (only a run of every oracle over the whole default input; refused
    /// if an oracle is missing)
    #[arg(long, conflicts_with_all = ["inputs", "oracles", "limit", "out"])]
    publish: bool,
    /// Render this ai-crawlers.json's ai-crawlers.md again beside it (no
    /// oracle is asked)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["inputs", "oracles", "limit", "out", "publish"])]
    render: Option<PathBuf>,
}

/// The AI crawlers of the pinned list, read from the setup cache.
/// The hint names `program`, which runs setup.
pub fn list(program: &str) -> Result<census::ai_crawlers::List, Usage> {
    let path = crate::datasets::ai_crawler_list(&oracles::cache_dir());
    census::ai_crawlers::load(&path).map_err(|why| {
        Usage(format!(
            "{why} (the list comes from `{program} setup`, step ai-crawlers)"
        ))
    })
}

/// The list's tokens that are not RFC 9309 product tokens (§2.2.1).
pub fn not_product_tokens(a: &census::ai_crawlers::AiCrawlers) -> Vec<String> {
    a.rows
        .iter()
        .map(|r| r.crawler.token.clone())
        .filter(|t| !oracles::rfc9309::agent::is_identifier(t.as_bytes()))
        .collect()
}

pub fn run(args: AiCrawlersOpts, host: &Host) -> Result<i32, crate::error::Error> {
    if let Some(json) = &args.render {
        let report = census::ai_crawlers::read(json).map_err(crate::error::Error::from)?;
        return write(json.parent().unwrap_or(Path::new(".")), &report);
    }
    select::validate(&args.oracles, &[])?;
    if !args.no_setup {
        host.ensure(crate::shared::Needs::Census);
    }
    let list = list(host.program)?;
    let (inputs, input_label) = inputs(&args.inputs, host.program)?;
    let records = census::input::open(&inputs).map_err(|e| Usage(e.0))?;
    let out = match args.out {
        Some(out) => out,
        None if args.publish => paths::published_census_dir(),
        None => paths::run_dir().join("ai-crawlers"),
    };
    let wanted = args.workers.wanted(&args.oracles, &[])?;
    let _lock = paths::lock_dir(&out)?;
    let pending = engine::output::pending(format!(
        "{} (ai-crawlers.json, ai-crawlers.md)",
        out.display()
    ));
    let mut sel = select::start_for(
        host.program,
        &wanted,
        &[],
        false,
        args.workers.limits(args.timeout),
    );
    for u in &sel.unavailable {
        log::error!("{u}");
    }
    if args.publish && !sel.unavailable.is_empty() {
        return Err(Usage(
            "--publish: the published AI-crawler census covers every oracle; fix the ones above first".into(),
        ).into());
    }
    log::info!(
        "census ai-crawlers: {} AI crawlers of {} {}, {} oracle(s)",
        list.crawlers.len(),
        census::ai_crawlers::PACKAGE,
        list.version,
        sel.oracles.len()
    );
    let report = census::ai_crawlers::run(
        records,
        &mut sel.oracles,
        &list,
        input_label,
        args.limit,
        expected_files(&inputs, args.limit, None),
    )
    .map_err(|e| Usage(e.0))?;
    write(&out, &report)?;
    drop(pending);
    Ok(if sel.unavailable.is_empty() {
        0
    } else {
        crate::shared::EXIT_NOT_RUN
    })
}

fn write(dir: &Path, report: &census::ai_crawlers::AiCrawlers) -> Result<i32, crate::error::Error> {
    census::ai_crawlers::write_outputs(dir, report, &not_product_tokens(report))
        .map_err(|e| crate::error::Error::io("write", dir, e))?;
    crate::out!("report: {}", dir.join("ai-crawlers.md").display());
    Ok(0)
}
