//! What the API answers, field for field as FreshRSS and Miniflux write it (the clients
//! were built against them): `user-info`, `subscription/list`, `tag/list`, `unread-count`,
//! the streams, `stream/items/ids`, `subscription/quickadd`.

use news::model::Article;
use serde::Serialize;
use utoipa::ToSchema;

use super::ids::{feed_stream, label, state, ItemId};

/// `user-info`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
#[schema(as = GreaderUserInfo)]
#[serde(rename_all = "camelCase")]
pub struct UserInfo {
    pub user_id: String,
    pub user_name: String,
    pub user_profile_id: String,
    /// The username, as Miniflux answers (clients show it as the account's name).
    pub user_email: String,
}

impl UserInfo {
    pub fn new(user_id: &str, username: &str) -> Self {
        Self {
            user_id: user_id.to_string(),
            user_name: username.to_string(),
            user_profile_id: user_id.to_string(),
            user_email: username.to_string(),
        }
    }
}

/// A label a subscription carries.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
#[schema(as = GreaderCategory)]
pub struct Category {
    /// `user/-/label/{name}`.
    pub id: String,
    pub label: String,
}

impl Category {
    pub fn new(name: &str) -> Self {
        Self {
            id: label(name),
            label: name.to_string(),
        }
    }
}

/// One subscription of `subscription/list`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
#[schema(as = GreaderSubscription)]
#[serde(rename_all = "camelCase")]
pub struct Subscription {
    /// `feed/{sourceId}`.
    pub id: String,
    pub title: String,
    pub categories: Vec<Category>,
    /// The feed's URL.
    pub url: String,
    /// The site's address ("" when the feed names none).
    pub html_url: String,
    /// Always "": the reader keeps no icons (Miniflux answers "" for a feed without one).
    pub icon_url: String,
}

/// `subscription/list`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = GreaderSubscriptionList)]
pub struct SubscriptionList {
    pub subscriptions: Vec<Subscription>,
}

/// One tag of `tag/list`: the starred state, or a label (a folder).
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
#[schema(as = GreaderTag)]
pub struct Tag {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// `folder` for a label (Inoreader's and Miniflux's word).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unread_count: Option<u64>,
}

/// `tag/list`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = GreaderTagList)]
pub struct TagList {
    pub tags: Vec<Tag>,
}

impl TagList {
    /// The starred state first, then every label with its unread count.
    pub fn new(labels: impl IntoIterator<Item = (String, u64)>) -> Self {
        let mut tags = vec![Tag {
            id: state("starred"),
            label: None,
            kind: None,
            unread_count: None,
        }];
        tags.extend(labels.into_iter().map(|(name, unread)| Tag {
            id: label(&name),
            label: Some(name),
            kind: Some("folder".to_string()),
            unread_count: Some(unread),
        }));
        Self { tags }
    }
}

/// One stream's count of `unread-count`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
#[schema(as = GreaderUnreadCount)]
#[serde(rename_all = "camelCase")]
pub struct UnreadCount {
    pub id: String,
    pub count: u64,
    /// The newest article's time in microseconds, as a string.
    pub newest_item_timestamp_usec: String,
}

impl UnreadCount {
    pub fn new(id: String, count: u64, newest_micros: Option<i64>) -> Self {
        Self {
            id,
            count,
            newest_item_timestamp_usec: newest_micros.unwrap_or(0).to_string(),
        }
    }
}

/// `unread-count`: every feed's, every label's and the reading list's.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = GreaderUnreadCounts)]
pub struct UnreadCounts {
    /// The reading list's count.
    pub max: u64,
    pub unreadcounts: Vec<UnreadCount>,
}

/// `{href}`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
#[schema(as = GreaderLink)]
pub struct Link {
    pub href: String,
}

/// `{href, type}`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
#[schema(as = GreaderTypedLink)]
pub struct TypedLink {
    pub href: String,
    #[serde(rename = "type")]
    pub kind: String,
}

/// An item's text.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
#[schema(as = GreaderContent)]
pub struct Content {
    pub direction: String,
    /// HTML.
    pub content: String,
}

/// Where an item comes from.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
#[schema(as = GreaderOrigin)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    /// `feed/{sourceId}`.
    pub stream_id: String,
    pub title: String,
    pub html_url: String,
}

/// An article as a stream answers it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
#[schema(as = GreaderItem)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// The long form: `tag:google.com,2005:reader/item/{16 hex}`.
    pub id: String,
    /// `user/-/state/com.google/reading-list`, the source's labels, `…/read` when read and
    /// `…/starred` when starred.
    pub categories: Vec<String>,
    pub title: String,
    /// The publication time in milliseconds, as a string.
    pub crawl_time_msec: String,
    /// The publication time in microseconds, as a string (Reeder orders by it).
    pub timestamp_usec: String,
    /// The publication time in seconds.
    pub published: i64,
    pub updated: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    pub alternate: Vec<TypedLink>,
    pub canonical: Vec<Link>,
    pub summary: Content,
    pub content: Content,
    pub origin: Origin,
    pub enclosure: Vec<TypedLink>,
}

