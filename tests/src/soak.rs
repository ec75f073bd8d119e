//! The soak: mixed writes over every product through the whole local stack while the emulator
//! injects AWS faults (throttling, lost replies, lost SQS deletes, S3 `SlowDown`), then a drain
//! with the faults off, then invariants checked from the outside. `local/bench-soak` runs it
//! for minutes and prints the figures; `tests/tests/soak.rs` runs a short one in `local/test`.
//!
//! What it holds the stack to:
//! - every answer is a status the product documents: no 500, and a 503 carries `Retry-After`;
//! - every source's `subscriberCount` is the number of users whose subscriptions name it;
//! - every post's like, dislike and save counts are its members' marks, its `viewCount` its
//!   view rows, its `commentCount` its comments;
//! - every log the ingest API accepted is on the timeline once, and the timeline's logs are
//!   counted once in the metrics;
//! - every recipe created (201) is in its owner's list once;
//! - every account registered (201) can log in;
//! - no message is left in a queue, dead-letter queues included.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::AttributeValue;
use aws_sdk_sqs::types::QueueAttributeName;
use reqwest::{Method, Response};
use serde_json::{json, Value};

use crate::community::post_path;
use crate::content;
use crate::feeds::{generated_rss, FeedDocument, FeedServer};
use crate::incidents::LOGS;
use crate::llm::FakeLlm;
use crate::recipes::{pancakes, RECIPES};
use crate::stack::INGEST_KEY;
use crate::users::{password, REGISTER};
use crate::TestStack;

/// How hard and how long.
#[derive(Clone, Debug)]
pub struct Settings {
    pub duration: Duration,
    /// Clients writing side by side.
    pub clients: usize,
    /// News sources the clients subscribe to and leave.
    pub sources: usize,
    pub faults: Rates,
    pub seed: u64,
}

/// The faults' rates, each a share of the calls it applies to.
#[derive(Clone, Debug)]
pub struct Rates {
    /// DynamoDB calls throttled (`ThrottlingException`; a transaction cancelled with
    /// `ThrottlingError` reasons).
    pub dynamodb_throttle: f64,
    /// DynamoDB writes applied whose reply is lost (a 500 after the write).
    pub dynamodb_lost_reply: f64,
    /// SQS deletes answered with success that delete nothing (the message comes again).
    pub sqs_lost_delete: f64,
    /// S3 writes answered `SlowDown`.
    pub s3_slowdown: f64,
    /// SQS sends enqueued twice (the message is delivered twice).
    pub sqs_duplicate: f64,
    /// SQS sends delivered [`LATE_SECONDS`] late.
    pub sqs_late: f64,
    /// EventBridge `PutEvents` answered with every entry failed.
    pub events_refused: f64,
}

/// How late a late SQS delivery comes.
pub const LATE_SECONDS: u64 = 5;

impl Rates {
    /// The issue's rates (10% throttled, 2% of replies lost, 10% of deletes lost, 2% slowed),
    /// and the kinds its table does not rate: 5% of sends duplicated, 5% late, 5% of the
    /// incident events' `PutEvents` refused.
    pub const ISSUE: Self = Self {
        dynamodb_throttle: 0.10,
        dynamodb_lost_reply: 0.02,
        sqs_lost_delete: 0.10,
        s3_slowdown: 0.02,
        sqs_duplicate: 0.05,
        sqs_late: 0.05,
        events_refused: 0.05,
    };

    /// No fault at all.
    pub const NONE: Self = Self {
        dynamodb_throttle: 0.0,
        dynamodb_lost_reply: 0.0,
        sqs_lost_delete: 0.0,
        s3_slowdown: 0.0,
        sqs_duplicate: 0.0,
        sqs_late: 0.0,
        events_refused: 0.0,
    };

