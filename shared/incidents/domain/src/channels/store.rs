//! The channels' items: created and deleted with the channel count (the cap), and read with
//! their secrets for the sender.

use platform::dynamo::{
    key, n, s, AttributeValue, Attributes, DynamoError, Item, Transaction, TransactionError,
};

use super::{
    Channel, ChannelInput, ChannelWithSecret, Channels, ChannelsError, Target, CHANNELS_PK,
    COUNT_SK, MAX_CHANNELS,
};
use crate::model::Severity;

impl Channels {
    /// Stores a new channel, counted against [`MAX_CHANNELS`] in the same transaction (the
    /// cap holds under concurrent creations).
    /// An e-mail channel's `subscription_arn` is its SNS subscription, made before.
    pub async fn create(
        &self,
        id: &str,
        input: &ChannelInput,
        subscription_arn: Option<&str>,
        now: &str,
    ) -> Result<Channel, ChannelsError> {
        let (kind, url, address) = match &input.target {
            Target::Webhook { url, .. } => ("webhook", Some(url.clone()), None),
            Target::Email { address } => ("email", None, Some(address.clone())),
            Target::Slack { url } => ("slack", Some(masked(url)), None),
            Target::Teams { url } => ("teams", Some(masked(url)), None),
            Target::Ntfy { .. } => ("ntfy", None, None),
        };
        let (server, topic, has_token) = match &input.target {
            Target::Ntfy {
                server,
                topic,
                token,
            } => (
                Some(server.clone()),
                Some(topic.clone()),
                Some(token.is_some()),
            ),
            _ => (None, None, None),
        };
        let channel = Channel {
            id: id.to_string(),
            name: input.name.clone(),
            kind: kind.to_string(),
            url,
            server,
            topic,
            has_token,
            address,
            pending_confirmation: subscription_arn.map(|_| true),
            services: input.services.clone(),
            severities: input.severities.clone(),
            escalation_only: input.escalation_only,
            escalate_after_minutes: input.escalate_after_minutes,
            escalate_to: input.escalate_to.clone(),
            created_at: now.to_string(),
        };
        let mut item = key(CHANNELS_PK, id);
        item.insert("id".into(), s(id));
        item.insert("name".into(), s(channel.name.as_str()));
        item.insert("kind".into(), s(kind));
        match &input.target {
            Target::Webhook { url, secret } => {
                item.insert("url".into(), s(url.as_str()));
                item.insert("secret".into(), s(secret.as_str()));
            }
            Target::Email { address } => {
                item.insert("address".into(), s(address.as_str()));
            }
            Target::Slack { url } | Target::Teams { url } => {
                item.insert("url".into(), s(url.as_str()));
            }
            Target::Ntfy {
                server,
                topic,
                token,
            } => {
                item.insert("server".into(), s(server.as_str()));
                item.insert("topic".into(), s(topic.as_str()));
                if let Some(token) = token {
                    item.insert("secret".into(), s(token.as_str()));
                }
            }
        }
        if let Some(arn) = subscription_arn {
            item.insert("subscriptionArn".into(), s(arn));
        }
        item.insert(
            "services".into(),
            AttributeValue::L(channel.services.iter().map(|x| s(x.as_str())).collect()),
        );
        item.insert(
            "severities".into(),
            AttributeValue::L(channel.severities.iter().map(|x| s(x.as_str())).collect()),
        );
        item.insert(
            "escalationOnly".into(),
            AttributeValue::Bool(channel.escalation_only),
        );
        if let Some(after) = channel.escalate_after_minutes {
            item.insert("escalateAfterMinutes".into(), n(after));
        }
        if let Some(to) = &channel.escalate_to {
            item.insert("escalateTo".into(), s(to.as_str()));
        }
        item.insert("createdAt".into(), s(now));
        let mut tx = Transaction::new(&self.table);
        let count = tx
            .update_builder(key(CHANNELS_PK, COUNT_SK))
            .update_expression("ADD channels :one")
            .condition_expression("attribute_not_exists(channels) OR channels < :max")
            .expression_attribute_values(":one", n(1))
            .expression_attribute_values(":max", n(MAX_CHANNELS));
        tx.update(count)?;
        tx.put(item, Some("attribute_not_exists(pk)"))?;
        match tx.commit_retrying().await {
            Ok(()) => Ok(channel),
            Err(e) if e.failed_at(0) => Err(ChannelsError::Full),
            Err(TransactionError::Dynamo(e)) => Err(e.into()),
            Err(_) => Err(ChannelsError::Dynamo(DynamoError::Conflict {
                table: self.table.name().to_string(),
                attempts: platform::dynamo::RetryPolicy::CONFLICTS.attempts,
            })),
        }
    }

