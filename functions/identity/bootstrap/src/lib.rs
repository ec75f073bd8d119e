//! The identity bootstrap function: the custom resource that makes the deployment's first
//! administrator when the stack deploys (`BootstrapAdmin` in `template.yaml`, with the
//! `BootstrapAdminUsername`, `BootstrapAdminPassword` and `BootstrapAdminEmail` parameters).
//! Create and Update make sure the named account exists and holds ADMIN; Delete keeps the
//! account (deleting a stack must not delete people).

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::FutureExt;
use identity::bootstrap::{AdminBootstrap, BootstrapAccount, BootstrapOutcome};
use identity::IdentityError;
use platform::aws::AwsClients;
use platform::custom_resource::{
    failed_at_start, retry_while_denied, CustomResourceAction, CustomResourceHandler,
    CustomResourceOutcome, CustomResourceRequest,
};
use platform::{BoxError, Clock, Env};
use serde_json::{Map, Value};

/// How long a request keeps retrying while the function's new role is not yet accepted.
const ROLE_PROPAGATION: Duration = Duration::from_secs(60);

/// Builds the handler from the environment (`USERS_TABLE`, `SESSIONS_TABLE`). A function that
/// cannot start still answers: every request FAILED with the reason, so a deploy fails at
/// once instead of waiting for the resource's ServiceTimeout.
pub async fn handler(env: Env) -> Result<Arc<dyn CustomResourceHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    Ok(
        match AdminBootstrap::from_env(&env, &aws, Clock::system()) {
            Ok(bootstrap) => Arc::new(BootstrapHandler {
                bootstrap: Arc::new(bootstrap),
            }),
            Err(e) => {
                tracing::error!(error = %e, "bootstrap function failed to start");
                failed_at_start(e)
            }
        },
    )
}

struct BootstrapHandler {
    bootstrap: Arc<AdminBootstrap>,
}

impl CustomResourceHandler for BootstrapHandler {
    fn handle(
        &self,
        request: CustomResourceRequest,
    ) -> BoxFuture<'static, Result<CustomResourceOutcome, BoxError>> {
        let bootstrap = Arc::clone(&self.bootstrap);
        async move { apply(&bootstrap, request).await }.boxed()
    }
}

fn property<'a>(request: &'a CustomResourceRequest, name: &str) -> Option<&'a str> {
    request
        .resource_properties
        .get(name)
        .and_then(Value::as_str)
}

async fn apply(
    bootstrap: &AdminBootstrap,
    request: CustomResourceRequest,
) -> Result<CustomResourceOutcome, BoxError> {
    let username = property(&request, "Username")
        .unwrap_or_default()
        .to_string();
    if request.request_type == CustomResourceAction::Delete {
        return Ok(CustomResourceOutcome {
            physical_id: request.physical_resource_id.unwrap_or(username),
            data: Map::new(),
        });
    }
    let account = BootstrapAccount::parse(
        &username,
        property(&request, "Password").unwrap_or_default(),
        property(&request, "Email"),
    )
    .map_err(|invalid| format!("the bootstrap administrator is invalid: {invalid}"))?;
    let outcome = retry_while_denied(
        ROLE_PROPAGATION,
        Duration::from_secs(1),
        IdentityError::is_access_denied,
        || bootstrap.ensure_admin(&account),
    )
    .await?;
    let what = match &outcome {
        BootstrapOutcome::Created(_) => "created",
        BootstrapOutcome::Promoted(_) => "promoted",
        BootstrapOutcome::AlreadyAdmin(_) => "already an administrator",
    };
    tracing::info!(username = %username, outcome = what, "bootstrap administrator");
    Ok(CustomResourceOutcome {
        physical_id: format!("admin-{}", username.to_ascii_lowercase()),
        data: Map::from_iter([(
            "UserId".to_string(),
            Value::from(outcome.user_id().as_str()),
        )]),
    })
}
