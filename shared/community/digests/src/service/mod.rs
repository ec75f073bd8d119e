//! [`Digests`], the facade the digest functions call: generation for a user and a day, the
//! deprecated persist, the reads, and jobs.

mod compose;
mod jobs;

use llm::Llm;
use platform::aws::AwsClients;
use platform::dynamo::Table;
use platform::{Clock, Env, Invalid};

use crate::cluster::{default_grouping, StoryGrouping};
use crate::error::DigestError;
use crate::input::{
    named_uuid, DigestDate, DigestId, DigestTimezone, DigestType, PageRequest, PersistInput, UserId,
};
use crate::model::{DigestDetail, DigestPage, DigestSummary, GenerationOutcome};
use crate::ports::{CommunityTopics, NewsArticles, Users};
use crate::store::{digest_id_for, recount, DigestStore};

/// Articles one digest is built from: the newest of the day in its topics. Bounds the prompt
/// of the digest's one model call (about 45,000 characters at most, see [`writer`](crate::writer)) and the
/// content API calls; a day with more news keeps its newest 60 reports.
pub const MAX_ARTICLES: usize = 60;
/// Followed topics one PERSONAL digest reads (the settings allow 100): each costs at least
/// one content API call.
pub const MAX_TOPICS: usize = 20;
/// Users per page of the schedule, and pages per schedule run (the next run goes on from the
/// saved cursor).
pub const SCHEDULE_PAGE: usize = 100;
pub const SCHEDULE_PAGES_PER_RUN: usize = 50;

/// How far back a digest may be dated (generated or persisted): ten years.
pub const MAX_PAST_DAYS: i64 = 3_650;
/// How long a generation waits for another worker's PUBLIC digest of the day before it
/// answers busy (under API Gateway's 29 seconds).
pub const PUBLIC_WAIT: std::time::Duration = std::time::Duration::from_secs(25);
/// Between two looks at the day's PUBLIC digest while another worker writes it.
const PUBLIC_POLL: std::time::Duration = std::time::Duration::from_millis(250);

pub const GENERATED: &str = "GENERATED";
pub const SKIPPED: &str = "SKIPPED";
pub const FAILED: &str = "FAILED";
pub const PENDING: &str = "PENDING";

/// The other services a generation reads.
pub struct Sources<'a, N, U, C> {
    pub news: &'a N,
    pub users: &'a U,
    pub topics: &'a C,
}

/// The digest service.
pub struct Digests {
    store: DigestStore,
    llm: Llm,
    timezone: DigestTimezone,
    grouping: Box<dyn StoryGrouping>,
}

impl Digests {
    pub fn new(store: DigestStore, llm: Llm, timezone: DigestTimezone) -> Self {
        Self {
            store,
            llm,
            timezone,
            grouping: Box::new(default_grouping()),
        }
    }

    /// The service on `DIGESTS_TABLE` with `DIGEST_TIMEZONE`, the system clock and `llm`.
    pub fn from_env(env: &Env, aws: &AwsClients, llm: Llm) -> Result<Self, platform::ConfigError> {
        let table = Table::from_env(env, aws, "DIGESTS_TABLE")?;
        Ok(Self::new(
            DigestStore::new(table, Clock::system()),
            llm,
            DigestTimezone::from_env(env)?,
        ))
    }

    /// Replaces the story grouping (where `digest-stories` plugs in).
    pub fn with_grouping(mut self, grouping: Box<dyn StoryGrouping>) -> Self {
        self.grouping = grouping;
        self
    }

    pub fn store(&self) -> &DigestStore {
        &self.store
    }

    pub fn timezone(&self) -> DigestTimezone {
        self.timezone
    }

    /// Today in the digest time zone.
    pub fn today(&self) -> DigestDate {
        self.timezone.today(self.store.clock().now())
    }

    /// Yesterday in the digest time zone (the default day of admin generation and schedule).
    pub fn yesterday(&self) -> DigestDate {
        self.timezone.yesterday(self.store.clock().now())
    }

    /// `date` as the digest day of `field`, when within the sane window: not after tomorrow
    /// (in the digest time zone), not more than [`MAX_PAST_DAYS`] back.
    pub fn dated(&self, field: &str, date: DigestDate) -> Result<DigestDate, DigestError> {
        let today = self.today().date();
        let latest = today + chrono::Duration::days(1);
        let earliest = today - chrono::Duration::days(MAX_PAST_DAYS);
        if date.date() > latest {
            return Err(
                Invalid::field(field, format!("must not be after tomorrow ({latest})")).into(),
            );
        }
        if date.date() < earliest {
            return Err(Invalid::field(
                field,
                format!("must not be more than {MAX_PAST_DAYS} days back ({earliest})"),
            )
            .into());
        }
        Ok(date)
    }

