//! The meal plan and the shopping list, per user, in the user's partition of the recipes
//! table.
//!
//! | pk | sk | holds |
//! |---|---|---|
//! | `USER#{userId}` | `PLAN#{yyyy-mm-dd}#{0-3}` (the meal: breakfast, lunch, dinner, snack) | `date`, `meal`, `entries` (JSON: recipe id, portions, the title when planned), `updatedAt` |
//! | `USER#{userId}` | `SHOPPING` | `data` (the list as JSON), `version` |
//!
//! A plan day's meal is one item, written whole (`PUT`), so a week is one Query of at most 28
//! items. A planned recipe that is deleted later stays in the plan, marked `deleted` on read
//! (the plan is also the record of what was cooked), and is left out of shopping lists.

use std::collections::{BTreeSet, HashMap};

use chrono::NaiveDate;
use platform::dynamo::{is_condition_failed, key, n, s, Attributes, DynamoError, Item};
use platform::FieldError;
use serde::{Deserialize, Serialize};

use crate::model::{Recipe, RecipeId, MAX_PORTIONS, MIN_PORTIONS};
use crate::shopping::ShoppingItem;
use crate::store::{recipe_key, user_pk, RecipeStore};

/// The most recipes one meal holds.
pub const MAX_ENTRIES: usize = 10;
/// The longest date range one plan read or shopping list covers: 62 days (two months).
pub const MAX_RANGE_DAYS: i64 = 62;
/// The most plan slots one page holds (and its default): a fortnight of four meals.
pub const MAX_PLAN_PAGE: usize = 56;
/// The most recipes a shopping list is built from directly.
pub const MAX_LIST_RECIPES: usize = 50;

/// A meal of the day.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
#[schema(as = PlanMeal)]
pub enum Meal {
    Breakfast,
    Lunch,
    Dinner,
    Snack,
}

impl Meal {
    pub const ALL: [Meal; 4] = [Self::Breakfast, Self::Lunch, Self::Dinner, Self::Snack];

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == raw)
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Breakfast => "breakfast",
            Self::Lunch => "lunch",
            Self::Dinner => "dinner",
            Self::Snack => "snack",
        }
    }

    /// Its place in the day (the sort key's digit).
    fn index(self) -> u8 {
        match self {
            Self::Breakfast => 0,
            Self::Lunch => 1,
            Self::Dinner => 2,
            Self::Snack => 3,
        }
    }

    fn from_index(i: u8) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.index() == i)
    }
}

/// A date as the API writes it: `yyyy-mm-dd`.
pub fn parse_date(field: &str, raw: &str) -> Result<NaiveDate, FieldError> {
    if raw.len() == 10 {
        if let Ok(date) = NaiveDate::parse_from_str(raw, "%Y-%m-%d") {
            return Ok(date);
        }
    }
    Err(FieldError::new(field, "must be a date yyyy-mm-dd"))
}

/// One recipe planned for a meal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanEntry {
    #[schema(minimum = 1, format = Int64)]
    pub recipe_id: i64,
    #[schema(minimum = 0.5, maximum = 1000)]
    pub portions: f64,
    /// The recipe's title when it was planned.
    pub title: String,
    /// The recipe was deleted since (it is left out of shopping lists).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deleted: bool,
}

/// A day's meal and its recipes.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanSlot {
    #[schema(format = Date)]
    pub date: String,
    pub meal: Meal,
    #[schema(min_items = 1, max_items = 10)]
    pub entries: Vec<PlanEntry>,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

/// One recipe of a meal, as sent.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schema(as = PlanEntryBody)]
pub struct RawPlanEntry {
    #[schema(required = true, value_type = i64, minimum = 1, format = Int64)]
    pub recipe_id: Option<i64>,
    /// The portions to cook; the recipe's own when absent.
    #[schema(value_type = Option<f64>, minimum = 0.5, maximum = 1000)]
    pub portions: Option<f64>,
}

/// A meal's recipes, as sent (`PUT` replaces them all).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanSlotBody {
    #[schema(required = true, value_type = Vec<RawPlanEntry>, min_items = 1, max_items = 10)]
    pub entries: Option<Vec<RawPlanEntry>>,
}

/// A valid entry: a recipe and the portions asked (the recipe's own when `None`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WantedEntry {
    pub recipe: RecipeId,
    pub portions: Option<f64>,
}

fn portions(field: String, raw: Option<f64>, errors: &mut Vec<FieldError>) -> Option<f64> {
    match raw {
        Some(p) if !(p.is_finite() && (MIN_PORTIONS..=MAX_PORTIONS).contains(&p)) => {
            errors.push(FieldError::new(
                field,
                format!("must be {MIN_PORTIONS} to {MAX_PORTIONS}"),
            ));
            None
        }
        other => other,
    }
}

