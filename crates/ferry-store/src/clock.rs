//! Times as the store writes them: UTC, RFC 3339 with milliseconds (`2026-11-24T12:00:00.000Z`),
//! the same text SQLite's `strftime('%Y-%m-%dT%H:%M:%fZ')` and the PostgreSQL schema's
//! `ferry_now()` make, so that times from the database and from here compare as text.

use time::format_description::FormatItem;
use time::macros::format_description;
use time::{Duration, OffsetDateTime};

const FORMAT: &[FormatItem<'static>] =
    format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");

/// Now.
pub fn now() -> String {
    at(OffsetDateTime::now_utc())
}

/// `seconds` from now (in the past when negative).
pub fn in_seconds(seconds: i64) -> String {
    at(OffsetDateTime::now_utc() + Duration::seconds(seconds))
}

/// `millis` milliseconds from now.
pub fn in_millis(millis: i64) -> String {
    at(OffsetDateTime::now_utc() + Duration::milliseconds(millis))
}

fn at(time: OffsetDateTime) -> String {
    time.format(FORMAT).expect("a UTC time formats")
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_sort_as_text() {
        let (past, now, later) = (super::in_seconds(-1), super::now(), super::in_seconds(1));
        assert!(past < now && now < later, "{past} {now} {later}");
        assert_eq!(now.len(), "2026-11-24T12:00:00.000Z".len());
    }
}
