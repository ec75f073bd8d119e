//! The recipes function: the recipe service behind `/api/recipes/{proxy+}` (its
//! accounts, `/api/recipes/auth/*` and `/api/recipes/users/me`, are the identity function's:
//! identity owns every account).
//!
//! Each handler parses its input into `recipes::input` types and makes one call on
//! [`recipes::Recipes`]; the domain's errors answer as [`ApiError`]s (their `From` is in
//! `recipes::error`), in the detailed error body. The AI routes are braked per user
//! ([`AI_PER_USER`]) and read the caller's preferences from identity (its client,
//! `identity_client`). `DELETE /api/recipes/internal/users/{id}` is identity's call when it
//! deletes an account ([`accounts`]).

pub mod accounts;
mod recipebox;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{FromRef, Path, State};
use axum::http::{header, Extensions, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::Router;
use identity_client::{Caller, IdentityClient};
use llm::provider_override::{Deployment, StoredOverride};
use llm::{Llm, LlmConfig};
use platform::accounts::CleanupQueue;
use platform::auth::AuthUser;
use platform::aws::AwsClients;
use platform::dynamo::Table;
use platform::http::{Json, Query};
use platform::openapi::{ErrorBody, Health, SecuritySchemes, TableUnavailable};
use platform::otel::Otel;
use platform::ratelimit::{Brake, ClientKey, Rate, WhenUnavailable};
use platform::tokens::{InternalToken, TokenVerifier};
use platform::{ApiError, BoxError, Clock, Env, ErrorStyle, FieldError, Invalid};
use recipes::input::{
    AskRequest, GenerateRequest, ImportRequest, IngredientInput, IngredientLine, NutrientsRequest,
    RawRecipeInput, RecipePatch, StructuredIngredient,
};
use recipes::model::{
    ImportedBy, InstructionStep, Language, Recipe, RecipeId, RecipeIngredient, RecipeInput,
    RecipeNutrients, RecipeSource, RecipeTimes,
};
use recipes::model::{MAX_PORTIONS, MIN_PORTIONS};
use recipes::search::SearchQuery;
use recipes::service::ComputedNutrients;
use recipes::Recipes;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, OpenApi, ToSchema};

/// The public path prefix of this route family.
pub const PREFIX: &str = "/api/recipes";
/// The most recipes one list page holds (and its default): 20 of the largest recipes stay
/// below Lambda's 6 MB response.
pub const MAX_PAGE: usize = 20;
/// The brake on the paid model: each AI operation (generate, nutrients, ask) is counted per
/// signed-in user in the limits table after its input is parsed (a 400 costs nothing) and
/// before the model is asked; a spent limit is a 429 with `Retry-After`. By default (template
/// parameter `RecipesAiRateLimitPerUser`) 10 a minute and 200 a day. When the limits table
/// fails the operation is refused (503): unguarded, the model is the bill.
pub const AI_PER_USER: Rate = Rate {
    variable: "RECIPES_AI_RATE_LIMIT_PER_USER",
    name: "recipes-ai",
    default: "10/60,200/86400",
    when_unavailable: WhenUnavailable::Refuse,
};

/// The brake on imports: each fetches a page (and its host's robots.txt) and may ask the
/// model, so each is counted per signed-in user after its input parsed, before anything is
/// fetched. By default (template parameter `RecipesImportRateLimitPerUser`) 10 a minute and
/// 100 a day; refused (503) when the limits table fails.
pub const IMPORT_PER_USER: Rate = Rate {
    variable: "RECIPES_IMPORT_RATE_LIMIT_PER_USER",
    name: "recipes-import",
    default: "10/60,100/86400",
    when_unavailable: WhenUnavailable::Refuse,
};

platform::too_many_requests_response!(
    /// The documented 429 of a braked import.
    pub(crate) struct TooManyImports:
        "Too many imports by this user; retry after Retry-After seconds",
        "ErrorBody"
);

platform::too_many_requests_response!(
    /// The documented 429 of a braked AI operation.
    pub(crate) struct TooManyAiRequests:
        "Too many AI requests by this user; retry after Retry-After seconds",
        "ErrorBody"
);

