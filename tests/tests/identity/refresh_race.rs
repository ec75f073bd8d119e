//! A stolen token refreshed in a loop while its session ends: every way a session ends
//! (password change, sign out everywhere, role change, account deletion) also ends every token
//! the loop minted during the race, so the thief keeps nothing.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{json, Value};
use stack_tests::users::{roles, ACCOUNTS, ME, PASSWORD, SESSIONS};
use stack_tests::TestStack;

const REFRESH: &str = "/api/users/auth/refresh";
/// Refresh chains racing the session's end: each renews the token the previous answer gave.
const CHAINS: usize = 4;
/// Refreshes a chain still tries once the session has ended.
const AFTER_END: usize = 3;

/// Every token the chains minted from `token` while `end` ran (and a few tries after).
async fn refreshed_while(t: &TestStack, token: &str, end: impl Future<Output = ()>) -> Vec<String> {
    let ended = AtomicBool::new(false);
    let chain = |_| async {
        let mut minted = Vec::new();
        let mut current = token.to_string();
        let mut after = 0;
        while after < AFTER_END {
            if ended.load(Ordering::SeqCst) {
                after += 1;
            }
            let response = t.post_auth(REFRESH, &current).await;
            if response.status() != 200 {
                // Refused: the chain starts again from the newest token it holds.
                tokio::task::yield_now().await;
                continue;
            }
            let body: Value = response.json().await.unwrap();
            current = body["token"].as_str().unwrap().to_string();
            minted.push(current.clone());
        }
        minted
    };
    let ending = async {
        // Let every chain get going first, so the end lands in the middle of refreshes.
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
        end.await;
        ended.store(true, Ordering::SeqCst);
    };
    let (chains, ()) = futures::join!(futures::future::join_all((0..CHAINS).map(chain)), ending);
    let minted: Vec<String> = chains.into_iter().flatten().collect();
    assert!(
        minted.len() >= CHAINS,
        "the chains refreshed before the end ({} tokens)",
        minted.len()
    );
    minted
}

async fn assert_all_ended(t: &TestStack, tokens: &[String], path: &str) {
    for (i, token) in tokens.iter().enumerate() {
        let status = t.get_auth(path, token).await.status();
        assert_eq!(
            status,
            401,
            "{path}: token {i} of {} still works",
            tokens.len()
        );
        let status = t.post_auth(REFRESH, token).await.status();
        assert_eq!(status, 401, "token {i} of {} still refreshes", tokens.len());
    }
}

#[tokio::test]
async fn no_token_refreshed_during_a_password_change_outlives_it() {
    let t = TestStack::start().await;
    let (_, victim) = t.user("raced_pw").await;
    let stolen = t.login("raced_pw").await;
    let minted = refreshed_while(&t, &stolen, async {
        let changed = t
            .put_json_auth(
                PASSWORD,
                &victim,
                &json!({"currentPassword": "password-raced_pw", "password": "a-new-password"}),
            )
            .await;
        assert_eq!(changed.status(), 200);
    })
    .await;
    assert_all_ended(&t, &minted, ME).await;
}

#[tokio::test]
async fn no_token_refreshed_while_signing_out_everywhere_outlives_it() {
    let t = TestStack::start().await;
    let (_, victim) = t.user("raced_out").await;
    let stolen = t.login("raced_out").await;
    let minted = refreshed_while(&t, &stolen, async {
        assert_eq!(t.delete_auth(SESSIONS, &victim).await.status(), 204);
    })
    .await;
    assert_all_ended(&t, &minted, ME).await;
}

#[tokio::test]
async fn no_token_refreshed_during_a_role_change_keeps_the_old_roles() {
    let t = TestStack::start().await;
    let admin = t.admin_token().await;
    let (profile, _) = t.user("raced_admin").await;
    let id = profile["id"].as_str().unwrap();
    let granted = t
        .put_json_auth(&roles(id), &admin, &json!({"roles": ["ADMIN"]}))
        .await;
    assert_eq!(granted.status(), 200);
    let second_admin = t.login("raced_admin").await;
    assert_eq!(t.get_auth(ACCOUNTS, &second_admin).await.status(), 200);

    let minted = refreshed_while(&t, &second_admin, async {
        let revoked = t
            .put_json_auth(&roles(id), &admin, &json!({"roles": ["USER"]}))
            .await;
        assert_eq!(revoked.status(), 200);
    })
    .await;
    assert_all_ended(&t, &minted, ACCOUNTS).await;
    // Signing in again carries the new roles.
    let user = t.login("raced_admin").await;
    assert_eq!(t.get_auth(ACCOUNTS, &user).await.status(), 403);
}

#[tokio::test]
async fn no_token_refreshed_during_an_account_deletion_outlives_it() {
    let t = TestStack::start().await;
    let (_, victim) = t.user("raced_gone").await;
    let stolen = t.login("raced_gone").await;
    let minted = refreshed_while(&t, &stolen, async {
        assert_eq!(t.delete_auth(ME, &victim).await.status(), 204);
    })
    .await;
    assert_all_ended(&t, &minted, ME).await;
}
