//! Community: posts created, a viral post read, viewed and liked, the first page of posts and
//! a search for a common term.

use std::time::{Duration, Instant};

use futures::StreamExt;
use stack_tests::community::{post_input, post_path, POSTS};
use stack_tests::TestStack;

use super::{name, Bench};

pub(super) async fn community(b: &mut Bench, t: &TestStack) {
    let mut members = Vec::new();
    for n in 0..8 {
        members.push(t.member(&name("member", n)).await.1);
    }
    let mut posts = Vec::new();
    let creates = async {
        for round in 0..2 {
            for token in &members {
                let input = post_input(&format!("Bench post {round} on coffee"), &["kh-bench"]);
                posts.push(
                    t.create_post(token, &input).await["id"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                );
            }
        }
    };
    // 5M posts a day from a million members, indexed for search.
    b.measure("community", "create a post", 58.0, 1e6, 16, creates)
        .await;
    let viral = posts[0].clone();
    // Its readers' pages: the read through the CDN, and one view beacon per page open.
    b.measure_reads(
        t,
        "community",
        "read a viral post",
        10_000.0,
        &post_path(&viral),
        40,
    )
    .await;
    // At 10,000 views a second the view counter's batches are always full (500), and a
    // post's views of a batch are one write of it: the run sends its views close together.
    let mut readers = Vec::new();
    for n in 0..198 {
        readers.push(t.member(&name("viewer", n)).await.1);
    }
    let viral_ref = &viral;
    let views = async {
        let views_path = format!("{}/views", post_path(viral_ref));
        futures::stream::iter(&readers)
            .map(|token| async {
                assert_eq!(t.post_auth(&views_path, token).await.status(), 202);
            })
            .buffer_unordered(99)
            .collect::<Vec<()>>()
            .await;
        // Counted: the view counter's batching window can outlast the settle's quiet spell.
        queue_drained(t, "COMMUNITY_VIEW_QUEUE_URL").await;
    };
    // 10,000 page opens a second, from a million members.
    b.measure("community", "view a viral post", 10_000.0, 1e6, 198, views)
        .await;
    // At 5,000 likes a second the reaction counter's batches are full too: the run sends its
    // likes close together, and waits for them to be counted onto the post.
    let likers: Vec<String> = readers.clone();
    let likes = async {
        futures::stream::iter(&likers)
            .map(|token| async {
                assert_eq!(t.react(viral_ref, token, "LIKE").await.status(), 200);
            })
            .buffer_unordered(50)
            .collect::<Vec<()>>()
            .await;
        queue_drained(t, "COMMUNITY_REACTION_QUEUE_URL").await;
    };
    // 5,000 likes a second on one post, from a million members.
    b.measure("community", "like a viral post", 5000.0, 1e6, 198, likes)
        .await;
    // Notifications: a busy thread's comments each notify the post's author (one inbox
    // partition takes them all), and one member mentioned by many.
    let thread = posts[1].clone();
    let thread_ref = &thread;
    let comments = async {
        futures::stream::iter(members.iter().chain(members.iter()).enumerate())
            .map(|(n, token)| async move {
                let r = t
                    .post_json_auth(
                        &format!("{}/comments", post_path(thread_ref)),
                        token,
                        &serde_json::json!({"text": format!("Comment {n} on the thread")}),
                    )
                    .await;
                assert!(r.status().is_success(), "{}", r.status());
            })
            .buffer_unordered(8)
            .collect::<Vec<()>>()
            .await;
        queue_drained(t, "COMMUNITY_NOTIFICATION_QUEUE_URL").await;
    };
    // 50 comments a second on one post (its 1,000-comment cap in 20 s), each notifying its author.
    b.measure(
        "community",
        "comment on a busy thread (author notified)",
        50.0,
        1e6,
        16,
        comments,
    )
    .await;
    let mentioned = name("mentioned", 0);
    t.member(&mentioned).await;
    let mentioned_ref = &mentioned;
    let posts_ref = &posts;
    let mentions = async {
        futures::stream::iter(members.iter().chain(members.iter()).enumerate())
            .map(|(n, token)| async move {
                // Each member comments on their own post (the second round's): only the
                // mentioned member is notified.
                let post = &posts_ref[8 + n % 8];
                let r = t
                    .post_json_auth(
                        &format!("{}/comments", post_path(post)),
                        token,
                        &serde_json::json!({"text": format!("@{mentioned_ref} have a look ({n})")}),
                    )
                    .await;
                assert!(r.status().is_success(), "{}", r.status());
            })
            .buffer_unordered(8)
            .collect::<Vec<()>>()
            .await;
        queue_drained(t, "COMMUNITY_NOTIFICATION_QUEUE_URL").await;
    };
    // One member mentioned 100 times a second, in comments on many posts.
    b.measure("community", "mention one member", 100.0, 1e6, 16, mentions)
        .await;
    // A spam wave: one post reported by many members at once.
    let mut reporters = Vec::new();
    for n in 0..16 {
        reporters.push(t.member(&name("reporter", n)).await.1);
    }
    let reported = posts[3].clone();
    let reported_ref = &reported;
    let reports = async {
        futures::stream::iter(&reporters)
            .map(|token| async move {
                let r = t
                    .post_json_auth(
                        "/api/v1/reports",
                        token,
                        &serde_json::json!({"targetType": "post", "targetId": reported_ref, "reason": "spam"}),
                    )
                    .await;
                assert_eq!(r.status(), 201);
            })
            .buffer_unordered(8)
            .collect::<Vec<()>>()
            .await;
    };
    // 100 reports a second of one post, from a million members.
    b.measure(
        "community",
        "report one post (a spam wave)",
        100.0,
        1e6,
        16,
        reports,
    )
    .await;
    b.measure_reads(
        t,
        "community",
        "first page of posts",
        20_000.0,
        &format!("{POSTS}?page=0&size=20"),
        20,
    )
    .await;
    // One common term's first page: 2,000 a second.
    b.measure_reads(
        t,
        "community",
        "search a common term",
        2000.0,
        "/api/v1/posts/search?q=coffee",
        20,
    )
    .await;
}

/// Waits until the community function's queue `variable` is empty: every message counted.
async fn queue_drained(t: &TestStack, variable: &str) {
    use aws_sdk_sqs::types::QueueAttributeName;
    let sqs = aws_sdk_sqs::Client::new(&platform::aws::sdk_config(&platform::Env::from_process()));
    let queue_url = t
        .env("CommunityFunction")
        .get(variable)
        .expect("the queue")
        .to_string();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let attributes = sqs
            .get_queue_attributes()
            .queue_url(&queue_url)
            .attribute_names(QueueAttributeName::ApproximateNumberOfMessages)
            .attribute_names(QueueAttributeName::ApproximateNumberOfMessagesNotVisible)
            .send()
            .await
            .expect("queue attributes")
            .attributes
            .unwrap_or_default();
        if attributes.values().all(|v| v == "0") {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{variable} never drained: {attributes:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
