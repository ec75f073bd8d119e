//! The recipe box's routes: delete, photos, stored nutrients, the meal plan and the shopping
//! list. Each parses its input, makes one call on [`recipes::Recipes`] and answers.

use axum::extract::{Path, State};
use axum::http::{header, Extensions, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use platform::auth::AuthUser;
use platform::http::{Json, Query};
use platform::openapi::ErrorBody;
use platform::ratelimit::ClientKey;
use platform::{ApiError, FieldError, Invalid};
use recipes::images::{CONTENT_TYPES, MAX_IMAGE_BYTES};
use recipes::model::{Recipe, MAX_INGREDIENT_NAME, MAX_QUANTITY, MAX_UNIT};
use recipes::plan::{
    cursor, parse_cursor, parse_date, wanted_entries, Meal, PlanSlot, PlanSlotBody, RawPlanEntry,
    ShoppingList, MAX_ENTRIES, MAX_LIST_RECIPES, MAX_PLAN_PAGE,
};
use recipes::planning::{date_range, ExtraItem, ListSource, Reading};
use recipes::service::ComputedNutrients;
use recipes::shopping::ShoppingItem;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::{recipe_id, AppState, TooManyAiRequests, AI_PER_USER};

/// The recipe as its reader sees it: the caller's allergies read from identity (none said
/// when they cannot be read), scaled to `portions` when given.
pub(crate) async fn present(
    state: &AppState,
    extensions: &Extensions,
    headers: &HeaderMap,
    recipes: Vec<Recipe>,
    portions: Option<f64>,
) -> Result<Vec<Recipe>, ApiError> {
    let allergies = allergies(state, extensions, headers).await;
    let reading = Reading {
        portions,
        allergies: allergies.as_deref(),
    };
    let mut out = Vec::with_capacity(recipes.len());
    for recipe in recipes {
        out.push(state.recipes.present(recipe, &reading).await?);
    }
    Ok(out)
}

/// The caller's allergies; `None` (logged) when identity cannot say.
async fn allergies(
    state: &AppState,
    extensions: &Extensions,
    headers: &HeaderMap,
) -> Option<Vec<String>> {
    use recipes::Preferences;
    match state.caller(extensions, headers).preferences().await {
        Ok(preferences) => Some(preferences.unwrap_or_default().allergies),
        Err(e) => {
            tracing::warn!(error = %e, "allergies unknown: the preferences could not be read");
            None
        }
    }
}

pub(crate) async fn present_one(
    state: &AppState,
    extensions: &Extensions,
    headers: &HeaderMap,
    recipe: Recipe,
    portions: Option<f64>,
) -> Result<Recipe, ApiError> {
    present(state, extensions, headers, vec![recipe], portions)
        .await?
        .pop()
        .ok_or_else(|| ApiError::internal("recipe answer", "no recipe presented"))
}

/// Deletes one of the caller's recipes, with its photo and its search entry. Plan entries
/// naming it stay, marked `deleted` when the plan is read, and are left out of shopping
/// lists.
#[utoipa::path(
    delete,
    path = "/api/recipes/recipes/{recipeId}",
    operation_id = "deleteRecipe",
    tag = "recipes",
    params(("recipeId" = i64, Path, minimum = 1, description = "The recipe's id")),
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, description = "`recipeId` is not an integer of at least 1", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "Not a user token", body = ErrorBody),
        (status = 404, description = "The caller has no such recipe (another user's is not theirs)", body = ErrorBody),
        (status = 409, description = "The recipe kept changing concurrently", body = ErrorBody),
    )
)]
pub(crate) async fn delete_recipe(
    State(state): State<AppState>,
    user: AuthUser,
    Path(raw): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = recipe_id(&raw)?;
    state.recipes.delete(&user.id, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A photo about to be uploaded.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schema(as = RecipeImageUploadBody)]
pub(crate) struct ImageUploadRequest {
    /// The file's type; the upload must send exactly this `Content-Type` (what is stored is
    /// decided by the file's first bytes).
    #[schema(required = true, value_type = String, pattern = "^image/(jpeg|png|webp)$", example = "image/jpeg")]
    content_type: Option<String>,
    /// The file's size in bytes, 1 to 10 MiB; the upload must send exactly this
    /// `Content-Length`.
    #[schema(required = true, value_type = i64, minimum = 1, maximum = 10485760)]
    size: Option<serde_json::Number>,
}

/// Where to send the photo, then confirm it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = RecipeImageUpload)]
pub(crate) struct ImageUpload {
    /// Confirm with `POST /api/recipes/recipes/{recipeId}/image/{id}` once sent.
    #[schema(format = "uuid")]
    id: String,
    #[schema(format = "uri")]
    upload_url: String,
    #[schema(pattern = "^PUT$")]
    method: &'static str,
    /// The headers to send exactly (the signature covers them): `Content-Type`,
    /// `Content-Length`.
    headers: std::collections::BTreeMap<String, String>,
    #[schema(format = DateTime)]
    expires_at: String,
}

/// Signs the upload of a photo for one of the caller's recipes: `PUT` the file to
/// `uploadUrl` with exactly `headers` within 5 minutes, then confirm. The photo is private:
/// recipes answer it as a URL signed for an hour at least.
#[utoipa::path(
    post,
    path = "/api/recipes/recipes/{recipeId}/image",
    operation_id = "signRecipeImageUpload",
    tag = "recipes",
    params(("recipeId" = i64, Path, minimum = 1, description = "The recipe's id")),
    request_body = ImageUploadRequest,
    security(("bearerJwt" = [])),
    responses(
        (status = 201, description = "Signed", body = ImageUpload),
        (status = 400, description = "`recipeId`, `contentType` or `size` is invalid (`details` names each)", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "Not a user token", body = ErrorBody),
        (status = 404, description = "The caller has no such recipe", body = ErrorBody),
        (status = 503, description = "Image storage is unavailable or not configured", body = ErrorBody),
    )
)]
pub(crate) async fn sign_image_upload(
    State(state): State<AppState>,
    user: AuthUser,
    Path(raw): Path<String>,
    Json(body): Json<ImageUploadRequest>,
) -> Result<Response, ApiError> {
    let id = recipe_id(&raw);
    let mut errors = Vec::new();
    let content_type = match body.content_type.as_deref() {
        None => {
            errors.push(FieldError::new("contentType", "is required"));
            None
        }
        Some(raw) => {
            let known = CONTENT_TYPES.into_iter().find(|t| *t == raw);
            if known.is_none() {
                errors.push(FieldError::new(
                    "contentType",
                    "must be image/jpeg, image/png or image/webp",
                ));
            }
            known
        }
    };
    let size = match body.size.as_ref() {
        None => {
            errors.push(FieldError::new("size", "is required"));
            None
        }
        Some(number) => {
            let size = platform::validation::whole_number_in(number, 1, MAX_IMAGE_BYTES);
            if size.is_none() {
                errors.push(FieldError::new(
                    "size",
                    format!("must be a whole number from 1 to {MAX_IMAGE_BYTES} (10 MiB)"),
                ));
            }
            size
        }
    };
    let id = match id {
        Ok(id) => Some(id),
        Err(e) => {
            errors.extend(e.0);
            None
        }
    };
    let (Some(id), Some(content_type), Some(size)) = (id, content_type, size) else {
        return Err(Invalid(errors).into());
    };
    let signed = state
        .recipes
        .sign_image_upload(&user.id, id, content_type, size)
        .await?;
    let expires_at = chrono::DateTime::<chrono::Utc>::from(signed.expires_at)
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let upload = ImageUpload {
        id: signed.id,
        upload_url: signed.url,
        method: "PUT",
        headers: [
            ("Content-Type".to_string(), signed.content_type.to_string()),
            ("Content-Length".to_string(), signed.size.to_string()),
        ]
        .into(),
        expires_at,
    };
    Ok((StatusCode::CREATED, axum::Json(upload)).into_response())
}

