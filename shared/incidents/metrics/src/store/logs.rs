//! The count of logs ingested, by service and severity: once per message of logs, however
//! often it is delivered.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use platform::dynamo::{DynamoError, Transaction, MAX_TRANSACTION_ITEMS};

use super::{commit_uncounted, sha256_hex, shard_for, Metrics, OTHER};
use crate::catalog;

/// What a message of logs is counted as: the hash of its distinct log ids, so the same
/// message delivered again (under any SQS message id) is the same batch.
pub fn batch_key<'a>(ids: impl IntoIterator<Item = &'a str>) -> String {
    let ids: BTreeSet<&str> = ids.into_iter().collect();
    sha256_hex(&ids.into_iter().collect::<Vec<_>>().join("\n"))
}

/// Logs counted by `(service label, severity)`.
type Tally<'a> = BTreeMap<(String, &'a str), u64>;

/// The counts of the messages `chosen` (indexes into `tallies`), summed per series.
fn sums<'a>(tallies: &[(&str, Tally<'a>)], chosen: &[usize]) -> Tally<'a> {
    let mut out = Tally::new();
    for (_, counts) in chosen.iter().filter_map(|i| tallies.get(*i)) {
        for (series, count) in counts {
            *out.entry(series.clone()).or_default() += count;
        }
    }
    out
}

impl Metrics {
    /// Counts the logs of one message, `(serviceName, severity)` each, once however often the
    /// message is delivered: the counts per series and a marker of `batch` (see
    /// [`batch_key`]) in one transaction, or one per 99 series (each with its own marker).
    /// Returns the logs this call counted (0 when counted before).
    pub async fn count_logs<'a>(
        &self,
        batch: &str,
        logs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<u64, DynamoError> {
        let logs: Vec<(&str, &str)> = logs.into_iter().collect();
        let names: BTreeSet<&str> = logs.iter().map(|(service, _)| *service).collect();
        let labels = self.service_labels(&names).await?;
        let mut counts: BTreeMap<(String, &str), u64> = BTreeMap::new();
        for (service, severity) in logs {
            let label = labels.get(service).map(String::as_str).unwrap_or(OTHER);
            *counts.entry((label.to_string(), severity)).or_default() += 1;
        }
        let counts: Vec<((String, &str), u64)> = counts.into_iter().collect();
        let mut counted = 0;
        // The marker takes one place of each transaction.
        for (i, chunk) in counts.chunks(MAX_TRANSACTION_ITEMS - 1).enumerate() {
            let marker = format!("logs:{batch}:{i}");
            let shard = shard_for(&marker);
            let mut updates = vec![self.marker(&marker)];
            for ((service, severity), count) in chunk {
                let delta = i64::try_from(*count).unwrap_or(i64::MAX);
                updates.push(self.add(&catalog::LOGS_INGESTED, &[service, severity], delta, shard));
            }
            if self.commit_once(updates).await? {
                counted += chunk.iter().map(|(_, c)| c).sum::<u64>();
            }
        }
        Ok(counted)
    }

    /// Counts the logs of a batch of messages (each `(batch_key, (serviceName, severity) of
    /// its logs)`), each message once however often it is delivered and in whatever batch:
    /// one transaction of each message's marker and one update per series for all of them
    /// (as many messages to a transaction as its 100 items hold), so the series take one
    /// write per batch, not one per message. A message counted before fails its marker and
    /// the transaction is made again without it. Returns the logs this call counted.
    pub async fn count_messages(
        &self,
        messages: &[(String, Vec<(&str, &str)>)],
    ) -> Result<u64, DynamoError> {
        let names: BTreeSet<&str> = messages
            .iter()
            .flat_map(|(_, logs)| logs.iter().map(|(service, _)| *service))
            .collect();
        let labels = self.service_labels(&names).await?;
        let tallies = tally_messages(messages, &labels);
        let (chunks, alone) = pack(&tallies);
        let mut counted = 0;
        for chunk in chunks {
            let committed = commit_uncounted(
                chunk,
                |pending| self.messages_transaction(&tallies, pending),
                || self.conflict(),
            )
            .await?;
            counted += sums(&tallies, &committed).values().sum::<u64>();
        }
        for i in alone {
            if let Some((batch, _)) = tallies.get(i) {
                let logs = messages
                    .iter()
                    .find(|(b, _)| b == batch)
                    .map(|(_, logs)| logs.clone())
                    .unwrap_or_default();
                counted += self.count_logs(batch, logs).await?;
            }
        }
        Ok(counted)
    }

