//! The web client in a real browser: the whole stack (every function of `template.yaml`)
//! against the emulator, real feeds served on loopback and an OpenAI-compatible server, and
//! `tests/browser/journey.mjs` driving headless Chromium through every feature of the news
//! reader on a desktop and a phone viewport; `tests/browser/community-journey.mjs` does the
//! same for the community pages (community), `tests/browser/digest-journey.mjs` for the
//! digest pages, `tests/browser/recipes-journey.mjs` for the recipe pages,
//! `tests/browser/recipe-box-journey.mjs` for the recipe box (editor, search, plan, list),
//! `tests/browser/incident-journey.mjs` for the incident pages and
//! `tests/browser/incident-analysis-journey.mjs` for the analysis pages (both
//! sending logs through the ingestion API over reqwest when the journey asks),
//! `tests/browser/roles-journey.mjs` for roles and sessions (the accounts page, the sections
//! each role opens, the password change and signing out everywhere), and
//! `tests/browser/apps-journey.mjs` for reading apps (app passwords); and
//! `tests/browser/writing-journey.mjs` for writing a Markdown post.
//! Screenshots land in `tests/browser/artifacts/`.
//!
//! Needs Node.js, `npm ci` in `tests/browser` and Chromium (`/usr/bin/chromium`, or
//! `CHROMIUM_PATH`); `local/test` installs the last two.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::routing::post;
use axum::Router;
use stack_tests::feeds::{FeedDocument, FeedServer, ATOM};
use stack_tests::genai::llm_parameters;
use stack_tests::incidents::{INCIDENTS, LOGS};
use stack_tests::llm::{FakeLlm, Gate, DEFAULT_REPLY, TEST_KEY, TEST_MODEL};
use stack_tests::server::TestServer;
use stack_tests::stack::{ADMIN_PASSWORD, ADMIN_USERNAME, INGEST_KEY};
use stack_tests::{repo_root, TestStack};

/// What the model answers while the journey asks for a bulleted summary.
const BULLETS: &str = "- The loopback project shipped a new release.\n\
                       - It focuses on reliability and a calmer review process.\n\
                       - The previous release stays supported until the end of the year.";

/// The fake model, and the gate its streamed answers wait at while the journey holds them.
struct Control {
    llm: Arc<FakeLlm>,
    gate: std::sync::Mutex<Option<Gate>>,
}

/// Lets the journey (another process) steer the fake model: `POST /outage?on=1|0` makes
/// every call fail with 503 or answer again; `POST /bullets?on=1|0` answers text tasks with
/// a bulleted list, or with the default reply; `POST /hold?on=1|0` holds the last chunk of
/// streamed answers, or lets it go.
async fn llm_control(llm: Arc<FakeLlm>) -> TestServer {
    fn on(q: &BTreeMap<String, String>) -> bool {
        q.get("on").is_some_and(|v| v == "1")
    }
    async fn outage(
        State(control): State<Arc<Control>>,
        Query(q): Query<BTreeMap<String, String>>,
    ) -> StatusCode {
        if on(&q) {
            control.llm.fail(503);
        } else {
            control.llm.reset();
        }
        StatusCode::NO_CONTENT
    }
    async fn bullets(
        State(control): State<Arc<Control>>,
        Query(q): Query<BTreeMap<String, String>>,
    ) -> StatusCode {
        if on(&q) {
            control.llm.reply(BULLETS);
        } else {
            control.llm.reset();
        }
        StatusCode::NO_CONTENT
    }
    async fn hold(
        State(control): State<Arc<Control>>,
        Query(q): Query<BTreeMap<String, String>>,
    ) -> StatusCode {
        let mut gate = control.gate.lock().expect("gate");
        if on(&q) {
            *gate = Some(control.llm.hold_last_chunk());
        } else if let Some(gate) = gate.take() {
            gate.open();
        }
        StatusCode::NO_CONTENT
    }
    let control = Control {
        llm,
        gate: std::sync::Mutex::new(None),
    };
    let app = Router::new()
        .route("/outage", post(outage))
        .route("/bullets", post(bullets))
        .route("/hold", post(hold))
        .with_state(Arc::new(control));
    TestServer::start(app).await
}