/// Makes the file sent for `uploadId` the recipe's photo, once its first bytes show a JPEG,
/// PNG or WebP image of at most 10 MiB (anything else is deleted and refused); the photo it
/// had is deleted.
#[utoipa::path(
    post,
    path = "/api/recipes/recipes/{recipeId}/image/{uploadId}",
    operation_id = "confirmRecipeImage",
    tag = "recipes",
    params(
        ("recipeId" = i64, Path, minimum = 1, description = "The recipe's id"),
        ("uploadId" = String, Path, format = "uuid", pattern = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", description = "The upload's id, as signed"),
    ),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The recipe with its photo", body = Recipe),
        (status = 400, description = "`recipeId` or `uploadId` is invalid, no file waits under `uploadId` (never sent, expired, or confirmed already), or the file is empty or not a JPEG, PNG or WebP image (`file`)", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "Not a user token", body = ErrorBody),
        (status = 404, description = "No such recipe", body = ErrorBody),
        (status = 413, description = "The file is over 10 MiB (it is deleted)", body = ErrorBody),
        (status = 503, description = "Image storage is unavailable or not configured", body = ErrorBody),
    )
)]
pub(crate) async fn confirm_image(
    State(state): State<AppState>,
    user: AuthUser,
    extensions: Extensions,
    headers: HeaderMap,
    Path((raw, upload)): Path<(String, String)>,
) -> Result<axum::Json<Recipe>, ApiError> {
    let id = recipe_id(&raw);
    let upload_ok = upload.len() == 36
        && upload
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b) || b == b'-')
        && uuid::Uuid::try_parse(&upload).is_ok();
    let id = match (id, upload_ok) {
        (Ok(id), true) => id,
        (id, ok) => {
            let mut errors = id.err().map(|e| e.0).unwrap_or_default();
            if !ok {
                errors.push(FieldError::new("uploadId", "must be a lowercase UUID"));
            }
            return Err(Invalid(errors).into());
        }
    };
    let recipe = state.recipes.confirm_image(&user.id, id, &upload).await?;
    Ok(axum::Json(
        present_one(&state, &extensions, &headers, recipe, None).await?,
    ))
}

