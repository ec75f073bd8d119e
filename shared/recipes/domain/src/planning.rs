//! [`Recipes`]' recipe box operations: reading with portions, allergens and nutrients per
//! portion; search; delete; stored nutrients; the meal plan and the shopping list.

use std::collections::BTreeSet;

use chrono::NaiveDate;
use platform::dynamo::{retry_on_conflict, RetryPolicy};
use platform::{FieldError, Invalid};

use crate::allergens::allergens;
use crate::error::RecipesError;
use crate::input::RecipeChange;
use crate::model::{Recipe, RecipeId};
use crate::plan::{Meal, PlanEntry, PlanSlot, ShoppingList, WantedEntry, MAX_RANGE_DAYS};
use crate::scaling::{per_portion, scale, scale_ingredient};
use crate::search::SearchQuery;
use crate::service::{ComputedNutrients, Recipes};
use crate::shopping::{self, merge, Needed, ShoppingItem, MAX_ITEMS};
use crate::store::SearchPage;

/// How a recipe is answered to its reader.
#[derive(Debug, Clone, Default)]
pub struct Reading<'a> {
    /// Scale to these portions (`?portions=N`).
    pub portions: Option<f64>,
    /// The reader's allergies; `None` when they could not be read.
    pub allergies: Option<&'a [String]>,
}

/// What a shopping list is built from.
#[derive(Debug, Clone)]
pub enum ListSource {
    /// The planned meals of these days (inclusive).
    Plan { from: NaiveDate, to: NaiveDate },
    /// These recipes, each for the portions asked (its own when `None`).
    Recipes(Vec<WantedEntry>),
}

/// An item added by hand.
#[derive(Debug, Clone)]
pub struct ExtraItem {
    pub name: String,
    pub quantity: Option<f64>,
    pub unit: String,
}

/// A date range of at most [`MAX_RANGE_DAYS`] days, `to` not before `from`.
pub fn date_range(from: NaiveDate, to: NaiveDate) -> Result<(NaiveDate, NaiveDate), Invalid> {
    if to < from {
        return Err(Invalid::field("to", "must not be before from"));
    }
    if (to - from).num_days() >= MAX_RANGE_DAYS {
        return Err(Invalid::field(
            "to",
            format!("must be within {MAX_RANGE_DAYS} days of from"),
        ));
    }
    Ok((from, to))
}

fn item_id() -> String {
    format!("{:08x}", rand::random::<u32>())
}

impl Recipes {
    /// Today's date (UTC), the plan's default start.
    pub fn today(&self) -> NaiveDate {
        self.store.today()
    }

    /// `recipe` as its reader sees it: scaled, nutrients per portion, allergens, image URL.
    pub async fn present(
        &self,
        recipe: Recipe,
        reading: &Reading<'_>,
    ) -> Result<Recipe, RecipesError> {
        let mut recipe = self.answered(recipe).await?;
        if let Some(portions) = reading.portions {
            recipe = scale(recipe, portions);
        }
        recipe.nutrients_per_portion = per_portion(&recipe);
        recipe.ingredient_lines = recipe
            .ingredients
            .iter()
            .map(crate::ingredients::line)
            .collect();
        recipe.allergens = reading
            .allergies
            .map(|allergies| allergens(&recipe.ingredients, allergies));
        Ok(recipe)
    }

    /// The caller's recipes `query` finds, newest first, older than `before`.
    pub async fn search(
        &self,
        user: &str,
        query: &SearchQuery,
        before: Option<RecipeId>,
        limit: usize,
    ) -> Result<SearchPage, RecipesError> {
        self.store.ensure_indexed(user).await?;
        Ok(self.store.search(user, query, before, limit).await?)
    }

    /// Deletes the caller's recipe, its search card and its photo. Plan entries naming it
    /// stay, marked deleted when read.
    pub async fn delete(&self, user: &str, id: RecipeId) -> Result<(), RecipesError> {
        let image = retry_on_conflict(
            RetryPolicy::CONFLICTS,
            RecipesError::is_concurrent_change,
            |_| async {
                let stored = self
                    .store
                    .get(user, id)
                    .await?
                    .ok_or(RecipesError::NotFound)?;
                if self.store.delete(user, id, stored.version).await? {
                    Ok(stored.recipe.image)
                } else {
                    Err(RecipesError::ConcurrentChange)
                }
            },
        )
        .await?;
        if let (Some(image), Some(images)) = (image, self.image_store()) {
            images.delete(&image.key).await;
        }
        tracing::info!(recipe = %id, "recipe deleted");
        Ok(())
    }

