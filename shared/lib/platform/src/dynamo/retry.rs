use std::future::Future;
use std::time::Duration;

use rand::Rng;

/// How often and how patiently a write that lost a race is tried again.
#[derive(Clone, Copy, Debug)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub attempts: u32,
    /// The backoff before the second attempt; it doubles for each further attempt.
    pub base: Duration,
    /// The longest single backoff.
    pub max: Duration,
}

impl RetryPolicy {
    /// The platform's policy for transaction conflicts: 6 attempts, 20 ms doubling to at most
    /// 640 ms, full jitter (about 1.3 s at worst, well inside a request's budget).
    pub const CONFLICTS: Self = Self {
        attempts: 6,
        base: Duration::from_millis(20),
        max: Duration::from_millis(640),
    };

    /// For counters many users move at once (a post's likes): 10 attempts, 10 ms doubling to
    /// at most 320 ms, full jitter (about 1.6 s at worst).
    pub const HOT_COUNTER: Self = Self {
        attempts: 10,
        base: Duration::from_millis(10),
        max: Duration::from_millis(320),
    };

    /// For a transaction DynamoDB cancelled for throttling (which the SDK does not retry):
    /// 5 attempts, 50 ms doubling to at most 800 ms, full jitter (about 1.5 s at worst), as
    /// the SDK backs off from a throttled call.
    pub const THROTTLED: Self = Self {
        attempts: 5,
        base: Duration::from_millis(50),
        max: Duration::from_millis(800),
    };

    /// The backoff before attempt `attempt + 1` (attempt counts from 1): a random wait up to
    /// the exponential ceiling ("full jitter"), so racing writers spread out.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let ceiling = self
            .base
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(16))
            .min(self.max);
        let millis = u64::try_from(ceiling.as_millis())
            .unwrap_or(u64::MAX)
            .max(1);
        Duration::from_millis(rand::rng().random_range(0..=millis))
    }
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self::CONFLICTS
    }
}

/// Runs `attempt` until it succeeds, fails for another reason, or the policy gives up.
/// `is_conflict` says which errors are lost races worth another try; the last error is
/// returned as it is when the policy gives up.
pub async fn retry_on_conflict<T, E, F, Fut>(
    policy: RetryPolicy,
    is_conflict: impl Fn(&E) -> bool,
    mut attempt: F,
) -> Result<T, E>
where
    F: FnMut(u32) -> Fut,
    Fut: Future<Output = Result<T, E>>,
{
    let mut n = 1;
    loop {
        match attempt(n).await {
            Err(e) if is_conflict(&e) && n < policy.attempts => {
                tokio::time::sleep(policy.backoff(n)).await;
                n += 1;
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let policy = RetryPolicy::CONFLICTS;
        for attempt in 1..20 {
            assert!(policy.backoff(attempt) <= policy.max);
        }
        let ceiling_two = policy.base * 2;
        assert!((0..100).all(|_| policy.backoff(2) <= ceiling_two));
    }

    #[tokio::test]
    async fn retries_only_conflicts_and_gives_up() {
        let fast = RetryPolicy {
            attempts: 3,
            base: Duration::from_millis(1),
            max: Duration::from_millis(2),
        };
        let mut calls = 0;
        let result: Result<(), &str> = retry_on_conflict(
            fast,
            |e| *e == "conflict",
            |_| {
                calls += 1;
                async { Err("conflict") }
            },
        )
        .await;
        assert_eq!((result, calls), (Err("conflict"), 3));

        let mut calls = 0;
        let result: Result<u32, &str> = retry_on_conflict(
            fast,
            |e| *e == "conflict",
            |n| {
                calls += 1;
                async move {
                    match n {
                        1 => Err("conflict"),
                        _ => Ok(n),
                    }
                }
            },
        )
        .await;
        assert_eq!((result, calls), (Ok(2), 2));

        let mut calls = 0;
        let result: Result<(), &str> = retry_on_conflict(
            fast,
            |e| *e == "conflict",
            |_| {
                calls += 1;
                async { Err("other") }
            },
        )
        .await;
        assert_eq!((result, calls), (Err("other"), 1));
    }
}
