//! The articles a user saved, which follow the account across devices.

use crate::error::IdentityError;
use crate::model::{SavedArticleId, SavedArticleIds, UserId, MAX_SAVED_ARTICLES};

use super::{until_unchanged, Identity};

impl Identity {
    /// The user's saved article ids, newest first.
    pub async fn saved_articles(&self, id: &UserId) -> Result<SavedArticleIds, IdentityError> {
        Ok(SavedArticleIds {
            ids: self.store.saved(id).await?.ids,
        })
    }

    /// Saves an article (first in the list; saving it again changes nothing).
    pub async fn save_article(
        &self,
        id: &UserId,
        article: &SavedArticleId,
    ) -> Result<SavedArticleIds, IdentityError> {
        self.change_saved(id, "articleId", |ids| {
            if !ids.iter().any(|a| a == article.as_str()) {
                ids.insert(0, article.as_str().to_string());
            }
        })
        .await
    }

    /// Forgets a saved article (forgetting one not saved changes nothing).
    pub async fn unsave_article(
        &self,
        id: &UserId,
        article: &SavedArticleId,
    ) -> Result<SavedArticleIds, IdentityError> {
        self.change_saved(id, "articleId", |ids| {
            ids.retain(|a| a != article.as_str());
        })
        .await
    }

    /// Adds the articles not saved yet after the saved ones (a browser's list at login).
    pub async fn merge_saved_articles(
        &self,
        id: &UserId,
        articles: &[SavedArticleId],
    ) -> Result<SavedArticleIds, IdentityError> {
        self.change_saved(id, "ids", |ids| {
            for article in articles {
                if !ids.iter().any(|a| a == article.as_str()) {
                    ids.push(article.as_str().to_string());
                }
            }
        })
        .await
    }

    /// Applies `change` to the saved ids as stored, retrying when another device saved first;
    /// refused past [`MAX_SAVED_ARTICLES`] and when the account is gone.
    async fn change_saved(
        &self,
        id: &UserId,
        field: &'static str,
        change: impl Fn(&mut Vec<String>),
    ) -> Result<SavedArticleIds, IdentityError> {
        until_unchanged(|_| async {
            let read = self.store.saved(id).await?;
            let mut next = read.ids.clone();
            change(&mut next);
            if next.len() > MAX_SAVED_ARTICLES && next.len() > read.ids.len() {
                return Err(IdentityError::TooManySaved(field));
            }
            if next == read.ids {
                // Nothing to write, but a gone account must not pass as a quiet success.
                self.live_user(id).await?;
            } else {
                self.store.save_saved(id, &read, &next).await?;
            }
            Ok(SavedArticleIds { ids: next })
        })
        .await
    }
}
