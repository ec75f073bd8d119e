//! Topics: name resolution by slug (creating unknown names), the statistics a post write
//! moves, the catalog, names by id, and follower deltas.
//!
//! A topic is public (in the catalog, the stats and names by id) once a published post has
//! carried it: the catalog's `gsi1` keys are its mark, written by the post write that
//! publishes it (in the post's transaction) and never removed, so a topic stays public when
//! its last published post is unpublished or deleted. A topic first named by a draft is
//! stored without them, out of the catalog. Topics created by a follow, and every topic
//! stored before this rule, carry the keys and are public.

use futures::future::try_join_all;
use platform::dynamo::{
    n, s, AttributeValue, Attributes, DynamoError, Item, Transaction, TransactionError,
};

use super::{number_list, numbers, string, Store};
use crate::input::{IdempotencyKey, TopicId, TopicName};
use crate::keys;
use crate::model::jobs::SlugMigration;
use crate::model::stats::{placement, Ring, RING_DAYS};

/// How long an applied delta chunk is remembered (seconds): a week of redeliveries.
const DELTA_MEMORY_SECONDS: i64 = 7 * 86_400;
/// Topics per follower-delta transaction (2 items each for a new one, plus the marker).
pub const DELTA_CHUNK: usize = 30;
/// Attempts of one chunk against concurrent writers before giving up (503).
const DELTA_ATTEMPTS: u32 = 5;

/// A topic as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredTopic {
    pub id: String,
    pub name: String,
    pub display_name: String,
    pub slug: String,
    pub category_id: String,
    pub sort_order: u32,
    pub total_post_count: i64,
    pub follower_count: i64,
    pub ring: Ring,
    /// In the catalog: a published post has carried it (or it came from a follow).
    pub public: bool,
}

impl StoredTopic {
    pub(crate) fn from_item(store: &Store, item: &Item) -> Result<Self, DynamoError> {
        let t = &store.table;
        Ok(Self {
            id: string(t, item, "id")?,
            name: string(t, item, "name")?,
            display_name: item
                .opt_string("displayName")
                .unwrap_or_else(|| item.opt_string("name").unwrap_or_default()),
            slug: string(t, item, "slug")?,
            category_id: item
                .opt_string("categoryId")
                .unwrap_or_else(|| "other".into()),
            sort_order: u32::try_from(item.counter(t.name(), "sortOrder")?).unwrap_or(u32::MAX),
            total_post_count: item.counter(t.name(), "totalPostCount")?.max(0),
            follower_count: item.counter(t.name(), "followerCount")?.max(0),
            ring: Ring::from_lists(&numbers(item, "ringDays"), &numbers(item, "ringCounts")),
            public: item.contains_key("gsi1pk"),
        })
    }

    /// The catalog keys (`gsi1pk`, `gsi1sk`) that make this topic public.
    pub(crate) fn catalog_keys(&self) -> (String, String) {
        catalog_keys(&self.category_id, self.sort_order, &self.slug)
    }
}

/// A topic's place in the catalog partition of `gsi1`.
fn catalog_keys(category_id: &str, sort_order: u32, slug: &str) -> (String, String) {
    (
        keys::TOPICS.to_string(),
        keys::topic_gsi1sk(category_id, sort_order, slug),
    )
}

/// A topic named by a write: known (with its stored state) or to be created.
#[derive(Debug, Clone)]
pub struct ResolvedTopic {
    pub id: String,
    pub name: String,
    pub slug: String,
    /// `None`: the write creates it.
    pub existing: Option<StoredTopic>,
}

/// A new topic's META item; in the catalog when `public`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn new_topic_item(
    id: &str,
    name: &str,
    slug: &str,
    now: &str,
    total_post_count: i64,
    ring: &Ring,
    follower_count: i64,
    public: bool,
) -> Item {
    let (category, sort_order) = placement(slug);
    let mut item = keys::topic(id);
    item.extend([
        ("id".to_string(), s(id)),
        ("name".to_string(), s(name)),
        ("displayName".to_string(), s(name)),
        ("slug".to_string(), s(slug)),
        ("categoryId".to_string(), s(category)),
        ("sortOrder".to_string(), n(i64::from(sort_order))),
        ("totalPostCount".to_string(), n(total_post_count)),
        ("followerCount".to_string(), n(follower_count)),
        ("ringDays".to_string(), number_list(&ring.days)),
        ("ringCounts".to_string(), number_list(&ring.counts)),
        ("createdAt".to_string(), s(now)),
    ]);
    if public {
        let (gsi1pk, gsi1sk) = catalog_keys(category, sort_order, slug);
        item.insert("gsi1pk".to_string(), s(gsi1pk));
        item.insert("gsi1sk".to_string(), s(gsi1sk));
    }
    item
}

