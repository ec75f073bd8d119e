//! The feeds of published posts (`crate::feeds` writes the documents): the site's newest, a
//! topic's, an author's. Each read is the list's newest rows and one BatchGet of their META;
//! the `ETag` comes from those (each post's id and version, the feed's place and shape), so a
//! reader's `If-None-Match` is answered before any body is read.

use ring::digest;

use crate::error::CommunityError;
use crate::feeds::{self, FeedChannel, FeedEntry, FeedFormat, FORMAT_VERSION, MAX_ENTRIES};
use crate::model::Author;
use crate::store::posts::StoredPost;

use super::Community;

/// Whose posts a feed holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeedScope {
    /// Every published post.
    Site,
    /// A topic's, by slug (or name: it is slugged).
    Topic(String),
    /// An author's, by username (case-insensitive).
    Author(String),
}

/// A feed's answer: its document, or that the reader's copy is current.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeedAnswer {
    Document { etag: String, body: String },
    NotModified { etag: String },
}

impl Community {
    /// The `format` feed of `scope`, its links under `base` (the web client's origin, where the
    /// API is too); `NotModified` when `if_none_match` names its `ETag`. An unknown topic or
    /// author is [`CommunityError::FeedNotFound`].
    pub async fn feed(
        &self,
        scope: &FeedScope,
        format: FeedFormat,
        base: &str,
        if_none_match: Option<&str>,
    ) -> Result<FeedAnswer, CommunityError> {
        let base = base.trim_end_matches('/');
        let ext = format.extension();
        let (ids, channel) = match scope {
            FeedScope::Site => (
                self.store.newest_ids(None, None, MAX_ENTRIES).await?,
                FeedChannel {
                    title: "Community posts".into(),
                    description: "The newest published posts of the community".into(),
                    self_url: format!("{base}/api/v1/feeds/posts.{ext}"),
                    page_url: format!("{base}/community"),
                },
            ),
            FeedScope::Topic(name) => {
                let slug = crate::input::slug(name);
                let topic = if slug.is_empty() {
                    None
                } else {
                    self.store.topic_by_slug(&slug).await?
                };
                // A topic only drafts have named is not public yet: no feed names it.
                let topic = topic
                    .filter(|t| t.public)
                    .ok_or(CommunityError::FeedNotFound("Topic"))?;
                let segment = path_segment(&topic.slug);
                (
                    self.store
                        .newest_ids(Some(&topic.id), None, MAX_ENTRIES)
                        .await?,
                    FeedChannel {
                        title: format!("{}: community posts", topic.display_name),
                        description: format!(
                            "The newest published posts on {}",
                            topic.display_name
                        ),
                        self_url: format!("{base}/api/v1/feeds/topics/{segment}.{ext}"),
                        page_url: format!("{base}/community/topics/{segment}"),
                    },
                )
            }
            FeedScope::Author(username) => {
                let user = self
                    .store
                    .author_by_name(username)
                    .await?
                    .ok_or(CommunityError::FeedNotFound("Author"))?;
                let (ids, gone) = futures::try_join!(
                    self.store.newest_ids(None, Some(&user), MAX_ENTRIES),
                    self.store.account_deleted(&user)
                )?;
                if gone {
                    return Err(CommunityError::FeedNotFound("Author"));
                }
                (
                    ids,
                    FeedChannel {
                        title: format!("Posts by {username}"),
                        description: format!("The newest published posts by {username}"),
                        self_url: format!(
                            "{base}/api/v1/feeds/authors/{}.{ext}",
                            path_segment(&username.to_lowercase())
                        ),
                        page_url: format!("{base}/community/users/{}", path_segment(&user)),
                    },
                )
            }
        };
        let metas: Vec<StoredPost> = self
            .store
            .posts(&ids)
            .await?
            .into_iter()
            .filter(StoredPost::is_public)
            .collect();
        let mut channel = channel;
        if let (FeedScope::Author(_), Some(newest)) = (scope, metas.first()) {
            // The author's name as they show it now (their newest post's snapshot).
            channel.title = format!("Posts by {}", newest.author.display_name);
            channel.description = format!(
                "The newest published posts by {}",
                newest.author.display_name
            );
        }
        let etag = etag_of(format, &channel, &metas);
        if if_none_match.is_some_and(|header| feeds::etag_matches(header, &etag)) {
            return Ok(FeedAnswer::NotModified { etag });
        }
        let ids: Vec<String> = metas.iter().map(|p| p.id.clone()).collect();
        let entries: Vec<FeedEntry> = self
            .store
            .posts_with_bodies(&ids)
            .await?
            .into_iter()
            .filter(|(p, _)| p.is_public())
            .map(|(post, body)| FeedEntry {
                url: format!("{base}/community/posts/{}", path_segment(&post.id)),
                author_url: format!("{base}/community/users/{}", path_segment(&post.author_id)),
                author_name: author_name(&post.author),
                published: post
                    .first_published_at
                    .clone()
                    .unwrap_or_else(|| post.created_at.clone()),
                updated: post.updated_at.clone(),
                topics: post.topics.iter().map(|t| t.name.clone()).collect(),
                summary: post.excerpt.clone(),
                content_html: crate::markdown::to_html(&body.content),
                title: post.title,
                id: post.id,
            })
            .collect();
        Ok(FeedAnswer::Document {
            etag,
            body: feeds::render(format, &channel, &entries),
        })
    }

    /// Points the author's name at them, for their feed; only logged when it fails (their next
    /// publication writes it again).
    pub(crate) async fn name_author(&self, author: &Author) {
        if author.username.is_empty() {
            return;
        }
        if let Err(error) = self
            .store
            .put_author_name(&author.username, &author.id)
            .await
        {
            tracing::warn!(author = %author.id, %error, "author name not written");
        }
    }
}

fn author_name(author: &Author) -> String {
    if author.display_name.trim().is_empty() {
        author.username.clone()
    } else {
        author.display_name.clone()
    }
}

/// A strong `ETag` of what the document says: its shape, place and posts' versions.
fn etag_of(format: FeedFormat, channel: &FeedChannel, posts: &[StoredPost]) -> String {
    let mut context = digest::Context::new(&digest::SHA256);
    let mut add = |part: &str| {
        context.update(part.as_bytes());
        context.update(b"\n");
    };
    add(&FORMAT_VERSION.to_string());
    add(format.extension());
    add(&channel.self_url);
    add(&channel.title);
    for post in posts {
        add(&post.id);
        add(&post.version.to_string());
    }
    let hash = context.finish();
    let hex: String = hash
        .as_ref()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("\"{hex}\"")
}

/// `text` as one URL path segment: unreserved characters kept, every other byte escaped.
fn path_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
