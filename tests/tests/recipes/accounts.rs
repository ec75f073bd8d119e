//! Recipe accounts: the recipe service's Credentials rules on the recipe routes, one identity with
//! The news reader.

use serde_json::{json, Value};
use stack_tests::recipes::{LOGIN, ME, REGISTER};
use stack_tests::{assert_news_error, details, TestStack};

#[tokio::test]
async fn recipe_accounts_are_platform_accounts() {
    let t = TestStack::start().await;
    let response = t.recipe_register("cook_a", "abcd").await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.unwrap();
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );

    // Taken, whatever the case, and across systems.
    let taken = assert_news_error(
        t.recipe_register("COOK_A", "abcd").await,
        409,
        "/auth/register",
    )
    .await;
    assert_eq!(details(&taken), ["username: is already taken"]);
    t.register("newsreader").await;
    assert_news_error(
        t.recipe_register("newsreader", "abcd").await,
        409,
        "/auth/register",
    )
    .await;

    // The recipe login's token works on the news side; the profile shows no email.
    let response = t.recipe_login("cook_a", "abcd").await;
    assert_eq!(response.status(), 200);
    let token = response.json::<Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    let profile: Value = t
        .get_auth(stack_tests::users::ME, &token)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(profile["username"], "cook_a", "{profile}");
    assert!(profile.get("email").is_none(), "{profile}");

    // The news reader's login takes the recipe account, and its token the recipe routes.
    let news_token = t.login_as("cook_a", "abcd").await;
    assert_eq!(news_token.status(), 200);
    let news_token = news_token.json::<Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    let me: Value = t.get_auth(ME, &news_token).await.json().await.unwrap();
    assert_eq!(
        me,
        json!({"username": "cook_a", "preferences": {
            "language": "EN", "theme": "LIGHT", "diet": [], "allergies": [], "aboutMe": []
        }})
    );

    // A news account logs in on the recipe side.
    let response = t
        .recipe_login("newsreader", &stack_tests::users::password("newsreader"))
        .await;
    assert_eq!(response.status(), 200);

    // The news reader may give the account an email later (its guard is taken then), and
    // deleting an account without one leaves nothing behind.
    let response = t
        .put_json_auth(
            stack_tests::users::ME,
            &token,
            &json!({"email": "cook@example.com"}),
        )
        .await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.json::<Value>().await.unwrap()["email"],
        "cook@example.com"
    );
    let other = t.cook("cook_z").await;
    // Another account's address is not refused (that would tell whose it is): it is kept
    // on this profile unclaimed (tests/tests/identity/accounts.rs checks the guard).
    let taken = t
        .put_json_auth(
            stack_tests::users::ME,
            &other,
            &json!({"email": "COOK@example.com"}),
        )
        .await;
    assert_eq!(taken.status(), 200);
    let response = t.delete_auth(stack_tests::users::ME, &other).await;
    assert_eq!(response.status(), 204);
    assert_eq!(t.recipe_login("cook_z", "cook-cook_z").await.status(), 401);
    assert_eq!(
        t.recipe_register("cook_z", "abcd").await.status(),
        201,
        "the name is free again"
    );

    // Wrong password, unknown user: the same 401.
    assert_news_error(t.recipe_login("cook_a", "abce").await, 401, "/auth/login").await;
    assert_news_error(t.recipe_login("nobody", "abcd").await, 401, "/auth/login").await;
    assert_news_error(t.get(ME).await, 401, "/users/me").await;
}

#[tokio::test]
async fn credentials_at_and_past_their_edges() {
    let t = TestStack::start().await;
    for (username, password) in [
        ("a", "abcd"),
        (&"b".repeat(64)[..], &"p".repeat(128)[..]),
        ("x.y-z_9", "four"),
    ] {
        let response = t.recipe_register(username, password).await;
        assert_eq!(response.status(), 201, "{username}");
        assert_eq!(t.recipe_login(username, password).await.status(), 200);
        // One identity: the news reader's login takes every recipe account, 64 characters too.
        assert_eq!(
            t.login_as(username, password).await.status(),
            200,
            "{username} on the news side"
        );
    }
    for (username, password, field) in [
        ("", "abcd", "username"),
        (&"c".repeat(65)[..], "abcd", "username"),
        ("with space", "abcd", "username"),
        ("ünï", "abcd", "username"),
        ("cook", "abc", "password"),
        ("cook", &"p".repeat(129)[..], "password"),
    ] {
        let body = assert_news_error(
            t.recipe_register(username, password).await,
            400,
            "/auth/register",
        )
        .await;
        let details = details(&body);
        assert!(
            details.len() == 1 && details[0].starts_with(&format!("{field}:")),
            "{username:?}/{password:?}: {details:?}"
        );
        assert_news_error(t.recipe_login(username, password).await, 400, "/auth/login").await;
    }
    let missing = assert_news_error(
        t.post_json(REGISTER, &json!({})).await,
        400,
        "/auth/register",
    )
    .await;
    assert_eq!(
        details(&missing),
        ["username: is required", "password: is required"]
    );
    assert_news_error(
        t.post_json(LOGIN, &json!({"username": "a"})).await,
        400,
        "/auth/login",
    )
    .await;
}

