//! Post reactions: one per user, counted onto the post by the reaction counter a batch at a
//! time (exact under concurrency and redelivery), the caller's own flags at once.

use std::time::Duration;

use futures::StreamExt;
use serde_json::{json, Value};
use stack_tests::community::{assert_reason_error, message, post_input, post_path};
use stack_tests::TestStack;

async fn published(t: &TestStack, token: &str) -> String {
    let post = t
        .create_post(token, &post_input("Reactions here", &[]))
        .await;
    post["id"].as_str().unwrap().to_string()
}

fn counts(r: &Value) -> (i64, i64, bool, bool) {
    (
        r["likeCount"].as_i64().unwrap(),
        r["dislikeCount"].as_i64().unwrap(),
        r["isLikedByMe"].as_bool().unwrap(),
        r["isDislikedByMe"].as_bool().unwrap(),
    )
}

#[tokio::test]
async fn like_dislike_none_counts_and_flags() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (_, bob) = t.member("bob").await;
    let (_, carol) = t.member("carol").await;
    let id = published(&t, &author).await;

    // The answer: the counts as of the last batch with the caller's own change.
    assert_eq!(
        counts(&t.react_ok(&id, &bob, "LIKE").await),
        (1, 0, true, false)
    );
    t.reactions_counted(&id, None, 1, 0).await;
    let (_, dislikes, liked, disliked) = counts(&t.react_ok(&id, &carol, "DISLIKE").await);
    assert_eq!((dislikes, liked, disliked), (1, false, true));
    t.reactions_counted(&id, None, 1, 1).await;

    // Reads carry the caller's own flags; anonymous reads none.
    let as_bob = t.get_ok(&post_path(&id), Some(&bob)).await;
    assert_eq!(counts(&as_bob), (1, 1, true, false));
    assert_eq!(as_bob["isBookmarkedByMe"], false);
    let as_carol = t.get_ok(&post_path(&id), Some(&carol)).await;
    assert_eq!(counts(&as_carol), (1, 1, false, true));
    let anonymous = t.get_ok(&post_path(&id), None).await;
    assert_eq!(counts(&anonymous), (1, 1, false, false));

    let (_, _, liked, disliked) = counts(&t.react_ok(&id, &bob, "NONE").await);
    assert_eq!((liked, disliked), (false, false));
    t.reactions_counted(&id, None, 0, 1).await;
    let (_, _, liked, disliked) = counts(&t.react_ok(&id, &carol, "NONE").await);
    assert_eq!((liked, disliked), (false, false));
    t.reactions_counted(&id, None, 0, 0).await;
    // NONE without a reaction changes nothing.
    let (_, _, liked, disliked) = counts(&t.react_ok(&id, &carol, "NONE").await);
    assert_eq!((liked, disliked), (false, false));
    let after = t.reactions_counted(&id, Some(&bob), 0, 0).await;
    assert_eq!(counts(&after), (0, 0, false, false));

    // Bad input names the field; no token is 401.
    for body in [json!({"type": "LOVE"}), json!({}), json!({"type": "like"})] {
        let response = t
            .put_json_auth(&format!("{}/reaction", post_path(&id)), &bob, &body)
            .await;
        let error = assert_reason_error(response, 400).await;
        assert!(message(&error).contains("type"), "{error}");
    }
    let response = t.react("not-a-uuid", &bob, "LIKE").await;
    let error = assert_reason_error(response, 400).await;
    assert!(message(&error).contains("id"), "{error}");
    let response = t
        .http
        .put(t.url(&format!("{}/reaction", post_path(&id))))
        .json(&json!({"type": "LIKE"}))
        .send()
        .await
        .unwrap();
    assert_reason_error(response, 401).await;
}

#[tokio::test]
async fn concurrent_likes_from_200_members_give_200() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let id = published(&t, &author).await;
    let mut tokens = Vec::new();
    for i in 0..200 {
        tokens.push(t.member(&format!("fan{i}")).await.1);
    }
    let likes = futures::stream::iter(&tokens)
        .map(|token| t.react(&id, token, "LIKE"))
        .buffer_unordered(50)
        .collect::<Vec<_>>()
        .await;
    for response in likes {
        assert_eq!(response.status(), 200);
    }
    t.reactions_counted(&id, None, 200, 0).await;
    // Nothing more arrives: each like counted once.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    t.reactions_counted(&id, None, 200, 0).await;
    // And 20 of them take it back at once.
    let nones = tokens[..20].iter().map(|token| t.react(&id, token, "NONE"));
    for response in futures::future::join_all(nones).await {
        assert_eq!(response.status(), 200);
    }
    t.reactions_counted(&id, None, 180, 0).await;
}

