//! [`Recipes`]: the recipe service's one entry point.

use platform::accounts::CleanupQueue;
use platform::aws::AwsClients;
use platform::dynamo::{retry_on_conflict, RetryPolicy, Table};
use platform::{Clock, ConfigError, Env};
use serde::Serialize;

use crate::ai::{self, Preferences, UserPreferences};
use crate::error::RecipesError;
use crate::images::{ImageError, ImageStore, SignedUpload};
use crate::import::{self, ModelAnswer, Pages};
use crate::input::{Ask, Generate, RecipeChange};
use crate::model::{ImportedBy, Language, Recipe, RecipeId, RecipeInput, RecipeNutrients};
use crate::nutrients;
use crate::store::{CleanupStep, RecipePage, RecipeStore};

/// `max_tokens` of each operation's model call.
const GENERATE_MAX_TOKENS: u32 = 3000;
const NUTRIENTS_MAX_TOKENS: u32 = 200;
const ASK_MAX_TOKENS: u32 = 800;
const IMPORT_MAX_TOKENS: u32 = 3000;
/// How many times a generation asks the model when nothing it answered may be returned.
const GENERATE_ATTEMPTS: usize = 2;

/// The nutrients of a recipe, and where each ingredient's came from.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComputedNutrients {
    #[schema(minimum = 0)]
    pub calories: f64,
    #[schema(minimum = 0)]
    pub protein: f64,
    #[schema(minimum = 0)]
    pub fat: f64,
    #[schema(minimum = 0)]
    pub carbs: f64,
    /// Ingredients computed from the service's food composition table (by name, with unit
    /// conversion).
    pub from_food_table: Vec<String>,
    /// Ingredients the table does not know (name or unit), estimated by the model.
    pub estimated_by_model: Vec<String>,
}

/// The recipe service, built once per cold start.
pub struct Recipes {
    pub(crate) store: RecipeStore,
    llm: llm::Llm,
    pages: Option<Pages>,
    /// `None` without `RECIPE_IMAGES_BUCKET`: images are refused (503).
    images: Option<ImageStore>,
}

impl Recipes {
    pub fn new(store: RecipeStore, llm: llm::Llm) -> Self {
        Self {
            store,
            llm,
            pages: None,
            images: None,
        }
    }

    /// Imports fetch pages with `pages`.
    pub fn with_pages(mut self, pages: Pages) -> Self {
        self.pages = Some(pages);
        self
    }

    /// With the store of recipe images.
    pub fn with_images(mut self, images: Option<ImageStore>) -> Self {
        self.images = images;
        self
    }

    /// The queue of account cleanups (`RECIPES_CLEANUP_QUEUE_URL`).
    pub fn cleanup_queue(env: &Env, aws: &AwsClients) -> Result<CleanupQueue, ConfigError> {
        CleanupQueue::from_env_variable(env, aws.sqs(), "RECIPES_CLEANUP_QUEUE_URL")
    }

    /// From `RECIPES_TABLE` and `RECIPE_IMAGES_BUCKET`.
    pub fn from_env(env: &Env, aws: &AwsClients, llm: llm::Llm) -> Result<Self, ConfigError> {
        let table = Table::from_env(env, aws, "RECIPES_TABLE")?;
        Ok(Self::new(RecipeStore::new(table, Clock::system()), llm)
            .with_pages(Pages::from_env(env)?)
            .with_images(ImageStore::from_env(env, aws)?))
    }

    pub(crate) fn image_store(&self) -> Option<&ImageStore> {
        self.images.as_ref()
    }

    fn images(&self) -> Result<&ImageStore, RecipesError> {
        self.images
            .as_ref()
            .ok_or(RecipesError::Image(ImageError::NotConfigured))
    }

    /// `recipe` as answered: its image's URL signed.
    pub async fn answered(&self, mut recipe: Recipe) -> Result<Recipe, RecipesError> {
        if let Some(image) = recipe.image.as_mut() {
            image.url = self.images()?.url(&image.key).await?;
        }
        Ok(recipe)
    }

    /// Stores `bytes` (a JPEG, PNG or WebP image of at most 10 MiB, by its first bytes) as the
    /// photo of `user`'s recipe `id`, replacing (and deleting) the one it had; the recipe as
    /// answered. What an import calls with the page's image.
    pub async fn store_image(
        &self,
        user: &str,
        id: RecipeId,
        bytes: bytes::Bytes,
    ) -> Result<Recipe, RecipesError> {
        let key = self.images()?.put(user, id.get(), bytes).await?;
        self.point_at_image(user, id, Some(key)).await
    }

