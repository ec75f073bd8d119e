//! Alert rules: the built-in one, the rules' list, and their writes under the rule cap.

use super::{Store, StoreError, META};
use crate::model::{AlertRule, Severity, DEFAULT_RULE_ID};
use aws_sdk_dynamodb::types::builders::UpdateBuilder;
use platform::dynamo::{
    is_condition_failed, key, n, s, AttributeValue, Attributes, DynamoError, Item, Transaction,
};

const RULES_PK: &str = "RULES";
/// The rule count's item (`RULECOUNT`/`META`) and its attribute: the rules [`Store::rules`]
/// lists, kept by every create and delete in their transactions.
const RULE_COUNT_PK: &str = "RULECOUNT";
const RULE_COUNT: &str = "rules";

impl Store {
    /// The built-in rule: every ERROR and FATAL log opens (or adds to) an incident.
    pub fn default_rule(at: &str) -> AlertRule {
        AlertRule {
            id: DEFAULT_RULE_ID.to_string(),
            name: "Errors and fatal errors".to_string(),
            severities: vec![Severity::Error, Severity::Fatal],
            service_name: None,
            log_type: None,
            threshold: 1,
            window_seconds: 60,
            enabled: true,
            escalate_after_minutes: None,
            created_at: at.to_string(),
            updated_at: at.to_string(),
        }
    }