    /// Every channel with its secret, by id (at most [`MAX_CHANNELS`]).
    pub async fn all(&self) -> Result<Vec<ChannelWithSecret>, DynamoError> {
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(CHANNELS_PK));
        let rows = self
            .table
            .query_all(query, Some(usize::try_from(MAX_CHANNELS).unwrap_or(20) + 1))
            .await?;
        rows.iter()
            .filter(|r| r.opt_string("sk").as_deref() != Some(COUNT_SK))
            .map(|r| self.channel_of(r))
            .collect()
    }

    pub async fn get(&self, id: &str) -> Result<Option<ChannelWithSecret>, DynamoError> {
        match self.table.get(key(CHANNELS_PK, id)).await? {
            Some(item) => Ok(Some(self.channel_of(&item)?)),
            None => Ok(None),
        }
    }

    fn channel_of(&self, item: &Item) -> Result<ChannelWithSecret, DynamoError> {
        let t = self.table.name();
        let list = |name: &str| -> Vec<String> {
            match item.get(name) {
                Some(AttributeValue::L(values)) => values
                    .iter()
                    .filter_map(|v| v.as_s().ok().cloned())
                    .collect(),
                _ => Vec::new(),
            }
        };
        let kind = item.string(t, "kind")?;
        let url = item.opt_string("url");
        let secret = item.opt_string("secret").unwrap_or_default();
        let server = item.opt_string("server");
        let chat = kind == "slack" || kind == "teams";
        Ok(ChannelWithSecret {
            target_url: if kind == "ntfy" {
                server.clone()
            } else {
                url.clone()
            },
            channel: Channel {
                id: item.string(t, "id")?,
                name: item.string(t, "name")?,
                has_token: (kind == "ntfy").then_some(!secret.is_empty()),
                topic: item.opt_string("topic"),
                server,
                url: if chat {
                    url.as_deref().map(masked)
                } else {
                    url
                },
                kind,
                address: item.opt_string("address"),
                pending_confirmation: None,
                services: list("services"),
                severities: list("severities")
                    .iter()
                    .filter_map(|x| Severity::parse(x))
                    .collect(),
                escalation_only: matches!(
                    item.get("escalationOnly"),
                    Some(AttributeValue::Bool(true))
                ),
                escalate_after_minutes: item
                    .get("escalateAfterMinutes")
                    .and_then(|v| v.as_n().ok())
                    .and_then(|v| v.parse().ok()),
                escalate_to: item.opt_string("escalateTo"),
                created_at: item.string(t, "createdAt")?,
            },
            secret,
            subscription_arn: item.opt_string("subscriptionArn"),
        })
    }

    /// Deletes channel `id` and gives its place back to the cap.
    pub async fn delete(&self, id: &str) -> Result<(), ChannelsError> {
        let mut tx = Transaction::new(&self.table);
        tx.delete(key(CHANNELS_PK, id), Some("attribute_exists(pk)"))?;
        let count = tx
            .update_builder(key(CHANNELS_PK, COUNT_SK))
            .update_expression("ADD channels :minus")
            .expression_attribute_values(":minus", n(-1));
        tx.update(count)?;
        match tx.commit_retrying().await {
            Ok(()) => Ok(()),
            Err(e) if e.failed_at(0) => Err(ChannelsError::NotFound),
            Err(TransactionError::Dynamo(e)) => Err(e.into()),
            Err(_) => Err(ChannelsError::Dynamo(DynamoError::Conflict {
                table: self.table.name().to_string(),
                attempts: platform::dynamo::RetryPolicy::CONFLICTS.attempts,
            })),
        }
    }
}

/// A chat URL as shown: without its query and with its last path segment masked, where
/// Slack and Teams carry their secrets (`https://hooks.slack.com/services/T1/B2/****`).
pub fn masked(raw: &str) -> String {
    let Ok(mut url) = url::Url::parse(raw) else {
        return "****".into();
    };
    url.set_query(None);
    url.set_fragment(None);
    let path = url.path().trim_end_matches('/').to_string();
    let kept = path.rsplit_once('/').map_or("", |(head, _)| head);
    url.set_path(&format!("{kept}/****"));
    url.to_string()
}