/// An RSS feed of `items` articles, each with a category, so that the reader has pages to
/// turn and topics to browse.
fn rss_feed(title: &str, slug: &str, items: usize) -> String {
    let topics = ["Technology", "Science", "Open Source"];
    let mut body = String::new();
    for n in 1..=items {
        let topic = topics[n % topics.len()];
        body.push_str(&format!(
            "<item><title>{title} story {n}: a report on item {n}</title>\
             <link>https://news.example.com/{slug}/{n}</link>\
             <guid>https://news.example.com/{slug}/{n}</guid>\
             <author>desk@example.com (Story Desk)</author>\
             <category>{topic}</category>\
             <pubDate>Tue, {day:02} Mar 2026 {hour:02}:00:00 GMT</pubDate>\
             <description>Summary of story {n}.</description>\
             <content:encoded><![CDATA[<p>Story {n} opens with the main fact: the loopback \
             project shipped release {n}.</p><p>Its maintainers said the release focuses on \
             reliability and a calmer review process.</p><p>Users can upgrade today; the \
             previous release stays supported until the end of the year.</p>]]></content:encoded>\
             </item>",
            day = 1 + n % 28,
            hour = n % 24,
        ));
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
         <rss version=\"2.0\" xmlns:content=\"http://purl.org/rss/1.0/modules/content/\">\
         <channel><title>{title}</title><link>https://news.example.com/{slug}</link>\
         <description>{title}: the newest stories.</description>{body}</channel></rss>"
    )
}

fn browser_dir() -> PathBuf {
    repo_root().join("tests").join("browser")
}

/// Chromium's path, after checking that the journey's npm packages and the browser are there.
fn chromium() -> String {
    let dir = browser_dir();
    assert!(
        dir.join("node_modules").join("playwright-core").exists(),
        "tests/browser/node_modules is missing: run `npm ci` in tests/browser (local/test does)"
    );
    let chromium = std::env::var("CHROMIUM_PATH").unwrap_or_else(|_| "/usr/bin/chromium".into());
    assert!(
        PathBuf::from(&chromium).exists(),
        "{chromium} is missing: install Debian's chromium (local/test does) or set CHROMIUM_PATH"
    );
    chromium
}

/// Asserts that the journey wrote each of `names` in `tests/browser/artifacts`.
fn assert_screenshots(names: &[&str]) {
    let artifacts = browser_dir().join("artifacts");
    for name in names {
        let shot = artifacts.join(name);
        let size = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
        assert!(size > 1000, "screenshot {name} was not written");
    }
}

