//! `census --floor` (and every `--publish`): after the census, each
//! oracle's library in a loop of its own runtime over the very questions
//! the census asked (crate::speed), so speed.json and census.md put the
//! census beside the floor its parsers set on the same machine in the same
//! invocation (issue 51), not beside a figure taken another day.

use std::path::PathBuf;

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
    let mut rows = Vec::new();
    for (i, o) in speed.oracles.iter().enumerate() {
        let census_cpu = o.worker_cpu_seconds.unwrap_or(0.0) + o.driver_cpu_seconds;
        let mut row = census::LibraryCpu {
            name: o.name.clone(),
            census_cpu_seconds: census_cpu,
            ..Default::default()
        };
        let t0 = std::time::Instant::now();
        match crate::speed::library_cpu(&o.name, &sample) {
            Ok(Some((how, cpu))) => {
                row.ratio = (cpu > 0.0).then(|| census_cpu / cpu);
                row.how = Some(how);
                row.library_cpu_seconds = Some(cpu);
            }
            Ok(None) => row.error = Some("no loop".into()),
            Err(e) => row.error = Some(e),
        }
        log::info!(
            "census floor {}/{}: {} {} in {:.1} s",
            i + 1,
            speed.oracles.len(),
            o.name,
            match (&row.library_cpu_seconds, &row.error) {
                (Some(cpu), _) => format!("library {cpu:.1} s CPU"),
                (None, Some(e)) => format!("gave no figure ({e})"),
                (None, None) => "gave no figure".into(),
            },
            t0.elapsed().as_secs_f64()
        );
        rows.push(row);
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    Ok(census::Floor::new(speed.wall_seconds, rows, cores))
}
