//! The news intake function: feeds coming into the news reader, behind `POST
//! /api/content/sources`, `POST /api/content/sources/discover` and each source's WebSub
//! callback `/api/content/websub/{sourceId}`.
//!
//! A person's submission or discovery (`submissions`) and a hub's verification or delivery
//! (`websub`) each make one call on [`news::FeedIntake`], which fetches, parses and stores.
//! It is its own function so the feed parser (feed-rs, the encodings, the HTML tokenizer) is
//! linked here and not into the content function that answers every read.

mod submissions;
mod websub;

use std::sync::Arc;

use axum::Router;
use identity_client::IdentityClient;
use news::{DiscoveredFeed, FeedIntake, FeedKind};
use platform::aws::AwsClients;
use platform::openapi::{ErrorBody, SecuritySchemes, TableUnavailable};
use platform::ratelimit::{Brake, Rate, WhenUnavailable};
use platform::tokens::TokenVerifier;
use platform::{ApiError, BoxError, Env, ErrorStyle};
use utoipa::OpenApi;

use crate::submissions::{DiscoveredFeeds, DiscoveryRequest, SourceSubmission};

/// The public path prefix of these routes (the content service's).
pub const PREFIX: &str = "/api/content";

/// The brake on feed submissions: each `POST /sources` (and each discovery) makes the platform
/// fetch a site the caller chose, so each signed-in user may submit only so many a window
/// (the template's `SourceSubmissionRateLimit`; by default 10 a minute and 100 a day), counted
/// in the limits table before anything is fetched. When the limits table fails, submissions
/// are refused (503): unguarded, the fetches would go wherever a script points them.
pub const SUBMISSIONS: Rate = Rate {
    variable: "SOURCE_SUBMISSION_RATE_LIMIT",
    name: "source-submission",
    default: "10/60,100/86400",
    when_unavailable: WhenUnavailable::Refuse,
};

/// How long the users service may take to say whether an account exists.
const USERS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

#[derive(Clone)]
pub struct AppState {
    intake: Arc<FeedIntake>,
    verifier: Arc<TokenVerifier>,
    users: IdentityClient,
    /// `INTERNAL_API_URL`; when unset, the API the request came through.
    internal_api_url: Option<String>,
    submissions: Arc<Brake>,
}

impl axum::extract::FromRef<AppState> for Arc<TokenVerifier> {
    fn from_ref(state: &AppState) -> Self {
        Arc::clone(&state.verifier)
    }
}

/// Builds the function's router from its environment: what a cold start does.
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let intake = FeedIntake::from_env(&env, &aws)?;
    let verifier = TokenVerifier::for_function(&env, &aws)?;
    let submissions = Brake::from_env(
        &env,
        &aws,
        "feed submissions have no rate limit",
        &[SUBMISSIONS],
    )?;
    app(
        Arc::new(intake),
        Arc::new(verifier),
        env.get("INTERNAL_API_URL").map(str::to_string),
        submissions,
    )
}

pub fn app(
    intake: Arc<FeedIntake>,
    verifier: Arc<TokenVerifier>,
    internal_api_url: Option<String>,
    submissions: Brake,
) -> Result<Router, BoxError> {
    let state = AppState {
        intake,
        verifier,
        users: IdentityClient::new(USERS_TIMEOUT, None)?,
        internal_api_url,
        submissions: Arc::new(submissions),
    };
    let routes = websub::routes(submissions::routes(Router::new())).with_state(state);
    Ok(platform::http::finish(
        Router::new().nest(PREFIX, routes),
        ErrorStyle::Detailed {
            strip_prefix: PREFIX,
        },
        64 * 1024,
    ))
}

/// Every operation reads or writes the content table.
const TABLE_UNAVAILABLE: TableUnavailable = TableUnavailable { except: &[] };

/// This function's part of the platform's OpenAPI contract.
#[derive(OpenApi)]
#[openapi(
    paths(
        submissions::submit_source,
        submissions::discover_sources,
        websub::verify,
        websub::deliver,
    ),
    components(schemas(
        SourceSubmission,
        DiscoveryRequest,
        DiscoveredFeeds,
        DiscoveredFeed,
        FeedKind,
        ErrorBody
    )),
    modifiers(&SecuritySchemes, &TABLE_UNAVAILABLE),
    tags(
        (name = "content", description = "The news reader's content service: shared sources, their subscribers, articles and topics"),
    )
)]
struct IntakeApi;

/// The intake function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    IntakeApi::openapi()
}

type Answer<T> = Result<axum::Json<T>, ApiError>;