/// Runs `script` (a journey of `tests/browser`) against `t` with `vars` (and the provisioned
/// administrator's credentials), and fails when it does.
async fn run_journey(t: &TestStack, script: &str, vars: &[(&str, String)]) {
    let dir = browser_dir();
    let chromium = chromium();
    let artifacts = dir.join("artifacts");
    std::fs::create_dir_all(&artifacts).expect("artifacts dir");
    let mut command = tokio::process::Command::new("node");
    command
        .arg(script)
        .arg(t.stack.base_url())
        .current_dir(&dir)
        .env("CHROMIUM_PATH", &chromium)
        .env("JOURNEY_ARTIFACTS", &artifacts)
        .env("JOURNEY_ADMIN_USERNAME", ADMIN_USERNAME)
        .env("JOURNEY_ADMIN_PASSWORD", ADMIN_PASSWORD)
        .stdin(Stdio::null())
        .kill_on_drop(true);
    for (name, value) in vars {
        command.env(name, value);
    }
    let mut child = command
        .spawn()
        .expect("run node (Node.js 20 or newer is needed)");
    let status = tokio::time::timeout(Duration::from_secs(300), child.wait())
        .await
        .unwrap_or_else(|_| panic!("{script} finished within 5 minutes"))
        .expect("journey exit status");
    assert!(
        status.success(),
        "{script} failed ({status}); see its output above"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn news_reader_journey_in_chromium() {
    let feeds = FeedServer::start().await;
    let tech = feeds.put(
        "/tech.xml",
        FeedDocument::rss(rss_feed("Loopback Tech Daily", "tech", 14)),
    );
    let world = feeds.put("/world.atom", FeedDocument::atom(ATOM));
    let not_a_feed = feeds.put(
        "/about.html",
        FeedDocument::html("<!doctype html><title>About</title><p>Not a feed.</p>"),
    );

    let llm = Arc::new(FakeLlm::start().await);
    let control = llm_control(Arc::clone(&llm)).await;
    let mut parameters = llm_parameters(&llm);
    parameters.insert("LlmProvider".to_string(), "cloud".to_string());
    let t = TestStack::start_with(parameters).await;

    run_journey(
        &t,
        "journey.mjs",
        &[
            ("JOURNEY_FEED_TECH", tech),
            ("JOURNEY_FEED_WORLD", world),
            ("JOURNEY_NOT_A_FEED", not_a_feed),
            ("JOURNEY_LLM_CONTROL", control.url("")),
            ("JOURNEY_LLM_REPLY", DEFAULT_REPLY.to_string()),
        ],
    )
    .await;
    drop(control);

    assert_screenshots(&[
        "01-register-errors-desktop.png",
        "03-articles-desktop.png",
        "05-ai-panel-desktop.png",
        "06-ai-error-desktop.png",
        "09-articles-phone.png",
        "10-article-phone.png",
        "12-swagger-ui-desktop.png",
    ]);

    // The assistant really asked the model for each kind of answer, with the key and model
    // the stack was configured with.
    let calls = llm.calls();
    for task in [
        "summarize",
        "explain",
        "rate the tone",
        "answer the user's question",
    ] {
        assert!(
            calls.iter().any(|c| c.content_of("system").contains(task)),
            "the model was never asked to {task}"
        );
    }
    assert!(calls
        .iter()
        .all(|c| c.bearer() == Some(TEST_KEY) && c.model() == Some(TEST_MODEL)));
}

/// The community pages in Chromium: writing a post with new topics and a 9 MiB cover sent
/// through a presigned upload (served by the emulator over plain http, which the page's CSP
/// must allow exactly, as it must allow the upload's PUT), the post's AI summary (written by
/// the fake model), topics whose names differ only by symbols or are not Latin, topic
/// feeds and statistics, search, comments and replies, editing and deleting a comment,
/// deleting a post, reactions, bookmarks, drafts and their privacy, on a desktop and a phone,
/// as two users; then the provisioned administrator removes a comment and a post with a
/// reason and reads both in the moderation log.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn community_journey_in_chromium() {
    let llm = FakeLlm::start().await;
    let t = TestStack::start_with(llm_parameters(&llm)).await;
    // Where the uploads function's image URLs point, as the web function allows them.
    let uploads = web_function::csp::uploads_image_source(&t.env("WebFunction"))
        .expect("the web function's uploads settings")
        .expect("the local stack gives the web function the uploads bucket");
    assert!(
        uploads.starts_with("http://"),
        "locally the emulator serves uploads over plain http: {uploads}"
    );
    // Where the page sends a presigned upload, as the web function allows it.
    let incoming = web_function::csp::uploads_put_source(&t.env("WebFunction"))
        .expect("the web function's uploads settings")
        .expect("the local stack gives the web function the uploads bucket");
    run_journey(
        &t,
        "community-journey.mjs",
        &[
            ("JOURNEY_UPLOADS_IMAGES", uploads),
            ("JOURNEY_UPLOADS_INCOMING", incoming),
            ("JOURNEY_LLM_REPLY", DEFAULT_REPLY.to_string()),
        ],
    )
    .await;
    // The summary the page showed was the model's, asked for with the post's content.
    assert!(
        llm.calls().iter().any(|c| c
            .prompt()
            .contains("Hollyhocks grow tall along the loopback fence")),
        "the model was never asked to summarise the journey's post"
    );
    assert_screenshots(&[
        "c01-write-desktop.png",
        "c02-post-desktop.png",
        "c03-community-desktop.png",
        "c04-comments-desktop.png",
        "c05-drafts-desktop.png",
        "c06-community-phone.png",
        "c07-post-phone.png",
        "c08-moderation-log-desktop.png",
    ]);
}

/// The day the digest journey's news is published on (a Monday).
const DIGEST_DAY: &str = "2026-03-02";

/// What the model answers for a digest, in the shape the digest worker asks for (as in
/// `tests/community/digests/`): event 1 is the story two sources report, event 2 the storm.
const DIGEST_ANSWER: &str = r#"{"subtitle": "Tides and storms", "summary": "The harbour goes tidal while a storm closes the road.",
 "events": [{"index": 1, "headline": "Harbour switches on tidal power", "summaryBullets": ["The station powers 40,000 homes.", "It opened on Monday."]},
            {"index": 2, "headline": "Storm shuts the coast road", "summaryBullets": ["Drivers are diverted inland."]}]}"#;