/// Removes the recipe's photo (and deletes it).
#[utoipa::path(
    delete,
    path = "/api/recipes/recipes/{recipeId}/image",
    operation_id = "deleteRecipeImage",
    tag = "recipes",
    params(("recipeId" = i64, Path, minimum = 1, description = "The recipe's id")),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The recipe without a photo", body = Recipe),
        (status = 400, description = "`recipeId` is invalid", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "Not a user token", body = ErrorBody),
        (status = 404, description = "The caller has no such recipe", body = ErrorBody),
        (status = 503, description = "Image storage is unavailable or not configured", body = ErrorBody),
    )
)]
pub(crate) async fn delete_image(
    State(state): State<AppState>,
    user: AuthUser,
    extensions: Extensions,
    headers: HeaderMap,
    Path(raw): Path<String>,
) -> Result<axum::Json<Recipe>, ApiError> {
    let id = recipe_id(&raw)?;
    let recipe = state.recipes.remove_image(&user.id, id).await?;
    Ok(axum::Json(
        present_one(&state, &extensions, &headers, recipe, None).await?,
    ))
}

/// A recipe with its nutrients just stored, and where they came from.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = StoredRecipeNutrients)]
pub(crate) struct StoredNutrients {
    recipe: Recipe,
    computed: ComputedNutrients,
}

/// Computes the recipe's nutrients (the food table, then the model for the rest, as
/// `computeNutrients`) and stores them on it: reads show them (and per portion) without
/// asking again; changing the ingredients clears them.
#[utoipa::path(
    post,
    path = "/api/recipes/recipes/{recipeId}/nutrients",
    operation_id = "storeRecipeNutrients",
    tag = "recipes",
    params(("recipeId" = i64, Path, minimum = 1, description = "The recipe's id")),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The recipe with its nutrients, and their sources", body = StoredNutrients),
        (status = 400, description = "`recipeId` is invalid", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "Not a user token", body = ErrorBody),
        (status = 404, description = "The caller has no such recipe", body = ErrorBody),
        (status = 409, description = "The recipe kept changing concurrently", body = ErrorBody),
        TooManyAiRequests,
        (status = 500, description = "The LLM settings are invalid", body = ErrorBody),
        (status = 502, description = "The model gave no usable nutrients", body = ErrorBody),
        (status = 503, description = "The limits table cannot be reached", body = ErrorBody),
    )
)]
pub(crate) async fn store_nutrients(
    State(state): State<AppState>,
    user: AuthUser,
    extensions: Extensions,
    headers: HeaderMap,
    Path(raw): Path<String>,
) -> Result<axum::Json<StoredNutrients>, ApiError> {
    let id = recipe_id(&raw)?;
    state
        .brake
        .admit(&AI_PER_USER, ClientKey::user(&user.id))
        .await?;
    let (recipe, computed) = state.recipes.store_nutrients(&user.id, id).await?;
    let recipe = present_one(&state, &extensions, &headers, recipe, None).await?;
    Ok(axum::Json(StoredNutrients { recipe, computed }))
}

