//! The AI routes with the fake model: generation in the right language that never hands a
//! user a recipe they are allergic to, nutrients from the food table (and the model for the
//! rest), questions, and the per-user rate limit.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use stack_tests::genai::llm_parameters;
use stack_tests::limits::assert_rate_limited;
use stack_tests::llm::FakeLlm;
use stack_tests::recipes::{pancakes, ASK, GENERATE, ME, NUTRIENTS};
use stack_tests::{assert_news_error, details, TestStack};

async fn stack(llm: &FakeLlm, extra: &[(&str, &str)]) -> TestStack {
    let mut parameters: BTreeMap<String, String> = llm_parameters(llm);
    for (k, v) in extra {
        parameters.insert(k.to_string(), v.to_string());
    }
    TestStack::start_with(parameters).await
}

const WITH_PEANUTS: &str = r#"[{"title": "Erdnussnudeln", "ingredients": [{"quantity": 100, "unit": "g", "name": "Roasted peanuts"}, {"quantity": 200, "unit": "g", "name": "Nudeln"}], "instructions": ["Kochen."], "portions": 2}]"#;

const SAFE: &str = "Hier sind Rezepte:\n```json\n[{\"title\": \"Tomatensalat\", \"ingredients\": [{\"quantity\": 3, \"unit\": \"\", \"name\": \"Tomaten\"}, {\"quantity\": 1, \"unit\": \"tbsp\", \"name\": \"Olivenöl\"}], \"instructions\": [\"Schneiden.\", \" \", \"Anrichten.\"], \"portions\": 2}]\n```";

#[tokio::test]
async fn generation_honours_language_and_allergies() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[]).await;
    let token = t.cook("allergic").await;
    let prefs =
        json!({"preferences": {"language": "DE", "allergies": ["peanut"], "diet": ["vegetarian"]}});
    assert_eq!(t.patch_json_auth(ME, &token, &prefs).await.status(), 200);

    // The model's first answer holds a forbidden ingredient; it never reaches the user.
    llm.reply_once(WITH_PEANUTS);
    llm.reply(SAFE);
    let response = t
        .post_json_auth(GENERATE, &token, &json!({"prompt": "Etwas Schnelles"}))
        .await;
    assert_eq!(response.status(), 200);
    let recipes: Value = response.json().await.unwrap();
    let text = recipes.to_string().to_lowercase();
    assert!(
        !text.contains("peanut") && !text.contains("erdnuss"),
        "{recipes}"
    );
    assert_eq!(recipes.as_array().unwrap().len(), 1);
    assert_eq!(recipes[0]["title"], "Tomatensalat");
    // Repaired: the blank step is gone; the rest is a valid RecipeInput.
    assert_eq!(
        recipes[0]["instructions"],
        json!(["Schneiden.", "Anrichten."])
    );
    assert_eq!(
        llm.call_count(),
        2,
        "asked once more after the refused answer"
    );
    let first = &llm.calls()[0];
    let system = first.content_of("system");
    assert!(system.contains("German"), "{system}");
    assert!(
        system.contains("peanut") && system.contains("vegetarian"),
        "{system}"
    );
    assert!(first.prompt().contains("Etwas Schnelles"));
    assert!(
        system.contains("\"ingredients\""),
        "asks for the API's field names: {system}"
    );

    // The request's language beats the preference.
    llm.reset();
    llm.reply(SAFE);
    let response = t
        .post_json_auth(
            GENERATE,
            &token,
            &json!({"prompt": "Gyors", "language": "HU"}),
        )
        .await;
    assert_eq!(response.status(), 200);
    assert!(llm.last_call().content_of("system").contains("Hungarian"));

    // A model that keeps answering what the user may not eat: refused, never passed on.
    llm.reply(WITH_PEANUTS);
    let before = llm.call_count();
    let body = assert_news_error(
        t.post_json_auth(GENERATE, &token, &json!({"prompt": "Nuts please"}))
            .await,
        502,
        "/recipes/generate",
    )
    .await;
    assert!(
        !body.to_string().to_lowercase().contains("peanut"),
        "{body}"
    );
    assert_eq!(llm.call_count(), before + 2);
    // A diet breach is caught in code too.
    llm.reply(r#"[{"title": "Bacon toast", "ingredients": [{"quantity": 2, "unit": "", "name": "bacon"}], "instructions": ["Toast."], "portions": 1}]"#);
    assert_news_error(
        t.post_json_auth(GENERATE, &token, &json!({"prompt": "Breakfast"}))
            .await,
        502,
        "/recipes/generate",
    )
    .await;
    // An answer that is no recipe at all, or an invalid one.
    for answer in [
        "I cannot help with that.",
        r#"[{"title": "", "ingredients": [], "instructions": [], "portions": 1}]"#,
    ] {
        llm.reply(answer);
        assert_news_error(
            t.post_json_auth(GENERATE, &token, &json!({"prompt": "Anything"}))
                .await,
            502,
            "/recipes/generate",
        )
        .await;
    }
}