/// How long identity may take to give the caller's preferences.
const IDENTITY_TIMEOUT: Duration = Duration::from_secs(5);
/// A recipe body's largest size (the largest valid recipe is about 250 KB of JSON).
const BODY_LIMIT: usize = 512 * 1024;

#[derive(Clone)]
pub struct AppState {
    recipes: Arc<Recipes>,
    verifier: Arc<TokenVerifier>,
    brake: Arc<Brake>,
    identity: IdentityClient,
    cleanup_queue: CleanupQueue,
    internal_token: InternalToken,
    /// `INTERNAL_API_URL`; when unset, the API the request came through.
    internal_api_url: Option<String>,
}

impl FromRef<AppState> for InternalToken {
    fn from_ref(state: &AppState) -> Self {
        state.internal_token.clone()
    }
}

impl FromRef<AppState> for Arc<TokenVerifier> {
    fn from_ref(state: &AppState) -> Self {
        Arc::clone(&state.verifier)
    }
}

/// Builds the function's router from its environment: what a cold start does.
pub async fn router(env: Env) -> Result<Router, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let http = platform::tls::http_client()
        .connect_timeout(Duration::from_secs(5))
        .build()?;
    let mut llm = Llm::new(http, LlmConfig::from_env(&env), Otel::default());
    let deployment = env
        .get("GENAI_FUNCTION_VERSION")
        .and_then(Deployment::from_version_arn);
    if let (Some(table), Some(deployment)) = (env.get("GENAI_CACHE_TABLE"), deployment) {
        llm = llm.with_override(Arc::new(StoredOverride::new(
            Table::new(aws.dynamodb.clone(), table),
            deployment,
            Clock::system(),
        )));
    }
    let recipes = Recipes::from_env(&env, &aws, llm)?;
    let brake = Brake::from_env(
        &env,
        &aws,
        "the recipe AI operations have no rate limits",
        &[AI_PER_USER, IMPORT_PER_USER],
    )?;
    let verifier = TokenVerifier::for_function(&env, &aws)?;
    let cleanup_queue = Recipes::cleanup_queue(&env, &aws)?;
    app(
        Arc::new(recipes),
        verifier,
        brake,
        Internal {
            cleanup_queue,
            token: InternalToken::from_env(&env),
            api_url: env.get("INTERNAL_API_URL").map(str::to_string),
        },
    )
}

/// What the function needs for the platform's internal calls: the account-cleanup queue,
/// the internal service token (`INTERNAL_SERVICE_TOKEN`) and `INTERNAL_API_URL`.
pub struct Internal {
    pub cleanup_queue: CleanupQueue,
    pub token: InternalToken,
    pub api_url: Option<String>,
}

/// The router over given services.
pub fn app(
    recipes: Arc<Recipes>,
    verifier: TokenVerifier,
    brake: Brake,
    internal: Internal,
) -> Result<Router, BoxError> {
    let state = AppState {
        recipes,
        verifier: Arc::new(verifier),
        brake: Arc::new(brake),
        identity: IdentityClient::new(IDENTITY_TIMEOUT, None)?,
        cleanup_queue: internal.cleanup_queue,
        internal_token: internal.token,
        internal_api_url: internal.api_url,
    };
    let routes = Router::new()
        .route("/recipes", get(list).post(create))
        .route("/recipes/generate", post(generate))
        .route("/recipes/import", post(import))
        .route("/recipes/nutrients", post(nutrients))
        .route("/recipes/ask", post(ask))
        .route(
            "/recipes/{recipe_id}",
            get(read).patch(update).delete(recipebox::delete_recipe),
        )
        .route(
            "/recipes/{recipe_id}/image",
            post(recipebox::sign_image_upload).delete(recipebox::delete_image),
        )
        .route(
            "/recipes/{recipe_id}/image/{upload_id}",
            post(recipebox::confirm_image),
        )
        .route(
            "/recipes/{recipe_id}/nutrients",
            post(recipebox::store_nutrients),
        )
        .route("/plan", get(recipebox::get_plan))
        .route(
            "/plan/{date}/{meal}",
            axum::routing::put(recipebox::put_plan).delete(recipebox::delete_plan),
        )
        .route(
            "/shopping-list",
            get(recipebox::get_list).post(recipebox::build_list),
        )
        .route("/shopping-list/items", post(recipebox::add_item))
        .route(
            "/shopping-list/items/{item_id}",
            axum::routing::patch(recipebox::check_item).delete(recipebox::remove_item),
        )
        .route("/actuator/health", get(health))
        .route("/internal/users/{id}", delete(accounts::forget_account))
        .with_state(state);
    Ok(platform::http::finish(
        Router::new().nest(PREFIX, routes),
        ErrorStyle::Detailed {
            strip_prefix: PREFIX,
        },
        BODY_LIMIT,
    ))
}