    /// The transaction of the messages `pending` (indexes into `tallies`): their markers
    /// first, in order, then one update per series of them all.
    fn messages_transaction(
        &self,
        tallies: &[(&str, Tally)],
        pending: &[usize],
    ) -> Result<Transaction, DynamoError> {
        // A message alone in its transaction is marked as `count_logs` marks it.
        let markers: Vec<String> = pending
            .iter()
            .filter_map(|i| tallies.get(*i))
            .map(|(batch, _)| format!("logs:{batch}:0"))
            .collect();
        let seed = markers.first().map(String::as_str).unwrap_or("");
        let mut tx = Transaction::new(&self.table);
        for marker in &markers {
            tx.update(self.marker(marker))?;
        }
        for ((service, severity), count) in sums(tallies, pending) {
            let delta = i64::try_from(count).unwrap_or(i64::MAX);
            // Each series of the batch in its own shard: a batch's writes spread.
            let shard = shard_for(&format!("{seed}/{service}/{severity}"));
            tx.update(self.add(&catalog::LOGS_INGESTED, &[&service, severity], delta, shard))?;
        }
        Ok(tx)
    }
}

/// Each distinct message's logs counted by series (a message repeated in the batch is
/// counted at its first place only).
fn tally_messages<'a>(
    messages: &'a [(String, Vec<(&'a str, &'a str)>)],
    labels: &HashMap<String, String>,
) -> Vec<(&'a str, Tally<'a>)> {
    let mut seen = HashSet::new();
    let mut tallies: Vec<(&str, Tally)> = Vec::new();
    for (batch, logs) in messages {
        if !seen.insert(batch.as_str()) {
            continue;
        }
        let mut counts = Tally::new();
        for (service, severity) in logs {
            let label = labels.get(*service).map(String::as_str).unwrap_or(OTHER);
            *counts.entry((label.to_string(), *severity)).or_default() += 1;
        }
        tallies.push((batch.as_str(), counts));
    }
    tallies
}

/// Messages into transactions: a marker each, and the union of their series. Returns the
/// transactions' messages (indexes into `tallies`) and those too big to share one.
fn pack(tallies: &[(&str, Tally)]) -> (Vec<Vec<usize>>, Vec<usize>) {
    let mut chunks: Vec<Vec<usize>> = Vec::new();
    let mut series: BTreeSet<(String, &str)> = BTreeSet::new();
    let mut alone = Vec::new();
    for (i, (_, counts)) in tallies.iter().enumerate() {
        if counts.len() + 1 > MAX_TRANSACTION_ITEMS {
            alone.push(i);
            continue;
        }
        let grown = counts.keys().filter(|k| !series.contains(*k)).count();
        let fits = chunks
            .last()
            .is_some_and(|c| c.len() + 1 + series.len() + grown <= MAX_TRANSACTION_ITEMS);
        if !fits {
            chunks.push(Vec::new());
            series.clear();
        }
        series.extend(counts.keys().cloned());
        if let Some(chunk) = chunks.last_mut() {
            chunk.push(i);
        }
    }
    (chunks, alone)
}

#[cfg(test)]
mod tests {
    use super::batch_key;

    #[test]
    fn a_batch_is_its_distinct_ids_in_any_order() {
        assert_eq!(batch_key(["b", "a", "a"]), batch_key(["a", "b"]));
        assert_ne!(batch_key(["a"]), batch_key(["a", "b"]));
        assert_eq!(batch_key(["a"]).len(), 64);
    }
}