#[tokio::test]
async fn generation_defaults_to_english_and_bounds_the_prompt() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[]).await;
    let token = t.cook("plain").await;
    llm.reply(SAFE);
    let response = t
        .post_json_auth(GENERATE, &token, &json!({"prompt": "p".repeat(4096)}))
        .await;
    assert_eq!(response.status(), 200);
    assert!(llm.last_call().content_of("system").contains("English"));
    let calls = llm.call_count();
    for (body, field) in [
        (json!({"prompt": "p".repeat(4097)}), "prompt"),
        (json!({"prompt": ""}), "prompt"),
        (json!({}), "prompt"),
    ] {
        let error = assert_news_error(
            t.post_json_auth(GENERATE, &token, &body).await,
            400,
            "/recipes/generate",
        )
        .await;
        assert!(
            details(&error)[0].starts_with(&format!("{field}:")),
            "{error}"
        );
    }
    assert_news_error(
        t.post_json_auth(GENERATE, &token, &json!({"prompt": "x", "language": "FR"}))
            .await,
        400,
        "/recipes/generate",
    )
    .await;
    assert_news_error(
        t.post_json(GENERATE, &json!({"prompt": "x"})).await,
        401,
        "/recipes/generate",
    )
    .await;
    assert_eq!(
        llm.call_count(),
        calls,
        "no refused request reached the model"
    );
}