/// A plan read.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct PlanQuery {
    /// The first day (default today, UTC).
    #[param(value_type = Option<String>, format = Date)]
    from: Option<String>,
    /// The last day, at most 61 days after `from` (default `from` plus 6: a week).
    #[param(value_type = Option<String>, format = Date)]
    to: Option<String>,
    /// Meals per page, 1 to 56 (default 56).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 56)]
    limit: Option<String>,
    /// The `Link` of the previous page gives it: `yyyy-mm-dd.meal` of the last meal read.
    #[param(value_type = Option<String>, pattern = "^[0-9]{4}-[0-9]{2}-[0-9]{2}\\.(breakfast|lunch|dinner|snack)$")]
    cursor: Option<String>,
}

/// The caller's meal plan from `from` to `to`, by day and meal (breakfast, lunch, dinner,
/// snack); days without a plan are absent. A recipe deleted since it was planned is still
/// listed, `deleted`.
#[utoipa::path(
    get,
    path = "/api/recipes/plan",
    operation_id = "getMealPlan",
    tag = "recipes",
    params(PlanQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The planned meals (a page)", body = Vec<PlanSlot>,
            headers(("Link" = String, description = "`<...&cursor=...>; rel=\"next\"` when more meals follow"))),
        (status = 400, description = "`from`, `to`, `limit` or `cursor` is invalid", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "Not a user token", body = ErrorBody),
    )
)]
pub(crate) async fn get_plan(
    State(state): State<AppState>,
    user: AuthUser,
    Query(query): Query<PlanQuery>,
) -> Result<Response, ApiError> {
    let mut errors = Vec::new();
    let today = state.recipes.today();
    let from = match query.from.as_deref().map(|raw| parse_date("from", raw)) {
        None => Some(today),
        Some(Ok(date)) => Some(date),
        Some(Err(e)) => {
            errors.push(e);
            None
        }
    };
    let to = match query.to.as_deref().map(|raw| parse_date("to", raw)) {
        None => from.and_then(|f| f.checked_add_days(chrono::Days::new(6))),
        Some(Ok(date)) => Some(date),
        Some(Err(e)) => {
            errors.push(e);
            None
        }
    };
    let limit = match query.limit.as_deref() {
        None => Some(MAX_PLAN_PAGE),
        Some(raw) => match raw.parse::<usize>() {
            Ok(n) if (1..=MAX_PLAN_PAGE).contains(&n) => Some(n),
            _ => {
                errors.push(FieldError::new("limit", "must be 1 to 56"));
                None
            }
        },
    };
    let after = match query.cursor.as_deref() {
        None => None,
        Some(raw) => match parse_cursor(raw) {
            Some(c) => Some(c),
            None => {
                errors.push(FieldError::new("cursor", "must be yyyy-mm-dd.meal"));
                None
            }
        },
    };
    let (Some(from), Some(to), Some(limit)) = (from, to, limit) else {
        return Err(Invalid(errors).into());
    };
    if !errors.is_empty() {
        return Err(Invalid(errors).into());
    }
    let (from, to) = date_range(from, to)?;
    let (slots, more) = state.recipes.plan(&user.id, from, to, after, limit).await?;
    let next = slots.last().filter(|_| more).map(|last| {
        format!(
            "<{PLAN_PATH}?from={from}&to={to}&limit={limit}&cursor={}>; rel=\"next\"",
            cursor(last)
        )
    });
    let mut response = axum::Json(slots).into_response();
    if let Some(link) = next.and_then(|l| header::HeaderValue::from_str(&l).ok()) {
        response.headers_mut().insert(header::LINK, link);
    }
    Ok(response)
}