/// An RSS feed of `items` (title, category, hour and minute of `DIGEST_DAY`, description),
/// linked on `https://{slug}.example.com/`.
fn day_feed(title: &str, slug: &str, items: &[(&str, &str, &str, &str)]) -> String {
    let mut body = String::new();
    for (n, (headline, category, at, text)) in items.iter().enumerate() {
        body.push_str(&format!(
            "<item><title>{headline}</title>\
             <link>https://{slug}.example.com/news/{n}</link>\
             <guid>https://{slug}.example.com/news/{n}</guid>\
             <category>{category}</category>\
             <pubDate>Mon, 02 Mar 2026 {at}:00 GMT</pubDate>\
             <description>{text}</description></item>"
        ));
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><rss version=\"2.0\">\
         <channel><title>{title}</title><link>https://{slug}.example.com/</link>\
         <description>{title}: the day's news.</description>{body}</channel></rss>"
    )
}

/// Digests in Chromium: two feeds report the day's tidal power story in other words (and one
/// of them a storm); a reader following Energy gets a PERSONAL digest from an admin's
/// generation job (run by the digest worker, the model answering `DIGEST_ANSWER`), lists it,
/// and reads its story with both sources; a reader following nothing is given the day's
/// PUBLIC digest, which anyone reads at `/digests/public` (before it existed that page said
/// so); nobody else can open the PERSONAL one.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn digest_journey_in_chromium() {
    let feeds = FeedServer::start().await;
    let harbour = feeds.put(
        "/harbour.xml",
        FeedDocument::rss(day_feed(
            "Harbour Herald",
            "harbour",
            &[
                (
                    "Harbour city opens its first tidal power station",
                    "Energy",
                    "08:00",
                    "Harbour City opened its first tidal power station on Monday; it will power 40,000 homes.",
                ),
                (
                    "Storm closes the coast road",
                    "Weather",
                    "12:00",
                    "A storm closed the coast road on Monday afternoon and drivers were sent inland.",
                ),
            ],
        )),
    );
    let coast = feeds.put(
        "/coast.xml",
        FeedDocument::rss(day_feed(
            "Coast Courier",
            "coast",
            &[(
                "Tidal power station switched on in Harbour City",
                "Energy",
                "09:30",
                "The tidal power station of Harbour City was switched on on Monday, powering 40,000 homes.",
            )],
        )),
    );

    let llm = FakeLlm::start().await;
    llm.reply(DIGEST_ANSWER);
    let t = TestStack::start_with(llm_parameters(&llm)).await;

    run_journey(
        &t,
        "digest-journey.mjs",
        &[
            ("JOURNEY_FEED_HARBOUR", harbour),
            ("JOURNEY_FEED_COAST", coast),
            ("JOURNEY_DIGEST_DAY", DIGEST_DAY.to_string()),
            ("JOURNEY_DIGEST_ANSWER", DIGEST_ANSWER.to_string()),
        ],
    )
    .await;
    assert_screenshots(&[
        "d01-digests-desktop.png",
        "d02-digest-desktop.png",
        "d03-public-digest-phone.png",
    ]);

    // One model call per digest: the reader's PERSONAL one (the Energy story's two reports,
    // not the storm), then the day's PUBLIC one (everything).
    let calls = llm.calls();
    assert_eq!(calls.len(), 2, "one call per generated digest");
    let personal = calls[0].prompt();
    assert!(
        personal.contains("Harbour city opens its first tidal power station")
            && personal.contains("Tidal power station switched on in Harbour City")
            && !personal.contains("Storm closes the coast road"),
        "{personal}"
    );
    assert!(calls[1].prompt().contains("Storm closes the coast road"));
}

/// The recipe pages in Chromium: a recipe account logs in on the web client,
/// writes a recipe, reads its nutrients from the food table, saves a recipe the (fake) model
/// suggested, sets its preferences, edits the recipe and asks about it, turns the list's
/// pages, on a desktop and a phone.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn recipes_journey_in_chromium() {
    let llm = FakeLlm::start().await;
    llm.reply(
        r#"[{"title": "Tomato salad", "ingredients": [{"quantity": 3, "unit": "", "name": "tomatoes"}], "instructions": ["Slice.", "Season."], "portions": 2}]"#,
    );
    let t = TestStack::start_with(llm_parameters(&llm)).await;
    run_journey(&t, "recipes-journey.mjs", &[]).await;
    assert_screenshots(&[
        "r01-recipe-desktop.png",
        "r02-suggestions-desktop.png",
        "r03-recipes-phone.png",
        "r04-preferences-desktop.png",
        "r05-asked-desktop.png",
    ]);
    assert_eq!(
        llm.call_count(),
        2,
        "one generation and one question; the nutrients came from the table"
    );
    // The question was asked about the recipe as edited.
    let asked = llm.last_call().prompt();
    assert!(
        asked.contains("What can I use instead of eggs?") && asked.contains("Serve warm."),
        "{asked}"
    );
}