/// The AI routes and the health check's own 503 are documented by themselves.
const TABLE_UNAVAILABLE: TableUnavailable = TableUnavailable {
    except: &[
        "generateRecipes",
        "computeNutrients",
        "askAboutRecipe",
        "importRecipe",
        "cleanupDeletedRecipeAccount",
    ],
};

#[derive(OpenApi)]
#[openapi(
    paths(
        list,
        create,
        read,
        update,
        import,
        generate,
        nutrients,
        ask,
        health,
        accounts::forget_account,
        recipebox::delete_recipe,
        recipebox::sign_image_upload,
        recipebox::confirm_image,
        recipebox::delete_image,
        recipebox::store_nutrients,
        recipebox::get_plan,
        recipebox::put_plan,
        recipebox::delete_plan,
        recipebox::get_list,
        recipebox::build_list,
        recipebox::add_item,
        recipebox::check_item,
        recipebox::remove_item
    ),
    components(schemas(
        Recipe,
        RecipeInput,
        RawRecipeInput,
        RecipePatch,
        RecipeIngredient,
        IngredientInput,
        IngredientLine,
        StructuredIngredient,
        RecipeSource,
        RecipeTimes,
        ImportedBy,
        RecipeNutrients,
        InstructionStep,
        Language,
        CreatedRecipe,
        GenerateRequest,
        ImportRequest,
        NutrientsRequest,
        ComputedNutrients,
        AskRequest,
        AskResponse,
        ErrorBody,
        Health,
        recipes::model::RecipeImage,
        recipes::model::Allergen,
        recipes::model::Tag,
        recipes::plan::Meal,
        recipes::plan::PlanEntry,
        recipes::plan::PlanSlot,
        recipes::plan::RawPlanEntry,
        recipes::plan::PlanSlotBody,
        recipes::plan::ShoppingList,
        recipes::shopping::ShoppingItem,
        recipebox::ImageUploadRequest,
        recipebox::ImageUpload,
        recipebox::StoredNutrients,
        recipebox::BuildListBody,
        recipebox::AddItemBody,
        recipebox::CheckItemBody
    )),
    modifiers(&SecuritySchemes, &TABLE_UNAVAILABLE),
    tags((name = "recipes", description = "The recipe service: recipes, generation, nutrients and questions"))
)]
struct RecipesApi;

/// This function's part of the platform's OpenAPI contract.
pub fn openapi() -> utoipa::openapi::OpenApi {
    RecipesApi::openapi()
}

/// A path's recipe id: an integer of at least 1, else a 400 naming `recipeId`.
pub(crate) fn recipe_id(raw: &str) -> Result<RecipeId, Invalid> {
    RecipeId::parse(raw)
        .ok_or_else(|| Invalid::field("recipeId", "must be an integer of at least 1"))
}