/// The slug guard of a new topic.
pub(crate) fn slug_item(slug: &str, topic_id: &str) -> Item {
    let mut item = keys::topic_slug(slug);
    item.insert("topicId".to_string(), s(topic_id));
    item
}

impl Store {
    /// The topic with this slug, read consistently.
    pub async fn topic_by_slug(&self, slug: &str) -> Result<Option<StoredTopic>, DynamoError> {
        let Some(pointer) = self.table.get(keys::topic_slug(slug)).await? else {
            return Ok(None);
        };
        let topic_id = string(&self.table, &pointer, "topicId")?;
        match self.table.get(keys::topic(&topic_id)).await? {
            Some(item) => StoredTopic::from_item(self, &item).map(Some),
            None => Err(self
                .table
                .corrupt(format!("TOPICSLUG#{slug} names a missing topic {topic_id}"))),
        }
    }

    /// Each name's topic, known ones by slug (consistent reads, in parallel), unknown ones
    /// given a new id.
    pub async fn resolve_topics(
        &self,
        names: &[TopicName],
    ) -> Result<Vec<ResolvedTopic>, DynamoError> {
        let found = try_join_all(names.iter().map(|name| self.topic_by_slug(name.slug()))).await?;
        Ok(names
            .iter()
            .zip(found)
            .map(|(name, existing)| match existing {
                Some(topic) => ResolvedTopic {
                    id: topic.id.clone(),
                    name: topic.name.clone(),
                    slug: topic.slug.clone(),
                    existing: Some(topic),
                },
                None => ResolvedTopic {
                    id: TopicId::generate().to_string(),
                    name: name.name().to_string(),
                    slug: name.slug().to_string(),
                    existing: None,
                },
            })
            .collect())
    }

    /// Every public topic, in catalog order (category, sort order, slug): a Query of `gsi1`
    /// (keys only) and BatchGets of the topics.
    pub async fn all_topics(&self) -> Result<Vec<StoredTopic>, DynamoError> {
        let query = self
            .table
            .query()
            .index_name(keys::GSI1)
            .key_condition_expression("gsi1pk = :pk")
            .expression_attribute_values(":pk", s(keys::TOPICS));
        let rows = self.table.query_all(query, None).await?;
        let order: Vec<String> = rows.iter().filter_map(|row| row.opt_string("pk")).collect();
        let keys_: Vec<Item> = rows
            .iter()
            .filter_map(|row| {
                let pk = row.opt_string("pk")?;
                let sk = row.opt_string("sk")?;
                Some(platform::dynamo::key(pk, sk))
            })
            .collect();
        let items = self.table.batch_get_all(keys_, None).await?;
        let mut topics = Vec::with_capacity(items.len());
        for pk in &order {
            if let Some(item) = items
                .iter()
                .find(|i| i.opt_string("pk").as_deref() == Some(pk))
            {
                topics.push(StoredTopic::from_item(self, item)?);
            }
        }
        Ok(topics)
    }

    /// The public topics with these ids, in the order asked; unknown and not yet public ids
    /// are left out.
    pub async fn topics_by_ids(&self, ids: &[TopicId]) -> Result<Vec<StoredTopic>, DynamoError> {
        let items = self
            .table
            .batch_get_all(
                ids.iter().map(|id| keys::topic(id.as_str())).collect(),
                None,
            )
            .await?;
        let mut topics = Vec::with_capacity(items.len());
        for id in ids {
            if let Some(item) = items
                .iter()
                .find(|i| i.opt_string("id").as_deref() == Some(id.as_str()))
            {
                let topic = StoredTopic::from_item(self, item)?;
                if topic.public {
                    topics.push(topic);
                }
            }
        }
        Ok(topics)
    }