/// What the reader knows of an article for one person.
#[derive(Debug, Clone, Copy)]
pub struct ItemState<'a> {
    pub read: bool,
    pub starred: bool,
    /// The labels of the article's subscription.
    pub labels: &'a [String],
    /// The source's site, when known.
    pub site_url: Option<&'a str>,
}

impl Item {
    /// The item of `article`; `None` when its id is not an article id.
    pub fn new(article: &Article, state_of: ItemState<'_>) -> Option<Self> {
        let id = ItemId::of_article(&article.id)?;
        let micros = micros_of(&article.published_at).unwrap_or(0);
        let seconds = micros.div_euclid(1_000_000);
        let mut categories = vec![state("reading-list")];
        categories.extend(state_of.labels.iter().map(|name| label(name)));
        if state_of.read {
            categories.push(state("read"));
        }
        if state_of.starred {
            categories.push(state("starred"));
        }
        let html = article_html(article);
        let link = article.link.clone().unwrap_or_default();
        Some(Self {
            id: id.long_form(),
            categories,
            title: article.title.clone(),
            crawl_time_msec: micros.div_euclid(1000).to_string(),
            timestamp_usec: micros.to_string(),
            published: seconds,
            updated: seconds,
            author: article.author.clone().filter(|a| !a.is_empty()),
            alternate: vec![TypedLink {
                href: link.clone(),
                kind: "text/html".to_string(),
            }],
            canonical: vec![Link { href: link }],
            summary: Content {
                direction: "ltr".to_string(),
                content: html.clone(),
            },
            content: Content {
                direction: "ltr".to_string(),
                content: html,
            },
            origin: Origin {
                stream_id: feed_stream(&article.source_id),
                title: article.source_title.clone(),
                html_url: state_of.site_url.unwrap_or_default().to_string(),
            },
            enclosure: article
                .image_url
                .iter()
                .map(|href| TypedLink {
                    href: href.clone(),
                    kind: "image".to_string(),
                })
                .collect(),
        })
    }
}

/// `stream/contents/{stream}` and `stream/items/contents`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = GreaderStream)]
pub struct Stream {
    pub direction: String,
    /// The stream asked for (the reading list for `stream/items/contents`).
    pub id: String,
    pub title: String,
    pub updated: i64,
    pub items: Vec<Item>,
    /// Sent back as `c` for the next page; absent on the last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub continuation: Option<String>,
}

impl Stream {
    pub fn new(
        id: String,
        title: &str,
        now_seconds: i64,
        items: Vec<Item>,
        continuation: Option<String>,
    ) -> Self {
        Self {
            direction: "ltr".to_string(),
            id,
            title: title.to_string(),
            updated: now_seconds,
            items,
            continuation,
        }
    }
}

/// One id of `stream/items/ids`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
#[schema(as = GreaderItemRef)]
#[serde(rename_all = "camelCase")]
pub struct ItemRef {
    /// The short form: a decimal number, as a string.
    pub id: String,
    /// `feed/{sourceId}` of the item.
    pub direct_stream_ids: Vec<String>,
    /// The publication time in microseconds, as a string.
    pub timestamp_usec: String,
}

impl ItemRef {
    pub fn new(id: ItemId, source_id: &str, published_micros: i64) -> Self {
        Self {
            id: id.short_form(),
            direct_stream_ids: vec![feed_stream(source_id)],
            timestamp_usec: published_micros.to_string(),
        }
    }
}

/// `stream/items/ids`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = GreaderItemIds)]
#[serde(rename_all = "camelCase")]
pub struct ItemIds {
    pub item_refs: Vec<ItemRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub continuation: Option<String>,
}

/// `subscription/quickadd`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
#[schema(as = GreaderQuickAdd)]
#[serde(rename_all = "camelCase")]
pub struct QuickAdd {
    /// 1 when subscribed, 0 when the address gave no feed.
    pub num_results: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// `feed/{sourceId}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_name: Option<String>,
    /// Why nothing was added.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl QuickAdd {
    pub fn added(url: &str, source_id: &str, title: &str) -> Self {
        Self {
            num_results: 1,
            query: Some(url.to_string()),
            stream_id: Some(feed_stream(source_id)),
            stream_name: Some(title.to_string()),
            error: None,
        }
    }

    pub fn none(error: String) -> Self {
        Self {
            num_results: 0,
            query: None,
            stream_id: None,
            stream_name: None,
            error: Some(error),
        }
    }
}

/// Microseconds since 1970 of an RFC 3339 time.
pub fn micros_of(rfc3339: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(rfc3339)
        .ok()
        .map(|t| t.timestamp_micros())
}

/// The article's body as HTML: its paragraphs (or its summary) escaped, a `<p>` each.
fn article_html(article: &Article) -> String {
    let paragraphs: Vec<&str> = match &article.paragraphs {
        Some(p) if !p.is_empty() => p.iter().map(String::as_str).collect(),
        _ => article.summary.iter().map(String::as_str).collect(),
    };
    let mut html = String::new();
    if let Some(image) = &article.image_url {
        html.push_str(&format!("<p><img src=\"{}\" alt=\"\"></p>", escape(image)));
    }
    for p in paragraphs.into_iter().filter(|p| !p.trim().is_empty()) {
        html.push_str("<p>");
        html.push_str(&escape(p));
        html.push_str("</p>");
    }
    html
}

