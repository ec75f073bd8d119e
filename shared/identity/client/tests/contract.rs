//! The client's wire types against the committed contract (`functions/web/openapi.json`):
//! a sample of each, serialized, is what the route's schema describes, and each route the
//! client calls answers that schema. A field renamed in the client (or in identity's handler,
//! which serializes the same type) fails here until the contract is regenerated, and the
//! contract test of the stack fails then.

// Test code: a failed read or check is the test failing.
#![allow(clippy::expect_used)]

use identity_client::{
    InternalUser, InternalUserIds, ReaderSession, ReaderSessionRequest, RecipeLanguage,
    RecipeTheme, RecipeUser, Role, UserPreferences,
};
use platform::contract::{check_answer, check_sample, committed};

#[test]
fn the_user_directory_answers_what_the_client_reads() {
    let doc = committed().expect("the committed contract");
    for (path, schema) in [
        ("/api/users/internal/users/{id}", "InternalUser"),
        ("/api/users/internal/users", "InternalUserIds"),
    ] {
        check_answer(&doc, "get", path, schema).expect("the route's answer");
    }
    check_sample(
        &doc,
        "InternalUser",
        &InternalUser {
            id: "0b6f3a52-0000-4000-8000-000000000001".into(),
            username: "alice".into(),
            display_name: "Alice".into(),
            roles: vec![Role::User, Role::Operator, Role::Admin],
            show_bookmarks: true,
            show_likes: false,
            followed_topics: vec!["rust".into()],
        },
    )
    .expect("InternalUser as the contract says");
    for next_cursor in [None, Some("u-2".to_string())] {
        check_sample(
            &doc,
            "InternalUserIds",
            &InternalUserIds {
                ids: vec!["u-1".into()],
                next_cursor,
            },
        )
        .expect("InternalUserIds as the contract says");
    }
}

#[test]
fn the_recipe_user_is_what_the_client_reads() {
    let doc = committed().expect("the committed contract");
    check_answer(&doc, "get", "/api/recipes/users/me", "RecipeUser").expect("the route's answer");
    for (language, theme) in [
        (RecipeLanguage::En, RecipeTheme::Light),
        (RecipeLanguage::De, RecipeTheme::Dark),
        (RecipeLanguage::Hu, RecipeTheme::Light),
    ] {
        check_sample(
            &doc,
            "RecipeUser",
            &RecipeUser {
                username: "alice".into(),
                preferences: UserPreferences {
                    language,
                    theme,
                    diet: vec!["vegan".into()],
                    allergies: vec!["peanut".into()],
                    about_me: vec!["cooks".into()],
                },
            },
        )
        .expect("RecipeUser as the contract says");
    }
}

#[test]
fn the_reader_session_exchange_answers_what_the_client_reads() {
    let doc = committed().expect("the committed contract");
    check_answer(
        &doc,
        "post",
        "/api/users/internal/reader-sessions",
        "ReaderSession",
    )
    .expect("the route's answer");
    check_sample(
        &doc,
        "ReaderSession",
        &ReaderSession {
            user_id: "0b6f3a52-0000-4000-8000-000000000001".into(),
            username: "alice".into(),
            access_token: "eyJ.header.signature".into(),
            expires_in: 600,
        },
    )
    .expect("ReaderSession as the contract says");
    check_sample(
        &doc,
        "ReaderSessionRequest",
        &ReaderSessionRequest {
            auth: "0b6f3a52-0000-4000-8000-000000000001/0123456789abcdef/abcdefghijklmnopqrstuvwxyz234567"
                .into(),
        },
    )
    .expect("ReaderSessionRequest as the contract says");
    // Subscribing a person answers the content service's Source, as the person's own route.
    for method in ["post", "delete"] {
        check_answer(
            &doc,
            method,
            "/api/users/internal/users/{id}/subscriptions/{sourceId}",
            "Source",
        )
        .expect("the route's answer");
    }
}