    /// Computes the caller's recipe's nutrients (as `POST /recipes/nutrients` does) and
    /// stores them on it; the recipe and where each ingredient's came from.
    pub async fn store_nutrients(
        &self,
        user: &str,
        id: RecipeId,
    ) -> Result<(Recipe, ComputedNutrients), RecipesError> {
        let stored = self
            .store
            .get(user, id)
            .await?
            .ok_or(RecipesError::NotFound)?;
        let computed = self.nutrients(&stored.recipe.input()).await?;
        let change = RecipeChange {
            nutrients: Some(Some(crate::model::RecipeNutrients {
                calories: computed.calories,
                protein: computed.protein,
                fat: computed.fat,
                carbs: computed.carbs,
            })),
            ..Default::default()
        };
        let recipe = self.update(user, id, change).await?;
        Ok((recipe, computed))
    }

    /// The caller's plan from `from` to `to`, a page after `after`; entries whose recipe is
    /// gone are marked deleted.
    pub async fn plan(
        &self,
        user: &str,
        from: NaiveDate,
        to: NaiveDate,
        after: Option<(NaiveDate, Meal)>,
        limit: usize,
    ) -> Result<(Vec<PlanSlot>, bool), RecipesError> {
        let (mut slots, more) = self.store.plan(user, from, to, after, limit).await?;
        let ids: BTreeSet<i64> = slots
            .iter()
            .flat_map(|s| s.entries.iter().map(|e| e.recipe_id))
            .collect();
        let existing = self.store.existing(user, &ids).await?;
        for entry in slots.iter_mut().flat_map(|s| s.entries.iter_mut()) {
            entry.deleted = !existing.contains(&entry.recipe_id);
        }
        Ok((slots, more))
    }

    /// Sets the caller's `meal` of `date` to `wanted` (each recipe must be theirs).
    pub async fn plan_meal(
        &self,
        user: &str,
        date: NaiveDate,
        meal: Meal,
        wanted: &[WantedEntry],
    ) -> Result<PlanSlot, RecipesError> {
        let ids: BTreeSet<i64> = wanted.iter().map(|w| w.recipe.get()).collect();
        let recipes = self.store.recipes(user, &ids).await?;
        let mut errors = Vec::new();
        let mut entries = Vec::new();
        for (i, w) in wanted.iter().enumerate() {
            match recipes.get(&w.recipe.get()) {
                Some(recipe) => entries.push(PlanEntry {
                    recipe_id: recipe.id,
                    portions: w.portions.unwrap_or(recipe.portions),
                    title: recipe.title.clone(),
                    deleted: false,
                }),
                None => errors.push(FieldError::new(
                    format!("entries[{i}].recipeId"),
                    "is not one of your recipes",
                )),
            }
        }
        if !errors.is_empty() {
            return Err(Invalid(errors).into());
        }
        Ok(self.store.put_slot(user, date, meal, &entries).await?)
    }

    pub async fn unplan_meal(
        &self,
        user: &str,
        date: NaiveDate,
        meal: Meal,
    ) -> Result<(), RecipesError> {
        Ok(self.store.delete_slot(user, date, meal).await?)
    }

    pub async fn shopping_list(&self, user: &str) -> Result<ShoppingList, RecipesError> {
        Ok(self.store.shopping_list(user).await?.0)
    }

    /// Applies `change` to the caller's list (retrying when another change won); its answer.
    async fn change_list<T>(
        &self,
        user: &str,
        change: impl Fn(&mut ShoppingList) -> Result<T, RecipesError>,
    ) -> Result<(ShoppingList, T), RecipesError> {
        retry_on_conflict(
            RetryPolicy::CONFLICTS,
            RecipesError::is_concurrent_change,
            |_| async {
                let (mut list, version) = self.store.shopping_list(user).await?;
                let answer = change(&mut list)?;
                list.updated_at = Some(self.store.clock().timestamp());
                if self.store.put_shopping_list(user, &list, version).await? {
                    Ok((list, answer))
                } else {
                    Err(RecipesError::ConcurrentChange)
                }
            },
        )
        .await
    }

