//! The operators an incident may be assigned to (`GET /api/v1/operators`): the people with
//! the OPERATOR or ADMIN role who have used the incident platform, as their tokens said.
//!
//! Identity has no index of people by role (its directory lists every account, readers
//! included), so the incidents function keeps its own roster in its table: an operator's
//! request to the console's entry points (the incident list, an incident, this list, an
//! update) records them (`OPERATOR#{username lowercase}` / `META`, under gsi1 `OPERATORS`),
//! written at most once a day per person and Lambda instance. `PATCH /api/v1/incidents/{id}`
//! accepts as `assignee` only a username of the roster (the caller is always in it).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use platform::auth::{AuthUser, OperatorUser};
use platform::dynamo::{key, s, Attributes, DynamoError, Item, Table};
use platform::http::Query;
use platform::openapi::ErrorBody;
use platform::ApiError;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::{list_cursor, list_limit, paged, AppState};

/// The operator routes.
pub(crate) fn routes() -> Router<AppState> {
    Router::new().route("/api/v1/operators", get(list_operators))
}

/// A person incidents may be assigned to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Operator {
    /// Their username, as an incident's `assignee` names them.
    pub username: String,
    /// OPERATOR and/or ADMIN, as their last token said.
    pub roles: Vec<String>,
    /// The UTC day (`YYYY-MM-DD`) they were last seen on the incident platform.
    pub last_seen: String,
}

/// Who has been recorded today by this instance (their lowercase username and the day).
#[derive(Clone, Default)]
pub(crate) struct Roster {
    seen: Arc<Mutex<HashSet<(String, String)>>>,
}

/// A table failure, answered as the domain's are.
pub(crate) fn store_error(e: DynamoError) -> ApiError {
    ApiError::from(incidents::IncidentsError::from(e))
}

fn operator_key(username: &str) -> Item {
    key(format!("OPERATOR#{}", username.to_lowercase()), "META")
}

impl Roster {
    /// Records `user` (an OPERATOR or ADMIN) as seen today, unless this instance did already.
    pub(crate) async fn seen(&self, table: &Table, user: &AuthUser) -> Result<(), ApiError> {
        let lower = user.username.to_lowercase();
        let day = chrono::Utc::now().format("%Y-%m-%d").to_string();
        let fresh = (lower.clone(), day.clone());
        if self
            .seen
            .lock()
            .map(|s| s.contains(&fresh))
            .unwrap_or(false)
        {
            return Ok(());
        }
        let roles: Vec<_> = user
            .roles
            .iter()
            .filter(|r| *r == "OPERATOR" || *r == "ADMIN")
            .map(|r| s(r.as_str()))
            .collect();
        let mut item = operator_key(&user.username);
        item.insert("username".into(), s(user.username.as_str()));
        item.insert("userId".into(), s(user.id.as_str()));
        item.insert("roles".into(), platform::dynamo::AttributeValue::L(roles));
        item.insert("lastSeen".into(), s(day));
        item.insert("gsi1pk".into(), s("OPERATORS"));
        item.insert("gsi1sk".into(), s(lower));
        table
            .put_item()
            .set_item(Some(item))
            .send()
            .await
            .map_err(|e| store_error(table.fail("PutItem", &e)))?;
        if let Ok(mut seen) = self.seen.lock() {
            // Yesterday's entries go with the day's first write.
            seen.retain(|(_, d)| *d == fresh.1);
            seen.insert(fresh);
        }
        Ok(())
    }

    /// The roster's spelling of `username` (compared without case), if it is there.
    pub(crate) async fn known(
        &self,
        table: &Table,
        username: &str,
    ) -> Result<Option<String>, DynamoError> {
        Ok(table
            .get(operator_key(username))
            .await?
            .and_then(|item| item.opt_string("username")))
    }
}

fn operator_of(item: &Item, table: &str) -> Result<Operator, DynamoError> {
    let roles = match item.get("roles") {
        Some(platform::dynamo::AttributeValue::L(values)) => values
            .iter()
            .filter_map(|v| v.as_s().ok().cloned())
            .collect(),
        _ => Vec::new(),
    };
    Ok(Operator {
        username: item.string(table, "username")?,
        roles,
        last_seen: item.string(table, "lastSeen")?,
    })
}

/// The list's size and page.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct OperatorQuery {
    /// From 1 to 100 (default 50).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// The `X-Next-Cursor` of the previous page: the page after it.
    #[param(max_length = 400, pattern = "^(?:[2-7][0-9a-f]){1,200}$")]
    cursor: Option<String>,
}

/// The operators incidents may be assigned to, by username: everyone with the OPERATOR or
/// ADMIN role who has used the incident platform (the caller included).
#[utoipa::path(
    get,
    path = "/api/v1/operators",
    operation_id = "listOperators",
    tag = "incidents",
    params(OperatorQuery),
    security(("bearerJwt" = [])),
    responses(
        (status = 200, description = "A page of operators by username. When more follow, the `X-Next-Cursor` header holds the next page's cursor", body = Vec<Operator>,
            headers(("X-Next-Cursor" = String, description = "The cursor of the next page; absent at the end"))),
        (status = 400, description = "A bad limit or cursor", body = ErrorBody),
        (status = 401, description = "No token, or an invalid, expired or ended one", body = ErrorBody),
        (status = 403, description = "The token is a plain USER's: the OPERATOR (or ADMIN) role is required", body = ErrorBody),
    )
)]
pub(crate) async fn list_operators(
    State(state): State<AppState>,
    OperatorUser(user): OperatorUser,
    Query(query): Query<OperatorQuery>,
) -> Result<Response, ApiError> {
    let limit = list_limit(query.limit.as_deref())?;
    let after = list_cursor(query.cursor.as_deref())?;
    let table = state.incidents.table();
    state.roster.seen(table, &user).await?;
    let wanted = limit.saturating_add(1);
    let mut request = table
        .query()
        .index_name("gsi1")
        .key_condition_expression("gsi1pk = :pk")
        .expression_attribute_values(":pk", s("OPERATORS"))
        .limit(i32::try_from(wanted).unwrap_or(i32::MAX));
    if let Some(after) = &after {
        request = request
            .key_condition_expression("gsi1pk = :pk AND gsi1sk > :after")
            .expression_attribute_values(":after", s(after.as_str()));
    }
    let mut items = table
        .query_all(request, Some(wanted))
        .await
        .map_err(store_error)?;
    let more = items.len() > limit;
    items.truncate(limit);
    let next = if more {
        items
            .last()
            .and_then(|i| i.opt_string("gsi1sk"))
            .map(|sk| platform::cursor::encode_cursor(&sk))
    } else {
        None
    };
    let operators = items
        .iter()
        .map(|i| operator_of(i, table.name()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(store_error)?;
    Ok(paged(operators, next))
}
