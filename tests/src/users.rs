//! A test's users: registering and logging one in through the users function, service
//! tokens from the client-credentials grant, and the routes of a user's own account.

use reqwest::Response;
use serde_json::{json, Value};

use crate::stack::{TestStack, ADMIN_PASSWORD, ADMIN_USERNAME, SERVICE_CLIENT, SERVICE_SECRET};

pub const REGISTER: &str = "/api/users/auth/register";
pub const LOGIN: &str = "/api/users/auth/login";
pub const TOKEN: &str = "/api/users/oauth2/token";
pub const JWKS: &str = "/api/users/.well-known/jwks.json";
pub const ME: &str = "/api/users/users/me";
pub const SETTINGS: &str = "/api/users/users/me/settings";
pub const PASSWORD: &str = "/api/users/users/me/password";
pub const SESSIONS: &str = "/api/users/users/me/sessions";
pub const ACCOUNTS: &str = "/api/users/admin/users";

/// The route that sets the roles of account `id`.
pub fn roles(id: &str) -> String {
    format!("/api/users/admin/users/{id}/roles")
}

/// The password [`TestStack::register`] gives `username`.
pub fn password(username: &str) -> String {
    format!("password-{username}")
}

/// The route of the user's subscription to `source_id`.
pub fn subscription(source_id: &str) -> String {
    format!("/api/users/users/me/subscriptions/{source_id}")
}

impl TestStack {
    /// Registers `username` (password [`password`]) and returns its profile.
    pub async fn register(&self, username: &str) -> Value {
        let response = self
            .post_json(
                REGISTER,
                &json!({
                    "username": username,
                    "email": format!("{username}@example.com"),
                    "password": password(username),
                    "name": format!("{username} tester"),
                }),
            )
            .await;
        assert_eq!(response.status(), 201, "register {username}");
        response.json().await.expect("profile")
    }

    /// `POST /auth/login` with these credentials, whatever it answers.
    pub async fn login_as(&self, username: &str, password: &str) -> Response {
        self.post_json(LOGIN, &json!({"username": username, "password": password}))
            .await
    }

    /// Logs in a user [`TestStack::register`] made; returns the token.
    pub async fn login(&self, username: &str) -> String {
        let response = self.login_as(username, &password(username)).await;
        assert_eq!(response.status(), 200, "login {username}");
        let body: Value = response.json().await.expect("token");
        body["token"].as_str().expect("token string").to_string()
    }

    /// A token of the administrator the stack provisioned as it started (signed in once).
    pub async fn admin_token(&self) -> String {
        self.admin
            .get_or_init(|| async {
                let response = self.login_as(ADMIN_USERNAME, ADMIN_PASSWORD).await;
                assert_eq!(response.status(), 200, "the provisioned admin signs in");
                let body: Value = response.json().await.expect("token");
                body["token"].as_str().expect("token string").to_string()
            })
            .await
            .clone()
    }

    /// The administrator gives account `user_id` exactly `roles` (USER stays); its sessions end.
    pub async fn grant_roles(&self, user_id: &str, roles: &[&str]) {
        let admin = self.admin_token().await;
        let response = self
            .put_json_auth(&self::roles(user_id), &admin, &json!({ "roles": roles }))
            .await;
        assert_eq!(response.status(), 200, "grant {roles:?} to {user_id}");
    }

    /// Registers a new user, has the administrator make it an OPERATOR, and signs it in;
    /// returns (id, token).
    pub async fn operator(&self, username: &str) -> (String, String) {
        let profile = self.register(username).await;
        let id = profile["id"].as_str().expect("id").to_string();
        self.grant_roles(&id, &["USER", "OPERATOR"]).await;
        (id, self.login(username).await)
    }

    /// Registers and logs in a new user; returns (profile, token).
    pub async fn user(&self, username: &str) -> (Value, String) {
        let profile = self.register(username).await;
        let token = self.login(username).await;
        (profile, token)
    }

    /// `POST /oauth2/token` with this form, authenticated as `(client, secret)` by HTTP
    /// Basic when given; whatever it answers.
    pub async fn token_request(
        &self,
        client: Option<(&str, &str)>,
        form: &[(&str, &str)],
    ) -> Response {
        let mut request = self.http.post(self.url(TOKEN)).form(form);
        if let Some((client, secret)) = client {
            request = request.basic_auth(client, Some(secret));
        }
        self.send(request).await
    }

    /// A client-credentials token for the local service client.
    pub async fn service_token(&self) -> String {
        let response = self
            .token_request(
                Some((SERVICE_CLIENT, SERVICE_SECRET)),
                &[("grant_type", "client_credentials")],
            )
            .await;
        assert_eq!(response.status(), 200, "client credentials");
        let body: Value = response.json().await.expect("json");
        body["access_token"].as_str().expect("token").to_string()
    }

    /// The user's settings (whatever the status).
    pub async fn settings(&self, token: &str) -> Value {
        self.get_auth(SETTINGS, token)
            .await
            .json()
            .await
            .expect("json")
    }

    /// `POST` the user's subscription to `source_id`.
    pub async fn subscribe(&self, token: &str, source_id: &str) -> Response {
        self.post_auth(&subscription(source_id), token).await
    }

    /// `DELETE` the user's subscription to `source_id`.
    pub async fn unsubscribe(&self, token: &str, source_id: &str) -> Response {
        self.delete_auth(&subscription(source_id), token).await
    }
}