/// The recipe box in Chromium: the editor keeps `1/2 cup cream`, `½ tsp chili flakes`, `a
/// pinch of salt` and `salt to taste` as written through a save and an edit; tags and search;
/// portions scaled; the allergy warning; a week's plan and its shopping list (checked off,
/// added to, kept); delete.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn recipe_box_journey_in_chromium() {
    // The recipe functions and the web client's.
    let t = TestStack::start_only(&[
        "RecipesFunction",
        "RecipesSweeperFunction",
        "AssistantFunction",
        "WebFunction",
    ])
    .await;
    run_journey(&t, "recipe-box-journey.mjs", &[]).await;
    assert_screenshots(&[
        "b01-recipe-desktop.png",
        "b02-search-desktop.png",
        "b03-plan-desktop.png",
        "b04-shopping-desktop.png",
    ]);
}

/// Lets an incident journey send logs as a service does: `POST /burst?service=&severity=&count=&message=`
/// sends `count` (1 to 500) logs through `POST /api/v1/logs` with the stack's ingest key
/// (reqwest, the way any client would), each `{message} after {n} ms (order {m})` with its
/// own numbers, so that they share one fingerprint; answers the API's `{accepted, ids}`.
async fn ingest_control(t: &TestStack) -> TestServer {
    async fn burst(
        State((http, url)): State<(reqwest::Client, String)>,
        Query(q): Query<BTreeMap<String, String>>,
    ) -> (StatusCode, String) {
        let field = |name: &str| q.get(name).cloned().unwrap_or_default();
        let count = field("count").parse::<usize>().unwrap_or(0);
        if !(1..=500).contains(&count) {
            return (StatusCode::BAD_REQUEST, "count: 1 to 500".into());
        }
        let logs: Vec<serde_json::Value> = (0..count)
            .map(|n| {
                serde_json::json!({
                    "serviceName": field("service"),
                    "type": "APPLICATION_LOG",
                    "severity": field("severity"),
                    "logContent": format!("{} after {} ms (order {})", field("message"), 3000 + 17 * n, 81000 + n),
                })
            })
            .collect();
        let sent = http
            .post(&url)
            .header("x-api-key", INGEST_KEY)
            .json(&logs)
            .send()
            .await;
        match sent {
            Ok(response) if response.status() == reqwest::StatusCode::ACCEPTED => {
                (StatusCode::OK, response.text().await.unwrap_or_default())
            }
            Ok(response) => (
                StatusCode::BAD_GATEWAY,
                format!(
                    "{}: {}",
                    response.status(),
                    response.text().await.unwrap_or_default()
                ),
            ),
            Err(e) => (StatusCode::BAD_GATEWAY, e.to_string()),
        }
    }
    let app = Router::new()
        .route("/burst", post(burst))
        .with_state((t.http.clone(), t.url(LOGS)));
    TestServer::start(app).await
}