/// The list's page, or a search.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ListQuery {
    /// Recipes per page, 1 to 20 (default 20). A full page means more may follow.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 20)]
    limit: Option<String>,
    /// Only recipes with a larger id (the last id of the previous page), in id order; not
    /// with `q`, `tag` or `cursor`.
    #[param(value_type = Option<i64>, minimum = 1)]
    after: Option<String>,
    /// Words that must each begin a word of the recipe's title, ingredient names or tags
    /// (case and accents aside): a search, newest first. At most 200 characters, 10 words.
    #[param(value_type = Option<String>, max_length = 200)]
    q: Option<String>,
    /// Only recipes with this tag (compared lowercase): a search, newest first.
    #[param(value_type = Option<String>, min_length = 1, max_length = 50, pattern = "\\S")]
    tag: Option<String>,
    /// A search's next page: the `Link` of the previous one gives it.
    #[param(value_type = Option<i64>, minimum = 1)]
    cursor: Option<String>,
    /// Scale every recipe to these portions (0.5 to 1000).
    #[param(value_type = Option<f64>, minimum = 0.5, maximum = 1000)]
    portions: Option<String>,
}

/// `?portions=` as a number of portions, else a 400 naming it.
fn portions_param(raw: Option<&str>, errors: &mut Vec<FieldError>) -> Option<f64> {
    let raw = raw?;
    match raw.parse::<f64>() {
        Ok(p) if p.is_finite() && (MIN_PORTIONS..=MAX_PORTIONS).contains(&p) => Some(p),
        _ => {
            errors.push(FieldError::new(
                "portions",
                "must be a number from 0.5 to 1000",
            ));
            None
        }
    }
}

/// A query value in a `Link`: unreserved characters as they are, the rest percent-encoded.
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Lists the caller's own recipes, in id order, a page at a time; or, with `q` or `tag`,
/// searches them, newest first. Each recipe says which of the reader's allergies its
/// ingredients name (`allergens`).
#[utoipa::path(
    get,
    path = "/api/recipes/recipes",
    operation_id = "listRecipes",
    tag = "recipes",
    params(ListQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The caller's recipes (a page)", body = Vec<Recipe>,
            headers(("Link" = String, description = "`<{path}?limit={limit}&after={last id}>; rel=\"next\"` (a search: `&q=..&tag=..&cursor=..`) when more recipes may follow; absent on the last page"))),
        (status = 400, description = "`limit`, `after`, `q`, `tag`, `cursor` or `portions` is not valid", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "Not a user token", body = ErrorBody),
    )
)]
async fn list(
    State(state): State<AppState>,
    user: AuthUser,
    extensions: Extensions,
    headers: HeaderMap,
    Query(query): Query<ListQuery>,
) -> Result<Response, ApiError> {
    let mut errors = Vec::new();
    let limit = match query.limit.as_deref() {
        None => Some(MAX_PAGE),
        Some(raw) => match raw.parse::<usize>() {
            Ok(n) if (1..=MAX_PAGE).contains(&n) => Some(n),
            _ => {
                errors.push(FieldError::new("limit", "must be 1 to 20"));
                None
            }
        },
    };
    let mut id_param = |name: &str, raw: Option<&str>| match raw {
        None => None,
        Some(raw) => match RecipeId::parse(raw) {
            Some(id) => Some(id),
            None => {
                errors.push(FieldError::new(name, "must be an integer of at least 1"));
                None
            }
        },
    };
    let after = id_param("after", query.after.as_deref());
    let cursor = id_param("cursor", query.cursor.as_deref());
    let searching = query.q.is_some() || query.tag.is_some() || query.cursor.is_some();
    if searching && query.after.is_some() {
        errors.push(FieldError::new(
            "after",
            "pages the plain list: a search (q, tag) pages by cursor",
        ));
    }
    let search = match SearchQuery::parse(query.q.as_deref(), query.tag.as_deref()) {
        Ok(search) => Some(search),
        Err(e) => {
            errors.extend(e);
            None
        }
    };
    let portions = portions_param(query.portions.as_deref(), &mut errors);
    if !errors.is_empty() {
        return Err(Invalid(errors).into());
    }
    let limit = limit.unwrap_or(MAX_PAGE);
    let scale = query
        .portions
        .as_deref()
        .map(|p| format!("&portions={}", encode(p)))
        .unwrap_or_default();
    let (recipes, next) = match search.filter(|_| searching) {
        Some(search) => {
            let page = state
                .recipes
                .search(&user.id, &search, cursor, limit)
                .await?;
            let mut link = format!("<{LIST_PATH}?limit={limit}");
            if let Some(q) = &query.q {
                link.push_str(&format!("&q={}", encode(q)));
            }
            if let Some(tag) = &query.tag {
                link.push_str(&format!("&tag={}", encode(tag)));
            }
            let next = page
                .next
                .map(|next| format!("{link}{scale}&cursor={next}>; rel=\"next\""));
            (page.recipes, next)
        }
        None => {
            let page = state.recipes.list(&user.id, after, limit).await?;
            let next = page.recipes.last().filter(|_| page.more).map(|last| {
                format!(
                    "<{LIST_PATH}?limit={limit}{scale}&after={}>; rel=\"next\"",
                    last.id
                )
            });
            (page.recipes, next)
        }
    };
    let recipes = recipebox::present(&state, &extensions, &headers, recipes, portions).await?;
    let mut response = axum::Json(recipes).into_response();
    if let Some(link) = next.and_then(|l| header::HeaderValue::from_str(&l).ok()) {
        response.headers_mut().insert(header::LINK, link);
    }
    Ok(response)
}