    /// Points the recipe at `key` (or none), deleting the image it had; a recipe gone
    /// meanwhile deletes the new image instead.
    async fn point_at_image(
        &self,
        user: &str,
        id: RecipeId,
        key: Option<String>,
    ) -> Result<Recipe, RecipesError> {
        let images = self.images()?;
        let before = match self.store.set_image(user, id, key.as_deref()).await {
            Ok(before) => before,
            Err(e) => {
                if let Some(key) = &key {
                    images.delete(key).await;
                }
                return Err(e.into());
            }
        };
        let Some(before) = before else {
            if let Some(key) = &key {
                images.delete(key).await;
            }
            return Err(RecipesError::NotFound);
        };
        if let Some(old) = before.filter(|old| Some(old) != key.as_ref()) {
            images.delete(&old).await;
        }
        let stored = self
            .store
            .get(user, id)
            .await?
            .ok_or(RecipesError::NotFound)?;
        self.answered(stored.recipe).await
    }

    /// Signs the browser's upload of a photo for `user`'s recipe `id` (which must exist).
    pub async fn sign_image_upload(
        &self,
        user: &str,
        id: RecipeId,
        content_type: &'static str,
        size: u64,
    ) -> Result<SignedUpload, RecipesError> {
        if self.store.get(user, id).await?.is_none() {
            return Err(RecipesError::NotFound);
        }
        Ok(self.images()?.sign_upload(user, content_type, size).await?)
    }

    /// Checks the file sent for `upload` and makes it the photo of `user`'s recipe `id`.
    pub async fn confirm_image(
        &self,
        user: &str,
        id: RecipeId,
        upload: &str,
    ) -> Result<Recipe, RecipesError> {
        if self.store.get(user, id).await?.is_none() {
            return Err(RecipesError::NotFound);
        }
        let key = self.images()?.confirm(user, id.get(), upload).await?;
        self.point_at_image(user, id, Some(key)).await
    }

    /// Removes the photo of `user`'s recipe `id`.
    pub async fn remove_image(&self, user: &str, id: RecipeId) -> Result<Recipe, RecipesError> {
        self.point_at_image(user, id, None).await
    }

    pub async fn list(
        &self,
        user: &str,
        after: Option<RecipeId>,
        limit: usize,
    ) -> Result<RecipePage, RecipesError> {
        Ok(self.store.list(user, after, limit).await?)
    }

    pub async fn create(&self, user: &str, input: RecipeInput) -> Result<RecipeId, RecipesError> {
        let id = self.store.create(user, input).await?;
        tracing::info!(recipe = %id, "recipe created");
        Ok(id)
    }

    /// Starts the cleanup of a deleted account: no recipe of the user can be created from now
    /// on, and the recipes sweeper deletes the ones they have. Idempotent.
    pub async fn forget_account(
        &self,
        user: &str,
        queue: &CleanupQueue,
    ) -> Result<(), RecipesError> {
        let marked_before = self.store.mark_account_deleted(user).await?;
        if let Err(e) = queue.request(user).await {
            // Not queued: take this call's mark back, so a failed deletion leaves the account
            // as it was (identity will call again).
            if !marked_before {
                if let Err(undo) = self.store.unmark_account_deleted(user).await {
                    tracing::error!(user, error = %undo, "account mark left after a failed cleanup request");
                }
            }
            return Err(e.into());
        }
        Ok(())
    }

    /// One bounded step of a deleted user's cleanup.
    pub async fn cleanup_step(&self, user: &str) -> Result<CleanupStep, RecipesError> {
        Ok(self.store.cleanup_step(user).await?)
    }

