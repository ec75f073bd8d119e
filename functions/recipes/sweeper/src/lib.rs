//! The recipes sweeper: consumes account cleanups from the recipes cleanup queue and deletes
//! a deleted user's recipes, [`recipes::store::CLEANUP_BATCH`] per message
//! ([`recipes::store::RecipeStore::cleanup_step`]); outcomes per message:
//! [`platform::accounts::Sweeper`].
//!
//! Its own function: only it deletes recipes in bulk (least privilege), and its steps must
//! not compete with the API for the recipes function's concurrency.

use std::sync::Arc;

use futures::future::BoxFuture;
use futures::FutureExt;
use platform::accounts::{CleanupSteps, Sweeper};
use platform::aws::AwsClients;
use platform::dynamo::Table;
use platform::{BoxError, Clock, Env, SqsHandler};
use recipes::images::ImageStore;
use recipes::store::RecipeStore;
use recipes::Recipes;

/// One step of the recipes' cleanup of a user.
pub struct RecipesCleanup {
    store: RecipeStore,
    /// The recipes' photos (`RECIPE_IMAGES_BUCKET`), deleted with them.
    images: Option<ImageStore>,
}

/// Builds the handler from its environment (`RECIPES_TABLE`, `RECIPES_CLEANUP_QUEUE_URL`,
/// `RECIPE_IMAGES_BUCKET`):
/// what a cold start does.
pub async fn handler(env: Env) -> Result<Arc<dyn SqsHandler>, BoxError> {
    let aws = AwsClients::from_env(&env).await;
    let steps = RecipesCleanup {
        store: RecipeStore::new(
            Table::from_env(&env, &aws, "RECIPES_TABLE")?,
            Clock::system(),
        ),
        images: ImageStore::from_env(&env, &aws)?,
    };
    Ok(Arc::new(Sweeper::new(
        steps,
        Recipes::cleanup_queue(&env, &aws)?,
    )))
}

impl CleanupSteps for RecipesCleanup {
    fn step<'a>(&'a self, user_id: &'a str) -> BoxFuture<'a, Result<bool, BoxError>> {
        async move {
            let step = self.store.cleanup_step(user_id).await?;
            if let Some(images) = &self.images {
                for key in &step.images {
                    images.delete(key).await;
                }
            }
            tracing::info!(
                user_id,
                deleted = step.deleted,
                finished = step.finished,
                "recipes cleanup step"
            );
            Ok(step.finished)
        }
        .boxed()
    }
}
