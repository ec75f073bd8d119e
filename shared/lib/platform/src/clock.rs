//! The one clock of the platform. Production code asks a [`Clock`] for the time instead of
//! calling `Utc::now()`, so that tests can set and advance it.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use chrono::{DateTime, Duration, SecondsFormat, TimeZone, Utc};

/// The system clock by default; a settable one in tests. Cheap to clone: clones of a set clock
/// share its time.
#[derive(Clone, Debug, Default)]
pub struct Clock(Option<Arc<AtomicI64>>);

impl Clock {
    /// The wall clock.
    pub fn system() -> Self {
        Self(None)
    }

    /// A clock standing still at `at` until [`Clock::set`] or [`Clock::advance`] moves it.
    pub fn fixed(at: DateTime<Utc>) -> Self {
        Self(Some(Arc::new(AtomicI64::new(at.timestamp_millis()))))
    }

    pub fn now(&self) -> DateTime<Utc> {
        match &self.0 {
            None => Utc::now(),
            Some(millis) => Utc
                .timestamp_millis_opt(millis.load(Ordering::SeqCst))
                .single()
                .unwrap_or_default(),
        }
    }

    /// Now, as the platform writes instants: RFC 3339, UTC, milliseconds (`...T12:00:00.000Z`).
    pub fn timestamp(&self) -> String {
        rfc3339(self.now())
    }

    /// Moves a fixed clock to `at`; the system clock ignores it.
    pub fn set(&self, at: DateTime<Utc>) {
        if let Some(millis) = &self.0 {
            millis.store(at.timestamp_millis(), Ordering::SeqCst);
        }
    }

    /// Moves a fixed clock forward by `by`; the system clock ignores it.
    pub fn advance(&self, by: Duration) {
        if let Some(millis) = &self.0 {
            millis.fetch_add(by.num_milliseconds(), Ordering::SeqCst);
        }
    }
}

/// An instant as the platform writes it: RFC 3339, UTC, milliseconds.
pub fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_clock_moves_only_when_told() {
        let start = Utc
            .with_ymd_and_hms(2026, 11, 23, 12, 0, 0)
            .single()
            .unwrap_or_default();
        let clock = Clock::fixed(start);
        let shared = clock.clone();
        assert_eq!(clock.now(), start);
        shared.advance(Duration::minutes(5));
        assert_eq!(clock.timestamp(), "2026-11-23T12:05:00.000Z");
        clock.set(start);
        assert_eq!(shared.now(), start);
    }

    #[test]
    fn the_system_clock_ignores_set() {
        let clock = Clock::system();
        clock.set(DateTime::<Utc>::default());
        assert!(clock.now().timestamp() > 1_700_000_000);
    }
}