    /// Imports the recipe of the page at `url` for `user`: its schema.org Recipe, else the
    /// model's reading of its text ([`import`]); stored, and answered as stored.
    pub async fn import(&self, user: &str, url: &url::Url) -> Result<Recipe, RecipesError> {
        let pages = self.pages.as_ref().ok_or(RecipesError::ImportUnavailable)?;
        let page = pages.fetch(url).await?;
        let imported = match import::structured(&page.html, &page.url) {
            Some(found) => import::into_recipe(found, page.url.as_str(), ImportedBy::Structured)?,
            None => {
                let found = self.read_with_model(&page.html).await?;
                let mut found = found;
                if found.image.is_none() {
                    found.image = import::html::read(&page.html)
                        .og_image
                        .and_then(|i| import::schema::absolute(&i, &page.url));
                }
                import::into_recipe(found, page.url.as_str(), ImportedBy::Model)?
            }
        };
        let image = imported
            .recipe
            .source
            .as_ref()
            .and_then(|s| s.image_url.as_deref())
            .and_then(|u| url::Url::parse(u).ok());
        let id = self.store.create(user, imported.recipe).await?;
        tracing::info!(recipe = %id, host = url.host_str().unwrap_or(""), "recipe imported");
        // The page's image becomes the recipe's photo when it can be had; the recipe keeps
        // its URL (`source.imageUrl`) either way.
        if let (Some(image), Some(_)) = (image, self.images.as_ref()) {
            match pages.image(&image).await {
                Ok(bytes) => match self.store_image(user, id, bytes).await {
                    Ok(recipe) => return Ok(recipe),
                    Err(e) => tracing::info!(recipe = %id, error = %e, "imported image not kept"),
                },
                Err(e) => tracing::info!(recipe = %id, error = %e, "imported image not fetched"),
            }
        }
        let stored = self
            .store
            .get(user, id)
            .await?
            .ok_or(RecipesError::NotFound)?;
        self.answered(stored.recipe).await
    }

    /// The model's reading of a page without structured data.
    async fn read_with_model(&self, html: &str) -> Result<import::Extracted, RecipesError> {
        let text = import::page_text(html);
        if text.trim().is_empty() {
            return Err(RecipesError::NoRecipe);
        }
        let provider = self.llm.provider().await?;
        let completion = self
            .llm
            .complete(
                &provider,
                &llm::ChatRequest {
                    operation: "recipes-import",
                    messages: vec![
                        llm::Message::system(import::MODEL_INSTRUCTIONS),
                        llm::Message::user(text),
                    ],
                    max_tokens: Some(IMPORT_MAX_TOKENS),
                },
            )
            .await?;
        match import::model_recipe(&completion.content) {
            Ok(found) => Ok(found),
            Err(ModelAnswer::NoRecipe) => Err(RecipesError::NoRecipe),
            Err(ModelAnswer::Unusable(reason)) => Err(RecipesError::Unusable(reason)),
        }
    }

    /// The caller's recipe, marked opened.
    pub async fn open(&self, user: &str, id: RecipeId) -> Result<Recipe, RecipesError> {
        self.store
            .open(user, id)
            .await?
            .ok_or(RecipesError::NotFound)
    }

    /// Applies `change` to the caller's recipe (retrying when another update won) and marks
    /// it edited.
    pub async fn update(
        &self,
        user: &str,
        id: RecipeId,
        change: RecipeChange,
    ) -> Result<Recipe, RecipesError> {
        retry_on_conflict(
            RetryPolicy::CONFLICTS,
            RecipesError::is_concurrent_change,
            |_| async {
                let stored = self
                    .store
                    .get(user, id)
                    .await?
                    .ok_or(RecipesError::NotFound)?;
                let next = change.apply(stored.recipe.input());
                let recipe = Recipe {
                    id: stored.recipe.id,
                    title: next.title,
                    ingredients: next.ingredients,
                    instructions: next.instructions,
                    portions: next.portions,
                    nutrients: next.nutrients,
                    source: next.source,
                    times: next.times,
                    created_at: stored.recipe.created_at.clone(),
                    edited_at: Some(self.store.clock().timestamp()),
                    opened_at: stored.recipe.opened_at.clone(),
                    image: stored.recipe.image.clone(),
                    tags: next.tags,
                    nutrients_per_portion: None,
                    allergens: None,
                    scaled_from: None,
                    ingredient_lines: Vec::new(),
                };
                if self.store.replace(user, &recipe, stored.version).await? {
                    Ok(recipe)
                } else {
                    Err(RecipesError::ConcurrentChange)
                }
            },
        )
        .await
    }

    async fn preferences(
        &self,
        identity: &impl Preferences,
    ) -> Result<UserPreferences, RecipesError> {
        Ok(identity.preferences().await?.unwrap_or_default())
    }

