//! Roles belong to accounts: no username grants anything, the first administrator comes from
//! the deployment (the bootstrap custom resource), and only an administrator changes roles.

use platform::custom_resource::CustomResourceRequest;
use serde_json::{json, Value};
use stack_tests::stack::{ADMIN_PASSWORD, ADMIN_USERNAME};
use stack_tests::tokens::claims;
use stack_tests::users::{roles, ACCOUNTS, ME, REGISTER};
use stack_tests::{assert_news_error, TestStack};

const RECIPE_ME: &str = "/api/recipes/users/me";

#[tokio::test]
async fn the_deployments_administrator_exists_before_anyone_registers() {
    let t = TestStack::start().await;
    let admin = t.admin_token().await;
    assert_eq!(claims(&admin)["roles"], json!(["USER", "ADMIN"]));
    // The name is taken: nobody can register it, in either system.
    let response = t
        .post_json(
            REGISTER,
            &json!({"username": "Admin", "email": "a@example.com", "password": "password-1x"}),
        )
        .await;
    assert_news_error(response, 409, "/auth/register").await;
    assert_eq!(t.recipe_register("ADMIN", "whatever1").await.status(), 409);
}

#[tokio::test]
async fn no_username_grants_a_role() {
    let t = TestStack::start().await;
    // A recipe account that renames itself after a privileged-sounding name gets nothing.
    let cook = t.cook("cook_root").await;
    assert_eq!(claims(&cook)["roles"], json!(["USER"]));
    let rename = t
        .patch_json_auth(RECIPE_ME, &cook, &json!({"username": "admin"}))
        .await;
    assert_eq!(rename.status(), 409, "the administrator's name is held");
    let rename = t
        .patch_json_auth(RECIPE_ME, &cook, &json!({"username": "operator"}))
        .await;
    assert_eq!(rename.status(), 200);
    let token: Value = t
        .recipe_login("operator", "cook-cook_root")
        .await
        .json()
        .await
        .unwrap();
    let token = token["token"].as_str().unwrap();
    assert_eq!(claims(token)["roles"], json!(["USER"]));
    // And the incident platform stays shut to it.
    assert_eq!(t.get_auth("/api/v1/incidents", token).await.status(), 403);
    assert_eq!(t.delete_auth("/api/v1/analyses", token).await.status(), 403);
}

#[tokio::test]
async fn an_administrator_grants_and_revokes_roles_and_the_account_signs_in_again() {
    let t = TestStack::start().await;
    let admin = t.admin_token().await;
    let (profile, token) = t.user("oncall").await;
    let id = profile["id"].as_str().unwrap();
    assert_eq!(t.get_auth("/api/v1/incidents", &token).await.status(), 403);

    let granted = t
        .put_json_auth(&roles(id), &admin, &json!({"roles": ["OPERATOR"]}))
        .await;
    assert_eq!(granted.status(), 200);
    let granted: Value = granted.json().await.unwrap();
    assert_eq!(granted["roles"], json!(["USER", "OPERATOR"]));
    assert_eq!(granted["id"], profile["id"]);

    // The role change ended the account's sessions: the old token is refused everywhere.
    for path in [ME, "/api/v1/incidents", "/api/recipes/recipes"] {
        assert_eq!(t.get_auth(path, &token).await.status(), 401, "{path}");
    }
    let operator = t.login("oncall").await;
    assert_eq!(claims(&operator)["roles"], json!(["USER", "OPERATOR"]));
    assert_eq!(
        t.get_auth("/api/v1/incidents", &operator).await.status(),
        200
    );
    // An operator is not an administrator.
    assert_eq!(t.delete_auth("/api/v1/logs", &operator).await.status(), 403);

    let revoked = t
        .put_json_auth(&roles(id), &admin, &json!({"roles": ["USER"]}))
        .await;
    assert_eq!(revoked.status(), 200);
    assert_eq!(t.get_auth(ME, &operator).await.status(), 401);
    let plain = t.login("oncall").await;
    assert_eq!(claims(&plain)["roles"], json!(["USER"]));
    assert_eq!(t.get_auth("/api/v1/incidents", &plain).await.status(), 403);

    // Setting the same roles again ends nothing.
    let same = t
        .put_json_auth(&roles(id), &admin, &json!({"roles": ["USER"]}))
        .await;
    assert_eq!(same.status(), 200);
    assert_eq!(t.get_auth(ME, &plain).await.status(), 200);
}

#[tokio::test]
async fn only_an_administrator_changes_roles_and_lists_accounts() {
    let t = TestStack::start().await;
    let admin = t.admin_token().await;
    let (profile, token) = t.user("mallory").await;
    let id = profile["id"].as_str().unwrap();
    let body = json!({"roles": ["USER", "ADMIN"]});

    let response = t.put_json_auth(&roles(id), &token, &body).await;
    assert_news_error(response, 403, &format!("/admin/users/{id}/roles")).await;
    let response = t
        .http
        .put(t.url(&roles(id)))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    assert_eq!(t.get_auth(ACCOUNTS, &token).await.status(), 403);
    assert_eq!(t.get(ACCOUNTS).await.status(), 401);
    // Still a plain user.
    assert_eq!(claims(&t.login("mallory").await)["roles"], json!(["USER"]));

    // An unknown account, an unknown role, no roles, and the administrator's own roles.
    let unknown = t
        .put_json_auth(&roles("no-such-user"), &admin, &json!({"roles": ["USER"]}))
        .await;
    assert_news_error(unknown, 404, "/admin/users/no-such-user/roles").await;
    for body in [
        json!({"roles": ["ROOT"]}),
        json!({}),
        json!({"roles": "ADMIN"}),
    ] {
        let response = t.put_json_auth(&roles(id), &admin, &body).await;
        assert_eq!(response.status(), 400, "{body}");
    }
    let admin_id = claims(&admin)["sub"].as_str().unwrap().to_string();
    let response = t
        .put_json_auth(
            &roles(&admin_id),
            &admin,
            &json!({"roles": ["USER", "OPERATOR", "ADMIN"]}),
        )
        .await;
    let error = assert_news_error(response, 403, &format!("/admin/users/{admin_id}/roles")).await;
    assert_eq!(
        error["message"],
        "an administrator's own roles are changed by another administrator"
    );
}