    /// Adds each delta to its topic's follower count (at least 0), creating unknown topics
    /// (public, in `other` unless the slug is a known one). Chunks of [`DELTA_CHUNK`]
    /// topics, one transaction each, each a compare-and-set on the counts read just before.
    /// With `key`, each chunk also writes its marker, so a repeated delivery changes nothing.
    pub async fn apply_follower_deltas(
        &self,
        deltas: &[(TopicName, i64)],
        key: Option<&IdempotencyKey>,
    ) -> Result<(), ApplyError> {
        for (index, chunk) in deltas.chunks(DELTA_CHUNK).enumerate() {
            self.apply_delta_chunk(index, chunk, key).await?;
        }
        Ok(())
    }

    async fn apply_delta_chunk(
        &self,
        index: usize,
        chunk: &[(TopicName, i64)],
        key: Option<&IdempotencyKey>,
    ) -> Result<(), ApplyError> {
        for attempt in 1..=DELTA_ATTEMPTS {
            let names: Vec<TopicName> = chunk.iter().map(|(t, _)| t.clone()).collect();
            let resolved = self.resolve_topics(&names).await?;
            let now = self.clock.timestamp();
            let mut tx = Transaction::new(&self.table);
            if let Some(key) = key {
                let mut marker = keys::delta(key.as_str(), index);
                marker.insert(
                    "expiresAt".to_string(),
                    n(self.clock.now().timestamp() + DELTA_MEMORY_SECONDS),
                );
                tx.put(marker, Some("attribute_not_exists(pk)"))?;
            }
            for (topic, (_, delta)) in resolved.iter().zip(chunk) {
                match &topic.existing {
                    Some(stored) => {
                        let new = (stored.follower_count + delta).max(0);
                        let update = tx
                            .update_builder(keys::topic(&topic.id))
                            .update_expression("SET followerCount = :new")
                            .condition_expression(
                                "attribute_exists(pk) AND (followerCount = :cur OR attribute_not_exists(followerCount))",
                            )
                            .expression_attribute_values(":new", n(new))
                            .expression_attribute_values(":cur", n(stored.follower_count));
                        tx.update(update)?;
                    }
                    None => {
                        tx.put(
                            slug_item(&topic.slug, &topic.id),
                            Some("attribute_not_exists(pk)"),
                        )?;
                        tx.put(
                            new_topic_item(
                                &topic.id,
                                &topic.name,
                                &topic.slug,
                                &now,
                                0,
                                &Ring::default(),
                                (*delta).max(0),
                                true,
                            ),
                            Some("attribute_not_exists(pk)"),
                        )?;
                    }
                }
            }
            match tx.commit().await {
                Ok(()) => return Ok(()),
                // The marker exists: this chunk was applied by an earlier delivery.
                Err(e) if key.is_some() && e.failed_at(0) => return Ok(()),
                Err(TransactionError::Condition { .. } | TransactionError::Conflict) => {
                    tracing::debug!(attempt, "follower deltas raced a concurrent write; again");
                    tokio::time::sleep(platform::dynamo::RetryPolicy::CONFLICTS.backoff(attempt))
                        .await;
                }
                Err(TransactionError::Dynamo(e)) => return Err(e.into()),
            }
        }
        Err(ApplyError::Busy)
    }
}