    fn rules(&self) -> Value {
        let mut rules = vec![
            json!({"service": "dynamodb", "fault": "throttle", "rate": self.dynamodb_throttle}),
        ];
        for operation in [
            "PutItem",
            "UpdateItem",
            "DeleteItem",
            "TransactWriteItems",
            "BatchWriteItem",
        ] {
            rules.push(json!({"service": "dynamodb", "operation": operation, "fault": "lost-reply", "rate": self.dynamodb_lost_reply}));
        }
        for operation in ["DeleteMessage", "DeleteMessageBatch"] {
            rules.push(json!({"service": "sqs", "operation": operation, "fault": "lost-delete", "rate": self.sqs_lost_delete}));
        }
        for operation in ["SendMessage", "SendMessageBatch"] {
            rules.push(json!({"service": "sqs", "operation": operation, "fault": "duplicate", "rate": self.sqs_duplicate}));
            rules.push(json!({"service": "sqs", "operation": operation, "fault": "delay", "rate": self.sqs_late, "seconds": LATE_SECONDS}));
        }
        rules.push(json!({"service": "s3", "operation": "PutObject", "fault": "slowdown", "rate": self.s3_slowdown}));
        rules.push(json!({"service": "events", "operation": "PutEvents", "fault": "failed-entries", "rate": self.events_refused}));
        Value::Array(rules)
    }
}

/// What a soak saw and found.
#[derive(Debug, Default)]
pub struct Report {
    /// Answers by product and status.
    pub statuses: BTreeMap<(&'static str, u16), u64>,
    /// Faults injected, by service, operation and fault.
    pub injected: Vec<(String, String, String, u64)>,
    /// Invariants checked, by name: how many things each looked at.
    pub checked: BTreeMap<&'static str, u64>,
    pub violations: Vec<String>,
    pub load: Duration,
    pub drain: Duration,
}

impl Report {
    pub fn requests(&self) -> u64 {
        self.statuses.values().sum()
    }

    /// The figures, for a bench's output or a failed test's message.
    pub fn render(&self) -> String {
        let mut out = format!(
            "{} requests in {:.0} s, drained in {:.0} s\n",
            self.requests(),
            self.load.as_secs_f64(),
            self.drain.as_secs_f64()
        );
        out.push_str("answers by product:\n");
        let mut by_product: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for ((product, status), count) in &self.statuses {
            by_product
                .entry(product)
                .or_default()
                .push(format!("{status}: {count}"));
        }
        for (product, statuses) in by_product {
            out.push_str(&format!("  {product:<10} {}\n", statuses.join(", ")));
        }
        out.push_str("faults injected:\n");
        for (service, operation, fault, count) in &self.injected {
            out.push_str(&format!(
                "  {service:<9} {operation:<20} {fault:<12} {count}\n"
            ));
        }
        out.push_str("invariants checked:\n");
        for (name, count) in &self.checked {
            out.push_str(&format!("  {name:<44} {count}\n"));
        }
        out.push_str(&format!("violations: {}\n", self.violations.len()));
        for violation in &self.violations {
            out.push_str(&format!("  {violation}\n"));
        }
        out
    }
}

/// A deterministic generator (xorshift64*): the same seed gives the same load.
struct Dice(u64);

impl Dice {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33;
        usize::try_from(x).unwrap_or(0) % n.max(1)
    }
}

/// One soak client: a news and community member, a recipe cook (the sources' submitter, last
/// in the list, only subscribes).
struct Member {
    token: String,
    cook: String,
}

