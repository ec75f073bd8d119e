//! The local stack enforces the repository's template: take a permission away from a copy of
//! it, and the function's call is refused with AccessDeniedException, so enforcement cannot
//! silently stop.
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout
)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use local_stack::iam::AccessDenial;
use serde_json::Value;
use stack_tests::{assert_news_error, repo_root, TestStack};

/// `template` without the first line equal to `line` among the lines of resource `resource`.
fn without_line(template: &str, resource: &str, line: &str) -> String {
    let header = format!("  {resource}:");
    let mut current = String::new();
    let mut removed = false;
    let mut out = Vec::new();
    for l in template.lines() {
        let is_resource_header =
            l.starts_with("  ") && !l.starts_with("   ") && l.trim_end().ends_with(':');
        if is_resource_header {
            current = l.trim_end().to_string();
        }
        if !removed && current == header && l == line {
            removed = true;
            continue;
        }
        out.push(l);
    }
    assert!(removed, "{resource} has no line {line:?}");
    out.join("\n") + "\n"
}

/// A copy of the template in its own temporary directory, removed on drop.
struct TemplateCopy(PathBuf);

impl TemplateCopy {
    fn write(text: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("iam-template-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("template.yaml"), text).expect("write template");
        Self(dir)
    }

    fn path(&self) -> PathBuf {
        self.0.join("template.yaml")
    }
}

impl Drop for TemplateCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn a_permission_taken_from_the_template_is_refused() {
    let original = std::fs::read_to_string(repo_root().join("template.yaml")).expect("template");
    let edited = without_line(
        &original,
        "NewsFunction",
        "                - dynamodb:GetItem",
    );
    let edited = without_line(
        &edited,
        "NewsFunction",
        r#"                - !Sub "${ContentTable.Arn}/index/gsi1""#,
    );
    let edited = without_line(
        &edited,
        "NewsFunction",
        "                - dynamodb:BatchGetItem",
    );
    let copy = TemplateCopy::write(&edited);
    let t = TestStack::start_from(copy.path(), BTreeMap::new()).await;
    let table = format!(
        "arn:aws:dynamodb:{}:123456789012:table/{}",
        std::env::var("AWS_REGION").unwrap_or_else(|_| "us-east-1".into()),
        t.stack.physical_name("ContentTable").expect("table")
    );

    // Reading a source is a BatchGetItem of its items: refused, so the content function fails.
    let (path, error_path) = (
        "/api/content/sources/no-such-source",
        "/sources/no-such-source",
    );
    let response = t.http.get(t.url(path)).send().await.expect("request");
    assert_news_error(response, 500, error_path).await;
    // Its health check reads the table too.
    let response = t
        .http
        .get(t.url("/api/content/actuator/health"))
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 503);
    // Topics are a Query on the gsi1 index, whose ARN the copy no longer grants.
    let response = t
        .http
        .get(t.url("/api/content/topics"))
        .send()
        .await
        .expect("request");
    assert_news_error(response, 500, "/topics").await;
    // Other functions keep their permissions.
    t.register("still-here").await;

    let denials = t.stack.access_denials();
    let denial = |operation: &str, action: &str, resource: String| AccessDenial {
        function: "NewsFunction".into(),
        operation: operation.into(),
        action: action.into(),
        resource,
        explicit: false,
    };
    assert!(
        denials.contains(&denial("GetItem", "dynamodb:GetItem", table.clone())),
        "{denials:#?}"
    );
    assert!(
        denials.contains(&denial(
            "Query",
            "dynamodb:Query",
            format!("{table}/index/gsi1")
        )),
        "{denials:#?}"
    );
    assert!(
        denials.iter().all(|d| d.function == "NewsFunction"),
        "{denials:#?}"
    );
    t.stack.shutdown().await;

    // The template as committed grants both.
    let t = TestStack::start().await;
    let response = t.http.get(t.url(path)).send().await.expect("request");
    assert_news_error(response, 404, error_path).await;
    let topics: Value = t
        .http
        .get(t.url("/api/content/topics"))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert!(topics.is_array(), "{topics}");
    assert_eq!(t.stack.access_denials(), []);
}

#[test]
fn lines_are_removed_only_from_the_named_resource() {
    let template = "Resources:\n  A:\n    Type: X\n    - same\n  B:\n    - same\n";
    assert_eq!(
        without_line(template, "B", "    - same"),
        "Resources:\n  A:\n    Type: X\n    - same\n  B:\n"
    );
}