/// The incident pages in Chromium, as an operator: logs sent with the ingest key
/// arrive on the live timeline (filtered, paged by cursor, paused and resumed); the burst of
/// ERRORs is exactly one incident, whose grouped logs and reason show, acknowledged then
/// resolved with a note and an assignee; its alert acknowledged and resolved; an alert rule
/// added and changed, then deleted by the admin (the operator is not offered it); a postmortem
/// linked to the incident; each form's bad input the API's 400 under the field it names; then
/// the incident and timeline on a phone.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn incident_journey_in_chromium() {
    let t = TestStack::start().await;
    let control = ingest_control(&t).await;
    run_journey(
        &t,
        "incident-journey.mjs",
        &[("JOURNEY_INGEST_CONTROL", control.url(""))],
    )
    .await;
    assert_screenshots(&[
        "i01-timeline-desktop.png",
        "i02-incident-desktop.png",
        "i03-rules-desktop.png",
        "i04-logbook-desktop.png",
        "i05-incident-phone.png",
        "i06-timeline-phone.png",
    ]);
    // Behind the pages: the one incident is RESOLVED with the burst's six logs, and its
    // history holds the opening and the two steps taken on the page.
    let (_, token) = t.operator("incident-checker").await;
    let incidents = t.get_ok_auth(INCIDENTS, &token).await;
    let incidents = incidents.as_array().expect("incidents");
    assert_eq!(incidents.len(), 1, "{incidents:?}");
    assert_eq!(incidents[0]["status"], "RESOLVED");
    assert_eq!(incidents[0]["occurrences"], 6);
    let id = incidents[0]["id"].as_str().expect("id");
    let detail = t.get_ok_auth(&format!("{INCIDENTS}/{id}"), &token).await;
    let moves: Vec<&str> = detail["history"]
        .as_array()
        .expect("history")
        .iter()
        .map(|e| e["to"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(moves, ["ACTIVE", "ACKNOWLEDGED", "RESOLVED"], "{detail}");
    assert_eq!(detail["history"][1]["note"], "Looking into the gateway");
}

/// The operator's console in Chromium: an ingest key issued (shown once), used and revoked;
/// three incidents arriving in the live table with severity, age and occurrences; two
/// acknowledged at once and the counts following; a selection kept across refreshes; on a
/// phone the respond actions on the first screen, an assignee picked from the operators and a
/// note's line breaks kept; the timeline's filters folded on a phone, times to the second and
/// a log's attributes and trace in its detail; a silence now for 30 minutes and one scheduled,
/// the first expired by hand.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn incident_console_in_chromium() {
    let t = TestStack::start().await;
    let control = ingest_control(&t).await;
    run_journey(
        &t,
        "console-journey.mjs",
        &[("JOURNEY_INGEST_CONTROL", control.url(""))],
    )
    .await;
    assert_screenshots(&[
        "oc01-keys-desktop.png",
        "oc02-table-desktop.png",
        "oc03-incident-phone.png",
        "oc04-timeline-phone.png",
        "oc05-silences-desktop.png",
    ]);
    // Behind the pages: the counts the table showed, and the assignment in the history with
    // its note's line break.
    let (_, token) = t.operator("console-checker").await;
    let counts = t.get_ok_auth("/api/v1/incidents/counts", &token).await;
    assert_eq!(
        counts,
        serde_json::json!({"ACTIVE": 0, "ACKNOWLEDGED": 2, "RESOLVED": 1})
    );
    let acknowledged = t
        .get_ok_auth(&format!("{INCIDENTS}?status=ACKNOWLEDGED"), &token)
        .await;
    let assigned: Vec<&serde_json::Value> = acknowledged
        .as_array()
        .expect("incidents")
        .iter()
        .filter(|i| {
            i["assignee"]
                .as_str()
                .is_some_and(|a| a.starts_with("partner_"))
        })
        .collect();
    assert_eq!(assigned.len(), 1, "{acknowledged}");
    let id = assigned[0]["id"].as_str().expect("id");
    let detail = t.get_ok_auth(&format!("{INCIDENTS}/{id}"), &token).await;
    let last = detail["history"]
        .as_array()
        .and_then(|h| h.last())
        .cloned()
        .unwrap_or_default();
    assert_eq!(last["from"], "ACKNOWLEDGED");
    assert_eq!(last["to"], "ACKNOWLEDGED");
    assert_eq!(
        last["note"],
        "Handing over to the payments team.\nLedger vendor paged."
    );
}

/// What the model answers every analysis, in the fields API.md asks it for.
const ANALYSIS_ANSWER: &str = r#"{"summary": "Checkout's payment gateway calls time out in a burst.", "root_cause": "The gateway's connection pool is exhausted.", "severity": "HIGH", "recommendations": ["Restart the gateway connection pool.", "Raise the pool's size and alert on its saturation."]}"#;

/// The analysis pages in Chromium (the incident platform's intelligence routes): a runbook added and found
/// by retrieval, an incident analysed in the cloud with retrieval (the cited passage shown),
/// a log analysed locally without it, the runbook deleted, an analysis on a phone. Both
/// providers are the fake model.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn incident_analysis_in_chromium() {
    let llm = FakeLlm::start().await;
    llm.reply(ANALYSIS_ANSWER);
    let mut parameters = llm_parameters(&llm);
    parameters.insert("LocalLlmBaseUrl".to_string(), llm.base_url());
    let t = TestStack::start_with(parameters).await;
    let control = ingest_control(&t).await;
    run_journey(
        &t,
        "incident-analysis-journey.mjs",
        &[
            ("JOURNEY_INGEST_CONTROL", control.url("")),
            ("JOURNEY_ANALYSIS_ANSWER", ANALYSIS_ANSWER.to_string()),
            (
                "JOURNEY_METRICS_USERNAME",
                stack_tests::stack::METRICS_USERNAME.to_string(),
            ),
            (
                "JOURNEY_METRICS_PASSWORD",
                stack_tests::stack::METRICS_PASSWORD.to_string(),
            ),
        ],
    )
    .await;
    assert_screenshots(&[
        "a01-analysis-desktop.png",
        "a02-analysis-phone.png",
        "a03-dashboard-desktop.png",
    ]);
    // Three analyses reached the model; with retrieval the runbook's passage went with the
    // logs, without it (the local one) it did not.
    let calls = llm.calls();
    assert_eq!(calls.len(), 3, "one model call per analysis");
    let passage = "restart the gateway connection pool";
    assert!(calls[0].prompt().contains(passage), "{}", calls[0].prompt());
    assert!(
        !calls[1].prompt().contains(passage),
        "{}",
        calls[1].prompt()
    );
}

