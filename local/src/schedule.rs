//! Schedules: the local stack fires them itself, because the emulator never does.
//!
//! Each `Type: Schedule` / `ScheduleV2` event gets a timer that calls the function's
//! `ScheduleHandler` with an EventBridge "Scheduled Event" whose `detail` is the event's
//! `Input` (or `{}`). Tests turn timers off and fire by hand.

use std::sync::Arc;
use std::time::Duration;

use aws_lambda_events::event::eventbridge::EventBridgeEvent;
use chrono::Utc;
use platform::ScheduleHandler;
use serde_json::Value as Json;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tracing::{info, warn};

use crate::cron::ScheduleExpr;
use crate::intrinsics::{json_text, ACCOUNT_ID};
use crate::invoke::{self, InvokeError};
use crate::shutdown;

/// One schedule event of a function.
#[derive(Clone, Debug, PartialEq)]
pub struct ScheduleSource {
    pub function: String,
    pub event: String,
    pub expression: String,
    /// `Err` when the expression cannot be computed locally: no timer, firing by hand works.
    pub schedule: Result<ScheduleExpr, String>,
    pub input: Json,
    pub enabled: bool,
    /// The rule or schedule ARN that EventBridge puts in `resources`.
    pub source_arn: String,
}

impl ScheduleSource {
    /// From a `Schedule` or `ScheduleV2` event's resolved `Properties`.
    pub fn from_properties(
        function: &str,
        event: &str,
        kind: &str,
        props: &Json,
        stack: &str,
        region: &str,
    ) -> Result<Self, String> {
        let text = |key: &str| props.get(key).and_then(|v| json_text(v).ok());
        let expression_key = if kind == "ScheduleV2" {
            "ScheduleExpression"
        } else {
            "Schedule"
        };
        let expression =
            text(expression_key).ok_or_else(|| format!("{expression_key} is required"))?;
        let input = match props.get("Input") {
            None | Some(Json::Null) => Json::Object(serde_json::Map::new()),
            Some(Json::String(s)) => {
                serde_json::from_str(s).map_err(|e| format!("Input is not JSON: {e}"))?
            }
            Some(other) => other.clone(),
        };
        let disabled_state = text("State").is_some_and(|s| s.eq_ignore_ascii_case("DISABLED"));
        let disabled_flag = text("Enabled").is_some_and(|s| s.eq_ignore_ascii_case("false"));
        if let Some(tz) = text("ScheduleExpressionTimezone").filter(|tz| tz != "UTC") {
            warn!(function, event, timezone = %tz,
                "schedule timezone is not applied locally; times are computed in UTC");
        }
        let name = text("Name").unwrap_or_else(|| format!("{stack}-{function}{event}"));
        let source_arn = if kind == "ScheduleV2" {
            format!("arn:aws:scheduler:{region}:{ACCOUNT_ID}:schedule/default/{name}")
        } else {
            format!("arn:aws:events:{region}:{ACCOUNT_ID}:rule/{name}")
        };
        Ok(Self {
            function: function.to_string(),
            event: event.to_string(),
            schedule: ScheduleExpr::parse(&expression),
            expression,
            input,
            enabled: !disabled_state && !disabled_flag,
            source_arn,
        })
    }
}

/// The event EventBridge delivers for a scheduled rule.
pub fn scheduled_event(detail: &Json, region: &str, source_arn: &str) -> EventBridgeEvent<Json> {
    let mut event = EventBridgeEvent::<Json>::default();
    event.version = Some("0".to_string());
    event.id = Some(uuid::Uuid::new_v4().to_string());
    event.detail_type = "Scheduled Event".to_string();
    event.source = "aws.events".to_string();
    event.account = Some(ACCOUNT_ID.to_string());
    event.time = Some(Utc::now());
    event.region = Some(region.to_string());
    event.resources = Some(vec![source_arn.to_string()]);
    event.detail = detail.clone();
    event
}

/// A schedule function as the stack holds it: for timers and for `fire_schedule`.
#[derive(Clone)]
pub struct ScheduleTarget {
    pub function: String,
    pub handler: Arc<dyn ScheduleHandler>,
    pub sources: Vec<ScheduleSource>,
    pub region: String,
    pub timeout: Duration,
}

impl ScheduleTarget {
    /// Invokes the handler once for `source` (or with `{}` when the function has none).
    pub async fn fire(&self, source: Option<&ScheduleSource>) -> Result<(), InvokeError> {
        let empty = Json::Object(serde_json::Map::new());
        let fallback_arn = format!(
            "arn:aws:events:{}:{ACCOUNT_ID}:rule/{}",
            self.region, self.function
        );
        let (detail, arn, event) = match source {
            Some(s) => (&s.input, s.source_arn.as_str(), s.event.as_str()),
            None => (&empty, fallback_arn.as_str(), "manual"),
        };
        let started = Instant::now();
        let outcome = invoke::guarded(
            self.handler
                .handle(scheduled_event(detail, &self.region, arn)),
            self.timeout,
        )
        .await;
        let latency_ms = invoke::elapsed_ms(started);
        match &outcome {
            Ok(()) => info!(function = %self.function, event, latency_ms, "schedule fired"),
            Err(e) => warn!(function = %self.function, event, latency_ms, error = %e,
                "scheduled invocation failed"),
        }
        outcome
    }