    /// Generates `user`'s digest for `date`: SKIPPED when they have one and `force` is false;
    /// a fresh PERSONAL digest from the day's articles in their followed topics; the day's
    /// PUBLIC digest (generated once per day) when they follow none. A user whose topics had
    /// no news that day (or a day without news at all) is SKIPPED with that message.
    pub async fn generate<N: NewsArticles, U: Users, C: CommunityTopics>(
        &self,
        sources: &Sources<'_, N, U, C>,
        user: &UserId,
        date: DigestDate,
        force: bool,
    ) -> Result<GenerationOutcome, DigestError> {
        let date = self.dated("date", date)?;
        let previous = self.store.day_row(user, date).await?;
        if previous.is_some() && !force {
            return Ok(skipped(format!(
                "The user already has a digest for {date}; use force to generate it again"
            )));
        }
        let mut followed: Vec<String> = Vec::new();
        for slug in sources
            .users
            .followed_topics(user)
            .await?
            .ok_or(DigestError::UserNotFound)?
        {
            let slug = slug.trim().to_string();
            if !slug.is_empty() && !followed.contains(&slug) && followed.len() < MAX_TOPICS {
                followed.push(slug);
            }
        }
        if followed.is_empty() {
            let Some(public) = self.public_digest(sources, date).await? else {
                return Ok(skipped(format!("No news was published on {date}")));
            };
            let id = public.summary.id.clone();
            self.store
                .assign(user, date, &id, DigestType::Public, None, previous.as_ref())
                .await?;
            return Ok(GenerationOutcome {
                status: GENERATED.into(),
                message: format!(
                    "The user follows no topics: assigned the PUBLIC digest of {date}"
                ),
                digest: Some(public),
            });
        }
        let articles = sources
            .news
            .articles_of_day(Some(&followed), date, MAX_ARTICLES)
            .await?;
        if articles.is_empty() {
            return Ok(skipped(format!(
                "No news in the user's followed topics on {date}"
            )));
        }
        let detail = self
            .compose(
                sources.topics,
                DigestType::Personal,
                date,
                &followed,
                &articles,
            )
            .await?;
        let (item, detail) = self.store.digest_item(detail, Some(user.as_str()))?;
        self.store
            .assign(
                user,
                date,
                &detail.summary.id,
                DigestType::Personal,
                Some(item),
                previous.as_ref(),
            )
            .await?;
        Ok(GenerationOutcome {
            status: GENERATED.into(),
            message: format!(
                "Generated a PERSONAL digest of {} events for {date}",
                detail.summary.event_count
            ),
            digest: Some(detail),
        })
    }

    /// The PUBLIC digest of `date`, generated now if the day has none; `None` when the day
    /// had no news. Generated once: the worker that wins the day's claim calls the model,
    /// the others wait for its digest (at most [`PUBLIC_WAIT`], then busy); a claim that
    /// wrote no digest (its worker failed, or the day had no news yet) is released at once,
    /// and one whose worker died goes stale.
    async fn public_digest<N: NewsArticles, U: Users, C: CommunityTopics>(
        &self,
        sources: &Sources<'_, N, U, C>,
        date: DigestDate,
    ) -> Result<Option<DigestDetail>, DigestError> {
        let id = digest_id_for(DigestType::Public, date);
        let deadline = tokio::time::Instant::now() + PUBLIC_WAIT;
        loop {
            if let Some(existing) = self.store.digest(id.as_str()).await? {
                return Ok(Some(existing.detail));
            }
            if let Some(claim) = self.store.claim_public(date).await? {
                let result = self.write_public(sources, date, &id).await;
                // Kept only when it wrote the digest: the others read that one.
                if !matches!(result, Ok(Some(_))) {
                    if let Err(e) = self.store.release_public(date, &claim).await {
                        tracing::warn!(%date, error = %e, "public digest claim left to go stale");
                    }
                }
                return result;
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(DigestError::Busy);
            }
            tokio::time::sleep(PUBLIC_POLL).await;
        }
    }

    /// Writes the PUBLIC digest of `date` under this worker's claim.
    async fn write_public<N: NewsArticles, U: Users, C: CommunityTopics>(
        &self,
        sources: &Sources<'_, N, U, C>,
        date: DigestDate,
        id: &DigestId,
    ) -> Result<Option<DigestDetail>, DigestError> {
        // A worker that finished between our look and our claim (its claim gone stale).
        if let Some(existing) = self.store.digest(id.as_str()).await? {
            return Ok(Some(existing.detail));
        }
        let articles = sources
            .news
            .articles_of_day(None, date, MAX_ARTICLES)
            .await?;
        if articles.is_empty() {
            return Ok(None);
        }
        let detail = self
            .compose(sources.topics, DigestType::Public, date, &[], &articles)
            .await?;
        let (item, detail) = self.store.digest_item(detail, None)?;
        if self.store.put_public(item).await? {
            return Ok(Some(detail));
        }
        Ok(self.store.digest(id.as_str()).await?.map(|d| d.detail))
    }

