//! The error answers several routes of the news functions share, declared once for the
//! OpenAPI contract (`responses(..., NoSuchSource)` in a route's `#[utoipa::path]`).

use platform::openapi::ErrorBody;
use utoipa::IntoResponses;

/// The 404 of a route naming a source.
#[derive(IntoResponses)]
#[response(status = 404, description = "No such source")]
pub struct NoSuchSource(pub ErrorBody);

/// The 404 of a route naming an article.
#[derive(IntoResponses)]
#[response(status = 404, description = "No such article")]
pub struct NoSuchArticle(pub ErrorBody);

/// The 401 of a route for signed-in users.
#[derive(IntoResponses)]
#[response(status = 401, description = "No valid user token")]
pub struct UserTokenRequired(pub ErrorBody);

/// The 401 of a write for signed-in users, whose account must still exist.
#[derive(IntoResponses)]
#[response(
    status = 401,
    description = "No valid user token, or the token's account no longer exists"
)]
pub struct LiveUserRequired(pub ErrorBody);

/// The 401 and 403 of a route for services holding the `source.write` scope.
#[derive(IntoResponses)]
pub enum ServiceTokenRequired {
    #[response(status = 401, description = "No valid token")]
    Unauthorized(ErrorBody),
    #[response(
        status = 403,
        description = "The token lacks the source.write scope (user tokens never have it)"
    )]
    Forbidden(ErrorBody),
}

/// The 400 of a route whose path names something by an id longer than any id can be.
#[derive(IntoResponses)]
#[response(
    status = 400,
    description = "An id in the path is longer than 200 characters (`details`: `field: reason`)"
)]
pub struct IdTooLong(pub ErrorBody);

/// The 404 of a reader route naming a source the person does not subscribe to.
#[derive(IntoResponses)]
#[response(
    status = 404,
    description = "The person does not subscribe to this source"
)]
pub struct NoSuchSubscription(pub ErrorBody);

/// The 404 of a reader route naming a label no subscription of the person carries.
#[derive(IntoResponses)]
#[response(
    status = 404,
    description = "No subscription of the person carries this label"
)]
pub struct NoSuchLabel(pub ErrorBody);
