//! Alert rules: read, created under the cap, replaced and deleted.

use platform::Invalid;

use super::{Incidents, IncidentsError};
use crate::input::RuleInput;
use crate::model::AlertRule;
use crate::model::DEFAULT_RULE_ID;

/// The most alert rules kept (the processor reads them all for every batch).
pub const MAX_RULES: usize = 50;

impl Incidents {
    pub async fn rules(&self) -> Result<Vec<AlertRule>, IncidentsError> {
        Ok(self.store.rules().await?)
    }

    pub async fn rule(&self, id: &str) -> Result<AlertRule, IncidentsError> {
        self.rules()
            .await?
            .into_iter()
            .find(|r| r.id == id)
            .ok_or(IncidentsError::NotFound("Alert rule"))
    }

    pub async fn create_rule(&self, input: RuleInput) -> Result<AlertRule, IncidentsError> {
        let now = self.now();
        let rule = rule_of(uuid::Uuid::new_v4().to_string(), input, &now, &now);
        let created = self
            .store
            .create_rule(&rule, MAX_RULES)
            .await
            .map_err(|e| IncidentsError::from_store(e, "Alert rule"))?;
        if !created {
            return Err(Invalid::field("body", format!("at most {MAX_RULES} alert rules")).into());
        }
        Ok(rule)
    }

    pub async fn replace_rule(
        &self,
        id: &str,
        input: RuleInput,
    ) -> Result<AlertRule, IncidentsError> {
        let existing = self.rule(id).await?;
        let rule = rule_of(existing.id, input, &existing.created_at, &self.now());
        self.store
            .replace_rule(&rule)
            .await
            .map_err(|e| IncidentsError::from_store(e, "Alert rule"))?;
        Ok(rule)
    }

    pub async fn delete_rule(&self, id: &str) -> Result<(), IncidentsError> {
        if id == DEFAULT_RULE_ID {
            // Gone already: 404, as for any other rule.
            self.rule(id).await?;
        }
        self.store
            .delete_rule(id)
            .await
            .map_err(|e| IncidentsError::from_store(e, "Alert rule"))
    }
}

fn rule_of(id: String, input: RuleInput, created_at: &str, updated_at: &str) -> AlertRule {
    AlertRule {
        id,
        name: input.name,
        severities: input.severities,
        service_name: input.service_name,
        log_type: input.log_type,
        threshold: input.threshold,
        window_seconds: input.window_seconds,
        enabled: input.enabled,
        escalate_after_minutes: input.escalate_after_minutes,
        created_at: created_at.to_string(),
        updated_at: updated_at.to_string(),
    }
}