/// What the clients made, for the invariants.
#[derive(Default)]
struct Made {
    posts: Vec<String>,
    logs: BTreeSet<String>,
    /// Recipe id -> its owner's token.
    recipes: Vec<(i64, String)>,
    accounts: Vec<String>,
    statuses: BTreeMap<(&'static str, u16), u64>,
    violations: Vec<String>,
}

/// The soak's stack: the model double `llm` answers the community's summaries (a retry a
/// second apart), and the write brakes are out of the way ([`crate::limits::OUT_OF_THE_WAY`]),
/// so the load is the AWS calls' and not the 429s'.
pub async fn stack(llm: &FakeLlm) -> TestStack {
    llm.reply("A soak post, summarised.");
    let mut parameters = crate::genai::llm_parameters(llm);
    parameters.insert("SummaryRetryDelaySeconds".into(), "1".into());
    // The clients write more posts than an author's summaries allow.
    for limit in ["SummaryRateLimitPerAuthor", "SummaryRateLimitTotal"] {
        parameters.insert(limit.into(), "100000/60".into());
    }
    TestStack::start_with(parameters).await
}

/// A message whose delete was lost, or whose handler failed, comes again after this long
/// instead of the template's 3 to 18 minutes (the soak's queues only), so a drain takes
/// seconds; SQS semantics are otherwise untouched (receive counts, dead-letter queues).
const SOAK_VISIBILITY_SECONDS: &str = "10";

/// Sets the stack's work queues' visibility timeout to [`SOAK_VISIBILITY_SECONDS`].
async fn shorten_visibility(t: &TestStack) {
    let sqs = sqs_client();
    let urls = sqs
        .list_queues()
        .queue_name_prefix(format!("{}-", t.stack_name))
        .send()
        .await
        .expect("ListQueues")
        .queue_urls
        .unwrap_or_default();
    for url in urls.iter().filter(|url| !url.contains("DeadLetter")) {
        sqs.set_queue_attributes()
            .queue_url(url)
            .attributes(
                QueueAttributeName::VisibilityTimeout,
                SOAK_VISIBILITY_SECONDS,
            )
            .send()
            .await
            .expect("SetQueueAttributes");
    }
}

/// Runs a soak on `t` (started by [`stack`]).
pub async fn run(t: &TestStack, settings: &Settings) -> Report {
    shorten_visibility(t).await;
    // A poll already waiting took the template's visibility (up to 360 s) with it: a message
    // it receives and does not delete would hide that long, and hold the drain. Every poll
    // that outlives this wait started after the change.
    let poll = u64::try_from(local_stack::sqs::LONG_POLL_SECS).unwrap_or(10);
    tokio::time::sleep(Duration::from_secs(poll + 1)).await;
    let feeds = FeedServer::start().await;
    let (members, sources, operator) = set_up(t, &feeds, settings).await;
    let faults = crate::faults::Faults::of(t);
    faults.set(settings.faults.rules()).await;

    let made = Arc::new(Mutex::new(Made::default()));
    let started = Instant::now();
    let deadline = started + settings.duration;
    let members = Arc::new(members);
    let sources = Arc::new(sources);
    let operator = operator.as_str();
    let clients: Vec<_> = (0..settings.clients)
        .map(|client| {
            let (members, sources, made) = (
                Arc::clone(&members),
                Arc::clone(&sources),
                Arc::clone(&made),
            );
            let seed = settings.seed.wrapping_add(client as u64);
            async move {
                let mut dice = Dice::new(seed);
                let mut step = 0usize;
                while Instant::now() < deadline {
                    one_write(
                        t, client, step, &mut dice, &members, &sources, operator, &made,
                    )
                    .await;
                    step += 1;
                }
            }
        })
        .collect();
    futures::future::join_all(clients).await;
    let load = started.elapsed();

    // One row per service, operation and fault (the emulator counts them per table too).
    let mut injected = BTreeMap::<(String, String, String), u64>::new();
    for (service, operation, fault, count) in faults.injected_all().await {
        *injected.entry((service, operation, fault)).or_default() += count;
    }
    let mut report = Report {
        injected: injected
            .into_iter()
            .map(|((service, operation, fault), count)| (service, operation, fault, count))
            .collect(),
        load,
        ..Report::default()
    };
    faults.clear().await;
    let drained = Instant::now();
    // A late delivery is not counted as held until it is due.
    tokio::time::sleep(Duration::from_secs(LATE_SECONDS + 1)).await;
    drain(t, &mut report).await;
    report.drain = drained.elapsed();

    let made = std::mem::take(&mut *made.lock().expect("made"));
    report.statuses = made.statuses.clone();
    report.violations.extend(made.violations.iter().cloned());
    check(t, &members, &sources, operator, &made, &mut report).await;
    report
}

async fn set_up(
    t: &TestStack,
    feeds: &FeedServer,
    settings: &Settings,
) -> (Vec<Member>, Vec<String>, String) {
    // The submitter subscribes to every source and never leaves, so no source is retired
    // and the clients' subscriptions keep meeting live sources.
    let (_, submitter) = t.user("soak-submitter").await;
    let mut sources = Vec::new();
    for i in 0..settings.sources {
        let url = feeds.put(
            &format!("/soak-{i}.xml"),
            FeedDocument::rss(generated_rss(&format!("Soak feed {i}"), 0, 3)),
        );
        let source = content::submit_id(t, &submitter, &url).await;
        assert_eq!(t.subscribe(&submitter, &source).await.status(), 200);
        sources.push(source);
    }
    let mut members = Vec::new();
    for client in 0..settings.clients {
        let (_, token) = t.user(&format!("soak-member-{client}")).await;
        let cook = t.cook(&format!("soakcook{client}")).await;
        members.push(Member { token, cook });
    }
    let (_, operator) = t.operator("soak-operator").await;
    members.push(Member {
        token: submitter,
        cook: String::new(),
    });
    (members, sources, operator)
}

/// One write, picked by the dice, its answer recorded.
#[allow(clippy::too_many_arguments)] // the soak's whole state, as each client holds it
async fn one_write(
    t: &TestStack,
    client: usize,
    step: usize,
    dice: &mut Dice,
    members: &[Member],
    sources: &[String],
    operator: &str,
    made: &Mutex<Made>,
) {
    let me = &members[client];
    let any_post = {
        let made = made.lock().expect("made");
        (!made.posts.is_empty()).then(|| made.posts[dice.below(made.posts.len())].clone())
    };
    let roll = dice.below(100);
    let (product, answer) = match (roll, any_post) {
        (0..=11, _) => {
            let source = &sources[dice.below(sources.len())];
            let answer = if dice.below(2) == 0 {
                t.subscribe(&me.token, source).await
            } else {
                t.unsubscribe(&me.token, source).await
            };
            ("news", answer)
        }
        (12..=19, _) | (_, None) => {
            let body = json!({
                "title": format!("Soak post {client}-{step}"),
                "content": format!("Written by soak client {client} at step {step}, enough words to read."),
                "topics": ["soak"],
            });
            let answer = t.post_json_auth("/api/v1/posts", &me.token, &body).await;
            let status = answer.status().as_u16();
            let body: Value = answer.json().await.unwrap_or(Value::Null);
            record(made, "community", status, None);
            if status == 201 {
                if let Some(id) = body["id"].as_str() {
                    made.lock().expect("made").posts.push(id.to_string());
                }
            }
            return;
        }
        (20..=39, Some(post)) => {
            let kind = ["LIKE", "DISLIKE", "NONE"][dice.below(3)];
            ("community", t.react(&post, &me.token, kind).await)
        }
        (40..=49, Some(post)) => {
            let body = json!({"text": format!("Soak comment {client}-{step}")});
            let path = format!("{}/comments", post_path(&post));
            ("community", t.post_json_auth(&path, &me.token, &body).await)
        }
        (50..=59, Some(post)) => {
            let on = dice.below(2) == 0;
            ("community", t.bookmark(&post, &me.token, on).await)
        }
        (60..=69, Some(post)) => {
            let path = format!("{}/views", post_path(&post));
            ("community", t.post_auth(&path, &me.token).await)
        }
        (78..=81, _) => {
            move_an_incident(t, operator, dice, made).await;
            return;
        }
        (70..=77, _) => {
            let logs: Vec<Value> = (0..5)
                .map(|i| {
                    let severity = ["INFO", "WARN", "ERROR"][dice.below(3)];
                    // A few unlike messages: several incidents open, and each moves.
                    let what = INCIDENT_TOPICS[dice.below(INCIDENT_TOPICS.len())];
                    json!({
                        "serviceName": "soak",
                        "type": "APPLICATION_LOG",
                        "severity": severity,
                        "logContent": format!("soak {what} {client}-{step}-{i}"),
                    })
                })
                .collect();
            let answer = t
                .http
                .post(t.url(LOGS))
                .header("x-api-key", INGEST_KEY)
                .json(&Value::Array(logs))
                .send()
                .await;
            let Some(answer) = transported(made, "incidents", answer) else {
                return;
            };
            let status = answer.status().as_u16();
            let retry_after = answer.headers().contains_key("retry-after");
            let body: Value = answer.json().await.unwrap_or(Value::Null);
            record(made, "incidents", status, Some(retry_after));
            if status == 202 {
                let ids = body["ids"].as_array().cloned().unwrap_or_default();
                made.lock()
                    .expect("made")
                    .logs
                    .extend(ids.iter().filter_map(|id| id.as_str().map(str::to_string)));
            }
            return;
        }
        (82..=93, _) => {
            let mut recipe = pancakes();
            recipe["title"] = json!(format!("Soak pancakes {client}-{step}"));
            let answer = t.post_json_auth(RECIPES, &me.cook, &recipe).await;
            let status = answer.status().as_u16();
            let retry_after = answer.headers().contains_key("retry-after");
            let body: Value = answer.json().await.unwrap_or(Value::Null);
            record(made, "recipes", status, Some(retry_after));
            if status == 201 {
                if let Some(id) = body["id"].as_i64() {
                    made.lock()
                        .expect("made")
                        .recipes
                        .push((id, me.cook.clone()));
                }
            }
            return;
        }
        _ => {
            let username = format!("soak-{client}-{step}");
            let body = json!({
                "username": username,
                "email": format!("{username}@example.com"),
                "password": password(&username),
                "name": "Soak reader",
            });
            let answer = t.post_json(REGISTER, &body).await;
            if answer.status() == 201 {
                made.lock().expect("made").accounts.push(username);
            }
            ("identity", answer)
        }
    };
    let retry_after = answer.headers().contains_key("retry-after");
    record(made, product, answer.status().as_u16(), Some(retry_after));
}

/// What the soak's logs are about, unlike enough to group apart.
const INCIDENT_TOPICS: [&str; 6] = [
    "ledger write failed",
    "payment gateway timeout",
    "disk quota exceeded on volume",
    "certificate expired for host",
    "cache cluster unreachable",
    "queue consumer crashed",
];

/// An operator moves one of the soak's incidents on (ACTIVE to ACKNOWLEDGED, ACKNOWLEDGED to
/// RESOLVED; a new occurrence reopens a resolved one): each move publishes an incident event.
/// A list answers 200 and a move 200 (or 503); when another client moved it first, 409 or the
/// 400 that names the transition from where it is now.
async fn move_an_incident(t: &TestStack, operator: &str, dice: &mut Dice, made: &Mutex<Made>) {
    let status = ["ACTIVE", "ACKNOWLEDGED"][dice.below(2)];
    let path = format!("/api/v1/incidents?status={status}&limit=20");
    let (listed, incidents) = get_json(t, &path, Some(operator)).await;
    record(made, "incidents", listed, None);
    if listed != 200 && listed != 503 {
        let mut made = made.lock().expect("made");
        made.violations
            .push(format!("GET {path} answered {listed}"));
        return;
    }
    let incidents = incidents.as_array().cloned().unwrap_or_default();
    if incidents.is_empty() {
        return;
    }
    let Some(id) = incidents[dice.below(incidents.len())]["id"]
        .as_str()
        .map(str::to_string)
    else {
        return;
    };
    let next = if status == "ACTIVE" {
        "ACKNOWLEDGED"
    } else {
        "RESOLVED"
    };
    let answer = t
        .http
        .patch(t.url(&format!("/api/v1/incidents/{id}")))
        .bearer_auth(operator)
        .json(&json!({"status": next, "note": "soak"}))
        .send()
        .await;
    let Some(answer) = transported(made, "incidents", answer) else {
        return;
    };
    let moved = answer.status().as_u16();
    let retry_after = answer.headers().contains_key("retry-after");
    record(made, "incidents", moved, Some(retry_after));
    if matches!(moved, 200 | 409 | 503) {
        return;
    }
    let body = answer.text().await.unwrap_or_default();
    // Another client moved it since the list: the transition is refused from where it is now.
    let overtaken = moved == 400
        && body.contains("cannot move from")
        && !body.contains(&format!("cannot move from {status} "));
    if !overtaken {
        let mut made = made.lock().expect("made");
        made.violations.push(format!(
            "moving incident {id} to {next} answered {moved}: {body}"
        ));
    }
}

fn transported(
    made: &Mutex<Made>,
    product: &'static str,
    answer: reqwest::Result<Response>,
) -> Option<Response> {
    match answer {
        Ok(answer) => Some(answer),
        Err(e) => {
            made.lock()
                .expect("made")
                .violations
                .push(format!("{product}: no answer: {e}"));
            None
        }
    }
}

/// Counts an answer; a 500 (or any 5xx but a 503), and a 503 without `Retry-After`, is a
/// violation.
fn record(made: &Mutex<Made>, product: &'static str, status: u16, retry_after: Option<bool>) {
    let mut made = made.lock().expect("made");
    *made.statuses.entry((product, status)).or_default() += 1;
    if status >= 500 && status != 503 {
        made.violations
            .push(format!("{product}: answered {status}"));
    }
    if status == 503 && retry_after == Some(false) {
        made.violations
            .push(format!("{product}: a 503 without Retry-After"));
    }
}

/// Waits until no work queue of the stack holds a message, visible or in flight, three times
/// in a row (a poller may be between a receive and its delete). Dead-letter queues are not
/// waited for: [`check`] finds them empty or reports what they hold.
async fn drain(t: &TestStack, report: &mut Report) {
    let sqs = sqs_client();
    // Past the template's longest work-queue visibility (360 s): a message that somehow kept
    // it (not the soak's 10 s) still comes back within the drain.
    let deadline = Instant::now() + Duration::from_secs(420);
    let mut quiet = 0;
    let mut report_every = Instant::now();
    loop {
        let mut held = queued(&sqs, &t.stack_name).await;
        held.retain(|queue, _| !queue.contains("DeadLetter"));
        if held.values().all(|n| *n == 0) {
            quiet += 1;
            if quiet == 3 {
                return;
            }
        } else {
            quiet = 0;
        }
        // What the drain waits for, every 30 s: a slow drain names its queues in the output.
        let waited = report_every.elapsed();
        if waited >= Duration::from_secs(30) {
            report_every = Instant::now();
            let busy: Vec<String> = held
                .iter()
                .filter(|(_, n)| **n > 0)
                .map(|(queue, n)| format!("{queue}: {n}"))
                .collect();
            eprintln!("soak: draining, held: {}", busy.join(", "));
        }
        if Instant::now() > deadline {
            let mut detail = Vec::new();
            for (queue, count) in held.iter().filter(|(_, count)| **count > 0) {
                detail.push(format!(
                    "{queue}: {count} ({})",
                    queue_detail(&sqs, &t.stack_name, queue).await
                ));
            }
            report
                .violations
                .push(format!("queues never drained: {}", detail.join("; ")));
            return;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// A stuck queue's counts apart (visible, in flight, delayed), for the report.
async fn queue_detail(sqs: &aws_sdk_sqs::Client, stack: &str, queue: &str) -> String {
    let Ok(url) = sqs.get_queue_url().queue_name(queue).send().await else {
        return format!("{stack}: no such queue");
    };
    let attributes = sqs
        .get_queue_attributes()
        .queue_url(url.queue_url.unwrap_or_default())
        .attribute_names(QueueAttributeName::All)
        .send()
        .await
        .map(|a| a.attributes.unwrap_or_default())
        .unwrap_or_default();
    let mut shown: Vec<String> = attributes
        .iter()
        .filter(|(name, _)| {
            name.as_str().starts_with("Approximate") || name.as_str() == "VisibilityTimeout"
        })
        .map(|(name, value)| format!("{}={value}", name.as_str()))
        .collect();
    shown.sort();
    shown.join(", ")
}

/// An SQS client of the emulator, to look behind the API.
fn sqs_client() -> aws_sdk_sqs::Client {
    aws_sdk_sqs::Client::new(&platform::aws::sdk_config(&platform::Env::from_process()))
}

/// Messages in each of the stack's queues, visible or in flight; delayed ones are work for
/// later by design (a feed's next refresh), not left over.
async fn queued(sqs: &aws_sdk_sqs::Client, stack: &str) -> BTreeMap<String, i64> {
    let urls = sqs
        .list_queues()
        .queue_name_prefix(format!("{stack}-"))
        .send()
        .await
        .expect("ListQueues")
        .queue_urls
        .unwrap_or_default();
    let mut held = BTreeMap::new();
    for url in urls {
        let attributes = sqs
            .get_queue_attributes()
            .queue_url(&url)
            .attribute_names(QueueAttributeName::ApproximateNumberOfMessages)
            .attribute_names(QueueAttributeName::ApproximateNumberOfMessagesNotVisible)
            .send()
            .await
            .expect("GetQueueAttributes")
            .attributes
            .unwrap_or_default();
        let count: i64 = attributes
            .values()
            .filter_map(|v| v.parse::<i64>().ok())
            .sum();
        let name = url.rsplit('/').next().unwrap_or(&url).to_string();
        held.insert(name, count);
    }
    held
}

/// Sweeps the incidents' outbox until it is empty; how many events it published.
async fn outbox_swept(t: &TestStack) -> Result<usize, String> {
    let later = platform::Clock::fixed(chrono::Utc::now() + chrono::Duration::minutes(10));
    let sweeper = incidents_sweeper_function::IncidentsSweeper::from_env(
        &t.env("IncidentsSweeperFunction"),
        later,
    )
    .await
    .map_err(|e| e.to_string())?;
    let mut published = 0;
    for _ in 0..50 {
        match sweeper.run().await.map_err(|e| e.to_string())? {
            0 => return Ok(published),
            n => published += n,
        }
    }
    Err(format!(
        "the outbox still held events after {published} were published"
    ))
}

async fn get_json(t: &TestStack, path: &str, token: Option<&str>) -> (u16, Value) {
    let mut request = t.http.request(Method::GET, t.url(path));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let answer = request.send().await.expect("the stack answers");
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap_or(Value::Null))
}

async fn check(
    t: &TestStack,
    members: &[Member],
    sources: &[String],
    operator: &str,
    made: &Made,
    report: &mut Report,
) {
    let mut violations = Vec::new();
    let mut checked = BTreeMap::new();

    // News: each source's count is the users holding it.
    let mut holders: BTreeMap<&str, i64> = BTreeMap::new();
    for member in members {
        let (_, subscriptions) =
            get_json(t, "/api/users/users/me/subscriptions", Some(&member.token)).await;
        for id in subscriptions["sourceIds"].as_array().into_iter().flatten() {
            if let Some(source) = sources.iter().find(|s| id == s.as_str()) {
                *holders.entry(source.as_str()).or_default() += 1;
            }
        }
    }
    for source in sources {
        let (status, body) = get_json(t, &content::source(source), None).await;
        let counted = match status {
            200 => body["subscriberCount"].as_i64().unwrap_or(-1),
            // The last subscriber left: the source is retired.
            404 => 0,
            other => {
                violations.push(format!("source {source}: GET answered {other}"));
                continue;
            }
        };
        let held = holders.get(source.as_str()).copied().unwrap_or(0);
        if counted != held {
            violations.push(format!(
                "source {source}: subscriberCount {counted}, {held} subscribers"
            ));
        }
    }
    checked.insert("subscriberCount = subscribers", sources.len() as u64);

    // Community: each post's counts are its marks, its view rows and its comments.
    let view_rows = view_rows(t).await;
    for post in &made.posts {
        let (status, public) = get_json(t, &post_path(post), None).await;
        if status != 200 {
            violations.push(format!("post {post}: GET answered {status}"));
            continue;
        }
        let (mut likes, mut dislikes, mut saves) = (0, 0, 0);
        for member in members {
            let (_, mine) = get_json(t, &post_path(post), Some(&member.token)).await;
            likes += i64::from(mine["isLikedByMe"] == true);
            dislikes += i64::from(mine["isDislikedByMe"] == true);
            saves += i64::from(mine["isBookmarkedByMe"] == true);
        }
        let views = view_rows.get(post.as_str()).copied().unwrap_or(0);
        let (_, comments) = get_json(t, &format!("{}/comments", post_path(post)), None).await;
        let comments = count_comments(&comments);
        for (what, shown, truth) in [
            ("likeCount", &public["likeCount"], likes),
            ("dislikeCount", &public["dislikeCount"], dislikes),
            ("saveCount", &public["saveCount"], saves),
            ("viewCount", &public["viewCount"], views),
            ("commentCount", &public["commentCount"], comments),
        ] {
            if shown.as_i64() != Some(truth) {
                violations.push(format!("post {post}: {what} {shown}, {truth} in fact"));
            }
        }
    }
    checked.insert(
        "post counts = marks, views, comments",
        made.posts.len() as u64,
    );

    // Incidents: every accepted log once on the timeline, the timeline once in the metrics.
    let timeline = timeline(t, operator).await;
    let mut seen = BTreeMap::<&str, u32>::new();
    for id in &timeline {
        *seen.entry(id.as_str()).or_default() += 1;
    }
    for (id, times) in &seen {
        if *times > 1 {
            violations.push(format!("log {id} is on the timeline {times} times"));
        }
    }
    for id in &made.logs {
        if !seen.contains_key(id.as_str()) {
            violations.push(format!("accepted log {id} is not on the timeline"));
        }
    }
    checked.insert("accepted logs on the timeline once", made.logs.len() as u64);
    let scrape = t.scrape().await;
    let counted: f64 = scrape
        .series("incident_logs_ingested_total")
        .iter()
        .filter(|(labels, _)| labels.get("service").map(String::as_str) == Some("soak"))
        .map(|(_, value)| value)
        .sum();
    if counted != seen.len() as f64 {
        violations.push(format!(
            "the metrics count {counted} soak logs, the timeline holds {}",
            seen.len()
        ));
    }
    checked.insert("timeline logs counted once in the metrics", 1);

    // Incidents: the events EventBridge refused wait in the outbox; the sweep (its clock past
    // the rescue wait) publishes every one, and leaves none.
    match outbox_swept(t).await {
        Ok(published) => {
            checked.insert(
                "incident events left in the outbox, published",
                published as u64,
            );
        }
        Err(e) => violations.push(format!("the incident events' sweep: {e}")),
    }

    // Recipes: every created recipe in its owner's list once.
    let mut lists: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for member in members.iter().filter(|m| !m.cook.is_empty()) {
        lists.insert(member.cook.as_str(), recipe_ids(t, &member.cook).await);
    }
    for (id, owner) in &made.recipes {
        let listed = lists
            .get(owner.as_str())
            .map_or(0, |ids| ids.iter().filter(|i| *i == id).count());
        if listed != 1 {
            violations.push(format!("recipe {id} is listed {listed} times"));
        }
    }
    checked.insert("created recipes listed once", made.recipes.len() as u64);

    // Identity: every account registered can log in.
    for username in &made.accounts {
        let response = t.login_as(username, &password(username)).await;
        if response.status() != 200 {
            violations.push(format!(
                "account {username} was registered and cannot log in: {}",
                response.status()
            ));
        }
    }
    checked.insert("registered accounts log in", made.accounts.len() as u64);

    // Every queue empty, dead-letter queues included.
    let sqs = sqs_client();
    let held = queued(&sqs, &t.stack_name).await;
    for (queue, count) in &held {
        if *count != 0 {
            violations.push(format!("queue {queue} holds {count} messages"));
        }
    }
    checked.insert("queues empty, dead letters included", held.len() as u64);

    report.violations.extend(violations);
    report.checked.extend(checked);
}

/// View dedupe rows (`VIEW#{post}#{reader}#{hour}`) per post, from every page of the table.
async fn view_rows(t: &TestStack) -> BTreeMap<String, i64> {
    let dynamodb = t.dynamodb().await;
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let page = dynamodb
            .scan()
            .table_name(t.table("CommunityTable"))
            .filter_expression("begins_with(pk, :view)")
            .expression_attribute_values(":view", AttributeValue::S("VIEW#".into()))
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("scan");
        items.extend(page.items.unwrap_or_default());
        start = page.last_evaluated_key;
        if start.is_none() {
            break;
        }
    }
    let mut rows = BTreeMap::new();
    for item in items {
        let Some(pk) = item.get("pk").and_then(|v| v.as_s().ok()) else {
            continue;
        };
        if let Some(rest) = pk.strip_prefix("VIEW#") {
            let post = rest.split('#').next().unwrap_or_default().to_string();
            *rows.entry(post).or_default() += 1;
        }
    }
    rows
}

/// Comments in a tree, replies included.
fn count_comments(tree: &Value) -> i64 {
    tree.as_array()
        .into_iter()
        .flatten()
        .map(|c| 1 + count_comments(&c["replies"]))
        .sum()
}

/// Every soak log id on the timeline, a page at a time.
async fn timeline(t: &TestStack, operator: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..10_000 {
        let mut path = format!("{LOGS}?serviceName=soak&limit=500");
        if let Some(cursor) = &cursor {
            path.push_str(&format!("&cursor={cursor}"));
        }
        let answer = t
            .http
            .get(t.url(&path))
            .bearer_auth(operator)
            .send()
            .await
            .expect("the stack answers");
        assert_eq!(answer.status(), 200, "GET {path}");
        cursor = answer
            .headers()
            .get("x-next-cursor")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let page: Value = answer.json().await.expect("json");
        ids.extend(
            page.as_array()
                .into_iter()
                .flatten()
                .filter_map(|log| log["id"].as_str().map(str::to_string)),
        );
        if cursor.is_none() {
            break;
        }
    }
    ids
}

/// A cook's recipe ids, every page (`limit` and `after`, oldest first).
async fn recipe_ids(t: &TestStack, cook: &str) -> Vec<i64> {
    let mut ids: Vec<i64> = Vec::new();
    for _ in 0..1000 {
        let path = match ids.last() {
            Some(last) => format!("{RECIPES}?limit=20&after={last}"),
            None => format!("{RECIPES}?limit=20"),
        };
        let (status, page) = get_json(t, &path, Some(cook)).await;
        assert_eq!(status, 200, "GET {path}: {page}");
        let page: Vec<i64> = page
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["id"].as_i64())
            .collect();
        let full = page.len() == 20;
        ids.extend(page);
        if !full {
            break;
        }
    }
    ids
}
