//! The incident platform through the stack: ingesting logs, waiting for the
//! processor (the stack's real queue poller), and the routes' requests.

use std::future::Future;
use std::time::Duration;

use reqwest::Response;
use serde_json::{json, Value};

use crate::stack::{TestStack, INGEST_KEY};

pub const LOGS: &str = "/api/v1/logs";
pub const INCIDENTS: &str = "/api/v1/incidents";
pub const ALERTS: &str = "/api/v1/alerts";
pub const RULES: &str = "/api/v1/alerts/rules";
pub const LOGBOOK: &str = "/api/v1/logbook";

/// A log of `service` with this severity and message (now).
pub fn log(service: &str, severity: &str, message: &str) -> Value {
    json!({
        "serviceName": service,
        "type": "APPLICATION_LOG",
        "severity": severity,
        "logContent": message,
    })
}

/// Hands `message` to the ingest queue's consumer as SQS redelivers it: twice in one batch
/// under two message ids, then that batch again (a lost acknowledgement). Every delivery
/// must succeed.
pub async fn deliver_repeatedly(processor: &dyn platform::SqsHandler, message: &str) {
    for _ in 0..2 {
        let response = processor
            .handle(crate::content::sqs_event(&[
                ("m1", message.to_string()),
                ("m2", message.to_string()),
            ]))
            .await
            .expect("batch handled");
        assert!(response.batch_item_failures.is_empty(), "a delivery failed");
    }
}

/// Waits (up to 20 s) until `check` gives a value; panics naming `what` otherwise.
pub async fn eventually<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    for _ in 0..200 {
        if let Some(v) = check().await {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting for {what}");
}

impl TestStack {
    /// `POST /api/v1/logs` with the stack's ingest key.
    pub async fn ingest(&self, body: &Value) -> Response {
        self.send(
            self.http
                .post(self.url(LOGS))
                .header("x-api-key", INGEST_KEY)
                .json(body),
        )
        .await
    }

    /// [`TestStack::ingest`], which must answer 202; the ids.
    pub async fn ingest_ok(&self, body: &Value) -> Vec<String> {
        let response = self.ingest(body).await;
        assert_eq!(response.status(), 202, "ingest");
        let answer: Value = response.json().await.expect("json");
        answer["ids"]
            .as_array()
            .expect("ids")
            .iter()
            .map(|v| v.as_str().expect("id").to_string())
            .collect()
    }

    /// `GET path` with a token, which must answer 200; its body.
    pub async fn get_ok_auth(&self, path: &str, token: &str) -> Value {
        let response = self.get_auth(path, token).await;
        assert_eq!(response.status(), 200, "GET {path}");
        response.json().await.expect("json")
    }

    /// Waits until the timeline under `query` holds `count` logs; returns them.
    pub async fn timeline_with(&self, token: &str, query: &str, count: usize) -> Vec<Value> {
        let path = format!("{LOGS}?{query}");
        eventually(&format!("{count} logs at {path}"), || async {
            let logs = self.get_ok_auth(&path, token).await;
            let logs = logs.as_array().cloned().unwrap_or_default();
            (logs.len() == count).then_some(logs)
        })
        .await
    }

    /// Waits until incident `id` exists and `check` holds on it; returns it.
    pub async fn incident_when(
        &self,
        token: &str,
        id: &str,
        check: impl Fn(&Value) -> bool,
    ) -> Value {
        let path = format!("{INCIDENTS}/{id}");
        eventually(&format!("incident {id}"), || async {
            let response = self.get_auth(&path, token).await;
            if response.status() != 200 {
                return None;
            }
            let incident: Value = response.json().await.ok()?;
            check(&incident).then_some(incident)
        })
        .await
    }

    /// Waits until the incidents list holds `count` incidents; returns them.
    pub async fn incidents_when(&self, token: &str, count: usize) -> Vec<Value> {
        eventually(&format!("{count} incidents"), || async {
            let list = self.get_ok_auth(INCIDENTS, token).await;
            let list = list.as_array().cloned().unwrap_or_default();
            (list.len() == count).then_some(list)
        })
        .await
    }
}

/// A new SQS queue of the test's, to subscribe or target: its URL and ARN.
pub async fn test_queue(sqs: &aws_sdk_sqs::Client, name: &str) -> (String, String) {
    let url = sqs
        .create_queue()
        .queue_name(name)
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let arn = sqs
        .get_queue_attributes()
        .queue_url(&url)
        .attribute_names(aws_sdk_sqs::types::QueueAttributeName::QueueArn)
        .send()
        .await
        .unwrap()
        .attributes
        .unwrap()
        .remove(&aws_sdk_sqs::types::QueueAttributeName::QueueArn)
        .unwrap();
    (url, arn)
}