/// Roles and sessions in Chromium: the sections each role opens (no Incidents tab for an
/// anonymous visitor or a plain reader, the page saying which role is needed), the admin's
/// accounts page paged and granting OPERATOR (and refusing to take the admin's own ADMIN), the
/// granted reader signing in again to the Incidents tab, a password change that keeps this
/// session and ends the other device's (the sign-in page giving the reason), and signing out
/// everywhere, on a desktop and a phone.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn roles_journey_in_chromium() {
    let t = TestStack::start().await;
    run_journey(&t, "roles-journey.mjs", &[]).await;
    assert_screenshots(&[
        "ro00-long-name-desktop.png",
        "ro01-needs-role-desktop.png",
        "ro02-accounts-desktop.png",
        "ro03-settings-desktop.png",
        "ro04-session-ended-phone.png",
        "ro05-accounts-phone.png",
    ]);
    // Behind the pages: the reader the admin granted holds OPERATOR, the plain reader does not.
    let admin = t.admin_token().await;
    let accounts = t
        .get_ok_auth(
            &format!("{}?limit=100", stack_tests::users::ACCOUNTS),
            &admin,
        )
        .await;
    let roles = |prefix: &str| -> Vec<String> {
        accounts["users"]
            .as_array()
            .expect("users")
            .iter()
            .find(|u| {
                u["username"]
                    .as_str()
                    .is_some_and(|n| n.starts_with(prefix))
            })
            .unwrap_or_else(|| panic!("an account named {prefix}… in {accounts}"))["roles"]
            .as_array()
            .expect("roles")
            .iter()
            .map(|r| r.as_str().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(roles("reader_"), ["USER", "OPERATOR"]);
    assert_eq!(roles("plain_"), ["USER"]);
}

/// The administration's AI pages in Chromium: a post whose summary failed (the fake model
/// failing every delivery) is listed on the failed summaries page and retried from there; the
/// provider page changes the model; the digest jobs page refuses a day after tomorrow (the
/// API's 400 under the field) and follows a job it started to its final status; on a desktop
/// and a phone.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn admin_ai_journey_in_chromium() {
    let llm = FakeLlm::start().await;
    llm.fail(500);
    let mut parameters = llm_parameters(&llm);
    parameters.insert("SummaryRetryDelaySeconds".into(), "1".into());
    let t = TestStack::start_with(parameters).await;
    let (member, token) = t.member("unlucky").await;
    let post = t
        .create_post(
            &token,
            &stack_tests::community::post_input("A summary that failed", &[]),
        )
        .await;
    let id = post["id"].as_str().expect("post id").to_string();
    let summary = format!("/api/v1/posts/{id}/summary");
    let started = std::time::Instant::now();
    while t.get_json(&summary).await["status"] != "FAILED" {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the summary never failed"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    llm.reset();
    run_journey(
        &t,
        "admin-journey.mjs",
        &[
            ("JOURNEY_POST_ID", id.clone()),
            ("JOURNEY_MEMBER_ID", member.clone()),
        ],
    )
    .await;
    assert_screenshots(&[
        "ad01-failed-summaries-desktop.png",
        "ad02-provider-desktop.png",
        "ad03-digest-job-desktop.png",
        "ad04-admin-phone.png",
    ]);
    // Behind the pages: the retried summary was written, and the model is the one chosen.
    let started = std::time::Instant::now();
    while t.get_json(&summary).await["status"] != "COMPLETED" {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the retried summary was never written"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let admin = t.admin_token().await;
    let provider: serde_json::Value = t
        .get_auth("/api/v1/admin/ai/provider", &admin)
        .await
        .json()
        .await
        .expect("provider json");
    assert_eq!(provider["model"], "journey-model");
}

/// Reading apps in Chromium: an app password refused without a name, made and shown once with
/// the server address (`{origin}/api/greader`) and the username, signing an app in through
/// `ClientLogin` (the list then shows its last use), gone from the page after a reload,
/// revoked (the app's next sign-in refused), and the page on a phone.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn app_passwords_in_chromium() {
    let t = TestStack::start().await;
    run_journey(&t, "apps-journey.mjs", &[]).await;
    assert_screenshots(&["a01-app-password-desktop.png", "a02-app-password-phone.png"]);
}

/// Writing a Markdown post in Chromium: the toolbar, the Preview tab (the server's rendering),
/// topics picked from suggestions with the keyboard and added as chips, publishing, the post
/// page's rendered code block, list and link, and the site's Atom feed carrying it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn markdown_writing_in_chromium() {
    let t = TestStack::start().await;
    run_journey(&t, "writing-journey.mjs", &[]).await;
    assert_screenshots(&["w01-preview-desktop.png", "w02-post-desktop.png"]);
}

