//! The limits at the edge: the 429 or 503 a refused request gets. Who the client is comes
//! from [`crate::http::client_address`].

use super::{ClientKey, Limit, RateLimiter, Verdict};
use crate::error::ApiError;

/// What a route does when the limits table cannot answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhenUnavailable {
    /// 503: the work behind the route costs too much to do unguarded (the paid model).
    Refuse,
    /// Serve the request (logged): refusing would lock every client out over a side table.
    Allow,
}

/// Counts the request against each `(limit, key)` in order: `Ok` to go on, a 429 with
/// `Retry-After` when one is exhausted, or per `when_unavailable` when the table fails.
pub async fn enforce(
    limiter: &RateLimiter,
    checks: &[(&Limit, ClientKey)],
    when_unavailable: WhenUnavailable,
) -> Result<(), ApiError> {
    check_all(limiter, checks, when_unavailable)
        .await
        .map(|_| ())
}

/// [`enforce`], telling whether every limit was counted.
async fn check_all(
    limiter: &RateLimiter,
    checks: &[(&Limit, ClientKey)],
    when_unavailable: WhenUnavailable,
) -> Result<Checked, ApiError> {
    for (limit, key) in checks {
        match limiter.check(limit, key).await {
            Ok(Verdict::Allowed) => {}
            Ok(Verdict::Limited { retry_after }) => {
                tracing::info!(
                    limit = limit.name(),
                    key = key.as_str(),
                    retry_after,
                    "rate limited"
                );
                return Err(ApiError::too_many_requests(retry_after));
            }
            Err(e) => {
                tracing::error!(limit = limit.name(), error = %e, "rate limit table failed");
                return match when_unavailable {
                    WhenUnavailable::Refuse => Err(ApiError::unavailable(
                        "The service is temporarily unavailable; try again shortly",
                    )),
                    WhenUnavailable::Allow => Ok(Checked::Unavailable),
                };
            }
        }
    }
    Ok(Checked::Counted)
}

/// How a request that may go on was checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Checked {
    /// Counted against every limit.
    Counted,
    /// The table failed and the limit allows requests then: the rest were not counted.
    Unavailable,
}

/// One named limit of a function's brake: the environment variable that may set it, its key
/// name in the limits table, its default (`COUNT/SECONDS,...`) and what its requests get when
/// the limits table cannot answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    pub variable: &'static str,
    pub name: &'static str,
    pub default: &'static str,
    pub when_unavailable: WhenUnavailable,
}

/// A function's brake: its [`Rate`]s, read once per cold start, counted in the limits table.
/// Without `RATE_LIMIT_TABLE` nothing is limited (logged at the start).
#[derive(Clone, Debug)]
pub struct Brake {
    limiter: Option<RateLimiter>,
    limits: Vec<(Rate, Limit)>,
}

impl Brake {
    /// `RATE_LIMIT_TABLE` (unset: no limits, logged as `RATE_LIMIT_TABLE is unset: {unset}`,
    /// e.g. "logins have no rate limits") and each rate's variable.
    pub fn from_env(
        env: &crate::Env,
        aws: &crate::aws::AwsClients,
        unset: &str,
        rates: &[Rate],
    ) -> Result<Self, crate::ConfigError> {
        let limiter = RateLimiter::from_env(env, aws);
        if limiter.is_none() {
            tracing::warn!("{} is unset: {unset}", super::TABLE_VARIABLE);
        }
        Self::new(limiter, env, rates)
    }

    /// The brake of `rates` (read from `env`) over `limiter`; `None` limits nothing.
    pub fn new(
        limiter: Option<RateLimiter>,
        env: &crate::Env,
        rates: &[Rate],
    ) -> Result<Self, crate::ConfigError> {
        let limits = rates
            .iter()
            .map(|rate| {
                Limit::from_env(env, rate.variable, rate.name, rate.default)
                    .map(|limit| (*rate, limit))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { limiter, limits })
    }

    /// The limit read for `rate`.
    pub fn limit(&self, rate: &Rate) -> Option<&Limit> {
        self.limits
            .iter()
            .find(|(r, _)| r.name == rate.name)
            .map(|(_, limit)| limit)
    }

    /// Counts one request of `key` against `rate`.
    pub async fn admit(&self, rate: &Rate, key: ClientKey) -> Result<(), ApiError> {
        self.admit_all([(rate, key)]).await
    }

    /// Counts the request against each `(rate, key)` in order: `Ok` to go on, a 429 with
    /// `Retry-After` when one is exhausted; when the table fails, the failing rate's
    /// [`WhenUnavailable`] decides (503, or on without counting the rest).
    pub async fn admit_all<'a>(
        &self,
        checks: impl IntoIterator<Item = (&'a Rate, ClientKey)>,
    ) -> Result<(), ApiError> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        for (rate, key) in checks {
            let Some(limit) = self.limit(rate) else {
                return Err(ApiError::internal(
                    "rate limits",
                    format!("{} is not among this brake's rates", rate.name),
                ));
            };
            let go_on = check_all(limiter, &[(limit, key)], rate.when_unavailable).await?;
            if go_on == Checked::Unavailable {
                return Ok(());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Env;

    const LOGINS: Rate = Rate {
        variable: "LOGIN_RATE_LIMIT",
        name: "login",
        default: "5/60",
        when_unavailable: WhenUnavailable::Allow,
    };
    const OTHER: Rate = Rate {
        variable: "OTHER_RATE_LIMIT",
        name: "other",
        default: "1/1",
        when_unavailable: WhenUnavailable::Refuse,
    };

    #[tokio::test]
    async fn a_brake_reads_its_rates_and_without_a_table_admits_all() {
        let env = Env::new().with("LOGIN_RATE_LIMIT", "7/60");
        let brake = Brake::new(None, &env, &[LOGINS]).unwrap();
        assert_eq!(brake.limit(&LOGINS).map(|l| l.rules()[0].limit), Some(7));
        assert!(brake.limit(&OTHER).is_none());
        let defaulted = Brake::new(None, &Env::new(), &[LOGINS]).unwrap();
        assert_eq!(
            defaulted.limit(&LOGINS).map(|l| l.rules()[0].limit),
            Some(5)
        );
        assert!(brake.admit(&LOGINS, ClientKey::user("u")).await.is_ok());
        assert!(brake.admit(&OTHER, ClientKey::user("u")).await.is_ok());
        let bad = Env::new().with("LOGIN_RATE_LIMIT", "7");
        let err = Brake::new(None, &bad, &[LOGINS]).unwrap_err();
        assert!(err.to_string().contains("LOGIN_RATE_LIMIT"), "{err}");
    }
}