#[tokio::test]
async fn a_redelivered_batch_counts_nothing_twice() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let id = published(&t, &author).await;
    let mut members = Vec::new();
    for i in 0..3 {
        members.push(t.member(&format!("fan{i}")).await);
    }
    for (_, token) in &members {
        t.react_ok(&id, token, "LIKE").await;
    }
    t.reactions_counted(&id, None, 3, 0).await;
    // The same changes again, as SQS may deliver them: the counter finds them counted.
    let aws = t.aws().await;
    let table = platform::dynamo::Table::new(aws.dynamodb.clone(), t.table("CommunityTable"));
    let community = community::Community::new(table, platform::Clock::system());
    let ids: Vec<String> = members.iter().map(|(user, _)| user.clone()).collect();
    let again = ids.iter().chain(ids.iter()).cloned().collect::<Vec<_>>();
    assert_eq!(
        community.count_reactions(&id, &again).await.unwrap(),
        (0, 0)
    );
    let queue = t
        .env("CommunityFunction")
        .get("COMMUNITY_REACTION_QUEUE_URL")
        .expect("the reaction queue")
        .to_string();
    let sqs = aws.sqs();
    for user in &ids {
        let change = community::ReactionChange::new(&id, user).to_json();
        sqs.send_message(&queue, &change).await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(4000)).await;
    t.reactions_counted(&id, None, 3, 0).await;
}

#[tokio::test]
async fn switching_like_to_dislike_moves_the_count() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (_, bob) = t.member("bob").await;
    let id = published(&t, &author).await;
    // Faster than the counter: each answer is the caller's own view at once.
    t.react_ok(&id, &bob, "LIKE").await;
    assert_eq!(
        counts(&t.react_ok(&id, &bob, "DISLIKE").await),
        (0, 1, false, true)
    );
    assert_eq!(
        counts(&t.react_ok(&id, &bob, "LIKE").await),
        (1, 0, true, false)
    );
    let post = t.reactions_counted(&id, Some(&bob), 1, 0).await;
    assert_eq!(counts(&post), (1, 0, true, false));
    // Counted between each change: like, dislike, none.
    for (kind, want) in [("DISLIKE", (0, 1)), ("NONE", (0, 0)), ("LIKE", (1, 0))] {
        t.react_ok(&id, &bob, kind).await;
        t.reactions_counted(&id, None, want.0, want.1).await;
    }
    t.react_ok(&id, &bob, "NONE").await;
    t.reactions_counted(&id, None, 0, 0).await;
    // A removal counted leaves no row behind.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rows = t.scan("CommunityTable").await;
    assert!(
        !rows
            .iter()
            .any(|r| r["pk"].as_s().is_ok_and(|pk| pk.starts_with("REACT#"))),
        "a counted removal leaves no row"
    );
}

#[tokio::test]
async fn same_reaction_twice_is_idempotent() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (_, bob) = t.member("bob").await;
    let id = published(&t, &author).await;
    t.react_ok(&id, &bob, "LIKE").await;
    assert_eq!(
        counts(&t.react_ok(&id, &bob, "LIKE").await),
        (1, 0, true, false)
    );
    t.react_ok(&id, &bob, "DISLIKE").await;
    assert_eq!(
        counts(&t.react_ok(&id, &bob, "DISLIKE").await),
        (0, 1, false, true)
    );
}

#[tokio::test]
async fn concurrent_switches_by_one_user_leave_one_vote() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (_, bob) = t.member("bob").await;
    let id = published(&t, &author).await;
    let kinds = [
        "LIKE", "DISLIKE", "LIKE", "DISLIKE", "LIKE", "DISLIKE", "LIKE", "DISLIKE",
    ];
    let votes = kinds.iter().map(|kind| t.react(&id, &bob, kind));
    for response in futures::future::join_all(votes).await {
        assert_eq!(response.status(), 200);
    }
    // Whichever won, it is counted once.
    tokio::time::sleep(Duration::from_millis(3000)).await;
    let mut post = t.get_ok(&post_path(&id), Some(&bob)).await;
    let (likes, dislikes, _, _) = counts(&post);
    if likes + dislikes != 1 {
        post = t
            .reactions_counted(&id, Some(&bob), likes.min(1), 1 - likes.min(1))
            .await;
    }
    let (likes, dislikes, liked, disliked) = counts(&post);
    assert_eq!(likes + dislikes, 1, "{post}");
    assert_eq!((liked, disliked), (likes == 1, dislikes == 1), "{post}");
}

