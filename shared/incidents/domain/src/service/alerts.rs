//! Alerts: listed by status and moved through their statuses.

use super::{merge_pages, Incidents, IncidentsError};
use crate::model::{Alert, AlertStatus};

impl Incidents {
    /// Alerts (of one status, or of all), newest raised first, below the index key `after`
    /// when given: at most `limit`, and the next page's cursor.
    pub async fn alerts(
        &self,
        status: Option<AlertStatus>,
        limit: usize,
        after: Option<&str>,
    ) -> Result<(Vec<Alert>, Option<String>), IncidentsError> {
        let statuses = match status {
            Some(s) => vec![s],
            None => AlertStatus::ALL.to_vec(),
        };
        let pages = futures::future::try_join_all(
            statuses
                .into_iter()
                .map(|s| self.store.alerts(s, limit, after)),
        )
        .await?;
        Ok(merge_pages(pages, limit))
    }

    pub async fn patch_alert(&self, id: &str, to: AlertStatus) -> Result<Alert, IncidentsError> {
        let item = self
            .store
            .alert_item(id)
            .await?
            .ok_or(IncidentsError::NotFound("Alert"))?;
        let alert = self.store.alert_from(&item)?;
        if !alert.status.can_move_to(to) {
            return Err(IncidentsError::InvalidTransition(format!(
                "status: an alert cannot move from {} to {} (OPEN -> ACKNOWLEDGED -> RESOLVED)",
                alert.status.as_str(),
                to.as_str()
            )));
        }
        let now = self.now();
        self.store
            .change_alert(id, alert.status, to, &now)
            .await
            .map_err(|e| IncidentsError::from_store(e, "Alert"))?;
        Ok(Alert {
            status: to,
            updated_at: now,
            ..alert
        })
    }
}