#[tokio::test]
async fn nutrients_of_known_foods_match_the_hand_computed_values() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[]).await;
    let token = t.cook("counter").await;
    let mut recipe = pancakes();
    recipe["ingredients"] = json!([
        {"quantity": 200, "unit": "g", "name": "flour"},
        {"quantity": 2, "unit": "", "name": "eggs"},
        {"quantity": 300, "unit": "ml", "name": "Milk"},
        {"quantity": 1, "unit": "tbsp", "name": "butter"}
    ]);
    let response = t
        .post_json_auth(NUTRIENTS, &token, &json!({"recipe": recipe}))
        .await;
    assert_eq!(response.status(), 200);
    let n: Value = response.json().await.unwrap();
    // Per 100 g: flour 364/10.3/1.0/76.3; egg 143/12.6/9.5/0.7 (50 g each); milk
    // 61/3.2/3.3/4.8 (1.03 g/ml); butter 717/0.9/81.1/0.1 (0.91 g/ml, a tbsp 15 ml).
    // 200 g flour + 100 g egg + 309 g milk + 13.65 g butter:
    // kcal 728 + 143 + 188.49 + 97.8705 = 1157.3605
    // protein 20.6 + 12.6 + 9.888 + 0.12285 = 43.21085
    // fat 2.0 + 9.5 + 10.197 + 11.07015 = 32.76715
    // carbs 152.6 + 0.7 + 14.832 + 0.01365 = 168.14565
    assert_eq!(n["calories"], 1157.4, "{n}");
    assert_eq!(n["protein"], 43.2, "{n}");
    assert_eq!(n["fat"], 32.8, "{n}");
    assert_eq!(n["carbs"], 168.1, "{n}");
    assert_eq!(
        n["fromFoodTable"],
        json!(["flour", "eggs", "Milk", "butter"])
    );
    assert_eq!(n["estimatedByModel"], json!([]));
    assert_eq!(llm.call_count(), 0, "the table knew every ingredient");

    // An ingredient the table does not know goes to the model, alone.
    recipe["ingredients"] = json!([
        {"quantity": 100, "unit": "g", "name": "flour"},
        {"quantity": 1, "unit": "", "name": "dragon fruit"}
    ]);
    llm.reply(r#"{"calories": 60, "protein": 1.2, "fat": 0, "carbs": 13}"#);
    let n: Value = t
        .post_json_auth(NUTRIENTS, &token, &json!({"recipe": recipe}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(n["calories"], 424.0, "{n}");
    assert_eq!(n["protein"], 11.5, "{n}");
    assert_eq!(n["carbs"], 89.3, "{n}");
    assert_eq!(n["estimatedByModel"], json!(["dragon fruit"]));
    let prompt = llm.last_call().prompt();
    assert!(
        prompt.contains("dragon fruit") && !prompt.contains("flour"),
        "{prompt}"
    );

    // Unusable model nutrients are a 502, never passed on.
    llm.reply(r#"{"calories": -5, "protein": 1, "fat": 1, "carbs": 1}"#);
    assert_news_error(
        t.post_json_auth(NUTRIENTS, &token, &json!({"recipe": recipe}))
            .await,
        502,
        "/recipes/nutrients",
    )
    .await;
    // The recipe follows the RecipeInput rules.
    recipe["portions"] = json!(0.1);
    let body = assert_news_error(
        t.post_json_auth(NUTRIENTS, &token, &json!({"recipe": recipe}))
            .await,
        400,
        "/recipes/nutrients",
    )
    .await;
    assert_eq!(details(&body), ["recipe.portions: must be 0.5 to 1000"]);
    let body = assert_news_error(
        t.post_json_auth(NUTRIENTS, &token, &json!({})).await,
        400,
        "/recipes/nutrients",
    )
    .await;
    assert_eq!(details(&body), ["recipe: is required"]);
}

#[tokio::test]
async fn questions_about_a_recipe() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[]).await;
    let token = t.cook("curious").await;
    llm.reply("  Use oat milk instead.  ");
    let response = t
        .post_json_auth(
            ASK,
            &token,
            &json!({"recipe": pancakes(), "prompt": "Can I make it dairy-free?"}),
        )
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({"response": "Use oat milk instead."})
    );
    let prompt = llm.last_call().prompt();
    assert!(
        prompt.contains("dairy-free") && prompt.contains("Pancakes"),
        "{prompt}"
    );

    let response = t
        .post_json_auth(
            ASK,
            &token,
            &json!({"recipe": pancakes(), "prompt": "q".repeat(4096)}),
        )
        .await;
    assert_eq!(response.status(), 200);
    let calls = llm.call_count();
    for (body, expected) in [
        (
            json!({"recipe": pancakes(), "prompt": "q".repeat(4097)}),
            vec!["prompt: must be 1 to 4096 characters"],
        ),
        (json!({"recipe": pancakes()}), vec!["prompt: is required"]),
        (json!({"prompt": "Why?"}), vec!["recipe: is required"]),
        (
            json!({"recipe": {"title": "x"}, "prompt": ""}),
            vec![
                "recipe.ingredients: is required",
                "recipe.instructions: is required",
                "recipe.portions: is required",
                "prompt: is required",
            ],
        ),
    ] {
        let error = assert_news_error(
            t.post_json_auth(ASK, &token, &body).await,
            400,
            "/recipes/ask",
        )
        .await;
        assert_eq!(details(&error), expected);
    }
    assert_eq!(llm.call_count(), calls);
    llm.reply("   ");
    assert_news_error(
        t.post_json_auth(ASK, &token, &json!({"recipe": pancakes(), "prompt": "Hm?"}))
            .await,
        502,
        "/recipes/ask",
    )
    .await;
}

#[tokio::test]
async fn the_ai_routes_are_rate_limited_per_user() {
    let llm = FakeLlm::start().await;
    let t = stack(&llm, &[("RecipesAiRateLimitPerUser", "2/60")]).await;
    let greedy = t.cook("greedy").await;
    let other = t.cook("patient").await;
    let body = json!({"recipe": pancakes()});
    stack_tests::limits::in_one_window(60, std::time::Duration::from_secs(20)).await;
    // A refused input costs nothing.
    assert_eq!(
        t.post_json_auth(NUTRIENTS, &greedy, &json!({}))
            .await
            .status(),
        400
    );
    for _ in 0..2 {
        assert_eq!(
            t.post_json_auth(NUTRIENTS, &greedy, &body).await.status(),
            200
        );
    }
    assert_rate_limited(
        t.post_json_auth(NUTRIENTS, &greedy, &body).await,
        "/recipes/nutrients",
        60,
    )
    .await;
    llm.reply(SAFE);
    assert_rate_limited(
        t.post_json_auth(GENERATE, &greedy, &json!({"prompt": "more"}))
            .await,
        "/recipes/generate",
        60,
    )
    .await;
    assert_eq!(
        llm.call_count(),
        0,
        "a limited request never reaches the model"
    );
    assert_eq!(
        t.post_json_auth(NUTRIENTS, &other, &body).await.status(),
        200
    );
}
