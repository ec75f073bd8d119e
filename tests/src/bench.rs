//! The figures the benches print.

use std::time::Duration;

/// The `percent`th percentile (nearest rank) of `sorted`; zero when it is empty.
pub fn percentile(sorted: &[Duration], percent: usize) -> Duration {
    let last = sorted.len().saturating_sub(1);
    let rank = (last * percent.min(100) + 50) / 100;
    sorted.get(rank).copied().unwrap_or_default()
}

/// The mean of `samples`; zero when there are none.
pub fn mean(samples: &[Duration]) -> Duration {
    match u32::try_from(samples.len()) {
        Ok(0) | Err(_) => Duration::ZERO,
        Ok(n) => samples.iter().sum::<Duration>() / n,
    }
}

/// `duration` in milliseconds, for printing.
pub fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}
