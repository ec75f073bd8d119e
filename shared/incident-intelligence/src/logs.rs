//! The incident platform's logs as the intelligence service needs them: which service a log
//! named by `log_id` came from (so analyses can be queried by service). A port, so the
//! service does not depend on where logs live; [`IncidentLogs`] reads the incidents table
//! (`INCIDENTS_TABLE`, read only: one GetItem on the log's own key).

use futures::future::BoxFuture;
use platform::dynamo::{DynamoError, Table};

/// Where logs are looked up.
pub trait LogDirectory: Send + Sync {
    /// The service of the stored log `id` (a checked log id); `None` when there is no such log.
    fn service_of<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<String>, DynamoError>>;
}

/// [`LogDirectory`] over the incidents table.
#[derive(Clone, Debug)]
pub struct IncidentLogs {
    table: Table,
}

impl IncidentLogs {
    pub fn new(table: Table) -> Self {
        Self { table }
    }
}

impl LogDirectory for IncidentLogs {
    fn service_of<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<String>, DynamoError>> {
        Box::pin(async move {
            let key = incidents::store::log_key(id);
            let items = self
                .table
                .batch_get_all(vec![key], Some("serviceName"))
                .await?;
            Ok(items
                .into_iter()
                .next()
                .and_then(|item| platform::dynamo::Attributes::opt_string(&item, "serviceName")))
        })
    }
}
