//! A DynamoDB outage: the recipe routes (the users function's account routes and the recipes
//! function) answer 503 in the detailed error body, never 500, and the AI routes do not ask
//! the model without their limits table.

use axum::body::Body;
use serde_json::json;
use stack_tests::genai::llm_parameters;
use stack_tests::llm::FakeLlm;
use stack_tests::recipes::pancakes;
use stack_tests::router;
use stack_tests::server::closed_port;
use stack_tests::TestStack;

#[tokio::test]
async fn recipe_routes_answer_503_when_dynamodb_is_down() {
    let llm = FakeLlm::start().await;
    let t = TestStack::start_with(llm_parameters(&llm)).await;
    let token = t.cook("outage").await;
    let dead = format!("http://127.0.0.1:{}", closed_port());
    let bearer = format!("Bearer {token}");
    let recipe = pancakes().to_string();
    let nutrients = json!({"recipe": pancakes()}).to_string();
    let ask = json!({"recipe": pancakes(), "prompt": "Why?"}).to_string();
    let generate = json!({"prompt": "Soup"}).to_string();
    let credentials = json!({"username": "outage2", "password": "abcd"}).to_string();

    let users = identity_function::router(
        t.env("IdentityFunction")
            .with("AWS_ENDPOINT_URL", dead.clone()),
    )
    .await
    .expect("users router");
    let recipes = recipes_function::router(t.env("RecipesFunction").with("AWS_ENDPOINT_URL", dead))
        .await
        .expect("recipes router");
    let cases: Vec<(&axum::Router, &str, &str, Option<&str>, &str)> = vec![
        (
            &users,
            "POST",
            "/api/recipes/auth/register",
            Some(&credentials),
            "/auth/register",
        ),
        (
            &users,
            "POST",
            "/api/recipes/auth/login",
            Some(&credentials),
            "/auth/login",
        ),
        (&users, "GET", "/api/recipes/users/me", None, "/users/me"),
        (
            &users,
            "PATCH",
            "/api/recipes/users/me",
            Some(r#"{"preferences":{"language":"DE"}}"#),
            "/users/me",
        ),
        (&recipes, "GET", "/api/recipes/recipes", None, "/recipes"),
        (
            &recipes,
            "POST",
            "/api/recipes/recipes",
            Some(&recipe),
            "/recipes",
        ),
        (
            &recipes,
            "GET",
            "/api/recipes/recipes/1",
            None,
            "/recipes/1",
        ),
        (
            &recipes,
            "PATCH",
            "/api/recipes/recipes/1",
            Some(r#"{"title":"T"}"#),
            "/recipes/1",
        ),
        (
            &recipes,
            "POST",
            "/api/recipes/recipes/nutrients",
            Some(&nutrients),
            "/recipes/nutrients",
        ),
        (
            &recipes,
            "POST",
            "/api/recipes/recipes/ask",
            Some(&ask),
            "/recipes/ask",
        ),
        (
            &recipes,
            "POST",
            "/api/recipes/recipes/generate",
            Some(&generate),
            "/recipes/generate",
        ),
    ];
    for (app, method, uri, body, path) in cases {
        let headers = [
            ("content-type", "application/json"),
            ("authorization", bearer.as_str()),
        ];
        let body = body.map_or_else(Body::empty, |b| Body::from(b.to_string()));
        let answer = router::send(app, router::request(method, uri, &headers, body)).await;
        assert_eq!(answer.status, 503, "{method} {uri}: {}", answer.text());
        let json = answer.json();
        assert_eq!(json["code"], 503, "{json}");
        assert_eq!(json["path"], path, "{json}");
    }
    assert_eq!(
        llm.call_count(),
        0,
        "the model was asked without the limits table"
    );
}
