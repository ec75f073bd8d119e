//! The counts an incident's changes and an alert carry into their own transactions.

use platform::dynamo::request::Update;

use super::{shard_for, Metrics};
use crate::catalog;

impl Metrics {
    /// Incident `incident` opened (ACTIVE): for the opening's transaction.
    pub fn incident_opened(&self, incident: &str, at: &str) -> Vec<Update> {
        let shard = shard_for(&format!("{incident}/{at}/open"));
        vec![self.add(&catalog::INCIDENTS, &["ACTIVE"], 1, shard)]
    }

    /// Incident `incident` moved from status `from` to `to` at `at`, `open_ms` after it
    /// opened (or reopened): for the change's transaction. Acknowledging observes the time
    /// to acknowledge, resolving the time to resolve.
    pub fn incident_moved(
        &self,
        incident: &str,
        from: &str,
        to: &str,
        at: &str,
        open_ms: Option<u64>,
    ) -> Vec<Update> {
        let shard = shard_for(&format!("{incident}/{at}/{to}"));
        let mut updates = vec![
            self.add(&catalog::INCIDENTS, &[from], -1, shard),
            self.add(&catalog::INCIDENTS, &[to], 1, shard),
        ];
        let histogram = match to {
            "ACKNOWLEDGED" => Some(&catalog::TIME_TO_ACKNOWLEDGE),
            "RESOLVED" => Some(&catalog::TIME_TO_RESOLVE),
            _ => None,
        };
        if let (Some(histogram), Some(ms)) = (histogram, open_ms) {
            updates.push(self.observe(histogram, &[], ms, shard));
        }
        updates
    }

    /// Alert `alert` raised by a log of `severity`: for the transaction that raises it.
    pub fn alert_fired(&self, alert: &str, severity: &str) -> Vec<Update> {
        vec![self.add(&catalog::ALERTS_FIRED, &[severity], 1, shard_for(alert))]
    }
}

#[cfg(test)]
mod tests {
    use crate::store::tests::metrics;

    #[test]
    fn incident_moves_carry_both_statuses_and_one_observation() {
        let m = metrics();
        let ack = m.incident_moved("i", "ACTIVE", "ACKNOWLEDGED", "t", Some(1_500));
        assert_eq!(ack.len(), 3);
        let reopen = m.incident_moved("i", "RESOLVED", "ACTIVE", "t", None);
        assert_eq!(reopen.len(), 2);
        assert_eq!(m.incident_opened("i", "t").len(), 1);
    }
}
