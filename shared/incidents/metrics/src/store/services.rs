//! The services with series of their own (`SERVICES` / `{serviceName}`) and how many there
//! are (`SERVICECOUNT` / `-`).

use std::collections::{BTreeSet, HashMap, HashSet};

use platform::dynamo::{key, n, s, Attributes, DynamoError, Transaction, TransactionError};

use super::{Metrics, MAX_SERVICES, NO_SORT, OTHER, SERVICES_PK, SERVICE_COUNT_PK};

/// The services that have series of their own, as far as this instance knows.
#[derive(Debug, Default)]
pub(super) struct Services {
    known: HashSet<String>,
    /// Read when every place was taken: a name not in `known` can never get one.
    complete: bool,
}

impl Metrics {
    /// The label of each service name: itself when it has (or now gets) series of its own,
    /// else [`OTHER`]. Names this instance knows cost nothing; otherwise one Query reads the
    /// registered names, and each new name is registered with one transaction while places
    /// remain. A name's answer never changes once given (places are never given back), so a
    /// message counted again splits into the same series.
    pub(super) async fn service_labels(
        &self,
        names: &BTreeSet<&str>,
    ) -> Result<HashMap<String, String>, DynamoError> {
        let mut labels = HashMap::new();
        let mut unknown = Vec::new();
        let complete = {
            let cache = self.services.lock().unwrap_or_else(|p| p.into_inner());
            for name in names {
                if *name == OTHER {
                    labels.insert(name.to_string(), OTHER.to_string());
                } else if cache.known.contains(*name) {
                    labels.insert(name.to_string(), name.to_string());
                } else {
                    unknown.push(*name);
                }
            }
            cache.complete
        };
        if unknown.is_empty() {
            return Ok(labels);
        }
        if !complete {
            let registered = self.registered_services().await?;
            let mut cache = self.services.lock().unwrap_or_else(|p| p.into_inner());
            cache.complete = registered.len() >= MAX_SERVICES;
            cache.known.extend(registered);
        }
        for name in unknown {
            let (known, full) = {
                let cache = self.services.lock().unwrap_or_else(|p| p.into_inner());
                (
                    cache.known.contains(name),
                    cache.complete || cache.known.len() >= MAX_SERVICES,
                )
            };
            let label = if known || (!full && self.register_service(name).await?) {
                self.services
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .known
                    .insert(name.to_string());
                name
            } else {
                OTHER
            };
            labels.insert(name.to_string(), label.to_string());
        }
        Ok(labels)
    }

    /// The services with series of their own (one consistent Query; at most
    /// [`MAX_SERVICES`] rows).
    async fn registered_services(&self) -> Result<Vec<String>, DynamoError> {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(SERVICES_PK))
            .projection_expression("sk")
            .consistent_read(true);
        Ok(self
            .table
            .query_all(query, Some(MAX_SERVICES + 1))
            .await?
            .iter()
            .filter_map(|item| item.opt_string("sk"))
            .collect())
    }

    /// Gives `name` series of its own unless every place is taken; true when it has them
    /// (now or already).
    async fn register_service(&self, name: &str) -> Result<bool, DynamoError> {
        let mut tx = Transaction::new(&self.table);
        tx.put(key(SERVICES_PK, name), Some("attribute_not_exists(pk)"))?;
        let guard = tx
            .update_builder(key(SERVICE_COUNT_PK, NO_SORT))
            .update_expression("ADD #n :one")
            .condition_expression("attribute_not_exists(#n) OR #n < :max")
            .expression_attribute_names("#n", "n")
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(
                ":max",
                n(i64::try_from(MAX_SERVICES).unwrap_or(i64::MAX)),
            );
        tx.update(guard)?;
        match tx.commit_retrying().await {
            Ok(()) => {
                tracing::info!(service = name, "service given its own metric series");
                Ok(true)
            }
            Err(e) if e.failed_at(0) => Ok(true),
            Err(e) if e.failed_at(1) => {
                tracing::info!(
                    service = name,
                    "metric series of services full: counted as other"
                );
                Ok(false)
            }
            Err(TransactionError::Dynamo(e)) => Err(e),
            Err(_) => Err(self.conflict()),
        }
    }
}
