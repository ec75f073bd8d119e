//! The digest service's ports over HTTP, through the public API (`INTERNAL_API_URL`, else the
//! API the request came through):
//!
//! - news articles: the content API's `GET /api/content/articles?topicId=&page=&size=100`
//!   (no token), newest first, paged until an article older than the day, at most
//!   [`MAX_PAGES`] pages a topic;
//! - users: identity's `GET /api/users/internal/users/{id}` (`followedTopics`) and
//!   `GET /api/users/internal/users?cursor=&limit=` (the directory), through its client;
//! - community topics: `GET /api/v1/topics/stats` (public), matched by slug, through its client.
//!
//! Every call has a timeout ([`CALL_TIMEOUT`]) and a size cap; any failure is a
//! [`PortError`] naming the service.

use std::time::Duration;

use chrono::{DateTime, Utc};
use community_client::CommunityClient;
use community_digests::input::{DigestDate, DigestTimezone, UserId};
use community_digests::{ArticleRef, CommunityTopics, NewsArticles, NewsTopic, PortError, Users};
use identity_client::{CallError, IdentityClient};
use news_client::{Article, Page};
use serde::de::DeserializeOwned;

/// One call to another route family.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// Pages of 100 articles read per topic (and for a PUBLIC digest): a day's articles sit
/// behind the newer days' ones, so a few pages reach back past a busy day.
pub const MAX_PAGES: u32 = 5;
pub const PAGE_SIZE: u32 = 100;
/// The largest answer read from another service.
const MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

/// The HTTP client and the settings, built once per cold start.
#[derive(Clone)]
pub struct Services {
    http: reqwest::Client,
    identity: IdentityClient,
    community: CommunityClient,
    timezone: DigestTimezone,
}

impl Services {
    pub fn new(
        internal_token: Option<String>,
        timezone: DigestTimezone,
    ) -> Result<Self, reqwest::Error> {
        let http = platform::tls::http_client()
            .timeout(CALL_TIMEOUT)
            .connect_timeout(CALL_TIMEOUT)
            .build()?;
        Ok(Self {
            identity: IdentityClient::with_http(http.clone(), internal_token.clone()),
            community: CommunityClient::with_http(http.clone(), internal_token),
            http,
            timezone,
        })
    }

    /// The services behind the API at `base` (`None`: none can be reached).
    pub fn at(&self, base: Option<String>) -> Api<'_> {
        Api {
            services: self,
            base,
        }
    }
}

/// The other services for one request or one job.
pub struct Api<'a> {
    services: &'a Services,
    base: Option<String>,
}

impl Api<'_> {
    fn base(&self, service: &'static str) -> Result<&str, PortError> {
        self.base.as_deref().ok_or_else(|| {
            PortError::new(
                service,
                "INTERNAL_API_URL is not set and the request did not come through API Gateway",
            )
        })
    }

    /// GETs `url` as JSON; `Ok(None)` on a 404.
    async fn get<T: DeserializeOwned>(
        &self,
        service: &'static str,
        url: String,
        query: &[(&str, String)],
    ) -> Result<Option<T>, PortError> {
        let url = url::Url::parse_with_params(&url, query)
            .map_err(|e| PortError::new(service, format!("bad URL: {e}")))?;
        let request = self
            .services
            .http
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json");
        let mut response = request.send().await.map_err(|e| {
            PortError::new(
                service,
                if e.is_timeout() {
                    format!("no answer within {} s", CALL_TIMEOUT.as_secs())
                } else {
                    "unreachable".to_string()
                },
            )
        })?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !status.is_success() {
            return Err(PortError::new(service, format!("answered HTTP {status}")));
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|_| PortError::new(service, "the answer was cut off"))?
        {
            if bytes.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(PortError::new(service, "the answer is too large"));
            }
            bytes.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| PortError::new(service, format!("unreadable answer: {e}")))
    }
}

const CONTENT: &str = "content service";
const IDENTITY: &str = "identity service";
const COMMUNITY: &str = "community service";