/// Entries as sent, each wrong field named under `prefix` (`entries[1].recipeId`).
pub fn wanted_entries(
    prefix: &str,
    raw: Option<Vec<RawPlanEntry>>,
    max: usize,
) -> Result<Vec<WantedEntry>, Vec<FieldError>> {
    let mut errors = Vec::new();
    let Some(raw) = raw else {
        return Err(vec![FieldError::new(prefix, "is required")]);
    };
    if raw.is_empty() || raw.len() > max {
        return Err(vec![FieldError::new(
            prefix,
            format!("must have 1 to {max} entries"),
        )]);
    }
    let mut out = Vec::new();
    for (i, entry) in raw.into_iter().enumerate() {
        let recipe = match entry.recipe_id.and_then(RecipeId::new) {
            Some(id) => Some(id),
            None => {
                errors.push(FieldError::new(
                    format!("{prefix}[{i}].recipeId"),
                    "must be an integer of at least 1",
                ));
                None
            }
        };
        let portions = portions(
            format!("{prefix}[{i}].portions"),
            entry.portions,
            &mut errors,
        );
        if let Some(recipe) = recipe {
            out.push(WantedEntry { recipe, portions });
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// A plan page's position: the last slot answered, `yyyy-mm-dd.meal`.
pub fn parse_cursor(raw: &str) -> Option<(NaiveDate, Meal)> {
    let (date, meal) = raw.split_once('.')?;
    Some((parse_date("cursor", date).ok()?, Meal::parse(meal)?))
}

pub fn cursor(slot: &PlanSlot) -> String {
    format!("{}.{}", slot.date, slot.meal.name())
}

const PLAN_PREFIX: &str = "PLAN#";
const SHOPPING_SK: &str = "SHOPPING";

fn date_text(date: NaiveDate) -> String {
    date.format("%Y-%m-%d").to_string()
}

fn plan_sk(date: NaiveDate, meal: Meal) -> String {
    format!("{PLAN_PREFIX}{}#{}", date_text(date), meal.index())
}

/// The shopping list as stored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShoppingList {
    #[schema(max_items = 500)]
    pub items: Vec<ShoppingItem>,
    /// What the built items came from: a plan's date range...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = Date)]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = Date)]
    pub to: Option<String>,
    /// ...or chosen recipes (ids).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recipes: Vec<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = DateTime)]
    pub built_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = DateTime)]
    pub updated_at: Option<String>,
}

impl RecipeStore {
    /// `user`'s plan slots from `from` to `to` (inclusive) after `after`, up to `limit`, in
    /// date and meal order, and whether more follow.
    pub async fn plan(
        &self,
        user: &str,
        from: NaiveDate,
        to: NaiveDate,
        after: Option<(NaiveDate, Meal)>,
        limit: usize,
    ) -> Result<(Vec<PlanSlot>, bool), DynamoError> {
        let low = match after {
            // `~` sorts after the meal digit: the slots after the cursor's.
            Some((date, meal)) => format!("{}~", plan_sk(date, meal)),
            None => format!("{PLAN_PREFIX}{}#", date_text(from)),
        };
        let high = format!("{PLAN_PREFIX}{}#9", date_text(to));
        let wanted = limit.saturating_add(1);
        let query = self
            .table
            .query()
            .key_condition_expression("pk = :pk AND sk BETWEEN :low AND :high")
            .expression_attribute_values(":pk", s(user_pk(user)))
            .expression_attribute_values(":low", s(low))
            .expression_attribute_values(":high", s(high))
            .limit(i32::try_from(wanted).unwrap_or(i32::MAX))
            .consistent_read(true);
        let items = self.table.query_all(query, Some(wanted)).await?;
        let more = items.len() > limit;
        let slots = items
            .iter()
            .take(limit)
            .map(|item| self.slot(item))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((slots, more))
    }

    fn slot(&self, item: &Item) -> Result<PlanSlot, DynamoError> {
        let table = self.table.name();
        let date = item.string(table, "date")?;
        let meal = item
            .counter(table, "meal")
            .ok()
            .and_then(|i| u8::try_from(i).ok())
            .and_then(Meal::from_index)
            .ok_or_else(|| self.table.corrupt("plan meal is not 0-3"))?;
        let entries: Vec<PlanEntry> = serde_json::from_str(&item.string(table, "entries")?)
            .map_err(|e| self.table.corrupt(format!("plan entries: {e}")))?;
        Ok(PlanSlot {
            date,
            meal,
            entries,
            updated_at: item.string(table, "updatedAt")?,
        })
    }

    /// Writes `user`'s `meal` of `date` whole.
    pub async fn put_slot(
        &self,
        user: &str,
        date: NaiveDate,
        meal: Meal,
        entries: &[PlanEntry],
    ) -> Result<PlanSlot, DynamoError> {
        let updated_at = self.clock.timestamp();
        let mut item = key(user_pk(user), plan_sk(date, meal));
        item.insert("date".into(), s(date_text(date)));
        item.insert("meal".into(), n(i64::from(meal.index())));
        let json = serde_json::to_string(entries).map_err(|e| self.table.invalid("PutItem", e))?;
        item.insert("entries".into(), s(json));
        item.insert("updatedAt".into(), s(&updated_at));
        self.table
            .put_item()
            .set_item(Some(item))
            .send()
            .await
            .map_err(|e| self.table.fail("PutItem", &e))?;
        Ok(PlanSlot {
            date: date_text(date),
            meal,
            entries: entries.to_vec(),
            updated_at,
        })
    }