/// `text` safe inside HTML text and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn article() -> Article {
        Article {
            id: "00000000148b9369ffffffffffffffff".into(),
            source_id: "0123456789abcdef0123456789abcdef".into(),
            source_title: "NetNewsWire".into(),
            title: "Found an old screenshot".into(),
            link: Some("https://nnw.ranchero.com/2019/04/09/found-an-old.html".into()),
            author: Some("Brent".into()),
            published_at: "2019-04-09T21:28:00Z".into(),
            summary: Some("NetNewsWire 1.0 for iPhone <3".into()),
            paragraphs: None,
            topics: vec![],
            image_url: None,
        }
    }

    #[test]
    fn an_item_is_what_netnewswire_decodes() {
        let labels = vec!["Apple".to_string()];
        let item = Item::new(
            &article(),
            ItemState {
                read: true,
                starred: true,
                labels: &labels,
                site_url: Some("https://nnw.ranchero.com/"),
            },
        );
        let value = serde_json::to_value(item).unwrap_or_default();
        assert_eq!(
            value,
            json!({
                "id": "tag:google.com,2005:reader/item/00000000148b9369",
                "categories": [
                    "user/-/state/com.google/reading-list",
                    "user/-/label/Apple",
                    "user/-/state/com.google/read",
                    "user/-/state/com.google/starred"
                ],
                "title": "Found an old screenshot",
                "crawlTimeMsec": "1554845280000",
                "timestampUsec": "1554845280000000",
                "published": 1554845280,
                "updated": 1554845280,
                "author": "Brent",
                "alternate": [{"href": "https://nnw.ranchero.com/2019/04/09/found-an-old.html", "type": "text/html"}],
                "canonical": [{"href": "https://nnw.ranchero.com/2019/04/09/found-an-old.html"}],
                "summary": {"direction": "ltr", "content": "<p>NetNewsWire 1.0 for iPhone &lt;3</p>"},
                "content": {"direction": "ltr", "content": "<p>NetNewsWire 1.0 for iPhone &lt;3</p>"},
                "origin": {
                    "streamId": "feed/0123456789abcdef0123456789abcdef",
                    "title": "NetNewsWire",
                    "htmlUrl": "https://nnw.ranchero.com/"
                },
                "enclosure": []
            })
        );
    }

    #[test]
    fn an_unread_item_carries_only_the_reading_list_and_its_labels() {
        let mut a = article();
        a.paragraphs = Some(vec!["One & two".into(), " ".into(), "Three".into()]);
        a.image_url = Some("https://example.org/i.png?a=1&b=2".into());
        let item = Item::new(
            &a,
            ItemState {
                read: false,
                starred: false,
                labels: &[],
                site_url: None,
            },
        );
        let item = item.map(|i| (i.categories, i.content.content, i.enclosure.len()));
        assert_eq!(
            item,
            Some((
                vec!["user/-/state/com.google/reading-list".to_string()],
                "<p><img src=\"https://example.org/i.png?a=1&amp;b=2\" alt=\"\"></p><p>One &amp; two</p><p>Three</p>".to_string(),
                1
            ))
        );
    }

    #[test]
    fn lists_and_counts_have_the_servers_shapes() {
        let list = TagList::new([("Tech".to_string(), 3)]);
        assert_eq!(
            serde_json::to_value(list).unwrap_or_default(),
            json!({"tags": [
                {"id": "user/-/state/com.google/starred"},
                {"id": "user/-/label/Tech", "label": "Tech", "type": "folder", "unread_count": 3}
            ]})
        );
        let counts = UnreadCounts {
            max: 2,
            unreadcounts: vec![UnreadCount::new(
                state("reading-list"),
                2,
                Some(1_405_452_360_000_000),
            )],
        };
        assert_eq!(
            serde_json::to_value(counts).unwrap_or_default(),
            json!({"max": 2, "unreadcounts": [
                {"id": "user/-/state/com.google/reading-list", "count": 2, "newestItemTimestampUsec": "1405452360000000"}
            ]})
        );
        let ids = ItemIds {
            item_refs: vec![ItemRef::new(ItemId::new(0x148b9369), "ab", 5)],
            continuation: Some("next".into()),
        };
        assert_eq!(
            serde_json::to_value(ids).unwrap_or_default(),
            json!({"itemRefs": [{"id": "344691561", "directStreamIds": ["feed/ab"], "timestampUsec": "5"}], "continuation": "next"})
        );
        assert_eq!(
            serde_json::to_value(UserInfo::new("u1", "alice")).unwrap_or_default(),
            json!({"userId": "u1", "userName": "alice", "userProfileId": "u1", "userEmail": "alice"})
        );
        assert_eq!(
            serde_json::to_value(QuickAdd::none("not a feed".into())).unwrap_or_default(),
            json!({"numResults": 0, "error": "not a feed"})
        );
    }
}