    /// Starts one timer per enabled schedule whose expression could be parsed.
    pub fn spawn_timers(&self, stop: &shutdown::Receiver) -> Vec<JoinHandle<()>> {
        let mut handles = Vec::new();
        for source in &self.sources {
            if !source.enabled {
                info!(function = %self.function, event = %source.event, "schedule disabled");
                continue;
            }
            let schedule = match &source.schedule {
                Ok(s) => s.clone(),
                Err(e) => {
                    warn!(function = %self.function, event = %source.event, error = %e,
                        "schedule not run locally (fire it by hand)");
                    continue;
                }
            };
            let target = self.clone();
            let source = source.clone();
            let stop = stop.clone();
            handles.push(tokio::spawn(async move {
                target.run_timer(schedule, source, stop).await;
            }));
        }
        handles
    }

    async fn run_timer(
        self,
        schedule: ScheduleExpr,
        source: ScheduleSource,
        stop: shutdown::Receiver,
    ) {
        info!(function = %self.function, event = %source.event,
            schedule = %source.expression, "schedule timer started");
        let mut next = schedule.next_after(Utc::now());
        while let Some(at) = next {
            let wait = (at - Utc::now()).to_std().unwrap_or(Duration::ZERO);
            tokio::select! {
                _ = shutdown::wait(stop.clone()) => return,
                _ = tokio::time::sleep(wait) => {}
            }
            // Errors are logged by `fire`; the schedule keeps running, as in EventBridge.
            let _ = self.fire(Some(&source)).await;
            next = schedule.next_after(at.max(Utc::now()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::future::BoxFuture;
    use futures::FutureExt;
    use std::sync::Mutex;

    #[test]
    fn reads_schedule_and_schedule_v2_properties() {
        let props =
            serde_json::json!({"Schedule": "rate(5 minutes)", "Input": "{\"kind\":\"daily\"}"});
        let s =
            ScheduleSource::from_properties("Fn", "Daily", "Schedule", &props, "stk", "us-east-1")
                .expect("source");
        assert_eq!(s.schedule, Ok(ScheduleExpr::Rate(Duration::from_secs(300))));
        assert_eq!(s.input, serde_json::json!({"kind": "daily"}));
        assert!(s.enabled);
        assert_eq!(
            s.source_arn,
            "arn:aws:events:us-east-1:123456789012:rule/stk-FnDaily"
        );

        let v2 =
            serde_json::json!({"ScheduleExpression": "cron(0 6 * * ? *)", "State": "DISABLED"});
        let s =
            ScheduleSource::from_properties("Fn", "Morning", "ScheduleV2", &v2, "stk", "us-east-1")
                .expect("source");
        assert!(s.schedule.is_ok());
        assert!(!s.enabled);
        assert_eq!(s.input, serde_json::json!({}));

        let off = serde_json::json!({"Schedule": "cron(0 0 ? * 2#1 *)", "Enabled": false});
        let s = ScheduleSource::from_properties("Fn", "X", "Schedule", &off, "stk", "r")
            .expect("source");
        assert!(s.schedule.is_err());
        assert!(!s.enabled);

        assert!(ScheduleSource::from_properties(
            "Fn",
            "X",
            "Schedule",
            &serde_json::json!({}),
            "s",
            "r"
        )
        .is_err());
        let bad_input = serde_json::json!({"Schedule": "rate(1 day)", "Input": "{nope"});
        assert!(
            ScheduleSource::from_properties("Fn", "X", "Schedule", &bad_input, "s", "r").is_err()
        );
    }

    struct Recorder(Mutex<Vec<EventBridgeEvent<Json>>>);

    impl ScheduleHandler for Recorder {
        fn handle(
            &self,
            event: EventBridgeEvent<Json>,
        ) -> BoxFuture<'static, Result<(), platform::BoxError>> {
            if let Ok(mut seen) = self.0.lock() {
                seen.push(event);
            }
            async { Ok(()) }.boxed()
        }
    }

    #[tokio::test]
    async fn fire_builds_a_scheduled_event() {
        let recorder = Arc::new(Recorder(Mutex::new(Vec::new())));
        let props = serde_json::json!({"Schedule": "rate(1 day)", "Input": "{\"a\":1}"});
        let source =
            ScheduleSource::from_properties("Fn", "Daily", "Schedule", &props, "stk", "eu-west-1")
                .expect("source");
        let target = ScheduleTarget {
            function: "Fn".into(),
            handler: recorder.clone(),
            sources: vec![source.clone()],
            region: "eu-west-1".into(),
            timeout: Duration::from_secs(1),
        };
        target.fire(Some(&source)).await.expect("fire");
        let seen = recorder.0.lock().expect("lock");
        let event = &seen[0];
        assert_eq!(event.source, "aws.events");
        assert_eq!(event.detail_type, "Scheduled Event");
        assert_eq!(event.detail, serde_json::json!({"a": 1}));
        assert_eq!(event.region.as_deref(), Some("eu-west-1"));
        let json = serde_json::to_value(event).expect("json");
        assert_eq!(json["detail-type"], "Scheduled Event");
    }
}
