//! AWS faults the emulator injects on demand (`local/emulator_faults.py`), scoped to one test
//! stack: what AWS does every day (throttling, 500s, lost replies, duplicate deliveries) and
//! moto never does.

use serde_json::{json, Value};

use crate::{emulator, TestStack};

/// The fault rules of one stack (its name is every rule's `resource`).
pub struct Faults {
    http: reqwest::Client,
    url: String,
}

impl Faults {
    /// The faults of `stack`'s calls only; other tests on the emulator are untouched.
    pub fn of(stack: &TestStack) -> Self {
        Self {
            http: stack.http.clone(),
            url: format!(
                "{}/_emulator/faults?resource={}",
                emulator(),
                stack.stack_name
            ),
        }
    }

    /// Replaces this stack's rules (`[{service, operation, fault, rate?, times?, match?}]`)
    /// and clears their counts.
    pub async fn set(&self, rules: Value) {
        let response = self
            .http
            .put(&self.url)
            .json(&rules)
            .send()
            .await
            .expect("the emulator answers");
        assert_eq!(response.status(), 200, "fault rules {rules} refused");
    }

    /// Removes this stack's rules.
    pub async fn clear(&self) {
        let response = self
            .http
            .delete(&self.url)
            .send()
            .await
            .expect("the emulator answers");
        assert_eq!(response.status(), 200);
    }

    /// How many faults were injected into this stack's calls of `operation`.
    pub async fn injected(&self, operation: &str) -> u64 {
        self.injected_all()
            .await
            .iter()
            .filter(|row| row.1 == operation)
            .map(|row| row.3)
            .sum()
    }

    /// Every fault injected into this stack's calls: (service, operation, fault, count), a
    /// row per table, queue or bucket.
    pub async fn injected_all(&self) -> Vec<(String, String, String, u64)> {
        let state: Value = self
            .http
            .get(&self.url)
            .send()
            .await
            .expect("the emulator answers")
            .json()
            .await
            .expect("json");
        state["injected"]
            .as_array()
            .expect("injected")
            .iter()
            .map(|row| {
                let text = |key: &str| row[key].as_str().expect("a name").to_string();
                (
                    text("service"),
                    text("operation"),
                    text("fault"),
                    row["count"].as_u64().expect("count"),
                )
            })
            .collect()
    }
}

/// One rule: `fault` on `service`'s `operation`, for calls whose body holds `matching`, at
/// most `times` times.
pub fn rule(service: &str, operation: &str, fault: &str, matching: &str, times: u32) -> Value {
    json!({
        "service": service,
        "operation": operation,
        "fault": fault,
        "match": matching,
        "times": times,
    })
}
