//! The abuse limits `template.yaml` declares and the local stack cannot exercise (API
//! Gateway's stage throttles, Lambda's reserved concurrency): every `RouteSettings` key names
//! a route the template declares (else the deployment fails: "Unable to find Route by key"),
//! the paid model and the login have their own throttles, every other route the default, and
//! the GenAI function's concurrency is reserved unless the parameter is 0.
#![allow(clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use local_stack::template::Template;
use serde_yaml::Value;
use stack_tests::contract::template_routes;
use stack_tests::repo_root;

/// A template value as YAML text, tags included (`!Ref X`).
fn yaml(value: &Value) -> String {
    serde_yaml::to_string(value)
        .expect("yaml")
        .trim()
        .to_string()
}

fn template() -> Template {
    Template::load(&repo_root().join("template.yaml")).expect("template.yaml")
}

#[test]
fn the_stage_throttles_every_route_and_the_costly_ones_tighter() {
    let template = template();
    let api = &template.resources["HttpApi"].properties;
    let default = &api["DefaultRouteSettings"];
    assert_eq!(
        yaml(&default["ThrottlingRateLimit"]),
        "!Ref ApiThrottlingRateLimit"
    );
    assert_eq!(
        yaml(&default["ThrottlingBurstLimit"]),
        "!Ref ApiThrottlingBurstLimit"
    );

    let routes: Vec<String> = template_routes()
        .expect("routes")
        .iter()
        .map(ToString::to_string)
        .collect();
    let settings = api["RouteSettings"].as_mapping().expect("RouteSettings");
    for key in settings.keys().filter_map(Value::as_str) {
        assert!(
            routes.iter().any(|r| r == key),
            "RouteSettings names {key}, not a route: {routes:?}"
        );
    }
    for (key, rate, burst) in [
        (
            "ANY /api/ai/{proxy+}",
            "AiThrottlingRateLimit",
            "AiThrottlingBurstLimit",
        ),
        (
            "POST /api/users/auth/login",
            "LoginThrottlingRateLimit",
            "LoginThrottlingBurstLimit",
        ),
    ] {
        assert_eq!(
            yaml(&settings[key]["ThrottlingRateLimit"]),
            format!("!Ref {rate}"),
            "{key}"
        );
        assert_eq!(
            yaml(&settings[key]["ThrottlingBurstLimit"]),
            format!("!Ref {burst}"),
            "{key}"
        );
        for parameter in [rate, burst] {
            let default: u64 = template.parameters[parameter]
                .default
                .as_deref()
                .and_then(|d| d.parse().ok())
                .expect("a numeric default");
            let general: u64 = template.parameters[parameter
                .replace(
                    if parameter.starts_with("Ai") {
                        "Ai"
                    } else {
                        "Login"
                    },
                    "Api",
                )
                .as_str()]
            .default
            .as_deref()
            .and_then(|d| d.parse().ok())
            .expect("a numeric default");
            assert!(
                default < general,
                "{parameter} is tighter than the default route's"
            );
        }
    }
}

#[test]
fn reserved_concurrency_is_opt_in_so_a_new_account_deploys() {
    let template = template();
    let reserved =
        &template.resources["AssistantFunction"].properties["ReservedConcurrentExecutions"];
    assert_eq!(
        yaml(reserved),
        "!If\n- GenAiConcurrencyReserved\n- !Ref GenAiReservedConcurrency\n- !Ref AWS::NoValue"
    );
    assert_eq!(
        yaml(&template.conditions["GenAiConcurrencyReserved"]),
        "!Not\n- !Equals\n  - !Ref GenAiReservedConcurrency\n  - 0"
    );
    // A new account's concurrency quota can be 10: a reservation by default fails the stack.
    for parameter in ["GenAiReservedConcurrency", "ModelReservedConcurrency"] {
        let default = template.parameters[parameter].default.clone();
        assert_eq!(
            default.as_deref(),
            Some("0"),
            "{parameter} reserves nothing by default"
        );
    }
    // The limits table expires its items (cleanup only; the window is in the key).
    let table: &Value = &template.resources["RateLimitTable"].properties;
    assert_eq!(
        table["TimeToLiveSpecification"]["AttributeName"],
        "expiresAt"
    );
    assert_eq!(table["TimeToLiveSpecification"]["Enabled"], true);
}
