//! The account directory, a page at a time in id order: administrators' pages of profiles,
//! and the ids the platform's own services walk.

use crate::error::IdentityError;
use crate::model::{Profile, UserId};

use super::{to_profile, Identity};

/// One page of the account directory, for administrators.
#[derive(Debug)]
pub struct AccountPage {
    pub accounts: Vec<Profile>,
    pub next_cursor: Option<String>,
}

impl Identity {
    /// A page of accounts in id order, for administrators: up to `limit` after `after`.
    pub async fn accounts(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<AccountPage, IdentityError> {
        let (ids, more) = self.store.user_ids(after, limit).await?;
        let mut accounts = Vec::with_capacity(ids.len());
        for id in &ids {
            // Deleted between the index read and this one: skipped.
            if let Some(user) = self.store.user(&UserId::new(id.clone())).await? {
                accounts.push(to_profile(user));
            }
        }
        let next_cursor = if more { ids.last().cloned() } else { None };
        Ok(AccountPage {
            accounts,
            next_cursor,
        })
    }

    /// A page of the user directory: up to `limit` user ids after `after`, in id order, and
    /// the cursor of the next page (the last id) when more follow.
    pub async fn user_ids(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<String>, Option<String>), IdentityError> {
        let (ids, more) = self.store.user_ids(after, limit).await?;
        let next = if more { ids.last().cloned() } else { None };
        Ok((ids, next))
    }
}