/// An RSS feed of `items` articles published in the last `items` hours, newest first: recent,
/// so that they are unread (the reader counts what is older than its horizon as read).
fn recent_feed(title: &str, slug: &str, items: usize) -> String {
    let now = chrono::Utc::now();
    let mut body = String::new();
    for n in 1..=items {
        let published = now - chrono::Duration::hours(i64::try_from(n).unwrap());
        body.push_str(&format!(
            "<item><title>{title} {n}: what happened at hour {n}</title>\
             <link>https://news.example.com/{slug}/{n}</link>\
             <guid>https://news.example.com/{slug}/{n}</guid>\
             <pubDate>{date}</pubDate>\
             <description>Summary of {slug} story {n}.</description>\
             <content:encoded><![CDATA[<p>{title} story {n} opens with its main fact.</p>\
             <p>It goes on for a second paragraph.</p>]]></content:encoded></item>",
            date = published.to_rfc2822(),
        ));
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
         <rss version=\"2.0\" xmlns:content=\"http://purl.org/rss/1.0/modules/content/\">\
         <channel><title>{title}</title><link>https://news.example.com/{slug}</link>\
         <description>{title}: the newest stories.</description>{body}</channel></rss>"
    )
}

/// The reader in Chromium: two fake feeds subscribed (the second chosen among a site's feeds),
/// unread counts per source, folder and in all, an article marked read as it opens (the
/// counts drop), starred and found under Starred, j/k/o/m/s/u and `?` on the list and on
/// articles, next and previous, the source put in a folder, the folder marked all read,
/// everything marked read with Shift+A, the folder renamed and deleted, cards and the compact
/// list, the OPML export read back, and on a phone the compact list showing many articles
/// a screen.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reader_journey_in_chromium() {
    let feeds = FeedServer::start().await;
    let tech = feeds.put(
        "/tech.xml",
        FeedDocument::rss(recent_feed("Loopback Tech", "tech", 12)),
    );
    let science = feeds.put(
        "/science.xml",
        FeedDocument::rss(recent_feed("Loopback Science", "science", 4)),
    );
    let world = feeds.put(
        "/world.xml",
        FeedDocument::rss(recent_feed("Loopback World", "world", 2)),
    );
    let site = feeds.put(
        "/site/",
        FeedDocument::html(format!(
            "<!doctype html><html><head><title>Loopback</title>\
             <link rel=\"alternate\" type=\"application/rss+xml\" title=\"Loopback Tech\" href=\"{tech}\">\
             <link rel=\"alternate\" type=\"application/rss+xml\" title=\"Loopback Science\" href=\"{science}\">\
             </head><body><p>Two feeds.</p></body></html>"
        )),
    );
    let t = TestStack::start().await;
    run_journey(
        &t,
        "reader-journey.mjs",
        &[
            ("JOURNEY_FEED_TECH", tech),
            ("JOURNEY_FEED_SCIENCE", science),
            ("JOURNEY_FEED_WORLD", world),
            ("JOURNEY_SITE", site),
        ],
    )
    .await;
    assert_screenshots(&[
        "rd01-reader-desktop.png",
        "rd02-article-desktop.png",
        "rd03-folder-desktop.png",
        "rd04-reader-phone.png",
    ]);
}

/// Community notifications and reports in Chromium: a comment on Alice's post counted on the
/// community header's bell, read in her inbox and marked read; a member reports a post, the
/// administrator removes it from the reports queue, and the reporter's inbox tells the outcome.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn community_notifications_and_reports_in_chromium() {
    let t = TestStack::start().await;
    run_journey(&t, "community-notify-journey.mjs", &[]).await;
    assert_screenshots(&[
        "n01-inbox-desktop.png",
        "n02-reports-desktop.png",
        "n03-outcome-desktop.png",
    ]);
}