#[tokio::test]
async fn react_to_others_draft_404() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (_, bob) = t.member("bob").await;
    let mut input = post_input("A draft to react to", &[]);
    input["status"] = json!("DRAFT");
    let draft = t.create_post(&author, &input).await;
    let id = draft["id"].as_str().unwrap();
    assert_reason_error(t.react(id, &bob, "LIKE").await, 404).await;
    // The same answer as an unknown post; taking a reaction back is open on any post.
    let unknown = "5b0f3c1e-0000-4000-8000-000000000001";
    assert_reason_error(t.react(unknown, &bob, "LIKE").await, 404).await;
    assert_reason_error(t.react(unknown, &bob, "NONE").await, 404).await;
    assert_eq!(
        counts(&t.react_ok(id, &bob, "NONE").await),
        (0, 0, false, false)
    );
    // The author's own draft: 409.
    assert_reason_error(t.react(id, &author, "LIKE").await, 409).await;
    let read = t.get_ok(&post_path(id), Some(&author)).await;
    assert_eq!(read["likeCount"], 0);
}

#[tokio::test]
async fn lists_and_cards_carry_the_callers_flags() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (_, bob) = t.member("bob").await;
    let liked = published(&t, &author).await;
    let other = published(&t, &author).await;
    t.react_ok(&liked, &bob, "LIKE").await;
    assert_eq!(t.bookmark(&other, &bob, true).await.status(), 200);
    let flags = |page: &Value, id: &str| {
        let post = page["content"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .unwrap()
            .clone();
        (
            post["isLikedByMe"].clone(),
            post["isBookmarkedByMe"].clone(),
        )
    };
    let as_bob = t.get_ok("/api/v1/posts", Some(&bob)).await;
    assert_eq!(flags(&as_bob, &liked), (json!(true), json!(false)));
    assert_eq!(flags(&as_bob, &other), (json!(false), json!(true)));
    let anonymous = t.get_ok("/api/v1/posts", None).await;
    assert_eq!(flags(&anonymous, &liked), (json!(false), json!(false)));
    let cards = format!("/api/v1/posts/cards?ids={liked},{other}");
    let as_bob = t.get_ok(&cards, Some(&bob)).await;
    assert_eq!(as_bob[0]["isLikedByMe"], true);
    assert_eq!(as_bob[1]["isLikedByMe"], false);
    let as_author = t.get_ok(&cards, Some(&author)).await;
    assert_eq!(as_author[0]["isLikedByMe"], false);
}

#[tokio::test]
async fn a_reaction_from_before_its_own_key_is_read_and_moved_on_change() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (bob_id, bob) = t.member("bob").await;
    let id = published(&t, &author).await;
    legacy_likes(&t, &id, &[&bob_id]).await;

    let post = t.get_ok(&post_path(&id), Some(&bob)).await;
    assert_eq!(counts(&post), (1, 0, true, false));
    // Liking again changes nothing; switching moves the count once and the row to its key.
    let (_, _, liked, _) = counts(&t.react_ok(&id, &bob, "LIKE").await);
    assert!(liked);
    t.react_ok(&id, &bob, "DISLIKE").await;
    let post = t.reactions_counted(&id, Some(&bob), 0, 1).await;
    assert_eq!(counts(&post), (0, 1, false, true));
    let rows = t.scan("CommunityTable").await;
    let under_post =
        |r: &platform::dynamo::Item| r["sk"].as_s().is_ok_and(|sk| sk.starts_with("R#"));
    assert!(!rows.iter().any(under_post), "the legacy row is moved");
    t.react_ok(&id, &bob, "NONE").await;
    t.reactions_counted(&id, None, 0, 0).await;
}