    /// Recipes for `request.prompt`, in the request's language, else the user's, else EN;
    /// every one valid and free of the user's allergies and diet breaches. When the model's
    /// answer holds none such, it is asked once more; then the request fails (502).
    pub async fn generate(
        &self,
        identity: &impl Preferences,
        request: Generate,
    ) -> Result<Vec<RecipeInput>, RecipesError> {
        let preferences = self.preferences(identity).await?;
        let language = request
            .language
            .or(preferences.language)
            .unwrap_or(Language::En);
        let provider = self.llm.provider().await?;
        let mut reasons = Vec::new();
        for attempt in 0..GENERATE_ATTEMPTS {
            let mut system = ai::generate_instructions(language, &preferences);
            if attempt > 0 {
                system.push_str(
                    " Your previous answer could not be used: follow the format and the \
                     user's diets and allergies exactly.",
                );
            }
            let completion = self
                .llm
                .complete(
                    &provider,
                    &llm::ChatRequest {
                        operation: "recipes-generate",
                        messages: vec![
                            llm::Message::system(system),
                            llm::Message::user(request.prompt.clone()),
                        ],
                        max_tokens: Some(GENERATE_MAX_TOKENS),
                    },
                )
                .await?;
            match ai::generated_recipes(&completion.content, &preferences) {
                Ok((recipes, refused)) => {
                    if !refused.is_empty() {
                        tracing::warn!(attempt, ?refused, "generated recipes refused");
                    }
                    if !recipes.is_empty() {
                        return Ok(recipes);
                    }
                    reasons.extend(refused);
                }
                Err(reason) => {
                    tracing::warn!(attempt, %reason, "generation answer unusable");
                    reasons.push(reason);
                }
            }
        }
        Err(RecipesError::Llm(self.llm.unusable_answer(
            "recipes-generate",
            &provider,
            format!("no usable recipe: {}", reasons.join("; ")),
        )))
    }

    /// The whole recipe's nutrients: the food table for the ingredients it knows, one model
    /// call for the rest (none when the table knows them all).
    pub async fn nutrients(&self, recipe: &RecipeInput) -> Result<ComputedNutrients, RecipesError> {
        let mut total = RecipeNutrients::default();
        let mut known = Vec::new();
        let mut unknown = Vec::new();
        for ingredient in &recipe.ingredients {
            match nutrients::from_table(ingredient) {
                Some(n) => {
                    total = nutrients::add(total, n);
                    known.push(ingredient.name.clone());
                }
                None => unknown.push(ingredient),
            }
        }
        if !unknown.is_empty() {
            let provider = self.llm.provider().await?;
            let list: Vec<String> = unknown
                .iter()
                .map(|i| format!("- {}", crate::ingredients::line(i)))
                .collect();
            let completion = self
                .llm
                .complete(
                    &provider,
                    &llm::ChatRequest {
                        operation: "recipes-nutrients",
                        messages: vec![
                            llm::Message::system(ai::NUTRIENTS_INSTRUCTIONS),
                            llm::Message::user(list.join("\n")),
                        ],
                        max_tokens: Some(NUTRIENTS_MAX_TOKENS),
                    },
                )
                .await?;
            let estimated = ai::model_nutrients(&completion.content).map_err(|reason| {
                self.llm
                    .unusable_answer("recipes-nutrients", &provider, reason)
            })?;
            total = nutrients::add(total, estimated);
        }
        let total = nutrients::rounded(total);
        Ok(ComputedNutrients {
            calories: total.calories,
            protein: total.protein,
            fat: total.fat,
            carbs: total.carbs,
            from_food_table: known,
            estimated_by_model: unknown.into_iter().map(|i| i.name.clone()).collect(),
        })
    }

    /// The model's answer to a question about a recipe, in the user's language.
    pub async fn ask(
        &self,
        identity: &impl Preferences,
        request: Ask,
    ) -> Result<String, RecipesError> {
        let preferences = self.preferences(identity).await?;
        let language = preferences.language.unwrap_or(Language::En);
        let recipe = serde_json::to_string(&request.recipe)
            .map_err(|e| RecipesError::Unusable(e.to_string()))?;
        let provider = self.llm.provider().await?;
        let completion = self
            .llm
            .complete(
                &provider,
                &llm::ChatRequest {
                    operation: "recipes-ask",
                    messages: vec![
                        llm::Message::system(ai::ask_instructions(language)),
                        llm::Message::user(format!(
                            "Recipe:\n{recipe}\n\nQuestion:\n{}",
                            request.prompt
                        )),
                    ],
                    max_tokens: Some(ASK_MAX_TOKENS),
                },
            )
            .await?;
        let answer = completion.content.trim().to_string();
        if answer.is_empty() {
            return Err(RecipesError::Llm(self.llm.unusable_answer(
                "recipes-ask",
                &provider,
                "empty answer",
            )));
        }
        Ok(answer)
    }

    /// True when the recipes table answers.
    pub async fn healthy(&self) -> bool {
        match self.store.ping().await {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(error = %e, "recipes table health check failed");
                false
            }
        }
    }
}