impl Store {
    /// One run of the migration of catalog topics to the slug rule of `platform::topic`
    /// (topics stored before it have the ASCII-only slug: "C++" was `c`): moves at most
    /// `max` topics whose slug is not their name's, each in one transaction (new slug guard,
    /// topic's slug and catalog key, old guard deleted), conditional on the state read, so a
    /// repeated or concurrent run moves nothing twice. A run that finds nothing to move marks
    /// the migration finished.
    pub async fn migrate_topic_slugs(&self, max: usize) -> Result<SlugMigration, DynamoError> {
        let mut run = SlugMigration::default();
        if self
            .table
            .get(keys::topic_slug_migration())
            .await?
            .is_some()
        {
            run.finished = true;
            return Ok(run);
        }
        let stale: Vec<(StoredTopic, String)> = self
            .all_topics()
            .await?
            .into_iter()
            .filter_map(|topic| {
                let slug = crate::input::slug(&topic.name);
                (!slug.is_empty() && slug != topic.slug).then_some((topic, slug))
            })
            .collect();
        let mut raced = false;
        for (topic, slug) in &stale {
            if run.moved == max {
                break;
            }
            match self.move_topic_slug(topic, slug).await? {
                Some(true) => run.moved += 1,
                Some(false) => run.taken += 1,
                None => raced = true,
            }
        }
        // Only taken slugs left: they stay taken, so the migration is over.
        if run.moved == 0 && !raced {
            let mut marker = keys::topic_slug_migration();
            marker.insert("finishedAt".to_string(), s(self.clock.timestamp()));
            let mut tx = Transaction::new(&self.table);
            tx.put(marker, None)?;
            match tx.commit().await {
                Ok(()) => run.finished = true,
                Err(TransactionError::Dynamo(e)) => return Err(e),
                Err(e) => {
                    tracing::debug!(error = %e, "migration mark raced; the next run marks it")
                }
            }
        }
        Ok(run)
    }

    /// Moves `topic` to `slug`: `Some(false)` when another topic holds `slug` or the topic
    /// moved meanwhile (a concurrent run did it), `None` when a concurrent write won (the
    /// next run tries again).
    async fn move_topic_slug(
        &self,
        topic: &StoredTopic,
        slug: &str,
    ) -> Result<Option<bool>, DynamoError> {
        let mut tx = Transaction::new(&self.table);
        tx.put_if(
            slug_item(slug, &topic.id),
            "attribute_not_exists(pk) OR topicId = :id",
            [(":id".to_string(), s(&topic.id))].into(),
        )?;
        let mut update = tx
            .update_builder(keys::topic(&topic.id))
            .condition_expression("slug = :old")
            .expression_attribute_values(":old", s(&topic.slug))
            .expression_attribute_values(":new", s(slug));
        update = if topic.public {
            let (_, gsi1sk) = catalog_keys(&topic.category_id, topic.sort_order, slug);
            update
                .update_expression("SET slug = :new, gsi1sk = :sk")
                .expression_attribute_values(":sk", s(gsi1sk))
        } else {
            update.update_expression("SET slug = :new")
        };
        tx.update(update)?;
        tx.delete_if(
            keys::topic_slug(&topic.slug),
            "attribute_not_exists(pk) OR topicId = :id",
            [(":id".to_string(), s(&topic.id))].into(),
        )?;
        match tx.commit().await {
            Ok(()) => {
                tracing::info!(topic = %topic.id, from = %topic.slug, to = slug, "topic slug migrated");
                Ok(Some(true))
            }
            Err(TransactionError::Dynamo(e)) => Err(e),
            Err(TransactionError::Conflict) => Ok(None),
            Err(e) => {
                tracing::warn!(topic = %topic.id, slug, error = %e, "topic slug not migrated: taken or moved");
                Ok(Some(false))
            }
        }
    }
}

/// Why deltas were not applied.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    #[error("concurrent writes kept winning")]
    Busy,
    #[error(transparent)]
    Store(#[from] DynamoError),
}

/// The ring update of a topic a post is first published into on `day`: add to the day's
/// slot when it holds `day`, else restart the slot; the condition proves the branch read is
/// still true (else the write is retried on a fresh read). The first string is the actions
/// of a `SET` clause.
pub(crate) fn ring_update(
    ring: &Ring,
    day: i64,
) -> (String, String, Vec<(String, AttributeValue)>) {
    let i = crate::model::stats::slot_of(day);
    debug_assert!(i < RING_DAYS);
    if ring.holds(day) {
        (
            format!("ringCounts[{i}] = ringCounts[{i}] + :one"),
            format!("ringDays[{i}] = :day"),
            vec![(":one".into(), n(1)), (":day".into(), n(day))],
        )
    } else {
        (
            format!("ringDays[{i}] = :day, ringCounts[{i}] = :one"),
            format!("ringDays[{i}] <> :day"),
            vec![(":one".into(), n(1)), (":day".into(), n(day))],
        )
    }
}
