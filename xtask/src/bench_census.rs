//! The census row of `cargo xtask bench`: the first files of the census's
//! default input through every selected oracle, as `cargo xtask census`
//! runs them (supervised workers, one thread per oracle, the registry's
//! extra workers, the expectation profiles beside), in the same run
//! as the other measurements so its rate can be set beside theirs.
//!
//! A sample, not the whole census: the full run (4,231 files) takes minutes
//! and is `cargo xtask census`'s own `speed.json`.

use census::{Options, Speed};
use engine::worker::Limits;
use serde_json::{json, Value};
use std::fmt::Write as _;

/// Files in the full plan's sample; the quick plan asks fewer.
const FILES_FULL: u64 = 200;
const FILES_QUICK: u64 = 20;

/// Input files the census row (and the direct row, on the same files) takes.
pub fn files(quick: bool) -> u64 {
    if quick {
        FILES_QUICK
    } else {
        FILES_FULL
    }
}

pub enum CensusRow {
    Ran { files_asked: u64, speed: Speed },
    Skipped(String),
}

/// Run the sample; skipped (with the reason) when the default data is not
/// in the setup cache.
pub fn measure(names: &[String], quick: bool) -> CensusRow {
    let dir = repdiff::datasets::census_data::dir(&oracles::cache_dir());
    if !repdiff::datasets::census_data::present(&dir) {
        return CensusRow::Skipped(format!(
            "no census data at {} (cargo xtask setup fetches it)",
            dir.display()
        ));
    }
    let limit = files(quick);
    let records = match census::input::open(&[dir]) {
        Ok(r) => r,
        Err(e) => return CensusRow::Skipped(e.0),
    };
    let mut sel = repdiff::select::start(names, &[], false, Limits::default());
    // As the census runs: extra workers where the registry asks for them,
    // and the expectation profiles asked beside the oracles.
    let mut helpers = repdiff::census_cmd::start_helpers(&sel, Limits::default());
    let mut profiles = repdiff::select::start(
        &repdiff::select::profile_names(),
        &[],
        false,
        Limits::default(),
    );
    let opts = Options {
        input: "bench sample".into(),
        shard: None,
        limit: Some(limit),
        reference: "rfc9309".into(),
        impact_pairs: Vec::new(),
        expected: Some(limit),
    };
    log::info!(
        "bench: census sample, {limit} files x {} oracle(s)",
        sel.oracles.len()
    );
    match census::run(
        records,
        &mut sel.oracles,
        &mut helpers,
        &mut profiles.oracles,
        &opts,
    ) {
        Ok((c, speed)) => CensusRow::Ran {
            files_asked: c.written.tally.files,
            speed,
        },
        Err(e) => CensusRow::Skipped(e.0),
    }
}

pub fn to_markdown(row: &CensusRow) -> String {
    let mut md = String::from("\n## Census sample\n\n");
    let (files, speed) = match row {
        CensusRow::Skipped(why) => {
            let _ = writeln!(md, "Not run: {why}.");
            return md;
        }
        CensusRow::Ran { files_asked, speed } => (files_asked, speed),
    };
    let _ = writeln!(
        md,
        "The first {files} files of the census's default input (protego 0.7.0's test data, in \
         file-name order) through the benched oracles as `cargo xtask census` runs them (extra workers and \
         the three expectation profiles included): {:.1} s wall, \
         {:.1} files/s, {:.0} queries/s ({} queries). The census target is all 4,231 files \
         through all 13 oracles in under 60 s, i.e. at least 70.5 files/s.\n",
        speed.wall_seconds, speed.files_per_second, speed.queries_per_second, speed.queries
    );
    md.push_str(&census::render::speed_table(speed));
    md
}

pub fn to_json(row: &CensusRow) -> Value {
    match row {
        CensusRow::Skipped(why) => json!({"ran": false, "reason": why}),
        CensusRow::Ran { files_asked, speed } => json!({
            "ran": true,
            "files": files_asked,
            "speed": speed,
        }),
    }
}