    /// Every rule, the built-in one first unless it was deleted (one Query).
    pub async fn rules(&self) -> Result<Vec<AlertRule>, DynamoError> {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(RULES_PK));
        let items = self.table.query_all(query, Some(1_000)).await?;
        let mut rules = Vec::new();
        let mut default_stored = false;
        for item in &items {
            if item.opt_string("sk").as_deref() == Some(DEFAULT_RULE_ID) {
                default_stored = true;
            }
            if item.opt_bool("deleted") == Some(true) {
                continue;
            }
            rules.push(self.rule_from(item)?);
        }
        if !default_stored {
            rules.insert(0, Self::default_rule("1970-01-01T00:00:00.000Z"));
        }
        rules.sort_by(|a, b| {
            (a.id != DEFAULT_RULE_ID, &a.created_at, &a.id).cmp(&(
                b.id != DEFAULT_RULE_ID,
                &b.created_at,
                &b.id,
            ))
        });
        Ok(rules)
    }

    fn rule_from(&self, item: &Item) -> Result<AlertRule, DynamoError> {
        let t = self.table.name();
        let severities = item
            .strings(t, "severities")?
            .iter()
            .map(|s| Severity::parse(s).ok_or_else(|| self.corrupt(format!("severity {s}"))))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(AlertRule {
            id: item.string(t, "sk")?,
            name: item.string(t, "name")?,
            severities,
            service_name: item.opt_string("serviceName"),
            log_type: item.opt_string("type"),
            threshold: item.int(t, "threshold")?,
            window_seconds: item.int(t, "windowSeconds")?,
            enabled: item.opt_bool("enabled").unwrap_or(true),
            escalate_after_minutes: item.opt_int(t, "escalateAfterMinutes")?,
            created_at: item.string(t, "createdAt")?,
            updated_at: item.string(t, "updatedAt")?,
        })
    }

    /// The stored item of `rule`.
    fn rule_item(rule: &AlertRule) -> Item {
        let mut item = key(RULES_PK, rule.id.as_str());
        item.insert("name".into(), s(rule.name.as_str()));
        item.insert(
            "severities".into(),
            AttributeValue::L(rule.severities.iter().map(|v| s(v.as_str())).collect()),
        );
        if let Some(v) = &rule.service_name {
            item.insert("serviceName".into(), s(v.as_str()));
        }
        if let Some(v) = &rule.log_type {
            item.insert("type".into(), s(v.as_str()));
        }
        item.insert("threshold".into(), n(rule.threshold));
        item.insert("windowSeconds".into(), n(rule.window_seconds));
        item.insert("enabled".into(), AttributeValue::Bool(rule.enabled));
        if let Some(after) = rule.escalate_after_minutes {
            item.insert("escalateAfterMinutes".into(), n(after));
        }
        item.insert("createdAt".into(), s(rule.created_at.as_str()));
        item.insert("updatedAt".into(), s(rule.updated_at.as_str()));
        item
    }

    /// Seeds the rule count (`RULECOUNT`) from the rules' one bounded Query when it is
    /// missing (a table from before the count): conditionally, so concurrent seeds agree.
    /// Creates and deletes require the count, so none moves the rules while it is missing.
    async fn ensure_rule_count(&self) -> Result<(), DynamoError> {
        if self.table.get(key(RULE_COUNT_PK, META)).await?.is_some() {
            return Ok(());
        }
        let rules = self.rules().await?.len();
        let mut item = key(RULE_COUNT_PK, META);
        item.insert(
            RULE_COUNT.into(),
            n(i64::try_from(rules).unwrap_or(i64::MAX)),
        );
        match self
            .table
            .put_item()
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Ok(()),
            Err(e) => Err(self.table.fail("PutItem", &e)),
        }
    }

    /// The update moving the rule count by `delta`: up only below `cap`.
    fn rule_count_move(tx: &Transaction, delta: i64, cap: Option<usize>) -> UpdateBuilder {
        let update = tx
            .update_builder(key(RULE_COUNT_PK, META))
            .update_expression("ADD #rules :delta")
            .expression_attribute_names("#rules", RULE_COUNT)
            .expression_attribute_values(":delta", n(delta));
        match cap {
            Some(cap) => update
                .condition_expression("#rules < :cap")
                .expression_attribute_values(":cap", n(i64::try_from(cap).unwrap_or(i64::MAX))),
            None => update.condition_expression("attribute_exists(#rules)"),
        }
    }

    /// Creates `rule` while fewer than `cap` rules exist: the rule count is checked and
    /// incremented in the rule's own transaction, so parallel creates cannot pass the cap.
    /// False (nothing written) at the cap.
    pub async fn create_rule(&self, rule: &AlertRule, cap: usize) -> Result<bool, StoreError> {
        self.ensure_rule_count().await?;
        let mut tx = Transaction::new(&self.table);
        let count = Self::rule_count_move(&tx, 1, Some(cap));
        tx.update(count)?;
        tx.put(Self::rule_item(rule), Some("attribute_not_exists(pk)"))?;
        match tx.commit_retrying().await {
            Ok(()) => Ok(true),
            Err(e) if e.failed_at(0) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// Replaces rule `rule.id`, unless it was deleted meanwhile ([`StoreError::NotFound`]):
    /// a replace never brings back a rule the count no longer holds.
    pub async fn replace_rule(&self, rule: &AlertRule) -> Result<(), StoreError> {
        let condition = if rule.id == DEFAULT_RULE_ID {
            "attribute_not_exists(deleted)"
        } else {
            "attribute_exists(pk)"
        };
        match self
            .table
            .put_item()
            .set_item(Some(Self::rule_item(rule)))
            .condition_expression(condition)
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if is_condition_failed(&e) => Err(StoreError::NotFound),
            Err(e) => Err(self.table.fail("PutItem", &e).into()),
        }
    }

    /// Removes a rule and counts it out, in one transaction; the built-in one leaves a
    /// tombstone so it stays removed.
    pub async fn delete_rule(&self, id: &str) -> Result<(), StoreError> {
        self.ensure_rule_count().await?;
        let mut tx = Transaction::new(&self.table);
        if id == DEFAULT_RULE_ID {
            let mut item = key(RULES_PK, DEFAULT_RULE_ID);
            item.insert("deleted".into(), AttributeValue::Bool(true));
            tx.put(item, Some("attribute_not_exists(deleted)"))?;
        } else {
            tx.delete(key(RULES_PK, id), Some("attribute_exists(pk)"))?;
        }
        let count = Self::rule_count_move(&tx, -1, None);
        tx.update(count)?;
        match tx.commit_retrying().await {
            Ok(()) => Ok(()),
            Err(e) if e.failed_at(0) => Err(StoreError::NotFound),
            Err(e) => Err(e.into()),
        }
    }
}
