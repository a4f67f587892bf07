//! `census --floor` (and every `--publish`): after the census, each
//! oracle's library in a loop of its own runtime over the very questions
//! the census asked (crate::speed), so speed.json and census.md put the
//! census beside the floor its parsers set on the same machine in the same
//! invocation (issue 51), not beside a figure taken another day.
//! `cargo xtask bench` builds its census row's floor with [`of`] too, so
//! both hold a census to its libraries by one rule.

use std::path::PathBuf;

/// What one oracle's own loop gave: what ran it and its library CPU
/// seconds, `None` when the oracle has no loop, or why the loop failed.
pub type Library = Result<Option<(String, f64)>, String>;

/// The floor of `speed` over `inputs` (the first `limit` files), one loop
/// per oracle of the census, one after another (each loop is one process
/// timing its own CPU, so running them side by side would only make the
/// figures noisier, not smaller).
// String error: the census prints the message as a usage error (map_err(Usage)).
pub fn measure(
    inputs: &[PathBuf],
    limit: Option<u64>,
    speed: &census::Speed,
) -> Result<census::Floor, String> {
    let sample = crate::speed::sample_of(inputs, limit)?;
    let total = speed.oracles.len();
    let mut i = 0;
    Ok(of(speed, |name| {
        i += 1;
        let t0 = std::time::Instant::now();
        let got = crate::speed::library_cpu(name, &sample);
        log::info!(
            "census floor {i}/{total}: {name} {} in {:.1} s",
            match &got {
                Ok(Some((_, cpu))) => format!("library {cpu:.1} s CPU"),
                Ok(None) => "gave no figure (no loop)".into(),
                Err(e) => format!("gave no figure ({e})"),
            },
            t0.elapsed().as_secs_f64()
        );
        got
    }))
}

/// The floor of the census `speed` describes, each of its oracles' library
/// CPU from `library` (asked once per oracle, in the census's order): the
/// census's CPU for each (worker plus driving thread), their ratio, and
/// [`census::Floor::new`]'s wall over floor on this machine's cores.
pub fn of(speed: &census::Speed, mut library: impl FnMut(&str) -> Library) -> census::Floor {
    let rows = speed
        .oracles
        .iter()
        .map(|o| {
            let census_cpu = o.worker_cpu_seconds.unwrap_or(0.0) + o.driver_cpu_seconds;
            let mut row = census::LibraryCpu {
                name: o.name.clone(),
                census_cpu_seconds: census_cpu,
                ..Default::default()
            };
            match library(&o.name) {
                Ok(Some((how, cpu))) => {
                    row.ratio = (cpu > 0.0).then(|| census_cpu / cpu);
                    row.how = Some(how);
                    row.library_cpu_seconds = Some(cpu);
                }
                Ok(None) => row.error = Some("no loop".into()),
                Err(e) => row.error = Some(e),
            }
            row
        })
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    census::Floor::new(speed.wall_seconds, rows, cores)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oracle(name: &str, worker: Option<f64>, driver: f64) -> census::OracleSpeed {
        census::OracleSpeed {
            name: name.into(),
            worker_cpu_seconds: worker,
            driver_cpu_seconds: driver,
            ..Default::default()
        }
    }

    #[test]
    fn each_oracle_against_its_library_and_the_wall_against_their_sum() {
        let speed = census::Speed {
            wall_seconds: 6.0,
            oracles: vec![
                oracle("a", Some(3.0), 1.0),
                oracle("b", None, 2.0),
                oracle("c", Some(1.5), 0.5),
            ],
            ..Default::default()
        };
        let f = of(&speed, |n| match n {
            "a" => Ok(Some(("loop.rb".into(), 2.0))),
            "b" => Ok(None),
            _ => Err("loop.py failed".into()),
        });
        let by = |n: &str| f.oracles.iter().find(|o| o.name == n).unwrap();
        assert_eq!(by("a").census_cpu_seconds, 4.0);
        assert_eq!(by("a").ratio, Some(2.0));
        assert_eq!(by("a").how.as_deref(), Some("loop.rb"));
        assert_eq!(by("b").error.as_deref(), Some("no loop"));
        assert_eq!(by("c").error.as_deref(), Some("loop.py failed"));
        assert_eq!(by("c").ratio, None);
        // 2 (a's library) + 2 (b's census CPU) + 2 (c's census CPU) over the cores.
        let floor = 6.0 / f.cores as f64;
        assert!(
            (f.floor_seconds - floor).abs() < 1e-12,
            "{}",
            f.floor_seconds
        );
        assert!((f.wall_over_floor - 6.0 / floor).abs() < 1e-9);
    }
}
