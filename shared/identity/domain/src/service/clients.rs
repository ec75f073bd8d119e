//! Service tokens for OAuth2 clients (the client credentials grant).

use crate::clients::ClientCredentials;
use crate::error::IdentityError;
use crate::tokens::IssuedToken;

use super::Identity;

/// A service token and the scopes it grants.
#[derive(Debug)]
pub struct ServiceGrant {
    pub token: IssuedToken,
    pub scopes: Vec<String>,
}

impl Identity {
    /// A service token for an OAuth2 client (the client credentials grant), with the scopes
    /// asked for, or all the client's when `requested` is `None`.
    pub fn service_token(
        &self,
        credentials: &ClientCredentials,
        requested: Option<Vec<String>>,
    ) -> Result<ServiceGrant, IdentityError> {
        let client = self
            .clients
            .authenticate(&credentials.id, &credentials.secret)
            .ok_or(IdentityError::BadClientCredentials)?;
        let scopes = match requested {
            Some(requested) => {
                if let Some(bad) = requested.iter().find(|s| !client.scopes.contains(s)) {
                    return Err(IdentityError::ScopeNotAllowed(bad.clone()));
                }
                requested
            }
            None => client.scopes.clone(),
        };
        let token = self.issuer.service_token(&client.id, &scopes)?;
        Ok(ServiceGrant { token, scopes })
    }
}
