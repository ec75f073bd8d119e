//! The answers of the user directory (`/api/users/internal/users`), the platform's own
//! services' view of accounts.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum Role {
    User,
    Operator,
    Admin,
}

impl Role {
    /// The role a token or a stored profile names; `None` for one this code does not know.
    /// The names are `platform::tokens::ROLES` (identity's tests hold them equal).
    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "USER" => Some(Role::User),
            "OPERATOR" => Some(Role::Operator),
            "ADMIN" => Some(Role::Admin),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "USER",
            Role::Operator => "OPERATOR",
            Role::Admin => "ADMIN",
        }
    }
}

/// A user as other services of the platform see them (the community's authors and list
/// privacy).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct InternalUser {
    #[cfg_attr(feature = "schema", schema(format = Uuid))]
    pub id: String,
    pub username: String,
    /// The profile's name, else the username.
    pub display_name: String,
    pub roles: Vec<Role>,
    /// Whether others may see the user's bookmarks (false until the user turns it on).
    pub show_bookmarks: bool,
    /// Whether others may see the user's likes (false until the user turns it on).
    pub show_likes: bool,
    /// The topic slugs the user follows (the community's personal digests).
    pub followed_topics: Vec<String>,
}

/// A page of the user directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct InternalUserIds {
    /// User ids in id order.
    pub ids: Vec<String>,
    /// The `cursor` of the next page; null on the last one.
    pub next_cursor: Option<String>,
}