const PLAN_PATH: &str = "/api/recipes/plan";

/// The path of a plan slot: its day and meal, each named when wrong.
fn slot_path(date: &str, meal: &str) -> Result<(chrono::NaiveDate, Meal), Invalid> {
    let date = parse_date("date", date);
    let meal = Meal::parse(meal)
        .ok_or_else(|| FieldError::new("meal", "must be breakfast, lunch, dinner or snack"));
    match (date, meal) {
        (Ok(date), Ok(meal)) => Ok((date, meal)),
        (date, meal) => Err(Invalid(date.err().into_iter().chain(meal.err()).collect())),
    }
}

/// Sets a day's meal: its recipes (1 to 10, each one of the caller's) and portions (the
/// recipe's own when absent). The whole meal is replaced.
#[utoipa::path(
    put,
    path = "/api/recipes/plan/{date}/{meal}",
    operation_id = "planMeal",
    tag = "recipes",
    params(
        ("date" = String, Path, format = Date, description = "The day, yyyy-mm-dd"),
        ("meal" = Meal, Path, description = "The meal"),
    ),
    request_body = PlanSlotBody,
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The meal as planned", body = PlanSlot),
        (status = 400, description = "`date`, `meal` or an entry is invalid, or names a recipe that is not the caller's (`details` names each)", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "Not a user token", body = ErrorBody),
    )
)]
pub(crate) async fn put_plan(
    State(state): State<AppState>,
    user: AuthUser,
    Path((date, meal)): Path<(String, String)>,
    Json(body): Json<PlanSlotBody>,
) -> Result<axum::Json<PlanSlot>, ApiError> {
    let slot = slot_path(&date, &meal);
    let entries = wanted_entries("entries", body.entries, MAX_ENTRIES);
    let ((date, meal), entries) = match (slot, entries) {
        (Ok(slot), Ok(entries)) => (slot, entries),
        (slot, entries) => {
            let mut errors = slot.err().map(|e| e.0).unwrap_or_default();
            errors.extend(entries.err().unwrap_or_default());
            return Err(Invalid(errors).into());
        }
    };
    let slot = state
        .recipes
        .plan_meal(&user.id, date, meal, &entries)
        .await?;
    Ok(axum::Json(slot))
}

/// Clears a day's meal (nothing planned there is fine).
#[utoipa::path(
    delete,
    path = "/api/recipes/plan/{date}/{meal}",
    operation_id = "unplanMeal",
    tag = "recipes",
    params(
        ("date" = String, Path, format = Date, description = "The day, yyyy-mm-dd"),
        ("meal" = Meal, Path, description = "The meal"),
    ),
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Nothing is planned for that meal now"),
        (status = 400, description = "`date` or `meal` is invalid", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "Not a user token", body = ErrorBody),
    )
)]
pub(crate) async fn delete_plan(
    State(state): State<AppState>,
    user: AuthUser,
    Path((date, meal)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    let (date, meal) = slot_path(&date, &meal)?;
    state.recipes.unplan_meal(&user.id, date, meal).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The caller's shopping list (empty until built or added to). One document of at most 500
/// items, answered whole.
#[utoipa::path(
    get,
    path = "/api/recipes/shopping-list",
    operation_id = "getShoppingList",
    tag = "recipes",
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The list", body = ShoppingList),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "Not a user token", body = ErrorBody),
    )
)]
pub(crate) async fn get_list(
    State(state): State<AppState>,
    user: AuthUser,
) -> Result<axum::Json<ShoppingList>, ApiError> {
    Ok(axum::Json(state.recipes.shopping_list(&user.id).await?))
}

