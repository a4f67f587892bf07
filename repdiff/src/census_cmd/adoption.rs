//! `census adoption`: the census crate's adoption run over the real
//! oracles, the edits read from `census/edits/` (docs/census.md).

use super::{expected_files, inputs};
use crate::select::WorkerFlags;
use crate::shared::{Host, Usage};
use crate::{paths, select};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, clap::Args)]
pub struct AdoptionOpts {
    /// Directories, .tar/.tar.gz or .warc/.warc.gz files [default: protego's test data]
    #[arg(value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// The edits to apply [default: census/edits/ai-preferences.yaml]
    #[arg(long, value_name = "FILE")]
    edits: Option<PathBuf>,
    /// Only this oracle (repeatable)
    #[arg(long = "oracle", value_name = "NAME")]
    oracles: Vec<String>,
    /// Stop after the first N input files
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
    /// Where to write adoption.json and adoption.md [default: reports/run/adoption/]
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
    /// Write the committed snapshot reports/census/adoption.{json,md} (only
    /// a run of every oracle over the whole default input and edits;
    /// refused if an oracle is missing)
    #[arg(long, conflicts_with_all = ["inputs", "oracles", "limit", "out", "edits"])]
    publish: bool,
    /// Render this adoption.json's adoption.md again beside it (no oracle
    /// is asked): for a report written before the page changed
    #[arg(long, value_name = "FILE", conflicts_with_all = ["inputs", "oracles", "limit", "out", "edits", "publish"])]
    render: Option<PathBuf>,
}

pub fn run(args: AdoptionOpts, host: &Host) -> Result<i32, crate::error::Error> {
    if let Some(json) = &args.render {
        let adoption = census::adoption::read(json).map_err(crate::error::Error::from)?;
        let dir = json.parent().unwrap_or(std::path::Path::new("."));
        census::adoption::write_outputs(dir, &adoption)
            .map_err(|e| crate::error::Error::io("write", dir, e))?;
        crate::out!("report: {}", dir.join("adoption.md").display());
        return Ok(0);
    }
    select::validate(&args.oracles, &[])?;
    let edits_path = args
        .edits
        .unwrap_or_else(|| paths::root().join("census/edits/ai-preferences.yaml"));
    // Edits and input are read before setup, workers or the output folder:
    // a refused one leaves nothing behind.
    let edits = census::adoption::load(&edits_path).map_err(Usage)?;
    if !args.no_setup {
        host.ensure(crate::shared::Needs::Census);
    }
    let (inputs, input_label) = inputs(&args.inputs, host.program)?;
    let records = census::input::open(&inputs).map_err(|e| Usage(e.0))?;
    let out = match args.out {
        Some(out) => out,
        None if args.publish => paths::published_census_dir(),
        None => paths::run_dir().join("adoption"),
    };
    let wanted = args.workers.wanted(&args.oracles, &[])?;
    let _lock = paths::lock_dir(&out)?;
    let pending =
        engine::output::pending(format!("{} (adoption.json, adoption.md)", out.display()));
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
            "--publish: the published adoption census covers every oracle; fix the ones above first".into(),
        ).into());
    }
    log::info!(
        "census adoption: {} edit(s) from {}, {} oracle(s)",
        edits.len(),
        edits_path.display(),
        sel.oracles.len()
    );
    let mut ran = census::adoption::run(
        records,
        &mut sel.oracles,
        &edits,
        input_label,
        args.limit,
        expected_files(&inputs, args.limit, None),
    )
    .map_err(|e| Usage(e.0))?;
    name_causes(&mut ran, &edits, &mut sel.oracles);
    let adoption = ran.adoption;
    census::adoption::write_outputs(&out, &adoption)
        .map_err(|e| crate::error::Error::io("write", &out, e))?;
    drop(pending);
    for e in &adoption.edits {
        crate::out!(
            "{:<36} {} of {} sites change a verdict for some parser",
            e.edit.id,
            e.sites_any,
            adoption.files
        );
    }
    crate::out!("report: {}", out.join("adoption.md").display());
    Ok(if sel.unavailable.is_empty() {
        0
    } else {
        crate::shared::EXIT_NOT_RUN
    })
}

/// Why each example flipped (`adoption_causes`), with the ledger the
/// causes link to; without one, or without the reference, the examples
/// are left without causes and a warning says why.
fn name_causes(
    ran: &mut census::adoption::Ran,
    edits: &[census::adoption::Edit],
    oracles: &mut [Box<dyn engine::oracle::Oracle>],
) {
    if !oracles.iter().any(|o| o.name() == ran.adoption.reference) {
        log::warn!(
            "census adoption: causes not named (the reference {} is not in this run)",
            ran.adoption.reference
        );
        return;
    }
    let ledger = match super::checkout_ledger() {
        Ok(l) => l,
        Err(e) => {
            log::warn!("census adoption: causes not named (no ledger): {e}");
            return;
        }
    };
    let started = std::time::Instant::now();
    super::adoption_causes::name(ran, edits, oracles, &ledger);
    log::info!(
        "census adoption: named the causes of {} examples in {:.1} s",
        ran.adoption
            .rows
            .iter()
            .map(|r| r.examples.len())
            .sum::<usize>(),
        started.elapsed().as_secs_f64()
    );
}