    /// Builds the caller's list from `source`: the ingredients of its recipes scaled to the
    /// portions planned, merged; items added by hand are kept, and so is the check of an item
    /// that was on the list before.
    pub async fn build_shopping_list(
        &self,
        user: &str,
        source: ListSource,
    ) -> Result<ShoppingList, RecipesError> {
        let (wanted, from, to): (Vec<(i64, Option<f64>)>, _, _) = match &source {
            ListSource::Plan { from, to } => {
                let mut wanted = Vec::new();
                let mut after = None;
                loop {
                    let (slots, more) = self
                        .store
                        .plan(user, *from, *to, after, crate::plan::MAX_PLAN_PAGE)
                        .await?;
                    for slot in &slots {
                        for e in &slot.entries {
                            wanted.push((e.recipe_id, Some(e.portions)));
                        }
                    }
                    match slots.last() {
                        Some(last) if more => {
                            after = crate::plan::parse_cursor(&crate::plan::cursor(last));
                        }
                        _ => break,
                    }
                }
                (
                    wanted,
                    Some(from.format("%Y-%m-%d").to_string()),
                    Some(to.format("%Y-%m-%d").to_string()),
                )
            }
            ListSource::Recipes(entries) => (
                entries
                    .iter()
                    .map(|e| (e.recipe.get(), e.portions))
                    .collect(),
                None,
                None,
            ),
        };
        let ids: BTreeSet<i64> = wanted.iter().map(|(id, _)| *id).collect();
        let recipes = self.store.recipes(user, &ids).await?;
        if let ListSource::Recipes(entries) = &source {
            let errors: Vec<FieldError> = entries
                .iter()
                .enumerate()
                .filter(|(_, e)| !recipes.contains_key(&e.recipe.get()))
                .map(|(i, _)| {
                    FieldError::new(
                        format!("recipes[{i}].recipeId"),
                        "is not one of your recipes",
                    )
                })
                .collect();
            if !errors.is_empty() {
                return Err(Invalid(errors).into());
            }
        }
        let mut needed = Vec::new();
        for (id, portions) in &wanted {
            // A planned recipe deleted since is left out.
            let Some(recipe) = recipes.get(id) else {
                continue;
            };
            let factor = portions.map_or(1.0, |p| p / recipe.portions);
            for ingredient in &recipe.ingredients {
                needed.push(Needed {
                    recipe: *id,
                    ingredient: scale_ingredient(ingredient, factor),
                });
            }
        }
        let built_at = self.store.clock().timestamp();
        let recipe_ids: Vec<i64> = match &source {
            ListSource::Recipes(entries) => entries.iter().map(|e| e.recipe.get()).collect(),
            ListSource::Plan { .. } => Vec::new(),
        };
        let (list, ()) = self
            .change_list(user, |list| {
                let before = std::mem::take(&mut list.items);
                let mut items = merge(&needed, |key| {
                    before
                        .iter()
                        .find(|old| !old.extra && shopping_key(old) == key)
                        .map_or_else(item_id, |old| old.id.clone())
                });
                for item in &mut items {
                    item.checked = before
                        .iter()
                        .any(|old| old.id == item.id && old.checked && !old.extra);
                }
                items.extend(before.into_iter().filter(|old| old.extra));
                items.truncate(MAX_ITEMS);
                list.items = items;
                list.from.clone_from(&from);
                list.to.clone_from(&to);
                list.recipes.clone_from(&recipe_ids);
                list.built_at = Some(built_at.clone());
                Ok(())
            })
            .await?;
        Ok(list)
    }

    /// Adds an item by hand.
    pub async fn add_list_item(
        &self,
        user: &str,
        extra: ExtraItem,
    ) -> Result<ShoppingItem, RecipesError> {
        let (_, item) = self
            .change_list(user, |list| {
                if list.items.len() >= MAX_ITEMS {
                    return Err(Invalid::field(
                        "name",
                        format!("the list already holds {MAX_ITEMS} items"),
                    )
                    .into());
                }
                let item = ShoppingItem {
                    id: item_id(),
                    name: extra.name.clone(),
                    quantity: extra.quantity,
                    unit: extra.unit.clone(),
                    amount: extra
                        .quantity
                        .map(|q| crate::scaling::render(q, &extra.unit)),
                    checked: false,
                    extra: true,
                    recipes: Vec::new(),
                };
                list.items.push(item.clone());
                Ok(item)
            })
            .await?;
        Ok(item)
    }

    /// Checks an item off (or on again).
    pub async fn check_list_item(
        &self,
        user: &str,
        id: &str,
        checked: bool,
    ) -> Result<ShoppingItem, RecipesError> {
        let (_, item) = self
            .change_list(user, |list| {
                let item = list
                    .items
                    .iter_mut()
                    .find(|i| i.id == id)
                    .ok_or(RecipesError::ItemNotFound)?;
                item.checked = checked;
                Ok(item.clone())
            })
            .await?;
        Ok(item)
    }

    /// Removes an item.
    pub async fn remove_list_item(&self, user: &str, id: &str) -> Result<(), RecipesError> {
        self.change_list(user, |list| {
            let before = list.items.len();
            list.items.retain(|i| i.id != id);
            if list.items.len() == before {
                return Err(RecipesError::ItemNotFound);
            }
            Ok(())
        })
        .await?;
        Ok(())
    }
}

/// The merge key of an item already on the list.
fn shopping_key(item: &ShoppingItem) -> String {
    shopping::merge_key(&crate::model::RecipeIngredient {
        quantity: item.quantity,
        unit: item.unit.clone(),
        name: item.name.clone(),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_ordered_and_bounded() {
        let day = |d: u32| NaiveDate::from_ymd_opt(2026, 12, d).unwrap_or_default();
        assert!(date_range(day(1), day(1)).is_ok());
        assert!(date_range(day(2), day(1)).is_err());
        let far = day(1) + chrono::Duration::days(MAX_RANGE_DAYS);
        assert!(date_range(day(1), far).is_err());
        assert!(date_range(day(1), far - chrono::Duration::days(1)).is_ok());
    }
}
