//! A deleted account's recipes: identity's account deletion starts the recipe service's
//! cleanup, which refuses the user's new recipes at once and deletes the ones they have a
//! bounded step at a time, leaving other users' recipes alone.

use std::time::Duration;

use futures::StreamExt;
use serde_json::Value;
use stack_tests::recipes::{pancakes, recipe_ids, RECIPES};
use stack_tests::{assert_news_error, TestStack, INTERNAL_TOKEN};

/// More than one sweeper step (25 recipes per step).
const RECIPES_OF_THE_DELETED: usize = 30;

fn internal_path(user_id: &str) -> String {
    format!("/api/recipes/internal/users/{user_id}")
}

/// The recipes table's items of `user_id`: (sort key, item).
async fn items_of(t: &TestStack, user_id: &str) -> Vec<(String, Value)> {
    let pk = format!("USER#{user_id}");
    t.scan("RecipesTable")
        .await
        .into_iter()
        .filter(|i| i.get("pk").and_then(|v| v.as_s().ok()) == Some(&pk))
        .map(|i| {
            let sk = i["sk"].as_s().unwrap().clone();
            let cleaned = i.get("cleanedAt").and_then(|v| v.as_s().ok()).cloned();
            (sk, serde_json::json!({ "cleanedAt": cleaned }))
        })
        .collect()
}

#[tokio::test]
async fn deleting_an_account_deletes_its_recipes_and_only_its() {
    let t = TestStack::start().await;
    let gone = t.cook("cook_leaving").await;
    let stays = t.cook("cook_staying").await;
    let gone_id = t.get_ok(stack_tests::users::ME, Some(&gone)).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let recipe = pancakes();
    let ids: Vec<i64> = futures::stream::iter(0..RECIPES_OF_THE_DELETED)
        .map(|_| t.create_recipe(&gone, &recipe))
        .buffer_unordered(6)
        .collect()
        .await;
    assert_eq!(ids.len(), RECIPES_OF_THE_DELETED);
    let kept = [
        t.create_recipe(&stays, &pancakes()).await,
        t.create_recipe(&stays, &pancakes()).await,
    ];

    // The news reader's account deletion is the platform's one.
    assert_eq!(
        t.delete_auth(stack_tests::users::ME, &gone).await.status(),
        204
    );

    // The token still verifies for a while, but the account makes no new recipe.
    assert_news_error(
        t.post_json_auth(RECIPES, &gone, &pancakes()).await,
        401,
        "/recipes",
    )
    .await;

    // The sweeper deletes every recipe in steps and marks the account cleaned.
    let mut left = Vec::new();
    for _ in 0..300 {
        left = items_of(&t, &gone_id).await;
        let cleaned = left
            .iter()
            .any(|(sk, item)| sk == "ACCOUNT" && item["cleanedAt"].is_string());
        if cleaned && left.iter().all(|(sk, _)| !sk.starts_with("RECIPE#")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let recipes_left = left
        .iter()
        .filter(|(sk, _)| sk.starts_with("RECIPE#"))
        .count();
    assert_eq!(recipes_left, 0, "{left:?}");
    assert!(
        left.iter()
            .any(|(sk, item)| sk == "ACCOUNT" && item["cleanedAt"].is_string()),
        "the cleanup never finished: {left:?}"
    );

    // The other cook's recipes are untouched.
    let listed = t.get_ok(RECIPES, Some(&stays)).await;
    let listed = recipe_ids(&listed);
    assert_eq!(listed, kept);
}

#[tokio::test]
async fn the_cleanup_route_is_internal_and_idempotent() {
    let t = TestStack::start().await;
    let token = t.cook("cook_internal").await;
    let user_id = t.get_ok(stack_tests::users::ME, Some(&token)).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    t.create_recipe(&token, &pancakes()).await;

    // Without the internal token, or with a wrong one: 401, and nothing changes.
    let path = internal_path(&user_id);
    let stripped = format!("/internal/users/{user_id}");
    assert_news_error(t.delete_auth(&path, &token).await, 401, &stripped).await;
    let response = t
        .http
        .delete(t.url(&path))
        .header("x-internal-service-token", "not-the-token")
        .send()
        .await
        .unwrap();
    assert_news_error(response, 401, &stripped).await;
    assert!(t.create_recipe(&token, &pancakes()).await > 0);

    // Not a uuid: 400 naming `id`.
    let response = t
        .http
        .delete(t.url(&internal_path("not-a-uuid")))
        .header("x-internal-service-token", INTERNAL_TOKEN)
        .send()
        .await
        .unwrap();
    let body = assert_news_error(response, 400, "/internal/users/not-a-uuid").await;
    assert_eq!(stack_tests::details(&body), ["id: must be a UUID"]);

    // Twice: both 204, and the account's recipes go.
    for _ in 0..2 {
        let response = t
            .http
            .delete(t.url(&path))
            .header("x-internal-service-token", INTERNAL_TOKEN)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 204);
    }
    for _ in 0..100 {
        if t.get_ok(RECIPES, Some(&token))
            .await
            .as_array()
            .unwrap()
            .is_empty()
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(t.get_ok(RECIPES, Some(&token)).await, serde_json::json!([]));
    assert_news_error(
        t.post_json_auth(RECIPES, &token, &pancakes()).await,
        401,
        "/recipes",
    )
    .await;
}