/// Turns `post_id` into a post of the earlier layout liked by `members`: a row under the post
/// each, counted on the post, and no mark that its reactions have their own partition.
async fn legacy_likes(t: &TestStack, post_id: &str, members: &[&str]) {
    let aws = t.aws().await;
    let table = t.table("CommunityTable");
    for member in members {
        let legacy = [
            ("pk", format!("POST#{post_id}")),
            ("sk", format!("R#{member}")),
            ("reaction", "LIKE".to_string()),
            ("gsi1pk", format!("LIKES#{member}")),
            ("gsi1sk", format!("2026-01-01T00:00:00.000Z#{post_id}")),
            ("gsi2pk", format!("OWNER#{member}")),
            ("gsi2sk", format!("REACTION#{post_id}")),
        ];
        let mut put = aws.dynamodb.put_item().table_name(&table);
        for (name, value) in legacy {
            put = put.item(name, platform::dynamo::s(value));
        }
        put.send().await.unwrap();
    }
    aws.dynamodb
        .update_item()
        .table_name(&table)
        .key("pk", platform::dynamo::s(format!("POST#{post_id}")))
        .key("sk", platform::dynamo::s("META"))
        .update_expression("ADD likeCount :n REMOVE reactionRows")
        .expression_attribute_values(":n", platform::dynamo::n(members.len() as i64))
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn the_counter_moves_a_legacy_posts_rows_out_and_marks_it() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let id = published(&t, &author).await;
    let mut old_fans = Vec::new();
    for i in 0..3 {
        old_fans.push(t.member(&format!("oldfan{i}")).await);
    }
    let ids: Vec<&str> = old_fans.iter().map(|(u, _)| u.as_str()).collect();
    legacy_likes(&t, &id, &ids).await;
    let marked = |rows: &[platform::dynamo::Item]| {
        rows.iter().any(|r| {
            r["pk"].as_s().is_ok_and(|pk| *pk == format!("POST#{id}"))
                && r["sk"].as_s().is_ok_and(|sk| sk == "META")
                && r.get("reactionRows").is_some()
        })
    };
    assert!(!marked(&t.scan("CommunityTable").await));
    // A new like's batch moves the three rows out and marks the post.
    let (_, newcomer) = t.member("newcomer").await;
    t.react_ok(&id, &newcomer, "LIKE").await;
    t.reactions_counted(&id, None, 4, 0).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let rows = t.scan("CommunityTable").await;
        let under_post = rows.iter().any(|r| {
            r["pk"].as_s().is_ok_and(|pk| *pk == format!("POST#{id}"))
                && r["sk"].as_s().is_ok_and(|sk| sk.starts_with("R#"))
        });
        if !under_post && marked(&rows) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "never moved");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Each old fan still sees their like, and taking it back counts once.
    for (_, token) in &old_fans {
        let post = t.get_ok(&post_path(&id), Some(token)).await;
        assert_eq!(post["isLikedByMe"], true);
        t.react_ok(&id, token, "NONE").await;
    }
    t.reactions_counted(&id, None, 1, 0).await;
    let mine = t
        .get_ok(
            &format!("/api/v1/users/{}/likes", ids[0]),
            Some(&old_fans[0].1),
        )
        .await;
    assert_eq!(mine["totalElements"], 0, "{mine}");
}

#[tokio::test]
async fn a_member_sees_their_own_change_before_the_counter_counts_it() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (bob_id, bob) = t.member("bob").await;
    let id = published(&t, &author).await;
    // Bob's like as the request writes it, its change not yet counted by the counter.
    let aws = t.aws().await;
    let row = [
        ("pk", platform::dynamo::s(format!("REACT#{id}#{bob_id}"))),
        ("sk", platform::dynamo::s("META")),
        ("reaction", platform::dynamo::s("LIKE")),
        ("counted", platform::dynamo::s("NONE")),
        ("version", platform::dynamo::n(1)),
    ];
    let mut put = aws
        .dynamodb
        .put_item()
        .table_name(t.table("CommunityTable"));
    for (name, value) in row {
        put = put.item(name, value);
    }
    put.send().await.unwrap();
    let mine = t.get_ok(&post_path(&id), Some(&bob)).await;
    assert_eq!(counts(&mine), (1, 0, true, false));
    let anyone = t.get_ok(&post_path(&id), None).await;
    assert_eq!(counts(&anyone), (0, 0, false, false));
    let list = t.get_ok("/api/v1/posts", Some(&bob)).await;
    assert_eq!(list["content"][0]["likeCount"], 1, "{list}");
}

/// A reaction's answer shows the caller's own reaction once, however far the counter got: the
/// post the answer starts from and the caller's row are read as one snapshot once the counter
/// has counted the row (a post remembered from before the count, with a row that says it is
/// counted, answered a dislike with `dislikeCount` 0).
#[tokio::test]
async fn a_reaction_repeated_after_it_was_counted_shows_it_once() {
    let t = TestStack::for_product(stack_tests::Product::Community).await;
    let (_, author) = t.member("author").await;
    let (_, bob) = t.member("bob").await;
    let id = published(&t, &author).await;
    assert_eq!(
        counts(&t.react_ok(&id, &bob, "LIKE").await),
        (1, 0, true, false)
    );
    t.reactions_counted(&id, None, 1, 0).await;
    assert_eq!(
        counts(&t.react_ok(&id, &bob, "LIKE").await),
        (1, 0, true, false)
    );
    assert_eq!(
        counts(&t.react_ok(&id, &bob, "DISLIKE").await),
        (0, 1, false, true)
    );
    t.reactions_counted(&id, None, 0, 1).await;
    assert_eq!(
        counts(&t.react_ok(&id, &bob, "DISLIKE").await),
        (0, 1, false, true)
    );
    assert_eq!(
        counts(&t.react_ok(&id, &bob, "NONE").await),
        (0, 0, false, false)
    );
}
