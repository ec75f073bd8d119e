//! The guards that gate routes, built on [`crate::tokens`]: a missing, malformed, expired or
//! badly signed token is 401; a valid token without the needed role or scope is 403.

use std::marker::PhantomData;
use std::sync::Arc;

use axum::extract::{FromRef, FromRequestParts};
use axum::http::header;
use axum::http::request::Parts;

use crate::error::ApiError;
use crate::tokens::{Claims, InternalToken, TokenVerifier, ROLE_ADMIN, ROLE_OPERATOR, ROLE_USER};

fn bearer(parts: &Parts) -> Result<Option<&str>, ApiError> {
    let Some(value) = parts.headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let value = value
        .to_str()
        .map_err(|_| ApiError::unauthorized("Authorization header is malformed"))?;
    match value.split_once(' ') {
        Some((scheme, token))
            if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() =>
        {
            Ok(Some(token.trim()))
        }
        _ => Err(ApiError::unauthorized(
            "Authorization header must be 'Bearer <token>'",
        )),
    }
}

/// The claims of the request's bearer token, when it has one: signature, expiry, issuer and
/// audience checked, then (user tokens) that its session has not ended.
async fn verified(parts: &Parts, verifier: &TokenVerifier) -> Result<Option<Claims>, ApiError> {
    let Some(token) = bearer(parts)? else {
        return Ok(None);
    };
    let claims = verifier.verify(token).map_err(|e| {
        tracing::debug!(reason = %e, "token refused");
        ApiError::unauthorized(format!("Invalid token: {e}"))
    })?;
    match verifier.session_ended(&claims).await {
        Ok(false) => Ok(Some(claims)),
        Ok(true) => Err(ApiError::unauthorized(
            "The session has ended: sign in again",
        )),
        Err(e) => {
            tracing::error!(error = %e, "sessions table unavailable");
            Err(ApiError::unavailable(
                "Sign-in cannot be checked right now; try again shortly",
            ))
        }
    }
}

/// The signed-in user. No token or a bad token: 401; a service token: 403.
#[derive(Debug, Clone)]
pub struct AuthUser {
    pub id: String,
    pub username: String,
    pub roles: Vec<String>,
    /// The session version the token was issued for (`sv`; 0 for tokens without one).
    pub session_version: u64,
}

impl AuthUser {
    pub fn is_admin(&self) -> bool {
        self.roles.iter().any(|r| r == ROLE_ADMIN)
    }

    /// An operator of the incident platform: OPERATOR or ADMIN.
    pub fn is_operator(&self) -> bool {
        self.is_admin() || self.roles.iter().any(|r| r == ROLE_OPERATOR)
    }

    fn from_claims(claims: Claims) -> Result<Self, ApiError> {
        if !claims.has_role(ROLE_USER) {
            return Err(ApiError::forbidden("A user token is required"));
        }
        Ok(Self {
            id: claims.sub,
            username: claims.username.unwrap_or_default(),
            roles: claims.roles,
            session_version: claims.sv.unwrap_or(0),
        })
    }
}

impl<S> FromRequestParts<S> for AuthUser
where
    S: Send + Sync,
    Arc<TokenVerifier>: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let verifier = Arc::<TokenVerifier>::from_ref(state);
        match verified(parts, &verifier).await? {
            Some(claims) => AuthUser::from_claims(claims),
            None => Err(ApiError::unauthorized("Authentication is required")),
        }
    }
}

/// The user when a token is sent; a bad token is still 401.
#[derive(Debug, Clone)]
pub struct MaybeUser(pub Option<AuthUser>);

impl<S> FromRequestParts<S> for MaybeUser
where
    S: Send + Sync,
    Arc<TokenVerifier>: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let verifier = Arc::<TokenVerifier>::from_ref(state);
        match verified(parts, &verifier).await? {
            Some(claims) => AuthUser::from_claims(claims).map(|u| MaybeUser(Some(u))),
            None => Ok(MaybeUser(None)),
        }
    }
}

/// The signed-in user when `holds` says they have `role` (401 without a user, 403 otherwise).
async fn with_role<S>(
    parts: &mut Parts,
    state: &S,
    holds: fn(&AuthUser) -> bool,
    role: &str,
) -> Result<AuthUser, ApiError>
where
    S: Send + Sync,
    Arc<TokenVerifier>: FromRef<S>,
{
    let user = AuthUser::from_request_parts(parts, state).await?;
    if holds(&user) {
        Ok(user)
    } else {
        Err(ApiError::forbidden(format!("The {role} role is required")))
    }
}

/// A signed-in user with the ADMIN role (403 otherwise).
#[derive(Debug, Clone)]
pub struct AdminUser(pub AuthUser);

impl<S> FromRequestParts<S> for AdminUser
where
    S: Send + Sync,
    Arc<TokenVerifier>: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        with_role(parts, state, AuthUser::is_admin, "ADMIN")
            .await
            .map(AdminUser)
    }
}

/// A signed-in user with the OPERATOR or the ADMIN role (403 otherwise): the incident
/// platform's people.
#[derive(Debug, Clone)]
pub struct OperatorUser(pub AuthUser);

impl<S> FromRequestParts<S> for OperatorUser
where
    S: Send + Sync,
    Arc<TokenVerifier>: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        with_role(parts, state, AuthUser::is_operator, "OPERATOR")
            .await
            .map(OperatorUser)
    }
}

/// A service scope a route requires.
pub trait Scope: Send + Sync + 'static {
    const NAME: &'static str;
}

/// A caller holding scope `S`: no token or a bad token 401, a token without `S` 403.
#[derive(Debug, Clone)]
pub struct RequireScope<S: Scope> {
    pub client_id: String,
    _scope: PhantomData<S>,
}

impl<S, St> FromRequestParts<St> for RequireScope<S>
where
    S: Scope,
    St: Send + Sync,
    Arc<TokenVerifier>: FromRef<St>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &St) -> Result<Self, Self::Rejection> {
        let verifier = Arc::<TokenVerifier>::from_ref(state);
        let claims = verified(parts, &verifier)
            .await?
            .ok_or_else(|| ApiError::unauthorized("A service token is required"))?;
        if !claims.has_scope(S::NAME) {
            return Err(ApiError::forbidden(format!(
                "The scope {} is required",
                S::NAME
            )));
        }
        Ok(Self {
            client_id: claims.sub,
            _scope: PhantomData,
        })
    }
}

pub use crate::call::INTERNAL_TOKEN_HEADER;

/// A caller that presented the internal service token (401 otherwise).
#[derive(Debug, Clone, Copy)]
pub struct InternalService;

impl<S> FromRequestParts<S> for InternalService
where
    S: Send + Sync,
    InternalToken: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let expected = InternalToken::from_ref(state);
        let presented = parts
            .headers
            .get(INTERNAL_TOKEN_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if expected.matches(presented) {
            Ok(InternalService)
        } else {
            Err(
                ApiError::unauthorized("A valid X-Internal-Service-Token is required")
                    .with_challenge("X-Internal-Service-Token"),
            )
        }
    }
}