#[tokio::test]
async fn update_user_and_preferences() {
    let t = TestStack::start().await;
    let token = t.cook("cook_b").await;
    let _other = t.cook("cook_taken").await;

    let prefs = json!({"preferences": {
        "language": "HU", "theme": "DARK", "diet": ["vegetarian"],
        "allergies": ["peanut", "sesame"], "aboutMe": ["I cook on Sundays."]
    }});
    let response = t.patch_json_auth(ME, &token, &prefs).await;
    assert_eq!(response.status(), 200);
    assert!(response.json::<Value>().await.unwrap()["message"].is_string());
    // Absent preference fields keep their values.
    let response = t
        .patch_json_auth(ME, &token, &json!({"preferences": {"theme": "LIGHT"}}))
        .await;
    assert_eq!(response.status(), 200);
    let me: Value = t.get_auth(ME, &token).await.json().await.unwrap();
    assert_eq!(me["preferences"]["language"], "HU");
    assert_eq!(me["preferences"]["theme"], "LIGHT");
    assert_eq!(me["preferences"]["allergies"], json!(["peanut", "sesame"]));
    assert_eq!(me["preferences"]["aboutMe"], json!(["I cook on Sundays."]));

    // A new username stays unique; the old one no longer logs in.
    let taken = assert_news_error(
        t.patch_json_auth(ME, &token, &json!({"username": "Cook_Taken"}))
            .await,
        409,
        "/users/me",
    )
    .await;
    assert_eq!(details(&taken), ["username: is already taken"]);
    let response = t
        .patch_json_auth(
            ME,
            &token,
            &json!({"username": "cook_c", "password": "newpass", "currentPassword": "cook-cook_b"}),
        )
        .await;
    assert_eq!(response.status(), 200);
    // The password change ended every other session; the answer carries this one's token.
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["message"], "User updated");
    assert_eq!(t.get_auth(ME, &token).await.status(), 401);
    let token = body["token"].as_str().unwrap().to_string();
    assert_eq!(t.recipe_login("cook_b", "cook-cook_b").await.status(), 401);
    assert_eq!(t.recipe_login("cook_c", "cook-cook_b").await.status(), 401);
    assert_eq!(t.recipe_login("cook_c", "newpass").await.status(), 200);
    assert_eq!(t.login_as("cook_c", "newpass").await.status(), 200);
    // The old name is free again.
    assert_eq!(t.recipe_register("cook_b", "abcd").await.status(), 201);
    let me: Value = t.get_auth(ME, &token).await.json().await.unwrap();
    assert_eq!(me["username"], "cook_c");
    assert_eq!(
        me["preferences"]["language"], "HU",
        "preferences survive a rename"
    );

    // Every limit, past its edge.
    let at_edge = json!({"preferences": {
        "diet": vec!["d".repeat(100); 20],
        "allergies": vec!["a"; 50],
        "aboutMe": vec!["m".repeat(1000); 20],
    }});
    assert_eq!(t.patch_json_auth(ME, &token, &at_edge).await.status(), 200);
    for (body, field) in [
        (json!({"username": ""}), "username"),
        (json!({"username": "c".repeat(65)}), "username"),
        (json!({"password": "abc"}), "password"),
        (json!({"password": "p".repeat(129)}), "password"),
        (
            json!({"preferences": {"diet": vec!["d"; 21]}}),
            "preferences.diet",
        ),
        (
            json!({"preferences": {"diet": ["d".repeat(101)]}}),
            "preferences.diet",
        ),
        (
            json!({"preferences": {"allergies": vec!["a"; 51]}}),
            "preferences.allergies",
        ),
        (
            json!({"preferences": {"allergies": [" "]}}),
            "preferences.allergies",
        ),
        (
            json!({"preferences": {"aboutMe": vec!["m"; 21]}}),
            "preferences.aboutMe",
        ),
        (
            json!({"preferences": {"aboutMe": ["m".repeat(1001)]}}),
            "preferences.aboutMe",
        ),
    ] {
        let error =
            assert_news_error(t.patch_json_auth(ME, &token, &body).await, 400, "/users/me").await;
        let details = details(&error);
        assert!(
            details.iter().any(|d| d.starts_with(&format!("{field}:"))),
            "{body}: {details:?}"
        );
    }
    for body in [
        json!({"preferences": {"language": "FR"}}),
        json!({"preferences": {"theme": "PINK"}}),
        json!({"email": "a@example.com"}),
    ] {
        assert_news_error(t.patch_json_auth(ME, &token, &body).await, 400, "/users/me").await;
    }
    let me: Value = t.get_auth(ME, &token).await.json().await.unwrap();
    assert_eq!(me["username"], "cook_c", "nothing half-written");
}
