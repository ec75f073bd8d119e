//! The platform's route guards with real tokens from the stack's token issuer: a route that
//! requires scope `source.write`, an admin route and an internal route. (The content
//! function's own subscribe routes are tested the same way once they exist.)
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use std::sync::Arc;

use axum::body::Body;
use axum::extract::FromRef;
use axum::routing::get;
use axum::Router;
use platform::auth::{AdminUser, InternalService, OperatorUser, RequireScope, Scope};
use platform::tokens::{InternalToken, TokenVerifier};
use platform::{Env, ErrorStyle};
use stack_tests::{router, TestStack, INTERNAL_TOKEN};

struct SourceWrite;

impl Scope for SourceWrite {
    const NAME: &'static str = "source.write";
}

#[derive(Clone)]
struct Guards {
    verifier: Arc<TokenVerifier>,
    internal: InternalToken,
}

impl FromRef<Guards> for Arc<TokenVerifier> {
    fn from_ref(g: &Guards) -> Self {
        Arc::clone(&g.verifier)
    }
}

impl FromRef<Guards> for InternalToken {
    fn from_ref(g: &Guards) -> Self {
        g.internal.clone()
    }
}

/// A router built the way every function builds one, verifying with the stack's public key
/// only (as a function without the private key does).
fn guarded(t: &TestStack) -> Router {
    let env = Env::new()
        .with("JWT_PUBLIC_KEY", t.keys.public_pem.clone())
        .with("INTERNAL_SERVICE_TOKEN", INTERNAL_TOKEN);
    let state = Guards {
        verifier: Arc::new(TokenVerifier::from_env(&env, &[]).expect("verifier")),
        internal: InternalToken::from_env(&env),
    };
    let routes = Router::new()
        .route(
            "/scoped",
            get(|_: RequireScope<SourceWrite>| async { "ok" }),
        )
        .route("/admin", get(|_: AdminUser| async { "ok" }))
        .route("/operator", get(|_: OperatorUser| async { "ok" }))
        .route("/internal", get(|_: InternalService| async { "ok" }))
        .with_state(state);
    platform::http::finish(routes, ErrorStyle::Reason, 1024)
}

async fn status(app: &Router, path: &str, header: Option<(&str, String)>) -> u16 {
    let headers: Vec<(&str, &str)> = header.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let request = router::request("GET", path, &headers, Body::empty());
    router::send(app, request).await.status.as_u16()
}

fn bearer(token: &str) -> Option<(&'static str, String)> {
    Some(("authorization", format!("Bearer {token}")))
}

#[tokio::test]
async fn scope_admin_and_internal_guards() {
    let t = TestStack::start().await;
    let app = guarded(&t);
    let (_, user) = t.user("scoped_user").await;
    let admin = t.admin_token().await;
    let service = t.service_token().await;

    assert_eq!(status(&app, "/scoped", None).await, 401);
    assert_eq!(status(&app, "/scoped", bearer("nonsense")).await, 401);
    assert_eq!(status(&app, "/scoped", bearer(&user)).await, 403);
    assert_eq!(status(&app, "/scoped", bearer(&admin)).await, 403);
    assert_eq!(status(&app, "/scoped", bearer(&service)).await, 200);

    assert_eq!(status(&app, "/admin", None).await, 401);
    assert_eq!(status(&app, "/admin", bearer(&user)).await, 403);
    assert_eq!(status(&app, "/admin", bearer(&service)).await, 403);
    assert_eq!(status(&app, "/admin", bearer(&admin)).await, 200);

    let (_, operator) = t.operator("scoped_operator").await;
    assert_eq!(status(&app, "/operator", None).await, 401);
    assert_eq!(status(&app, "/operator", bearer(&user)).await, 403);
    assert_eq!(status(&app, "/operator", bearer(&service)).await, 403);
    assert_eq!(status(&app, "/operator", bearer(&operator)).await, 200);
    assert_eq!(status(&app, "/operator", bearer(&admin)).await, 200);
    assert_eq!(status(&app, "/admin", bearer(&operator)).await, 403);

    let internal = |v: &str| Some(("x-internal-service-token", v.to_string()));
    assert_eq!(status(&app, "/internal", None).await, 401);
    assert_eq!(
        status(&app, "/internal", internal("local-internal-tokeX")).await,
        401
    );
    assert_eq!(status(&app, "/internal", bearer(&admin)).await, 401);
    assert_eq!(
        status(&app, "/internal", internal(INTERNAL_TOKEN)).await,
        200
    );
}

#[tokio::test]
async fn community_routers_answer_in_the_community_shape() {
    let t = TestStack::start().await;
    let answer = router::get(&guarded(&t), "/scoped").await;
    assert_eq!(answer.status, 401);
    let body = answer.json();
    assert_eq!(body["status"], 401);
    assert_eq!(body["error"], "Unauthorized");
    assert!(body["message"].is_string() && body["timestamp"].is_string());
    assert!(body.get("code").is_none() && body.get("path").is_none());
}
