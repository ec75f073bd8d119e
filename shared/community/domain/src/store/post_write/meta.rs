//! A post write's META item: created whole, or updated over the version read.

use std::collections::HashMap;

use super::{checked_size, Plan, PostTx, Role, WriteError};
use crate::keys;
use crate::model::summary::SummaryStatus;
use crate::model::TopicRef;
use crate::store::posts::{author_item, StoredPost, REACTION_ROWS, REACTION_ROWS_OWN};
use platform::dynamo::{n, s, AttributeValue};

fn topics_item(topics: &[TopicRef]) -> AttributeValue {
    AttributeValue::L(
        topics
            .iter()
            .map(|t| {
                AttributeValue::M(HashMap::from([
                    ("id".to_string(), s(&t.id)),
                    ("name".to_string(), s(&t.name)),
                ]))
            })
            .collect(),
    )
}

fn optional(value: Option<&str>) -> AttributeValue {
    value.map_or(AttributeValue::Null(true), s)
}

impl PostTx {
    /// 0: META.
    pub(super) fn meta(&mut self, p: &Plan) -> Result<(), WriteError> {
        match p.before {
            None => self.create_meta(p)?,
            Some(b) => self.replace_meta(p, b)?,
        }
        self.roles.push(Role::Meta);
        Ok(())
    }

    /// A new post's META, refused if the post already exists.
    fn create_meta(&mut self, p: &Plan) -> Result<(), WriteError> {
        let (id, author, state) = (p.id, p.author, p.state);
        let now = &p.now;
        let mut meta = keys::post(id);
        meta.extend([
            ("id".to_string(), s(id)),
            ("authorId".to_string(), s(&author.id)),
            ("author".to_string(), author_item(author)),
            ("status".to_string(), s(state.status.as_str())),
            ("title".to_string(), s(&state.title)),
            ("excerpt".to_string(), s(&state.excerpt)),
            (
                "excerptGenerated".to_string(),
                AttributeValue::Bool(state.excerpt_generated),
            ),
            (
                "coverImageUrl".to_string(),
                optional(state.cover_image_url.as_deref()),
            ),
            ("topics".to_string(), topics_item(&p.topic_refs)),
            ("readTimeMinutes".to_string(), n(state.read_time_minutes)),
            ("wordCount".to_string(), n(state.word_count)),
            ("likeCount".to_string(), n(0)),
            ("dislikeCount".to_string(), n(0)),
            ("commentCount".to_string(), n(0)),
            ("viewCount".to_string(), n(0)),
            ("saveCount".to_string(), n(0)),
            ("createdAt".to_string(), s(now)),
            ("updatedAt".to_string(), s(now)),
            ("version".to_string(), n(1)),
            (REACTION_ROWS.to_string(), s(REACTION_ROWS_OWN)),
            ("gsi1pk".to_string(), s(&p.gsi1pk)),
            ("gsi1sk".to_string(), s(&p.gsi1sk)),
            ("gsi2pk".to_string(), s(keys::owner(&author.id))),
            ("gsi2sk".to_string(), s(format!("POST#{id}"))),
        ]);
        if let Some(at) = &p.first_published_at {
            meta.insert("firstPublishedAt".to_string(), s(at));
        }
        if p.summary_wanted {
            meta.extend([
                (
                    "summaryStatus".to_string(),
                    s(SummaryStatus::Pending.as_str()),
                ),
                ("summaryVersion".to_string(), n(p.summary_version)),
                ("summaryHash".to_string(), s(&p.hash)),
            ]);
        }
        self.bytes += checked_size(&meta)?;
        self.tx.put(meta, Some("attribute_not_exists(pk)"))?;
        Ok(())
    }

    /// An existing post's META, refused unless it is still at the version read (`b`), its
    /// author's and live.
    fn replace_meta(&mut self, p: &Plan, b: &StoredPost) -> Result<(), WriteError> {
        let (state, before_summary) = (p.state, &p.before_summary);
        let mut set = String::from(
            "SET title = :title, excerpt = :excerpt, excerptGenerated = :eg, coverImageUrl = :cover, topics = :topics, readTimeMinutes = :rt, wordCount = :wc, #status = :status, updatedAt = :now, gsi1pk = :g1pk, gsi1sk = :g1sk, version = version + :one",
        );
        if p.first_publish {
            set.push_str(", firstPublishedAt = :fpa");
        }
        let mut condition = String::from(
            "version = :read AND authorId = :caller AND attribute_not_exists(deletedAt)",
        );
        if p.summary_wanted {
            // A re-trigger in between moved the summary version: read again.
            set.push_str(
                ", summaryStatus = :sst, summaryVersion = :sv, summaryHash = :sh REMOVE summaryFailedSk",
            );
            condition.push_str(if before_summary.version == 0 {
                " AND attribute_not_exists(summaryVersion)"
            } else {
                " AND summaryVersion = :svread"
            });
        }
        let mut update = self
            .tx
            .update_builder(keys::post(p.id))
            .update_expression(set)
            .condition_expression(condition)
            .expression_attribute_names("#status", "status")
            .expression_attribute_values(":title", s(&state.title))
            .expression_attribute_values(":excerpt", s(&state.excerpt))
            .expression_attribute_values(":eg", AttributeValue::Bool(state.excerpt_generated))
            .expression_attribute_values(":cover", optional(state.cover_image_url.as_deref()))
            .expression_attribute_values(":topics", topics_item(&p.topic_refs))
            .expression_attribute_values(":rt", n(state.read_time_minutes))
            .expression_attribute_values(":wc", n(state.word_count))
            .expression_attribute_values(":status", s(state.status.as_str()))
            .expression_attribute_values(":now", s(&p.now))
            .expression_attribute_values(":g1pk", s(&p.gsi1pk))
            .expression_attribute_values(":g1sk", s(&p.gsi1sk))
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":read", n(b.version))
            .expression_attribute_values(":caller", s(&p.author.id));
        if p.first_publish {
            update = update.expression_attribute_values(":fpa", s(p.now.clone()));
        }
        if p.summary_wanted {
            update = update
                .expression_attribute_values(":sst", s(SummaryStatus::Pending.as_str()))
                .expression_attribute_values(":sv", n(p.summary_version))
                .expression_attribute_values(":sh", s(&p.hash));
            if before_summary.version != 0 {
                update = update.expression_attribute_values(":svread", n(before_summary.version));
            }
        }
        self.bytes += 2048;
        self.tx.update(update)?;
        Ok(())
    }
}
