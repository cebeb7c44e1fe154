//! Unix milliseconds to UTC text without a date library (days-to-civil after H. Hinnant's algorithm): ISO 8601
//! for data, and the shorter forms pages and charts show.

/// `2026-11-22T04:05:06.789Z` for unix ms.
pub fn iso8601_utc(unix_ms: i64) -> String {
    let days = unix_ms.div_euclid(86_400_000);
    let ms_of_day = unix_ms.rem_euclid(86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, ms) = (ms_of_day / 3_600_000, ms_of_day / 60_000 % 60, ms_of_day / 1_000 % 60, ms_of_day % 1_000);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z")
}

/// `2026-11-22 04:05` (UTC) for unix ms: lists and chart axes.
pub fn utc_minute(unix_ms: i64) -> String {
    readable(unix_ms, 16)
}

/// `2026-11-22 04:05:06` (UTC) for unix ms: detail pages.
pub fn utc_second(unix_ms: i64) -> String {
    readable(unix_ms, 19)
}

/// The first `len` characters of the ISO form with a space for the `T` (the ISO form is ASCII, so any cut is a
/// character boundary).
fn readable(unix_ms: i64, len: usize) -> String {
    let mut text = iso8601_utc(unix_ms);
    text.truncate(len);
    text.replacen('T', " ", 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(iso8601_utc(0), "1970-01-01T00:00:00.000Z");
        // date -u -d @1795319456.789 → 2026-11-22T03:50:56.789Z
        assert_eq!(iso8601_utc(1_795_319_456_789), "2026-11-22T03:50:56.789Z");
        assert_eq!(iso8601_utc(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso8601_utc(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn shorter_forms_cut_the_iso_form() {
        assert_eq!(utc_minute(1_795_319_456_789), "2026-11-22 03:50");
        assert_eq!(utc_second(1_795_319_456_789), "2026-11-22 03:50:56");
        assert_eq!(utc_second(-1), "1969-12-31 23:59:59");
    }
}
