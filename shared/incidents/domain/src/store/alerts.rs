//! Alerts: raised on an incident (noted on it, counted and announced with it), listed by
//! status, moved, and resolved with their incident.

use super::{incident_pk, Listed, Store, StoreError, META};
use crate::events::{self, Change, EventKind};
use crate::model::{Alert, AlertStatus, Severity};
use aws_sdk_dynamodb::types::builders::UpdateBuilder;
use platform::dynamo::{
    is_condition_failed, key, n, s, AttributeValue, Attributes, DynamoError, Item, RetryPolicy,
    Transaction, TransactionError,
};

/// The alerts raised on an incident since it last resolved (see [`Store::raised_alerts`]).
#[derive(Debug, Default, Clone)]
pub struct RaisedAlerts {
    /// How many were raised: the resolve requires the incident still lists that many.
    pub raised: usize,
    /// Those not RESOLVED yet, with the status read.
    pub unresolved: Vec<(String, AlertStatus)>,
}

impl RaisedAlerts {
    /// The condition (` AND ...`) that the incident still lists the alerts read, and the
    /// value of its `:raised`: an alert raised since the read fails it, the caller reads again.
    pub(crate) fn unchanged(&self) -> (&'static str, Option<AttributeValue>) {
        if self.raised == 0 {
            (" AND attribute_not_exists(alertIds)", None)
        } else {
            (
                " AND size(alertIds) = :raised",
                Some(n(i64::try_from(self.raised).unwrap_or(i64::MAX))),
            )
        }
    }
}

impl Store {
    /// The ids of the alerts raised on incident `item` since it last resolved: one per rule
    /// and opening, so at most the rule cap (plus the default rule) between two resolves.
    pub fn alert_ids_of(item: &Item) -> Vec<String> {
        match item.get("alertIds") {
            Some(AttributeValue::Ss(ids)) => ids.clone(),
            _ => Vec::new(),
        }
    }

    /// The alerts raised on incident `item` since it last resolved, and which of them are not
    /// RESOLVED yet (with the status read, which the resolve's transaction requires).
    pub async fn raised_alerts(&self, item: &Item) -> Result<RaisedAlerts, DynamoError> {
        let ids = Self::alert_ids_of(item);
        let raised = ids.len();
        if ids.is_empty() {
            return Ok(RaisedAlerts::default());
        }
        let items = self
            .table
            .batch_get_all(
                ids.iter()
                    .map(|id| key(format!("ALERT#{id}"), META))
                    .collect(),
                None,
            )
            .await?;
        let mut unresolved = Vec::new();
        for item in &items {
            let alert = self.alert_from(item)?;
            if alert.status != AlertStatus::Resolved {
                unresolved.push((alert.id, alert.status));
            }
        }
        Ok(RaisedAlerts { raised, unresolved })
    }

    /// Moves alert `id`, still at status `from`, to `to` in `tx`.
    pub(crate) fn move_alert_in(
        &self,
        tx: &mut Transaction,
        id: &str,
        from: AlertStatus,
        to: AlertStatus,
        now: &str,
    ) -> Result<(), DynamoError> {
        let update = Self::alert_move(tx, id, from, to, now);
        tx.update(update)?;
        Ok(())
    }

