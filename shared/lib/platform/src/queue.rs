//! The one queue type: a product names its messages ([`QueueMessage`]: the JSON body, how a
//! body is read back and the environment variable holding the queue's URL), and
//! [`Queue<M>`] sends them. The consumer's side is [`crate::batch`].
//!
//! The trait needs no AWS SDK, so a domain crate declares its messages without it; [`Queue`]
//! itself comes with `aws`.

use std::fmt;

/// A queue's message: serialized as its JSON body, read back with [`QueueMessage::parse`].
pub trait QueueMessage: serde::Serialize + Send + Sync + Sized {
    /// The environment variable holding the queue's URL (`FEED_QUEUE_URL`).
    const URL_VARIABLE: &'static str;

    /// Reads a message body, validating what it names (ids, not just JSON).
    fn parse(body: &str) -> Result<Self, String>;

    /// The message body.
    fn to_body(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }
}

/// Why a message could not be queued: the queue (the variable naming its URL) and the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{queue} queue: {reason}")]
pub struct QueueError {
    pub queue: &'static str,
    pub reason: String,
}

impl QueueError {
    pub fn new(queue: &'static str, reason: impl fmt::Display) -> Self {
        Self {
            queue,
            reason: reason.to_string(),
        }
    }
}

#[cfg(feature = "aws")]
pub use sender::Queue;

#[cfg(feature = "aws")]
mod sender {
    use std::marker::PhantomData;

    use super::{QueueError, QueueMessage};
    use crate::aws::sqs::BatchEntry;
    use crate::aws::Sqs;
    use crate::{ConfigError, Env};

    /// The most entries one SendMessageBatch takes.
    const BATCH_ENTRIES: usize = 10;

    /// The longest delay SQS gives a message (15 minutes).
    pub const MAX_DELAY_SECONDS: u32 = 900;

    /// A queue of `M` messages. Cheap to clone.
    pub struct Queue<M> {
        sqs: Sqs,
        url: String,
        variable: &'static str,
        // `fn() -> M`: the queue holds no message, so it is Send and Sync whatever `M` is.
        message: PhantomData<fn() -> M>,
    }

    impl<M> Clone for Queue<M> {
        fn clone(&self) -> Self {
            Self {
                sqs: self.sqs.clone(),
                url: self.url.clone(),
                variable: self.variable,
                message: PhantomData,
            }
        }
    }