/// What to build the list from: a plan's days, or chosen recipes (exactly one of the two).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ShoppingListBuildBody)]
pub(crate) struct BuildListBody {
    /// The first planned day.
    #[schema(value_type = Option<String>, format = Date)]
    from: Option<String>,
    /// The last planned day (at most 61 days after `from`).
    #[schema(value_type = Option<String>, format = Date)]
    to: Option<String>,
    /// Recipes and the portions to buy for (their own when absent), 1 to 50.
    #[schema(value_type = Option<Vec<RawPlanEntry>>, min_items = 1, max_items = 50)]
    recipes: Option<Vec<RawPlanEntry>>,
}

/// Builds the caller's shopping list from the meals planned `from`..`to`, or from chosen
/// `recipes`: every ingredient scaled to the portions planned, merged by name and compatible
/// unit (g+kg, ml+l, tsp+tbsp+cup, counts; others kept apart). Items added by hand stay, and
/// an item checked before stays checked. Recipes deleted since they were planned are left
/// out.
#[utoipa::path(
    post,
    path = "/api/recipes/shopping-list",
    operation_id = "buildShoppingList",
    tag = "recipes",
    request_body = BuildListBody,
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The list built", body = ShoppingList),
        (status = 400, description = "Neither or both of `from`/`to` and `recipes`, a bad date or range, or a recipe that is not the caller's (`details` names each)", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "Not a user token", body = ErrorBody),
        (status = 409, description = "The list kept changing concurrently", body = ErrorBody),
    )
)]
pub(crate) async fn build_list(
    State(state): State<AppState>,
    user: AuthUser,
    Json(body): Json<BuildListBody>,
) -> Result<axum::Json<ShoppingList>, ApiError> {
    let source = match (body.from, body.to, body.recipes) {
        (None, None, Some(recipes)) => ListSource::Recipes(
            wanted_entries("recipes", Some(recipes), MAX_LIST_RECIPES).map_err(Invalid)?,
        ),
        (Some(from), Some(to), None) => {
            let from = parse_date("from", &from);
            let to = parse_date("to", &to);
            let (from, to) = match (from, to) {
                (Ok(from), Ok(to)) => date_range(from, to)?,
                (from, to) => {
                    return Err(Invalid(from.err().into_iter().chain(to.err()).collect()).into())
                }
            };
            ListSource::Plan { from, to }
        }
        _ => {
            return Err(Invalid::field(
                "recipes",
                "give either from and to (planned days) or recipes",
            )
            .into())
        }
    };
    Ok(axum::Json(
        state.recipes.build_shopping_list(&user.id, source).await?,
    ))
}

/// An item added by hand.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ShoppingListItemBody)]
pub(crate) struct AddItemBody {
    #[schema(required = true, value_type = String, min_length = 1, max_length = 100, pattern = "\\S")]
    name: Option<String>,
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 100000)]
    quantity: Option<f64>,
    #[schema(value_type = Option<String>, max_length = 20)]
    unit: Option<String>,
}

fn list_text(
    field: &str,
    raw: &str,
    max: usize,
    allow_empty: bool,
    errors: &mut Vec<FieldError>,
) -> Option<String> {
    let value = raw.trim();
    if value.is_empty() && !allow_empty {
        errors.push(FieldError::new(field, "must not be blank"));
        None
    } else if raw.chars().count() > max {
        errors.push(FieldError::new(
            field,
            format!("must be at most {max} characters"),
        ));
        None
    } else if raw.chars().any(char::is_control) {
        errors.push(FieldError::new(
            field,
            "must not contain control characters",
        ));
        None
    } else {
        Some(value.to_string())
    }
}

