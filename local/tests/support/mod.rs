//! What the emulator tests share: the emulator's endpoint, a template in a temporary
//! directory, stack options and an SDK config for checking what the stack created.

use std::collections::BTreeMap;
use std::path::PathBuf;

use aws_config::{BehaviorVersion, Region};
use local_stack::StackOptions;

/// The emulator's endpoint; these tests cannot run without one.
pub fn endpoint() -> String {
    match std::env::var("AWS_ENDPOINT_URL") {
        Ok(url) if !url.is_empty() => url,
        _ => panic!(
            "AWS_ENDPOINT_URL is not set: these tests need the AWS emulator. Run them through \
             local/test, or start `moto_server -p 4566` and export AWS_ENDPOINT_URL"
        ),
    }
}

/// A template file in its own temporary directory, removed on drop.
pub struct TempTemplate(PathBuf);

impl TempTemplate {
    pub fn path(&self) -> PathBuf {
        self.0.join("template.yaml")
    }
}

impl Drop for TempTemplate {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn write_template(text: &str) -> TempTemplate {
    let dir = std::env::temp_dir().join(format!("local-stack-test-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let template = TempTemplate(dir);
    std::fs::write(template.path(), text).expect("write template");
    template
}

/// A stack name no other test run uses, so runs sharing an emulator stay apart.
pub fn random_stack() -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    format!("t{}", &id[..12])
}

/// Options for a stack on a free port against the emulator; schedules are fired by hand.
pub fn options(template: PathBuf, stack_name: &str) -> StackOptions {
    StackOptions {
        template,
        stack_name: stack_name.to_string(),
        bind: "127.0.0.1:0".parse().expect("addr"),
        aws_endpoint: endpoint(),
        region: "us-east-1".to_string(),
        env_file: None,
        parameters: BTreeMap::new(),
        process_env_overrides: false,
        run_schedules: false,
        run_queue_pollers: true,
        functions: None,
    }
}

/// The tests' own view of the emulator (not a function's: no policy applies to it).
pub async fn aws_config() -> aws_config::SdkConfig {
    aws_config::defaults(BehaviorVersion::latest())
        .endpoint_url(endpoint())
        .region(Region::new("us-east-1"))
        .credentials_provider(aws_sdk_sqs::config::Credentials::new(
            "test", "test", None, None, "test",
        ))
        .http_client(platform::aws::AwsHttpClient::new(None).expect("AWS HTTP client"))
        .load()
        .await
}
