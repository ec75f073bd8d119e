//! [`Digests`], the facade the digest functions call: generation for a user and a day, the
//! deprecated persist, the reads, and jobs.

use std::collections::BTreeMap;

use llm::Llm;
use platform::aws::AwsClients;
use platform::dynamo::Table;
use platform::{Clock, Env, Invalid};

use crate::cluster::{default_grouping, StoryGrouping};
use crate::error::DigestError;
use crate::input::{
    bounds, named_uuid, source_of, DigestDate, DigestId, DigestTimezone, DigestType, PageRequest,
    PersistInput, UserId,
};
use crate::jobs::{scheduled_job_id, DigestQueue, STALE_AFTER_MINUTES};
use crate::model::{
    DigestDetail, DigestGenerationJob, DigestPage, DigestSummary, Event, GenerationOutcome,
    TopicRef,
};
use crate::ports::{ArticleRef, CommunityTopics, NewsArticles, Users};
use crate::store::{digest_id_for, recount, DigestStore};
use crate::writer;

/// Articles one digest is built from: the newest of the day in its topics. Bounds the prompt
/// of the digest's one model call (about 45,000 characters at most, see [`writer`]) and the
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
    /// the others wait for its digest (at most [`PUBLIC_WAIT`], then busy); a claim whose
    /// worker failed is released, and one whose worker died goes stale.
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
                if result.is_err() {
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

    /// Groups `articles` into events, has the model write them (one call), and computes the
    /// rest: title, counts, reading time, previews, topics.
    async fn compose<C: CommunityTopics>(
        &self,
        community: &C,
        kind: DigestType,
        date: DigestDate,
        followed: &[String],
        articles: &[ArticleRef],
    ) -> Result<DigestDetail, DigestError> {
        let events_articles = self.events_of(articles);
        let written = writer::write(&self.llm, kind, date, followed, &events_articles).await?;
        // Topics: each event's (a PERSONAL digest keeps the followed ones), by frequency.
        let relevant =
            |slug: &str| kind == DigestType::Public || followed.iter().any(|f| f == slug);
        let (names, slugs) = topics_by_frequency(&events_articles, &relevant);
        let topics = TopicRefs {
            known: known_topics(community, &slugs).await,
            names,
        };
        let events = events(&events_articles, written.events, &topics, &relevant);
        let now = self.store.clock().timestamp();
        let mut summary = DigestSummary {
            id: digest_id_for(kind, date).to_string(),
            digest_type: kind.as_str().into(),
            digest_date: date.to_string(),
            title: title(kind, date),
            subtitle: written.subtitle,
            summary: written.summary,
            event_count: 0,
            source_count: 0,
            read_time_minutes: 0,
            preview_headlines: Vec::new(),
            topics: slugs
                .iter()
                .take(bounds::TOPICS)
                .map(|s| topics.of(s))
                .collect(),
            generated_at: Some(now.clone()),
            created_at: now,
        };
        recount(&mut summary, &events);
        Ok(DigestDetail {
            summary,
            events,
            model: Some(written.model),
        })
    }

    /// The events' articles: `articles` grouped into stories, the most reported first, at
    /// most [`bounds::EVENTS`] of at most [`bounds::SOURCES_PER_EVENT`] articles.
    fn events_of<'a>(&self, articles: &'a [ArticleRef]) -> Vec<Vec<&'a ArticleRef>> {
        let mut groups = self.grouping.group(articles);
        // The stories most reported first; ties keep the newest first.
        groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
        groups.truncate(bounds::EVENTS);
        groups
            .iter()
            .map(|g| {
                g.iter()
                    .filter_map(|i| articles.get(*i))
                    .take(bounds::SOURCES_PER_EVENT)
                    .collect()
            })
            .filter(|g: &Vec<&ArticleRef>| !g.is_empty())
            .collect()
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

    /// Creates a PENDING job for `user` and `date` and queues it. When the queue refuses it,
    /// the job is recorded FAILED and the error returned.
    pub async fn start_job(
        &self,
        queue: &DigestQueue,
        user: &UserId,
        date: DigestDate,
        force: bool,
    ) -> Result<DigestGenerationJob, DigestError> {
        let date = self.dated("date", date)?;
        let job = self.new_job(DigestId::generate(), user, date, force);
        self.store.create_job(&job).await?;
        if let Err(reason) = queue.send(&job.id).await {
            if let Err(e) = self
                .store
                .finish_job(&job.id, FAILED, "The job could not be queued", None)
                .await
            {
                tracing::error!(job = %job.id, error = %e, "job left PENDING after a failed send");
            }
            return Err(DigestError::Queue(reason));
        }
        Ok(job)
    }

    fn new_job(
        &self,
        id: DigestId,
        user: &UserId,
        date: DigestDate,
        force: bool,
    ) -> DigestGenerationJob {
        DigestGenerationJob {
            id: id.to_string(),
            target_user_id: user.to_string(),
            digest_date: date.to_string(),
            status: PENDING.into(),
            message: None,
            force,
            digest_id: None,
            created_at: self.store.clock().timestamp(),
            finished_at: None,
        }
    }

    pub async fn job(&self, id: &DigestId) -> Result<DigestGenerationJob, DigestError> {
        self.store
            .job(id.as_str())
            .await?
            .ok_or(DigestError::JobNotFound)
    }

    /// Runs job `id` to its final status. `Ok(false)`: nothing to do (finished, running
    /// elsewhere, or unknown). `Err` only when the outcome could not be recorded (the table):
    /// the message is to be delivered again.
    pub async fn run_job<N: NewsArticles, U: Users, C: CommunityTopics>(
        &self,
        sources: &Sources<'_, N, U, C>,
        id: &str,
    ) -> Result<bool, DigestError> {
        let stale = platform::clock::rfc3339(
            self.store.clock().now() - chrono::Duration::minutes(STALE_AFTER_MINUTES),
        );
        if !self.store.claim_job(id, &stale).await? {
            return Ok(false);
        }
        let Some(job) = self.store.job(id).await? else {
            return Ok(false);
        };
        let parsed = (
            UserId::parse("targetUserId", &job.target_user_id),
            DigestDate::parse("digestDate", &job.digest_date),
        );
        let result = match parsed {
            (Ok(user), Ok(date)) => self.generate(sources, &user, date, job.force).await,
            _ => Err(DigestError::UserNotFound),
        };
        let (status, message, digest) = match result {
            Ok(outcome) => (
                outcome.status,
                outcome.message,
                outcome.digest.map(|d| d.summary.id),
            ),
            Err(DigestError::Store(e)) if e.is_unavailable() => {
                // Not the job's fault: leave it RUNNING; the redelivered message reclaims it
                // once stale.
                return Err(DigestError::Store(e));
            }
            Err(e) => {
                tracing::warn!(job = id, error = %e, "digest generation failed");
                (FAILED.to_string(), failure_message(&e), None)
            }
        };
        self.store
            .finish_job(id, &status, &message, digest.as_deref())
            .await?;
        Ok(true)
    }

    /// One run of the daily schedule for `date`: goes on through identity's users from the
    /// saved cursor, at most [`SCHEDULE_PAGES_PER_RUN`] pages of [`SCHEDULE_PAGE`], creating
    /// each user's job of the day (name-based id: once) and queueing it. Returns the jobs
    /// created by this run. A job found PENDING (its send may have been lost) is queued again;
    /// the worker's claim runs it once.
    pub async fn schedule<U: Users>(
        &self,
        users: &U,
        queue: &DigestQueue,
        date: DigestDate,
    ) -> Result<usize, DigestError> {
        let mut run = self.store.schedule_run(date).await?;
        if run.done {
            return Ok(0);
        }
        let mut created = 0;
        for _ in 0..SCHEDULE_PAGES_PER_RUN {
            let (ids, next) = users.page(run.cursor.as_deref(), SCHEDULE_PAGE).await?;
            for raw in ids {
                let Ok(user) = UserId::parse("id", &raw) else {
                    tracing::warn!(user = %raw, "identity listed a user id that is not a uuid");
                    continue;
                };
                let job = self.new_job(scheduled_job_id(&user, date), &user, date, false);
                let fresh = self.store.create_job(&job).await?;
                let pending = fresh
                    || self
                        .store
                        .job(&job.id)
                        .await?
                        .is_some_and(|j| j.status == PENDING);
                if pending {
                    queue.send(&job.id).await.map_err(DigestError::Queue)?;
                }
                if fresh {
                    created += 1;
                    run.jobs += 1;
                }
            }
            run.done = next.is_none();
            run.cursor = next;
            self.store.save_schedule_run(date, &run).await?;
            if run.done {
                break;
            }
        }
        Ok(created)
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

/// The `relevant` topics of the events' articles: each slug's first name, and the slugs,
/// most frequent first.
fn topics_by_frequency(
    events_articles: &[Vec<&ArticleRef>],
    relevant: &impl Fn(&str) -> bool,
) -> (BTreeMap<String, String>, Vec<String>) {
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let mut counts: Vec<(String, usize)> = Vec::new();
    for a in events_articles.iter().flatten() {
        for t in a.topics.iter().filter(|t| relevant(&t.slug)) {
            names
                .entry(t.slug.clone())
                .or_insert_with(|| t.name.clone());
            match counts.iter_mut().find(|(s, _)| *s == t.slug) {
                Some((_, c)) => *c += 1,
                None => counts.push((t.slug.clone(), 1)),
            }
        }
    }
    counts.sort_by_key(|(_, c)| std::cmp::Reverse(*c));
    let slugs: Vec<String> = counts.iter().map(|(s, _)| s.clone()).collect();
    (names, slugs)
}

/// The community's ids of `slugs` (slug, id, name); none when the community does not answer.
async fn known_topics<C: CommunityTopics>(
    community: &C,
    slugs: &[String],
) -> Vec<(String, String, String)> {
    match community.ids_of(slugs).await {
        Ok(known) => known,
        Err(error) => {
            tracing::warn!(%error, "community topics unavailable; using name-based topic ids");
            Vec::new()
        }
    }
}

/// A digest's topics: the community's ids where it has them, else name-based ones.
struct TopicRefs {
    known: Vec<(String, String, String)>,
    names: BTreeMap<String, String>,
}

impl TopicRefs {
    fn of(&self, slug: &str) -> TopicRef {
        match self.known.iter().find(|(s, _, _)| s == slug) {
            Some((_, id, name)) => TopicRef {
                id: id.clone(),
                name: name.clone(),
            },
            None => TopicRef {
                id: topic_uuid(slug),
                name: self
                    .names
                    .get(slug)
                    .cloned()
                    .unwrap_or_else(|| slug.to_string()),
            },
        }
    }
}

/// The events as written: each with its `relevant` topics (at most [`bounds::TOPICS`]) and
/// its sources.
fn events(
    events_articles: &[Vec<&ArticleRef>],
    written: Vec<writer::WrittenEvent>,
    topics: &TopicRefs,
    relevant: &impl Fn(&str) -> bool,
) -> Vec<Event> {
    events_articles
        .iter()
        .zip(written)
        .map(|(articles, w)| {
            let mut topic_ids: Vec<String> = Vec::new();
            for t in articles.iter().flat_map(|a| a.topics.iter()) {
                let id = topics.of(&t.slug).id;
                if relevant(&t.slug) && !topic_ids.contains(&id) && topic_ids.len() < bounds::TOPICS
                {
                    topic_ids.push(id);
                }
            }
            Event {
                headline: w.headline,
                summary_bullets: w.bullets,
                topic_ids,
                sources: articles
                    .iter()
                    .map(|a| {
                        source_of(
                            &a.source_title,
                            a.link.as_deref(),
                            &a.published_at,
                            &a.title,
                        )
                    })
                    .collect(),
            }
        })
        .collect()
}

fn skipped(message: String) -> GenerationOutcome {
    GenerationOutcome {
        status: SKIPPED.into(),
        message,
        digest: None,
    }
}

/// What a FAILED job says (no internals beyond the failing service).
fn failure_message(e: &DigestError) -> String {
    match e {
        DigestError::UserNotFound => "No such user".into(),
        DigestError::Port(p) => format!("The {} could not be reached", p.service),
        DigestError::Llm(l) => format!("The model failed: {l}"),
        DigestError::Busy => "Another generation for this user and day was under way".into(),
        other => format!("Generation failed: {other}"),
    }
}