    /// The update that moves alert `id` from `from` to `to`, if it is still at `from`.
    fn alert_move(
        tx: &Transaction,
        id: &str,
        from: AlertStatus,
        to: AlertStatus,
        now: &str,
    ) -> UpdateBuilder {
        tx.update_builder(key(format!("ALERT#{id}"), META))
            .update_expression("SET #status = :to, updatedAt = :now, gsi1pk = :gpk")
            .condition_expression("#status = :from")
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":to", s(to.as_str()))
            .expression_attribute_values(":from", s(from.as_str()))
            .expression_attribute_values(":now", s(now))
            .expression_attribute_values(":gpk", s(format!("ALERTS#{}", to.as_str())))
    }

    pub async fn alert_item(&self, id: &str) -> Result<Option<Item>, DynamoError> {
        self.table.get(key(format!("ALERT#{id}"), META)).await
    }

    /// Raises `alert` unless it was raised before, counted with it; true when this call
    /// raised it.
    pub async fn put_alert(&self, alert: &Alert) -> Result<bool, DynamoError> {
        let mut item = key(format!("ALERT#{}", alert.id), META);
        item.insert(
            "gsi1pk".into(),
            s(format!("ALERTS#{}", alert.status.as_str())),
        );
        item.insert(
            "gsi1sk".into(),
            s(format!("{}#{}", alert.raised_at, alert.id)),
        );
        item.insert("id".into(), s(alert.id.as_str()));
        item.insert("ruleId".into(), s(alert.rule_id.as_str()));
        item.insert("ruleName".into(), s(alert.rule_name.as_str()));
        item.insert("incidentId".into(), s(alert.incident_id.as_str()));
        item.insert("serviceName".into(), s(alert.service_name.as_str()));
        item.insert("type".into(), s(alert.log_type.as_str()));
        item.insert("severity".into(), s(alert.severity.as_str()));
        item.insert("message".into(), s(alert.message.as_str()));
        item.insert("count".into(), n(alert.count));
        item.insert("threshold".into(), n(alert.threshold));
        item.insert("windowSeconds".into(), n(alert.window_seconds));
        item.insert("status".into(), s(alert.status.as_str()));
        item.insert("raisedAt".into(), s(alert.raised_at.as_str()));
        item.insert("updatedAt".into(), s(alert.updated_at.as_str()));
        let mut tx = Transaction::new(&self.table);
        tx.put(item, Some("attribute_not_exists(pk)"))?;
        // Noted on the incident, so its resolve finds the alerts it must resolve with it.
        tx.update(
            tx.update_builder(key(incident_pk(&alert.incident_id), META))
                .update_expression("ADD alertIds :id")
                .expression_attribute_values(":id", AttributeValue::Ss(vec![alert.id.clone()])),
        )?;
        Self::count_in(
            &mut tx,
            self.metrics.alert_fired(&alert.id, alert.severity.as_str()),
        )?;
        tx.put(
            events::outbox_row(&Change {
                alert_id: Some(&alert.id),
                severity: Some(alert.severity.as_str()),
                ..Change::system(EventKind::AlertRaised, &alert.incident_id, &alert.raised_at)
            }),
            None,
        )?;
        match tx.commit_retrying().await {
            Ok(_) => Ok(true),
            Err(e) if e.failed_at(0) => Ok(false),
            Err(TransactionError::Dynamo(e)) => Err(e),
            Err(_) => Err(DynamoError::Conflict {
                table: self.table.name().to_string(),
                attempts: RetryPolicy::CONFLICTS.attempts,
            }),
        }
    }

    pub fn alert_from(&self, item: &Item) -> Result<Alert, DynamoError> {
        let t = self.table.name();
        let severity = item.string(t, "severity")?;
        let status = item.string(t, "status")?;
        Ok(Alert {
            id: item.string(t, "id")?,
            rule_id: item.string(t, "ruleId")?,
            rule_name: item.string(t, "ruleName")?,
            incident_id: item.string(t, "incidentId")?,
            service_name: item.string(t, "serviceName")?,
            log_type: item.string(t, "type")?,
            severity: Severity::parse(&severity)
                .ok_or_else(|| self.corrupt(format!("severity {severity}")))?,
            message: item.string(t, "message")?,
            count: item.int(t, "count")?,
            threshold: item.int(t, "threshold")?,
            window_seconds: item.int(t, "windowSeconds")?,
            status: AlertStatus::parse(&status)
                .ok_or_else(|| self.corrupt(format!("status {status}")))?,
            raised_at: item.string(t, "raisedAt")?,
            updated_at: item.string(t, "updatedAt")?,
        })
    }

    /// Alerts with `status`, newest first.
    pub async fn alerts(
        &self,
        status: AlertStatus,
        limit: usize,
        after: Option<&str>,
    ) -> Result<Listed<Alert>, DynamoError> {
        let (items, more) = self
            .by_status(&format!("ALERTS#{}", status.as_str()), limit, after)
            .await?;
        let rows = items
            .iter()
            .map(|i| Ok((i.string(self.table.name(), "gsi1sk")?, self.alert_from(i)?)))
            .collect::<Result<_, DynamoError>>()?;
        Ok(Listed { rows, more })
    }

    /// Moves alert `id` from `from` to `to`.
    pub async fn change_alert(
        &self,
        id: &str,
        from: AlertStatus,
        to: AlertStatus,
        now: &str,
    ) -> Result<(), StoreError> {
        let update = Self::alert_move(&Transaction::new(&self.table), id, from, to, now);
        match self.table.update_item_from(update).send().await {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Err(StoreError::Changed),
            Err(e) => Err(self.table.fail("UpdateItem", &e).into()),
        }
    }
}
