//! The census row against its libraries' floor, in one bench run: the
//! census sample's wall time and each oracle's census CPU (worker plus
//! driving thread) beside the CPU of the oracle's own loop over the same
//! files and questions (the direct side of the parsers' own speed table,
//! run after the census row). The arithmetic is `census --floor`'s
//! (`repdiff::census_cmd::floor::of`), so the bench and the census hold a
//! census to its libraries by one rule.

use crate::bench_census::CensusRow;
use crate::bench_direct::DirectTable;
use repdiff::census_cmd::floor::{self, Library};
use repdiff::speed::DirectRow;
use serde_json::{json, Value};
use std::fmt::Write as _;

pub enum FloorRow {
    Ran { wall: f64, floor: census::Floor },
    Skipped(String),
}

/// The floor of the census row from the direct table's loops; skipped
/// when either did not run (there is then nothing measured to compare).
pub fn of(census: &CensusRow, direct: &DirectTable) -> FloorRow {
    let speed = match census {
        CensusRow::Ran { speed, .. } => speed,
        CensusRow::Skipped(why) => return FloorRow::Skipped(format!("no census row ({why})")),
    };
    let rows = match direct {
        DirectTable::Ran { rows, .. } => rows,
        DirectTable::Skipped(why) => {
            return FloorRow::Skipped(format!("no loops of the parsers' own ({why})"))
        }
    };
    FloorRow::Ran {
        wall: speed.wall_seconds,
        floor: floor::of(speed, |name| library(rows, name)),
    }
}

/// What `name`'s own loop gave in the direct table: an error or the lack
/// of a loop as the census's floor records them.
fn library(rows: &[DirectRow], name: &str) -> Library {
    let Some(r) = rows.iter().find(|r| r.oracle == name) else {
        return Err("not in the parsers' own speed table".into());
    };
    if let Some(e) = &r.error {
        return Err(e.clone());
    }
    Ok(r.direct_how.clone().zip(r.direct_cpu))
}

pub fn to_markdown(row: &FloorRow) -> String {
    let mut md = String::from("\n## Census vs floor\n\n");
    let (wall, f) = match row {
        FloorRow::Skipped(why) => {
            let _ = writeln!(md, "Not run: {why}.");
            return md;
        }
        FloorRow::Ran { wall, floor } => (wall, floor),
    };
    let _ = writeln!(
        md,
        "Measured in this bench run: the census sample above ({wall:.2} s of wall) against its \
         oracles' own loops over the same files and questions (the direct side of the parsers' \
         own speed table above, run after the census sample), by `census --floor`'s rule. \
         **Census wall / floor: {:.2}x** (target: at most 1.25x); floor = the libraries' CPU \
         summed over {} core(s) = {:.2} s.",
        f.wall_over_floor, f.cores, f.floor_seconds
    );
    md.push_str(&census::render::floor_table(f, *wall));
    md
}

pub fn to_json(row: &FloorRow) -> Value {
    match row {
        FloorRow::Skipped(why) => json!({"ran": false, "reason": why}),
        FloorRow::Ran { wall, floor } => json!({
            "ran": true,
            "source": "measured in this bench run",
            "census_wall_seconds": wall,
            "floor": floor,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn direct(oracle: &str, cpu: Option<f64>, error: Option<&str>) -> DirectRow {
        DirectRow {
            oracle: oracle.into(),
            direct_how: cpu.map(|_| "loop.rb".into()),
            direct_cpu: cpu,
            worker_cpu: Some(1.0),
            driver_cpu: Some(0.5),
            differ: Some(0),
            error: error.map(String::from),
        }
    }

    fn census_row(wall: f64) -> CensusRow {
        let oracle = |name: &str, worker: f64| census::OracleSpeed {
            name: name.into(),
            worker_cpu_seconds: Some(worker),
            driver_cpu_seconds: 1.0,
            ..Default::default()
        };
        CensusRow::Ran {
            files_asked: 20,
            speed: census::Speed {
                wall_seconds: wall,
                oracles: vec![oracle("a", 3.0), oracle("b", 1.0), oracle("c", 2.0)],
                ..Default::default()
            },
        }
    }

    #[test]
    fn the_ratios_come_from_the_census_and_the_loops() {
        let table = DirectTable::Ran {
            files: 20,
            questions: 100,
            rows: vec![
                direct("a", Some(2.0), None),
                direct("b", None, None),
                direct("c", None, Some("loop.py failed")),
            ],
        };
        let FloorRow::Ran { wall, floor } = of(&census_row(8.0), &table) else {
            panic!("skipped");
        };
        assert_eq!(wall, 8.0);
        assert_eq!(floor.oracles[0].ratio, Some(2.0)); // (3 + 1) / 2
        assert_eq!(floor.oracles[1].error.as_deref(), Some("no loop"));
        assert_eq!(floor.oracles[2].error.as_deref(), Some("loop.py failed"));
        // 2 + 2 + 3 s of CPU (b and c count with their census CPU).
        let expect = 7.0 / floor.cores as f64;
        assert!((floor.floor_seconds - expect).abs() < 1e-12);
        let md = to_markdown(&FloorRow::Ran { wall, floor });
        assert!(md.contains("Measured in this bench run"), "{md}");
        assert!(
            md.contains("| `a` | loop.rb | 2.00 | 4.00 | 2.00x |"),
            "{md}"
        );
        assert!(
            md.contains("| `c` | loop.py failed | – | 3.00 | – |"),
            "{md}"
        );
    }

    #[test]
    fn skipped_says_why() {
        let row = of(
            &CensusRow::Skipped("no census data".into()),
            &DirectTable::Skipped("x".into()),
        );
        let md = to_markdown(&row);
        assert!(md.contains("## Census vs floor"));
        assert!(
            md.contains("Not run: no census row (no census data)."),
            "{md}"
        );
        let j = to_json(&row);
        assert_eq!(j["ran"], false);
        assert_eq!(j["reason"], "no census row (no census data)");
    }
}
