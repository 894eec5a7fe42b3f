//! The one clock the store and the service read: the system's, or in tests a clock that stands
//! still until it is moved. Times are written as the store keeps them: UTC, RFC 3339 with
//! milliseconds (`2026-11-24T12:00:00.000Z`), so that they compare and sort as text.
//!
//! Every time the store writes comes from here, never from a column's SQL default, so that a
//! test that moves the clock moves every time it reads back (leases, expiries, retention).

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use time::format_description::FormatItem;
use time::macros::format_description;
use time::{Duration, OffsetDateTime};

const FORMAT: &[FormatItem<'static>] =
    format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");

/// Where times come from. Cloning shares the clock: moving a manual clock moves every clone.
#[derive(Clone, Default)]
pub struct Clock {
    /// Milliseconds since the Unix epoch of a manual clock; `None` reads the system's.
    manual: Option<Arc<AtomicI64>>,
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.manual {
            None => f.write_str("Clock::system"),
            Some(_) => write!(f, "Clock::manual({})", self.now()),
        }
    }
}

impl Clock {
    /// The system's clock.
    pub fn system() -> Clock {
        Clock::default()
    }

    /// A clock that reads `start` until [`Clock::advance`] moves it (tests).
    pub fn manual(start: OffsetDateTime) -> Clock {
        let millis = (start.unix_timestamp_nanos() / 1_000_000) as i64;
        Clock { manual: Some(Arc::new(AtomicI64::new(millis))) }
    }

    /// Moves a manual clock forward by `by`.
    ///
    /// # Panics
    /// On the system's clock, which nothing may move.
    pub fn advance(&self, by: std::time::Duration) {
        let manual = self.manual.as_ref().expect("only a manual clock is moved");
        manual.fetch_add(by.as_millis() as i64, Ordering::SeqCst);
    }

    /// Now, as a time.
    pub fn time(&self) -> OffsetDateTime {
        match &self.manual {
            None => OffsetDateTime::now_utc(),
            Some(millis) => {
                let nanos = i128::from(millis.load(Ordering::SeqCst)) * 1_000_000;
                OffsetDateTime::from_unix_timestamp_nanos(nanos).expect("a manual clock in range")
            }
        }
    }

    /// Now, as the store writes it.
    pub fn now(&self) -> String {
        text(self.time())
    }

    /// `seconds` from now (in the past when negative).
    pub fn in_seconds(&self, seconds: i64) -> String {
        text(self.time() + Duration::seconds(seconds))
    }

    /// `millis` milliseconds from now (in the past when negative).
    pub fn in_millis(&self, millis: i64) -> String {
        text(self.time() + Duration::milliseconds(millis))
    }
}

/// A time as the store writes it.
fn text(time: OffsetDateTime) -> String {
    time.format(FORMAT).expect("a UTC time formats")
}

#[cfg(test)]
mod tests {
    use super::Clock;
    use std::time::Duration;

    #[test]
    fn times_sort_as_text() {
        let clock = Clock::system();
        let (past, now, later) = (clock.in_seconds(-1), clock.now(), clock.in_seconds(1));
        assert!(past < now && now < later, "{past} {now} {later}");
        assert_eq!(now.len(), "2026-11-24T12:00:00.000Z".len());
    }

    #[test]
    fn a_manual_clock_stands_still_until_moved_and_its_clones_move_with_it() {
        let clock = Clock::manual(time::macros::datetime!(2001-02-03 04:05:06.789 UTC));
        let clone = clock.clone();
        assert_eq!(clock.now(), "2001-02-03T04:05:06.789Z");
        assert_eq!(clock.now(), clock.now());
        clone.advance(Duration::from_millis(1_500));
        assert_eq!(clock.now(), "2001-02-03T04:05:08.289Z");
        assert_eq!(clock.in_seconds(-8), "2001-02-03T04:05:00.289Z");
        assert_eq!(clock.in_millis(11), "2001-02-03T04:05:08.300Z");
    }
}