/// Where the recipe list is served (the next page's `Link` names it).
const LIST_PATH: &str = "/api/recipes/recipes";

/// The new recipe's id.
#[derive(Serialize, ToSchema)]
struct CreatedRecipe {
    #[schema(minimum = 1, format = Int64)]
    id: i64,
}

/// Creates a recipe of the caller's.
#[utoipa::path(
    post,
    path = "/api/recipes/recipes",
    operation_id = "createRecipe",
    tag = "recipes",
    security(("bearerJwt" = [])),
    request_body = RawRecipeInput,
    responses(
        (status = 201, description = "Created", body = CreatedRecipe),
        (status = 400, description = "A field is missing or invalid (`details` names each)", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 413, description = "The body is larger than 512 KiB", body = ErrorBody),
    )
)]
async fn create(
    State(state): State<AppState>,
    user: AuthUser,
    Json(input): Json<RawRecipeInput>,
) -> Result<impl IntoResponse, ApiError> {
    let input = input.parse()?;
    let id = state.recipes.create(&user.id, input).await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(CreatedRecipe { id: id.get() }),
    ))
}

/// Reads one of the caller's recipes (and records that it was opened).
#[utoipa::path(
    get,
    path = "/api/recipes/recipes/{recipeId}",
    operation_id = "getRecipe",
    tag = "recipes",
    params(("recipeId" = i64, Path, minimum = 1, description = "The recipe's id"), ReadQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The recipe; `openedAt` is now, or the last reading when that was under 10 minutes ago; scaled to `portions` when asked (`scaledFrom` its own)", body = Recipe),
        (status = 400, description = "`recipeId` is not an integer of at least 1, or `portions` not 0.5 to 1000", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "Not a user token", body = ErrorBody),
        (status = 404, description = "The caller has no such recipe (another user's is not theirs)", body = ErrorBody),
    )
)]
async fn read(
    State(state): State<AppState>,
    user: AuthUser,
    extensions: Extensions,
    headers: HeaderMap,
    Path(raw): Path<String>,
    Query(query): Query<ReadQuery>,
) -> Result<axum::Json<Recipe>, ApiError> {
    let mut errors = Vec::new();
    let id = recipe_id(&raw).map_err(|e| errors.extend(e.0)).ok();
    let portions = portions_param(query.portions.as_deref(), &mut errors);
    let Some(id) = id.filter(|_| errors.is_empty()) else {
        return Err(Invalid(errors).into());
    };
    let recipe = state.recipes.open(&user.id, id).await?;
    Ok(axum::Json(
        recipebox::present_one(&state, &extensions, &headers, recipe, portions).await?,
    ))
}

/// A recipe's reading.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ReadQuery {
    /// Scale the quantities (and nutrients) to these portions, 0.5 to 1000.
    #[param(value_type = Option<f64>, minimum = 0.5, maximum = 1000)]
    portions: Option<String>,
}

