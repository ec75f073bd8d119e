//! Administration of accounts (`/api/users/admin/...`, ADMIN only): the account directory and
//! the roles of an account. Roles belong to accounts, never to usernames.

use axum::extract::{Path, Query, State};
use axum::routing::{get, put};
use axum::Router;
use identity::input::RoleChangeRequest;
use identity::model::{Profile, UserId};
use platform::auth::AdminUser;
use platform::http::Json;
use platform::openapi::{ErrorBody, SecuritySchemes};
use platform::ApiError;
use platform::FieldError;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, OpenApi, ToSchema};

use crate::AppState;

/// The longest page of the account directory.
const MAX_PAGE: usize = 100;
/// A page when none is asked for.
const DEFAULT_PAGE: usize = 50;

/// The administration routes, relative to `/api/users`.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/admin/users", get(accounts))
        .route("/admin/users/{id}/roles", put(set_roles))
}

#[derive(OpenApi)]
#[openapi(
    paths(accounts, set_roles),
    components(schemas(AccountPage, RoleChangeRequest, Profile, ErrorBody)),
    modifiers(&SecuritySchemes),
    tags((name = "administration", description = "Accounts and their roles (ADMIN)"))
)]
struct AdminApi;

pub(crate) fn openapi() -> utoipa::openapi::OpenApi {
    AdminApi::openapi()
}

/// A page of accounts.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct AccountPage {
    /// Accounts in id order, with their roles.
    users: Vec<Profile>,
    /// The `cursor` of the next page; absent on the last one.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct PageQuery {
    /// The previous page's `nextCursor` (absent: the first page).
    #[param(max_length = 200)]
    cursor: Option<String>,
    /// 1 to 100 (default 50).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
}

fn page_size(raw: Option<&str>) -> Result<usize, FieldError> {
    let Some(raw) = raw else {
        return Ok(DEFAULT_PAGE);
    };
    match raw.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_PAGE).contains(&n) => Ok(n),
        _ => Err(FieldError::new(
            "limit",
            format!("must be a whole number from 1 to {MAX_PAGE}"),
        )),
    }
}

/// Every account, a page at a time in id order, with its roles.
#[utoipa::path(
    get,
    path = "/api/users/admin/users",
    operation_id = "listAccounts",
    tag = "administration",
    security(("bearerJwt" = [])),
    params(PageQuery),
    responses(
        (status = 200, description = "A page of accounts", body = AccountPage),
        (status = 400, description = "`limit` or `cursor` is invalid", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "The ADMIN role is required, or the account is the caller's own (another administrator changes an administrator's roles)", body = ErrorBody),
    )
)]
async fn accounts(
    State(state): State<AppState>,
    _admin: AdminUser,
    Query(query): Query<PageQuery>,
) -> Result<axum::Json<AccountPage>, ApiError> {
    let limit = page_size(query.limit.as_deref())?;
    let cursor = query
        .cursor
        .map(|c| platform::validation::bounded_id("cursor", c))
        .transpose()?;
    let page = state.identity.accounts(cursor.as_deref(), limit).await?;
    Ok(axum::Json(AccountPage {
        users: page.accounts,
        next_cursor: page.next_cursor,
    }))
}

/// Sets an account's roles. `USER` always stays; an administrator's own roles are changed by
/// another administrator. The account's sessions end, so it signs in again to carry the new
/// roles.
#[utoipa::path(
    put,
    path = "/api/users/admin/users/{id}/roles",
    operation_id = "setAccountRoles",
    tag = "administration",
    security(("bearerJwt" = [])),
    params(("id" = String, Path, max_length = 200, description = "The account's id")),
    request_body = RoleChangeRequest,
    responses(
        (status = 200, description = "The account's profile with its new roles", body = Profile),
        (status = 400, description = "`roles` is missing or names an unknown role", body = ErrorBody),
        (status = 401, description = "No valid user token", body = ErrorBody),
        (status = 403, description = "The ADMIN role is required, or the account is the caller's own (another administrator changes an administrator's roles)", body = ErrorBody),
        (status = 404, description = "No such account", body = ErrorBody),
    )
)]
async fn set_roles(
    State(state): State<AppState>,
    AdminUser(admin): AdminUser,
    Path(id): Path<String>,
    Json(input): Json<RoleChangeRequest>,
) -> Result<axum::Json<Profile>, ApiError> {
    let id = platform::validation::bounded_id("id", id)?;
    let roles = input.parse()?;
    let profile = state
        .identity
        .set_roles(&UserId::new(admin.id), &UserId::new(id), &roles)
        .await?;
    Ok(axum::Json(profile))
}
