//! The recipe service as tests use it: recipe accounts (the recipe service's Credentials) through the
//! users function, and recipe requests with a token.

use reqwest::Response;
use serde_json::{json, Value};

use crate::stack::TestStack;

pub const REGISTER: &str = "/api/recipes/auth/register";
pub const LOGIN: &str = "/api/recipes/auth/login";
pub const ME: &str = "/api/recipes/users/me";
pub const RECIPES: &str = "/api/recipes/recipes";
pub const GENERATE: &str = "/api/recipes/recipes/generate";
pub const NUTRIENTS: &str = "/api/recipes/recipes/nutrients";
pub const ASK: &str = "/api/recipes/recipes/ask";

/// The path of recipe `id` (any text, to test bad ids too).
pub fn recipe_path(id: impl std::fmt::Display) -> String {
    format!("{RECIPES}/{id}")
}

/// A small valid RecipeInput.
pub fn pancakes() -> Value {
    json!({
        "title": "Pancakes",
        "ingredients": [
            {"quantity": 200, "unit": "g", "name": "flour"},
            {"quantity": 2, "unit": "", "name": "egg"},
            {"quantity": 300, "unit": "ml", "name": "milk"}
        ],
        "instructions": ["Whisk everything together.", "Fry thin pancakes."],
        "portions": 4
    })
}

impl TestStack {
    /// Registers a recipe account (password `cook-{username}`); returns the answer.
    pub async fn recipe_register(&self, username: &str, password: &str) -> Response {
        self.post_json(
            REGISTER,
            &json!({"username": username, "password": password}),
        )
        .await
    }

    pub async fn recipe_login(&self, username: &str, password: &str) -> Response {
        self.post_json(LOGIN, &json!({"username": username, "password": password}))
            .await
    }

    /// Registers and logs in a recipe account; returns its token.
    pub async fn cook(&self, username: &str) -> String {
        let password = format!("cook-{username}");
        let response = self.recipe_register(username, &password).await;
        assert_eq!(response.status(), 201, "register {username}");
        let response = self.recipe_login(username, &password).await;
        assert_eq!(response.status(), 200, "login {username}");
        let body: Value = response.json().await.expect("token");
        body["token"].as_str().expect("token").to_string()
    }

    /// Creates `recipe` for the token's user, which must succeed; its id.
    pub async fn create_recipe(&self, token: &str, recipe: &Value) -> i64 {
        let response = self.post_json_auth(RECIPES, token, recipe).await;
        assert_eq!(response.status(), 201, "create recipe");
        let body: Value = response.json().await.expect("json");
        body["id"].as_i64().expect("int id")
    }
}

/// The ids of a recipe list, in its order.
pub fn recipe_ids(list: &Value) -> Vec<i64> {
    list.as_array()
        .expect("a recipe list")
        .iter()
        .map(|r| r["id"].as_i64().expect("int id"))
        .collect()
}

/// `value` with every number as a float (the service answers `2.0` for a sent `2`), for
/// comparing what was sent with what is read back.
pub fn numbers_as_floats(value: &Value) -> Value {
    match value {
        Value::Number(n) => n.as_f64().map_or(Value::Null, |f| json!(f)),
        Value::Array(items) => Value::Array(items.iter().map(numbers_as_floats).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), numbers_as_floats(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}