/// Changes some fields of one of the caller's recipes.
#[utoipa::path(
    patch,
    path = "/api/recipes/recipes/{recipeId}",
    operation_id = "updateRecipe",
    tag = "recipes",
    params(("recipeId" = i64, Path, minimum = 1, description = "The recipe's id")),
    security(("bearerJwt" = [])),
    request_body = RecipePatch,
    responses(
        (status = 200, description = "The updated recipe, `editedAt` now", body = Recipe),
        (status = 400, description = "`recipeId` or a field is invalid (`details` names each)", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "Not a user token", body = ErrorBody),
        (status = 404, description = "The caller has no such recipe", body = ErrorBody),
        (status = 409, description = "The recipe kept changing concurrently", body = ErrorBody),
        (status = 413, description = "The body is larger than 512 KiB", body = ErrorBody),
    )
)]
async fn update(
    State(state): State<AppState>,
    user: AuthUser,
    extensions: Extensions,
    headers: HeaderMap,
    Path(raw): Path<String>,
    Json(patch): Json<RecipePatch>,
) -> Result<axum::Json<Recipe>, ApiError> {
    let id = recipe_id(&raw)?;
    let change = patch.parse()?;
    let recipe = state.recipes.update(&user.id, id, change).await?;
    Ok(axum::Json(
        recipebox::present_one(&state, &extensions, &headers, recipe, None).await?,
    ))
}

/// Imports a recipe from a page of any recipe site: its schema.org Recipe (JSON-LD, including
/// `@graph`, or microdata), else the model's reading of its text (`source.importedBy:
/// "model"`). The page is fetched under the platform's guard (no private or reserved
/// addresses, 10 s, 5 MiB, 5 redirects) once its host's robots.txt allows it.
#[utoipa::path(
    post,
    path = "/api/recipes/recipes/import",
    operation_id = "importRecipe",
    tag = "recipes",
    security(("bearerJwt" = [])),
    request_body = ImportRequest,
    responses(
        (status = 201, description = "The stored recipe, `source` naming the page", body = Recipe),
        (status = 400, description = "`url` is invalid, or its page could not be fetched (private network, robots.txt, status, time, size, not HTML) or holds no recipe (`details` says which)", body = ErrorBody),
        (status = 401, description = "No valid user token, or the account was deleted", body = ErrorBody),
        TooManyImports,
        (status = 500, description = "The LLM settings are invalid", body = ErrorBody),
        (status = 502, description = "The page has no structured recipe and the model gave no usable answer", body = ErrorBody),
        (status = 503, description = "The limits table or the recipes table cannot be reached", body = ErrorBody),
    )
)]
async fn import(
    State(state): State<AppState>,
    user: AuthUser,
    extensions: Extensions,
    headers: HeaderMap,
    Json(input): Json<ImportRequest>,
) -> Result<impl IntoResponse, ApiError> {
    let url = input.parse()?;
    state
        .brake
        .admit(&IMPORT_PER_USER, ClientKey::user(&user.id))
        .await?;
    let recipe = state.recipes.import(&user.id, &url).await?;
    let recipe = recipebox::present_one(&state, &extensions, &headers, recipe, None).await?;
    Ok((StatusCode::CREATED, axum::Json(recipe)))
}

impl AppState {
    pub(crate) fn caller(&self, extensions: &Extensions, headers: &HeaderMap) -> Caller<'_> {
        let base = platform::http::internal_api_base(self.internal_api_url.as_deref(), extensions);
        self.identity.at(base).caller(
            headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string),
        )
    }
}

