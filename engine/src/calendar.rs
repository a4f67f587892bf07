//! UTC dates from Unix times, for report stamps: one days-to-civil
//! conversion for every crate (no calendar crate for a few lines).

use std::time::SystemTime;

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian
/// (Howard Hinnant's `civil_from_days`).
pub fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A Unix time split into its date and its seconds of the day.
fn split(secs: i64) -> ((i64, u32, u32), i64) {
    (civil(secs.div_euclid(86_400)), secs.rem_euclid(86_400))
}

/// `YYYY-MM-DD HH:MM UTC`, as the published site shows a run's time.
pub fn utc_minutes(secs: i64) -> String {
    let ((y, m, d), s) = split(secs);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        s / 3600,
        s / 60 % 60
    )
}

/// The date (`YYYY-MM-DD`) and the ISO 8601 stamp (`YYYY-MM-DDTHH:MM:SSZ`)
/// of `t`, for report file names and headers.
pub fn stamps(t: SystemTime) -> (String, String) {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let ((y, m, d), s) = split(secs);
    (
        format!("{y:04}-{m:02}-{d:02}"),
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            s / 3600,
            s / 60 % 60,
            s % 60
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(20_000), (2024, 10, 4));
        assert_eq!(civil(-1), (1969, 12, 31));
        assert_eq!(utc_minutes(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc_minutes(1_764_446_000), "2025-11-29 19:53 UTC");
        let t = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(978_310_861);
        assert_eq!(
            stamps(t),
            ("2001-01-01".into(), "2001-01-01T01:01:01Z".into())
        );
    }
}