#[tokio::test]
async fn the_account_list_pages_with_a_cursor_and_shows_roles() {
    let t = TestStack::start().await;
    let admin = t.admin_token().await;
    for name in ["pager1", "pager2", "pager3"] {
        t.register(name).await;
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("{ACCOUNTS}?limit=2&cursor={c}"),
            None => format!("{ACCOUNTS}?limit=2"),
        };
        let page: Value = t.get_auth(&path, &admin).await.json().await.unwrap();
        let users = page["users"].as_array().unwrap();
        assert!(users.len() <= 2);
        seen.extend(users.iter().cloned());
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    let names: Vec<&str> = seen
        .iter()
        .map(|u| u["username"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 4, "{names:?}");
    for name in ["admin", "pager1", "pager2", "pager3"] {
        assert!(names.contains(&name), "{names:?}");
    }
    let admin_row = seen.iter().find(|u| u["username"] == "admin").unwrap();
    assert_eq!(admin_row["roles"], json!(["USER", "ADMIN"]));
    assert_eq!(
        t.get_auth(&format!("{ACCOUNTS}?limit=0"), &admin)
            .await
            .status(),
        400
    );
    assert_eq!(
        t.get_auth(&format!("{ACCOUNTS}?limit=101"), &admin)
            .await
            .status(),
        400
    );
}

/// The custom resource, as CloudFormation sends it.
fn create(username: &str, password: &str) -> CustomResourceRequest {
    serde_json::from_value(json!({
        "RequestType": "Create",
        "LogicalResourceId": "BootstrapAdmin",
        "ResourceProperties": {"Username": username, "Password": password}
    }))
    .unwrap()
}

#[tokio::test]
async fn the_bootstrap_is_idempotent_and_promotes_only_the_operators_own_account() {
    let t = TestStack::start().await;
    let handler = identity_bootstrap_function::handler(t.env("IdentityBootstrapFunction"))
        .await
        .unwrap();
    // Deploying again changes nothing: the password stays.
    let again = handler
        .handle(create(ADMIN_USERNAME, "another-password-9"))
        .await
        .unwrap();
    assert_eq!(again.physical_id, "admin-admin");
    assert_eq!(
        t.login_as(ADMIN_USERNAME, ADMIN_PASSWORD).await.status(),
        200
    );
    assert_eq!(
        t.login_as(ADMIN_USERNAME, "another-password-9")
            .await
            .status(),
        401
    );

    // Someone registered the name before the first deploy: the deployment's password is not
    // theirs, so the squatter gets nothing and the deployment fails with the reason.
    let (_, squatter) = t.user("opsadmin").await;
    let refused = handler
        .handle(create("opsadmin", "the-operators-password-1"))
        .await
        .expect_err("a squatted name is refused");
    let reason = refused.to_string();
    assert!(reason.contains("opsadmin"), "{reason}");
    assert!(reason.contains("BootstrapAdminUsername"), "{reason}");
    assert_eq!(t.get_auth(ME, &squatter).await.status(), 200);
    assert_eq!(claims(&t.login("opsadmin").await)["roles"], json!(["USER"]));
    assert_eq!(t.get_auth(ACCOUNTS, &squatter).await.status(), 403);
    assert_eq!(
        t.login_as("opsadmin", "the-operators-password-1")
            .await
            .status(),
        401
    );

    // The operator's own existing account (the deployment's password is its password) is made
    // an administrator, and signs in again to carry the role.
    let (profile, token) = t.user("founder").await;
    let promoted = handler
        .handle(create("founder", &stack_tests::users::password("founder")))
        .await
        .unwrap();
    assert_eq!(promoted.data["UserId"], profile["id"]);
    assert_eq!(t.get_auth(ME, &token).await.status(), 401, "signs in again");
    let token = t.login("founder").await;
    assert_eq!(claims(&token)["roles"], json!(["USER", "ADMIN"]));

    // A bootstrap account under the registration rules, or the deployment fails.
    let refused = handler.handle(create("x", "short")).await;
    assert!(refused.is_err());
}

#[tokio::test]
async fn an_empty_cursor_is_the_first_page() {
    let t = TestStack::start().await;
    let admin = t.admin_token().await;
    let response = t.get_auth(&format!("{ACCOUNTS}?cursor="), &admin).await;
    assert_eq!(response.status(), 200);
    let page: Value = response.json().await.unwrap();
    assert_eq!(page["users"][0]["username"], "admin");
}