/// Generates recipes for a prompt, in the request's language, else the user's preference,
/// else EN. The user's diets and allergies are given to the model and checked in code on
/// every recipe it answers: one that breaks them is never returned.
#[utoipa::path(
    post,
    path = "/api/recipes/recipes/generate",
    operation_id = "generateRecipes",
    tag = "recipes",
    security(("bearerJwt" = [])),
    request_body = GenerateRequest,
    responses(
        (status = 200, description = "1 to 5 recipes, each a valid RecipeInput", body = Vec<RecipeInput>),
        (status = 400, description = "`prompt` or `language` is invalid", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        TooManyAiRequests,
        (status = 500, description = "The LLM settings are invalid", body = ErrorBody),
        (status = 502, description = "The model gave no usable recipe (after one retry), or the preferences could not be read", body = ErrorBody),
        (status = 503, description = "The limits table cannot be reached", body = ErrorBody),
    )
)]
async fn generate(
    State(state): State<AppState>,
    user: AuthUser,
    extensions: Extensions,
    headers: HeaderMap,
    Json(input): Json<GenerateRequest>,
) -> Result<axum::Json<Vec<RecipeInput>>, ApiError> {
    let request = input.parse()?;
    state
        .brake
        .admit(&AI_PER_USER, ClientKey::user(&user.id))
        .await?;
    let caller = state.caller(&extensions, &headers);
    let recipes = state.recipes.generate(&caller, request).await?;
    Ok(axum::Json(recipes))
}

/// Computes the nutrients of a whole recipe: from the service's food composition table for
/// the ingredients it knows (name and unit), from the model for the rest; the answer says
/// which ingredient came from where.
#[utoipa::path(
    post,
    path = "/api/recipes/recipes/nutrients",
    operation_id = "computeNutrients",
    tag = "recipes",
    security(("bearerJwt" = [])),
    request_body = NutrientsRequest,
    responses(
        (status = 200, description = "The whole recipe's nutrients (RecipeNutrients, plus the sources)", body = ComputedNutrients),
        (status = 400, description = "The recipe is invalid", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        TooManyAiRequests,
        (status = 500, description = "The LLM settings are invalid", body = ErrorBody),
        (status = 502, description = "The model gave no usable nutrients", body = ErrorBody),
        (status = 503, description = "The limits table cannot be reached", body = ErrorBody),
        (status = 413, description = "The body is larger than 512 KiB", body = ErrorBody),
    )
)]
async fn nutrients(
    State(state): State<AppState>,
    user: AuthUser,
    Json(input): Json<NutrientsRequest>,
) -> Result<axum::Json<ComputedNutrients>, ApiError> {
    let recipe = input.parse()?;
    state
        .brake
        .admit(&AI_PER_USER, ClientKey::user(&user.id))
        .await?;
    let computed = state.recipes.nutrients(&recipe).await?;
    Ok(axum::Json(computed))
}

/// The model's answer.
#[derive(Serialize, ToSchema)]
struct AskResponse {
    response: String,
}

/// Answers a free-text question about a recipe, in the user's language.
#[utoipa::path(
    post,
    path = "/api/recipes/recipes/ask",
    operation_id = "askAboutRecipe",
    tag = "recipes",
    security(("bearerJwt" = [])),
    request_body = AskRequest,
    responses(
        (status = 200, description = "The answer", body = AskResponse),
        (status = 400, description = "The recipe or the prompt is invalid", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        TooManyAiRequests,
        (status = 500, description = "The LLM settings are invalid", body = ErrorBody),
        (status = 502, description = "The model gave no usable answer, or the preferences could not be read", body = ErrorBody),
        (status = 503, description = "The limits table cannot be reached", body = ErrorBody),
        (status = 413, description = "The body is larger than 512 KiB", body = ErrorBody),
    )
)]
async fn ask(
    State(state): State<AppState>,
    user: AuthUser,
    extensions: Extensions,
    headers: HeaderMap,
    Json(input): Json<AskRequest>,
) -> Result<axum::Json<AskResponse>, ApiError> {
    let request = input.parse()?;
    state
        .brake
        .admit(&AI_PER_USER, ClientKey::user(&user.id))
        .await?;
    let caller = state.caller(&extensions, &headers);
    let response = state.recipes.ask(&caller, request).await?;
    Ok(axum::Json(AskResponse { response }))
}

/// `UP` when the recipes table answers.
#[utoipa::path(
    get,
    path = "/api/recipes/actuator/health",
    operation_id = "recipesHealth",
    security(()),
    tag = "recipes",
    responses(
        (status = 200, description = "Up", body = Health),
        (status = 503, description = "The recipes table cannot be reached", body = Health),
    )
)]
async fn health(State(state): State<AppState>) -> Response {
    platform::http::health(state.recipes.healthy().await)
}