    impl<M> std::fmt::Debug for Queue<M> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("Queue")
                .field("variable", &self.variable)
                .field("url", &self.url)
                .finish_non_exhaustive()
        }
    }

    impl<M: QueueMessage> Queue<M> {
        /// The queue at `url`.
        pub fn new(sqs: Sqs, url: impl Into<String>) -> Self {
            Self {
                sqs,
                url: url.into(),
                variable: M::URL_VARIABLE,
                message: PhantomData,
            }
        }

        /// The queue whose URL is in `M::URL_VARIABLE`.
        pub fn from_env(env: &Env, sqs: Sqs) -> Result<Self, ConfigError> {
            Self::from_env_variable(env, sqs, M::URL_VARIABLE)
        }

        /// The queue whose URL is in `variable`: for a message several queues carry (each
        /// system's account cleanup).
        pub fn from_env_variable(
            env: &Env,
            sqs: Sqs,
            variable: &'static str,
        ) -> Result<Self, ConfigError> {
            Ok(Self {
                variable,
                ..Self::new(sqs, env.require(variable)?)
            })
        }

        pub fn url(&self) -> &str {
            &self.url
        }

        /// The variable the queue's URL was read from (or `M::URL_VARIABLE`).
        pub fn variable(&self) -> &'static str {
            self.variable
        }

        fn error(&self, reason: impl std::fmt::Display) -> QueueError {
            QueueError::new(self.variable, reason)
        }

        fn body(&self, message: &M) -> Result<String, QueueError> {
            message.to_body().map_err(|e| self.error(e))
        }

        /// Sends `message`.
        pub async fn send(&self, message: &M) -> Result<(), QueueError> {
            let body = self.body(message)?;
            self.sqs
                .send_message(&self.url, &body)
                .await
                .map(|_| ())
                .map_err(|e| self.error(e))
        }

        /// Sends `message`, delivered after `delay_seconds` (at most [`MAX_DELAY_SECONDS`]; a
        /// longer delay is cut to it).
        pub async fn send_delayed(
            &self,
            message: &M,
            delay_seconds: u32,
        ) -> Result<(), QueueError> {
            let body = self.body(message)?;
            let delay = i32::try_from(delay_seconds.min(MAX_DELAY_SECONDS)).unwrap_or(0);
            self.sqs
                .client()
                .send_message()
                .queue_url(&self.url)
                .message_body(body)
                .delay_seconds(delay)
                .send()
                .await
                .map(|_| ())
                .map_err(|e| self.error(e))
        }

        /// Sends `messages`, ten to a SendMessageBatch; an entry the queue refuses is an error
        /// (the calls before it stay sent).
        pub async fn send_all(&self, messages: &[M]) -> Result<(), QueueError> {
            for chunk in messages.chunks(BATCH_ENTRIES) {
                let entries = chunk
                    .iter()
                    .enumerate()
                    .map(|(i, message)| {
                        Ok(BatchEntry {
                            id: i.to_string(),
                            message_body: self.body(message)?,
                        })
                    })
                    .collect::<Result<Vec<_>, QueueError>>()?;
                let out = self
                    .sqs
                    .send_message_batch(&self.url, &entries)
                    .await
                    .map_err(|e| self.error(e))?;
                if let Some(failed) = out.failed.first() {
                    return Err(self.error(refused(
                        out.failed.len(),
                        entries.len(),
                        failed.message.as_deref().unwrap_or(&failed.code),
                    )));
                }
            }
            Ok(())
        }
    }

    /// The reason of a batch some of whose entries were refused.
    fn refused(failed: usize, sent: usize, first: &str) -> String {
        format!("{failed} of {sent} messages refused: {first}")
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[derive(serde::Serialize)]
        struct Ping;

        impl QueueMessage for Ping {
            const URL_VARIABLE: &'static str = "PING_QUEUE_URL";
            fn parse(_: &str) -> Result<Self, String> {
                Ok(Self)
            }
        }

        fn sqs() -> Sqs {
            let config = aws_sdk_sqs::Config::builder()
                .behavior_version(aws_sdk_sqs::config::BehaviorVersion::latest())
                .build();
            Sqs::new(aws_sdk_sqs::Client::from_conf(config))
        }

        #[test]
        fn queues_read_their_variable_and_name_it_in_errors() {
            let env = Env::new()
                .with("PING_QUEUE_URL", "https://q/ping")
                .with("OTHER_QUEUE_URL", "https://q/other");
            let queue = Queue::<Ping>::from_env(&env, sqs()).unwrap();
            assert_eq!(queue.url(), "https://q/ping");
            assert_eq!(queue.variable(), "PING_QUEUE_URL");
            let other = Queue::<Ping>::from_env_variable(&env, sqs(), "OTHER_QUEUE_URL").unwrap();
            assert_eq!(other.url(), "https://q/other");
            assert_eq!(
                other.error("timed out").to_string(),
                "OTHER_QUEUE_URL queue: timed out"
            );
            let missing = Queue::<Ping>::from_env(&Env::new(), sqs()).unwrap_err();
            assert!(missing.to_string().contains("PING_QUEUE_URL"), "{missing}");
            assert!(format!("{:?}", queue.clone()).contains("https://q/ping"));
        }

        #[test]
        fn refused_entries_are_counted() {
            assert_eq!(
                refused(2, 10, "throttled"),
                "2 of 10 messages refused: throttled"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Job {
        job_id: String,
    }

    impl QueueMessage for Job {
        const URL_VARIABLE: &'static str = "JOB_QUEUE_URL";
        fn parse(body: &str) -> Result<Self, String> {
            #[derive(serde::Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct Body {
                job_id: String,
            }
            let body: Body = serde_json::from_str(body).map_err(|e| e.to_string())?;
            Ok(Self {
                job_id: body.job_id,
            })
        }
    }

    #[test]
    fn messages_are_their_json_body() {
        let job = Job {
            job_id: "j1".into(),
        };
        let body = job.to_body().unwrap();
        assert_eq!(body, r#"{"jobId":"j1"}"#);
        assert_eq!(Job::parse(&body), Ok(job));
        assert_eq!(
            QueueError::new("JOB_QUEUE_URL", "refused").to_string(),
            "JOB_QUEUE_URL queue: refused"
        );
    }
}
