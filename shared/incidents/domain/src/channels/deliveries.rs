//! Each channel's delivery log: one item per event, so a redelivered event finds the delivery
//! it made and is not sent twice.

use platform::dynamo::{key, n, s, Attributes, DynamoError, Item};
use serde::Serialize;
use utoipa::ToSchema;

use super::{Channels, MAX_DELIVERIES};

/// One attempt log of a channel for one event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    pub event_id: String,
    pub event_type: String,
    pub incident_id: String,
    /// `DELIVERED` (a 2xx answer, or SNS took the mail) or `FAILED` (retried while SQS
    /// redelivers the event).
    #[schema(pattern = "^(DELIVERED|FAILED)$")]
    pub status: String,
    pub attempts: i64,
    /// The receiver's HTTP status of the last attempt, when it answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_status: Option<i64>,
    /// Why the last attempt failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When the event happened.
    pub event_at: String,
    pub last_attempt_at: String,
}

impl Channels {
    fn delivery_key(channel_id: &str, event_at: &str, event_id: &str) -> Item {
        key(
            format!("DELIVERY#{channel_id}"),
            format!("{event_at}#{event_id}"),
        )
    }

    /// Whether channel `channel_id` already received event `event_id`.
    pub async fn delivered(
        &self,
        channel_id: &str,
        event_at: &str,
        event_id: &str,
    ) -> Result<bool, DynamoError> {
        Ok(self
            .table
            .get(Self::delivery_key(channel_id, event_at, event_id))
            .await?
            .and_then(|i| i.opt_string("status"))
            .as_deref()
            == Some("DELIVERED"))
    }

    /// Records an attempt of `delivery` (its attempts counted here, not by the caller).
    pub async fn record(&self, channel_id: &str, delivery: &Delivery) -> Result<(), DynamoError> {
        let mut expression = "SET eventId = :id, eventType = :type, incidentId = :incident, \
             #status = :status, eventAt = :eventAt, lastAttemptAt = :last \
             ADD attempts :one"
            .to_string();
        let mut update = self
            .table
            .update_item()
            .set_key(Some(Self::delivery_key(
                channel_id,
                &delivery.event_at,
                &delivery.event_id,
            )))
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":id", s(delivery.event_id.as_str()))
            .expression_attribute_values(":type", s(delivery.event_type.as_str()))
            .expression_attribute_values(":incident", s(delivery.incident_id.as_str()))
            .expression_attribute_values(":status", s(delivery.status.as_str()))
            .expression_attribute_values(":eventAt", s(delivery.event_at.as_str()))
            .expression_attribute_values(":last", s(delivery.last_attempt_at.as_str()))
            .expression_attribute_values(":one", n(1));
        let mut removes = Vec::new();
        match delivery.http_status {
            Some(code) => {
                expression = expression.replacen(" ADD", ", httpStatus = :code ADD", 1);
                update = update.expression_attribute_values(":code", n(code));
            }
            None => removes.push("httpStatus"),
        }
        match &delivery.error {
            Some(error) => {
                expression = expression.replacen(" ADD", ", #error = :error ADD", 1);
                update = update
                    .expression_attribute_names("#error", "error")
                    .expression_attribute_values(":error", s(error.as_str()));
            }
            None => {
                update = update.expression_attribute_names("#error", "error");
                removes.push("#error");
            }
        }
        if !removes.is_empty() {
            expression.push_str(&format!(" REMOVE {}", removes.join(", ")));
        }
        update
            .update_expression(expression)
            .send()
            .await
            .map_err(|e| self.table.fail("UpdateItem", &e))?;
        Ok(())
    }

    /// Channel `id`'s latest deliveries, newest event first.
    pub async fn deliveries(&self, id: &str, limit: usize) -> Result<Vec<Delivery>, DynamoError> {
        let t = self.table.name();
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(format!("DELIVERY#{id}")))
            .scan_index_forward(false)
            .limit(i32::try_from(limit.min(MAX_DELIVERIES)).unwrap_or(100));
        let rows = self
            .table
            .query_all(query, Some(limit.min(MAX_DELIVERIES)))
            .await?;
        rows.iter()
            .map(|r| {
                Ok(Delivery {
                    event_id: r.string(t, "eventId")?,
                    event_type: r.string(t, "eventType")?,
                    incident_id: r.string(t, "incidentId")?,
                    status: r.string(t, "status")?,
                    attempts: r.counter(t, "attempts")?,
                    http_status: r
                        .get("httpStatus")
                        .and_then(|v| v.as_n().ok())
                        .and_then(|v| v.parse().ok()),
                    error: r.opt_string("error"),
                    event_at: r.string(t, "eventAt")?,
                    last_attempt_at: r.string(t, "lastAttemptAt")?,
                })
            })
            .collect()
    }
}