/// Adds an item by hand (kept when the list is built again).
#[utoipa::path(
    post,
    path = "/api/recipes/shopping-list/items",
    operation_id = "addShoppingListItem",
    tag = "recipes",
    request_body = AddItemBody,
    security(("bearerJwt" = [])),
    responses(
        (status = 201, description = "Added", body = ShoppingItem),
        (status = 400, description = "`name`, `quantity` or `unit` is invalid, or the list is full (500 items)", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "Not a user token", body = ErrorBody),
        (status = 409, description = "The list kept changing concurrently", body = ErrorBody),
    )
)]
pub(crate) async fn add_item(
    State(state): State<AppState>,
    user: AuthUser,
    Json(body): Json<AddItemBody>,
) -> Result<Response, ApiError> {
    let mut errors = Vec::new();
    let name = match body.name.as_deref() {
        Some(raw) => list_text("name", raw, MAX_INGREDIENT_NAME, false, &mut errors),
        None => {
            errors.push(FieldError::new("name", "is required"));
            None
        }
    };
    let unit = list_text(
        "unit",
        body.unit.as_deref().unwrap_or(""),
        MAX_UNIT,
        true,
        &mut errors,
    );
    if let Some(q) = body.quantity {
        if !q.is_finite() || !(0.0..=MAX_QUANTITY).contains(&q) {
            errors.push(FieldError::new(
                "quantity",
                format!("must be 0 to {MAX_QUANTITY}"),
            ));
        }
    }
    let (Some(name), Some(unit)) = (name, unit) else {
        return Err(Invalid(errors).into());
    };
    if !errors.is_empty() {
        return Err(Invalid(errors).into());
    }
    let item = state
        .recipes
        .add_list_item(
            &user.id,
            ExtraItem {
                name,
                quantity: body.quantity,
                unit,
            },
        )
        .await?;
    Ok((StatusCode::CREATED, axum::Json(item)).into_response())
}

/// An item's check.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ShoppingListCheckBody)]
pub(crate) struct CheckItemBody {
    #[schema(required = true, value_type = bool)]
    checked: Option<bool>,
}

fn item_id(raw: &str) -> Result<&str, Invalid> {
    if raw.len() == 8
        && raw
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        Ok(raw)
    } else {
        Err(Invalid::field("itemId", "must be 8 lowercase hex digits"))
    }
}

/// Checks an item off, or on again.
#[utoipa::path(
    patch,
    path = "/api/recipes/shopping-list/items/{itemId}",
    operation_id = "checkShoppingListItem",
    tag = "recipes",
    params(("itemId" = String, Path, pattern = "^[0-9a-f]{8}$", description = "The item's id")),
    request_body = CheckItemBody,
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "The item", body = ShoppingItem),
        (status = 400, description = "`itemId` or `checked` is invalid", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "Not a user token", body = ErrorBody),
        (status = 404, description = "No such item on the caller's list", body = ErrorBody),
        (status = 409, description = "The list kept changing concurrently", body = ErrorBody),
    )
)]
pub(crate) async fn check_item(
    State(state): State<AppState>,
    user: AuthUser,
    Path(raw): Path<String>,
    Json(body): Json<CheckItemBody>,
) -> Result<axum::Json<ShoppingItem>, ApiError> {
    let id = item_id(&raw);
    let checked = body
        .checked
        .ok_or_else(|| FieldError::new("checked", "is required"));
    let (id, checked) = match (id, checked) {
        (Ok(id), Ok(checked)) => (id, checked),
        (id, checked) => {
            let mut errors = id.err().map(|e| e.0).unwrap_or_default();
            errors.extend(checked.err());
            return Err(Invalid(errors).into());
        }
    };
    Ok(axum::Json(
        state.recipes.check_list_item(&user.id, id, checked).await?,
    ))
}

/// Removes an item.
#[utoipa::path(
    delete,
    path = "/api/recipes/shopping-list/items/{itemId}",
    operation_id = "removeShoppingListItem",
    tag = "recipes",
    params(("itemId" = String, Path, pattern = "^[0-9a-f]{8}$", description = "The item's id")),
    security(("bearerJwt" = [])),
    responses(
        (status = 204, description = "Removed"),
        (status = 400, description = "`itemId` is invalid", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "Not a user token", body = ErrorBody),
        (status = 404, description = "No such item on the caller's list", body = ErrorBody),
        (status = 409, description = "The list kept changing concurrently", body = ErrorBody),
    )
)]
pub(crate) async fn remove_item(
    State(state): State<AppState>,
    user: AuthUser,
    Path(raw): Path<String>,
) -> Result<StatusCode, ApiError> {
    let id = item_id(&raw)?;
    state.recipes.remove_list_item(&user.id, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
