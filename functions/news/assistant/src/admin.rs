//! The community's provider configuration, `GET` and `PUT /api/v1/admin/ai/provider` (admin JWT):
//! which provider and model the GenAI operations use in this deployment.
//!
//! The one community route outside the `community-` functions: only GenAI knows its default
//! provider, model and temperature and whether each provider has a key, and the override is
//! its own runtime state. So these routes answer in the Reason body, and the rest
//! of the function keeps the detailed body. The choice is stored per deployment
//! ([`llm::provider_override`]): every instance sees it, a new deployment starts from the
//! environment again.

use std::sync::Arc;

use assistant::AssistantError;
use axum::extract::{FromRef, State};
use axum::routing::get;
use axum::Router;
use llm::provider_override::{self, StoredOverride};
use llm::{Llm, LlmError, ProviderChoice, ProviderKind};
use platform::auth::AdminUser;
use platform::aws::AwsClients;
use platform::dynamo::DynamoError;
use platform::http::Json;
use platform::openapi::ReasonErrorBody;
use platform::tokens::TokenVerifier;
use platform::{ApiError, ConfigError, Env};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Where these routes live; their errors take the Reason body.
pub const PREFIX: &str = "/api/v1/admin/ai";
/// The provider configuration's path.
pub const PROVIDER_PATH: &str = "/api/v1/admin/ai/provider";

/// The admin routes' state: the LLM settings, the deployment's stored override (`None`
/// without `GENAI_CACHE_TABLE`), and the token check.
#[derive(Clone)]
pub struct AdminState {
    pub llm: Llm,
    pub overrides: Option<Arc<StoredOverride>>,
    pub verifier: Arc<TokenVerifier>,
}

impl FromRef<AdminState> for Arc<TokenVerifier> {
    fn from_ref(state: &AdminState) -> Self {
        state.verifier.clone()
    }
}

/// The verifier of admin tokens. Without `JWT_PUBLIC_KEY` it holds no key, so no token
/// passes and the routes answer 401 (the AI operations stay open).
pub fn verifier(env: &Env, aws: &AwsClients) -> Result<TokenVerifier, ConfigError> {
    match TokenVerifier::for_function(env, aws) {
        Err(ConfigError::Missing(_)) => {
            tracing::warn!("JWT_PUBLIC_KEY is unset: the admin provider routes refuse every token");
            Ok(TokenVerifier::new(
                &[],
                platform::tokens::issuer(env),
                platform::tokens::audience(env),
            ))
        }
        other => other,
    }
}

pub fn routes(state: AdminState) -> Router {
    Router::new()
        .route(PROVIDER_PATH, get(read_provider).put(set_provider))
        .with_state(state)
}

/// The provider configuration: the provider and model in use, the temperature, and which
/// providers could be chosen.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfig {
    /// The provider the GenAI operations use now: the override, else `LLM_PROVIDER`.
    pub provider: ProviderKind,
    /// The model they ask: the override's, else `LLM_MODEL`.
    #[schema(example = "gpt-4o-mini")]
    pub model: String,
    /// `LLM_TEMPERATURE`.
    #[schema(example = 0.2)]
    pub temperature: f64,
    pub available_providers: Vec<AvailableProvider>,
}

/// A provider and whether it can be chosen (the cloud provider needs `LLM_API_KEY`).
#[derive(Serialize, ToSchema)]
pub struct AvailableProvider {
    pub name: ProviderKind,
    pub configured: bool,
}

/// A new provider choice for this deployment.
#[derive(Deserialize, ToSchema)]
pub struct ProviderUpdate {
    /// `cloud` or `local`; the cloud provider only with a key configured. Read as text, so
    /// a wrong or missing value is the field's own 400.
    #[schema(value_type = ProviderKind, required = true, example = "local")]
    pub provider: Option<String>,
    /// 1 to 200 characters, trimmed; not blank.
    #[schema(value_type = String, required = true, example = "llama3.2", min_length = 1, max_length = 200, pattern = r"\S")]
    pub model: Option<String>,
}

impl AdminState {
    /// The configuration `choice` gives (`None`: the environment's).
    fn config(&self, choice: Option<&ProviderChoice>) -> Result<ProviderConfig, LlmError> {
        let config = self.llm.config();
        let provider = config.resolve(choice)?;
        Ok(ProviderConfig {
            provider: provider.kind,
            model: provider.model,
            temperature: provider.temperature,
            available_providers: [ProviderKind::Cloud, ProviderKind::Local]
                .into_iter()
                .map(|name| AvailableProvider {
                    name,
                    configured: config.configured(name),
                })
                .collect(),
        })
    }
}

/// The provider configuration in effect for this deployment.
#[utoipa::path(
    get,
    path = "/api/v1/admin/ai/provider",
    operation_id = "getAiProviderConfig",
    tag = "admin-ai",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The configuration in effect", body = ProviderConfig),
        (status = 401, description = "No token, or a bad one", body = ReasonErrorBody),
        (status = 403, description = "Not an admin", body = ReasonErrorBody),
        (status = 500, description = "The LLM settings of the deployment are invalid", body = ReasonErrorBody),
        (status = 503, description = "The override could not be read", body = ReasonErrorBody),
    )
)]
async fn read_provider(
    State(state): State<AdminState>,
    AdminUser(_admin): AdminUser,
) -> Result<axum::Json<ProviderConfig>, ApiError> {
    let choice = match &state.overrides {
        Some(store) => store.read().await.map_err(store_error)?,
        None => None,
    };
    Ok(axum::Json(
        state.config(choice.as_ref()).map_err(AssistantError::Llm)?,
    ))
}

/// Chooses the provider and model for this deployment (every instance; until the next
/// deployment).
#[utoipa::path(
    put,
    path = "/api/v1/admin/ai/provider",
    operation_id = "setAiProviderConfig",
    tag = "admin-ai",
    security(("bearerJwt" = [])),
    request_body = ProviderUpdate,
    responses(
        (status = 200, description = "The configuration now in effect", body = ProviderConfig),
        (status = 400, description = "A blank, unknown or keyless provider, or a blank or too long model; the message names the field", body = ReasonErrorBody),
        (status = 401, description = "No token, or a bad one", body = ReasonErrorBody),
        (status = 403, description = "Not an admin", body = ReasonErrorBody),
        (status = 415, description = "Not a JSON body", body = ReasonErrorBody),
        (status = 503, description = "The override could not be stored", body = ReasonErrorBody),
    )
)]
async fn set_provider(
    State(state): State<AdminState>,
    AdminUser(admin): AdminUser,
    Json(update): Json<ProviderUpdate>,
) -> Result<axum::Json<ProviderConfig>, ApiError> {
    let choice = provider_override::parse_choice(
        update.provider.as_deref(),
        update.model.as_deref(),
        state.llm.config(),
    )?;
    let Some(store) = &state.overrides else {
        return Err(ApiError::internal(
            "configuration",
            "GENAI_CACHE_TABLE is unset: there is nowhere to keep the override",
        ));
    };
    store.set(&choice, &admin.id).await.map_err(store_error)?;
    tracing::info!(
        provider = %choice.provider,
        admin = %admin.id,
        deployment = %store.deployment().id(),
        "provider override set"
    );
    Ok(axum::Json(
        state.config(Some(&choice)).map_err(AssistantError::Llm)?,
    ))
}

fn store_error(e: DynamoError) -> ApiError {
    if e.is_unavailable() {
        ApiError::unavailable("The provider setting cannot be reached, try again")
            .caused_by(format!("provider override store unavailable: {e}"))
    } else {
        ApiError::internal("provider override", e)
    }
}