    /// Removes `user`'s `meal` of `date` (nothing when there is none).
    pub async fn delete_slot(
        &self,
        user: &str,
        date: NaiveDate,
        meal: Meal,
    ) -> Result<(), DynamoError> {
        self.table
            .delete_item()
            .set_key(Some(key(user_pk(user), plan_sk(date, meal))))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| self.table.fail("DeleteItem", &e))
    }

    /// Which of `ids` are `user`'s recipes still (one BatchGetItem of keys per 100).
    pub async fn existing(
        &self,
        user: &str,
        ids: &BTreeSet<i64>,
    ) -> Result<BTreeSet<i64>, DynamoError> {
        let keys: Vec<Item> = ids
            .iter()
            .filter_map(|id| RecipeId::new(*id))
            .map(|id| recipe_key(user, id))
            .collect();
        if keys.is_empty() {
            return Ok(BTreeSet::new());
        }
        let items = self.table.batch_get_all(keys, Some("id")).await?;
        items
            .iter()
            .map(|item| item.int(self.table.name(), "id"))
            .collect()
    }

    /// `user`'s recipes with `ids` (absent ones left out), by id.
    pub async fn recipes(
        &self,
        user: &str,
        ids: &BTreeSet<i64>,
    ) -> Result<HashMap<i64, Recipe>, DynamoError> {
        let keys: Vec<Item> = ids
            .iter()
            .filter_map(|id| RecipeId::new(*id))
            .map(|id| recipe_key(user, id))
            .collect();
        if keys.is_empty() {
            return Ok(HashMap::new());
        }
        let items = self.table.batch_get_all(keys, None).await?;
        items
            .iter()
            .map(|item| self.recipe(item).map(|r| (r.recipe.id, r.recipe)))
            .collect()
    }

    /// `user`'s shopping list and its version (0: none yet).
    pub async fn shopping_list(&self, user: &str) -> Result<(ShoppingList, i64), DynamoError> {
        let Some(item) = self.table.get(key(user_pk(user), SHOPPING_SK)).await? else {
            return Ok((ShoppingList::default(), 0));
        };
        let table = self.table.name();
        let list = serde_json::from_str(&item.string(table, "data")?)
            .map_err(|e| self.table.corrupt(format!("shopping list: {e}")))?;
        Ok((list, item.counter(table, "version")?))
    }

    /// Writes `list` over the one read at `version`; `Ok(false)` when it changed meanwhile.
    pub async fn put_shopping_list(
        &self,
        user: &str,
        list: &ShoppingList,
        version: i64,
    ) -> Result<bool, DynamoError> {
        let mut item = key(user_pk(user), SHOPPING_SK);
        let json = serde_json::to_string(list).map_err(|e| self.table.invalid("PutItem", e))?;
        item.insert("data".into(), s(json));
        item.insert("version".into(), n(version.saturating_add(1)));
        let put = self.table.put_item().set_item(Some(item));
        let put = if version == 0 {
            put.condition_expression("attribute_not_exists(pk)")
        } else {
            put.condition_expression("version = :read")
                .expression_attribute_values(":read", n(version))
        };
        match put.send().await {
            Ok(_) => Ok(true),
            Err(e) if is_condition_failed(&e) => Ok(false),
            Err(e) => Err(self.table.fail("PutItem", &e)),
        }
    }

    pub fn today(&self) -> NaiveDate {
        self.clock.now().date_naive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_sort_by_date_then_meal() {
        let day = NaiveDate::from_ymd_opt(2026, 12, 3).unwrap_or_default();
        let keys: Vec<String> = Meal::ALL.iter().map(|m| plan_sk(day, *m)).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        assert!(
            plan_sk(day, Meal::Snack) < plan_sk(day.succ_opt().unwrap_or(day), Meal::Breakfast)
        );
        assert!(format!("{}~", plan_sk(day, Meal::Lunch)) < plan_sk(day, Meal::Dinner));
    }

    #[test]
    fn dates_cursors_and_entries() {
        assert!(parse_date("from", "2026-12-03").is_ok());
        for bad in ["2026-2-3", "2026-02-30", "03.12.2026", ""] {
            assert!(parse_date("from", bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_cursor("2026-12-03.dinner").map(|(_, m)| m),
            Some(Meal::Dinner)
        );
        assert!(parse_cursor("2026-12-03.brunch").is_none());
        let errors = wanted_entries(
            "entries",
            Some(vec![
                RawPlanEntry {
                    recipe_id: Some(0),
                    portions: Some(0.1),
                },
                RawPlanEntry {
                    recipe_id: Some(5),
                    portions: None,
                },
            ]),
            MAX_ENTRIES,
        )
        .unwrap_err();
        let fields: Vec<_> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["entries[0].recipeId", "entries[0].portions"]);
    }
}
