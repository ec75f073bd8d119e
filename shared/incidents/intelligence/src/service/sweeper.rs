//! The sweeper function's side: deleting analyses made before a purge, a bounded step at a
//! time.

use platform::aws::AwsClients;
use platform::dynamo::Table;
use platform::Env;

use super::analyses::remove_analysis;
use super::{IntelligenceError, SWEEP_STEP};
use crate::index::{DynamoTermIndex, TermIndex};
use crate::store::Store;

/// What the sweeper function needs: the records and the index, nothing else.
pub struct Sweeper<I: TermIndex = DynamoTermIndex> {
    store: Store,
    index: I,
}

impl Sweeper<DynamoTermIndex> {
    /// Over `INTELLIGENCE_TABLE`.
    pub fn from_env(env: &Env, aws: &AwsClients) -> Result<Self, platform::ConfigError> {
        let table = Table::from_env(env, aws, "INTELLIGENCE_TABLE")?;
        Ok(Self {
            store: Store::new(table.clone()),
            index: DynamoTermIndex::new(table),
        })
    }
}

impl<I: TermIndex> Sweeper<I> {
    /// One step of a sweep: deletes up to [`SWEEP_STEP`] analyses made before `before`;
    /// true when more may remain. Safe to repeat.
    pub async fn step(&self, before: &str) -> Result<bool, IntelligenceError> {
        let keys = self.store.keys_before(before, SWEEP_STEP).await?;
        for (key, author) in &keys {
            let Some(stored) = self.store.analysis(key, author).await? else {
                continue;
            };
            if stored.analysis.created_at.as_str() >= before {
                continue;
            }
            match remove_analysis(&self.store, &self.index, &stored).await {
                // Replaced meanwhile: the new analysis stays.
                Ok(()) | Err(IntelligenceError::Changed) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(keys.len() == SWEEP_STEP)
    }
}