    /// The deprecated persist: stores the digest as given (its title ignored: the service
    /// builds it; counts, reading time and previews computed from the events). A PERSONAL
    /// digest becomes its user's digest of the day (replacing theirs); a PUBLIC one replaces
    /// the day's PUBLIC digest.
    pub async fn persist(&self, input: PersistInput) -> Result<DigestDetail, DigestError> {
        self.dated("digestDate", input.date)?;
        let now = self.store.clock().timestamp();
        let mut summary = DigestSummary {
            id: digest_id_for(input.digest_type, input.date).to_string(),
            digest_type: input.digest_type.as_str().into(),
            digest_date: input.date.to_string(),
            title: title(input.digest_type, input.date),
            subtitle: input.subtitle,
            summary: input.summary,
            event_count: 0,
            source_count: 0,
            read_time_minutes: 0,
            preview_headlines: Vec::new(),
            topics: input.topics,
            generated_at: input.generated_at,
            created_at: now,
        };
        recount(&mut summary, &input.events);
        let detail = DigestDetail {
            summary,
            events: input.events,
            model: input.model,
        };
        let target = input.target_user.as_ref().map(UserId::as_str);
        let (item, detail) = self.store.digest_item(detail, target)?;
        match &input.target_user {
            None => self.store.put_digest(item).await?,
            Some(user) => {
                for attempt in 1..=3 {
                    let previous = self.store.day_row(user, input.date).await?;
                    match self
                        .store
                        .assign(
                            user,
                            input.date,
                            &detail.summary.id,
                            DigestType::Personal,
                            Some(item.clone()),
                            previous.as_ref(),
                        )
                        .await
                    {
                        Ok(()) => break,
                        Err(crate::store::WriteError::Changed) if attempt < 3 => {}
                        Err(e) => return Err(e.into()),
                    }
                }
            }
        }
        Ok(detail)
    }

    /// A page of `user`'s digests, newest day first.
    pub async fn my_digests(
        &self,
        user: &UserId,
        page: PageRequest,
    ) -> Result<DigestPage, DigestError> {
        let (content, total, more) = self.store.user_digests(user, &page).await?;
        let next_cursor = content
            .last()
            .filter(|_| more)
            .map(|last| last.digest_date.clone());
        Ok(DigestPage {
            content,
            page: page.page,
            size: page.size,
            total_pages: total.div_ceil(u64::from(page.size)),
            total_elements: total,
            next_cursor,
        })
    }

    /// The newest PUBLIC digest.
    pub async fn latest_public(&self) -> Result<DigestDetail, DigestError> {
        let tomorrow = self.today().date() + chrono::Duration::days(1);
        // Rows dated after tomorrow (persisted before the window was enforced) never count.
        self.store
            .latest_public(DigestDate::new(tomorrow))
            .await?
            .map(|d| d.detail)
            .ok_or(DigestError::DigestNotFound)
    }

    /// A digest for `caller`: PUBLIC ones for everyone, a PERSONAL one for its user only.
    pub async fn digest(
        &self,
        id: &DigestId,
        caller: Option<&UserId>,
    ) -> Result<DigestDetail, DigestError> {
        let stored = self
            .store
            .digest(id.as_str())
            .await?
            .ok_or(DigestError::DigestNotFound)?;
        let visible = stored.detail.summary.digest_type == DigestType::Public.as_str()
            || (stored.target_user_id.is_some()
                && stored.target_user_id.as_deref() == caller.map(UserId::as_str));
        if visible {
            Ok(stored.detail)
        } else {
            Err(DigestError::DigestNotFound)
        }
    }
}

/// The name-based uuid of a news topic the community does not know.
pub fn topic_uuid(slug: &str) -> String {
    named_uuid(&format!("topic:{slug}"))
}

/// The title the service builds.
pub fn title(kind: DigestType, date: DigestDate) -> String {
    match kind {
        DigestType::Personal => format!("Your news digest for {}", date.long_name()),
        DigestType::Public => format!("News digest for {}", date.long_name()),
    }
}

fn skipped(message: String) -> GenerationOutcome {
    GenerationOutcome {
        status: SKIPPED.into(),
        message,
        digest: None,
    }
}
