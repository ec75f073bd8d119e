//! Runs one invocation of a function's handler like Lambda would: with the function's timeout,
//! and without a panic or a hang taking the rest of the stack down.

use std::time::Duration;

use futures::future::BoxFuture;
use platform::BoxError;
use tokio::time::Instant;

#[derive(Debug, thiserror::Error)]
pub enum InvokeError {
    #[error("handler returned an error: {0}")]
    Failed(String),
    #[error("task timed out after {0:?}")]
    TimedOut(Duration),
    #[error("handler panicked: {0}")]
    Panicked(String),
}

/// Runs `invocation` on its own task; a timeout aborts it, as Lambda stops the instance.
pub async fn guarded<T: Send + 'static>(
    invocation: BoxFuture<'static, Result<T, BoxError>>,
    timeout: Duration,
) -> Result<T, InvokeError> {
    let task = tokio::spawn(invocation);
    let abort = task.abort_handle();
    match tokio::time::timeout(timeout, task).await {
        Err(_) => {
            abort.abort();
            Err(InvokeError::TimedOut(timeout))
        }
        Ok(Err(join)) => Err(InvokeError::Panicked(panic_message(join))),
        Ok(Ok(Err(e))) => Err(InvokeError::Failed(e.to_string())),
        Ok(Ok(Ok(value))) => Ok(value),
    }
}

/// Milliseconds since `started`, for the latency field of a log line.
pub fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn panic_message(join: tokio::task::JoinError) -> String {
    if !join.is_panic() {
        return join.to_string();
    }
    let payload = join.into_panic();
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;

    #[tokio::test]
    async fn maps_outcomes() {
        let ok = guarded(
            async { Ok::<_, BoxError>(1) }.boxed(),
            Duration::from_secs(1),
        )
        .await;
        assert_eq!(ok.ok(), Some(1));

        let err = guarded::<()>(
            async { Err::<(), BoxError>("boom".into()) }.boxed(),
            Duration::from_secs(1),
        )
        .await;
        assert!(matches!(err, Err(InvokeError::Failed(m)) if m == "boom"));

        let panicked = guarded::<()>(
            async {
                if true {
                    panic!("kaput");
                }
                Ok(())
            }
            .boxed(),
            Duration::from_secs(1),
        )
        .await;
        assert!(matches!(panicked, Err(InvokeError::Panicked(m)) if m.contains("kaput")));

        let slow = guarded::<()>(
            async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                Ok(())
            }
            .boxed(),
            Duration::from_millis(20),
        )
        .await;
        assert!(matches!(slow, Err(InvokeError::TimedOut(_))));
    }
}