impl Api<'_> {
    /// The articles of `[start, end)` of one topic (or all), newest first, at most `limit`.
    async fn articles_between(
        &self,
        topic: Option<&str>,
        start: DateTime<Utc>,
        end: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<(DateTime<Utc>, ArticleRef)>, PortError> {
        let url = format!("{}/api/content/articles", self.base(CONTENT)?);
        let mut out = Vec::new();
        for page in 0..MAX_PAGES {
            let mut query = vec![("page", page.to_string()), ("size", PAGE_SIZE.to_string())];
            if let Some(t) = topic {
                query.push(("topicId", t.to_string()));
            }
            // An unknown topic is a page without articles, not a 404; a 404 is the end.
            let Some(answer) = self
                .get::<Page<Article>>(CONTENT, url.clone(), &query)
                .await?
            else {
                break;
            };
            let count = answer.content.len();
            let mut past_the_day = false;
            for a in answer.content {
                let Ok(at) = DateTime::parse_from_rfc3339(&a.published_at) else {
                    continue;
                };
                let at = at.with_timezone(&Utc);
                if at >= end {
                    continue;
                }
                if at < start {
                    past_the_day = true;
                    break;
                }
                out.push((
                    at,
                    ArticleRef {
                        id: a.id,
                        title: a.title,
                        summary: a.summary.unwrap_or_default(),
                        source_id: a.source_id,
                        source_title: a.source_title,
                        link: a.link,
                        published_at: a.published_at,
                        topics: a
                            .topics
                            .into_iter()
                            .map(|t| NewsTopic {
                                slug: t.id,
                                name: t.name,
                            })
                            .collect(),
                    },
                ));
                if out.len() >= limit {
                    return Ok(out);
                }
            }
            let last_page = u64::from(page) + 1 >= answer.total_pages;
            if past_the_day || last_page || count < usize::try_from(PAGE_SIZE).unwrap_or(100) {
                break;
            }
        }
        Ok(out)
    }
}

impl NewsArticles for Api<'_> {
    async fn articles_of_day(
        &self,
        topics: Option<&[String]>,
        day: DigestDate,
        limit: usize,
    ) -> Result<Vec<ArticleRef>, PortError> {
        let (start, end) = self.services.timezone.window(day);
        let mut all: Vec<(DateTime<Utc>, ArticleRef)> = Vec::new();
        match topics {
            None => all = self.articles_between(None, start, end, limit).await?,
            Some(topics) => {
                for topic in topics {
                    for found in self
                        .articles_between(Some(topic), start, end, limit)
                        .await?
                    {
                        if !all.iter().any(|(_, a)| a.id == found.1.id) {
                            all.push(found);
                        }
                    }
                }
            }
        }
        all.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
        all.truncate(limit);
        Ok(all.into_iter().map(|(_, a)| a).collect())
    }
}

/// A failed call as the digests say it, naming the service.
fn port_error(service: &'static str, e: CallError) -> PortError {
    let reason = match e {
        CallError::Send(e) if e.is_timeout() => {
            format!("no answer within {} s", CALL_TIMEOUT.as_secs())
        }
        CallError::Send(_) => "unreachable".to_string(),
        CallError::Status(status) => format!("answered HTTP {status}"),
        e => e.to_string(),
    };
    PortError::new(service, reason)
}

impl Users for Api<'_> {
    async fn followed_topics(&self, user: &UserId) -> Result<Option<Vec<String>>, PortError> {
        let identity = self.services.identity.at(self.base.clone());
        Ok(identity
            .internal_user(&user.to_string())
            .await
            .map_err(|e| port_error(IDENTITY, e))?
            .map(|u| u.followed_topics))
    }

    async fn page(
        &self,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<String>, Option<String>), PortError> {
        let identity = self.services.identity.at(self.base.clone());
        let answer = identity
            .internal_user_ids(cursor, limit)
            .await
            .map_err(|e| port_error(IDENTITY, e))?
            .ok_or_else(|| PortError::new(IDENTITY, "the user directory answered 404"))?;
        Ok((answer.ids, answer.next_cursor))
    }
}

impl CommunityTopics for Api<'_> {
    async fn ids_of(&self, slugs: &[String]) -> Result<Vec<(String, String, String)>, PortError> {
        if slugs.is_empty() {
            return Ok(Vec::new());
        }
        let topics = self
            .services
            .community
            .at(self.base.clone())
            .topic_stats()
            .await
            .map_err(|e| port_error(COMMUNITY, e))?
            .unwrap_or_default();
        Ok(topics
            .into_iter()
            .filter(|t| slugs.contains(&t.slug))
            .map(|t| (t.slug, t.id, t.name))
            .collect())
    }
}
