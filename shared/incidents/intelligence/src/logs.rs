//! The incident platform's logs as the intelligence service needs them: which service a log
//! named by `log_id` came from (so analyses can be queried by service). A port, so the
//! service does not depend on where logs live; [`IncidentLogs`] reads the logs bucket
//! (`LOGS_BUCKET`: the objects of the log's minute) and, for logs stored before they moved
//! there, the incidents table (`INCIDENTS_TABLE`, read only: one GetItem on the log's key).

use futures::future::BoxFuture;
use incidents::objects::{LogObjects, ObjectsError};
use platform::dynamo::{DynamoError, Table};

/// A lookup that failed: the table's or the bucket's.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    #[error(transparent)]
    Table(#[from] DynamoError),
    #[error(transparent)]
    Objects(#[from] ObjectsError),
}

/// Where logs are looked up.
pub trait LogDirectory: Send + Sync {
    /// The service of the stored log `id` (a checked log id); `None` when there is no such log.
    fn service_of<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<String>, LookupError>>;
}

/// [`LogDirectory`] over the logs bucket and the incidents table.
#[derive(Clone, Debug)]
pub struct IncidentLogs {
    table: Table,
    objects: LogObjects,
}

impl IncidentLogs {
    pub fn new(table: Table, objects: LogObjects) -> Self {
        Self { table, objects }
    }
}

impl LogDirectory for IncidentLogs {
    fn service_of<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<String>, LookupError>> {
        Box::pin(async move {
            if let Some(log) = self.objects.find(id).await? {
                return Ok(Some(log.service_name));
            }
            let key = incidents::timeline::log_key(id);
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
