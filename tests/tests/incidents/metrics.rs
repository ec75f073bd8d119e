//! Metrics: `/prometheus`, `/grafana` and its JSON behind HTTP Basic auth; the counters match
//! exactly what was ingested, by service and severity, whatever the burst and however often
//! a message is delivered; incidents by status follow every move and each transition is one
//! observation of its histogram; every scrape sees the same totals, and the exposition
//! parses strictly (`stack_tests::prometheus`); password guessing is braked per address.

use std::collections::BTreeMap;
use std::time::Duration;

use incidents_metrics::{Analysis, Metrics, Outcome};
use platform::dynamo::Table;
use platform::Clock;
use serde_json::{json, Value};
use stack_tests::content::sqs_event;
use stack_tests::incidents::{deliver_repeatedly, eventually, log, INCIDENTS};
use stack_tests::limits::{assert_rate_limited, from};
use stack_tests::prometheus::{Exposition, GRAFANA, GRAFANA_METRICS, PROMETHEUS};
use stack_tests::router::{request, send};
use stack_tests::stack::{METRICS_PASSWORD, METRICS_USERNAME};
use stack_tests::{assert_news_error, header, TestStack};

const LOGS_INGESTED: &str = "incident_logs_ingested_total";
const INCIDENTS_GAUGE: &str = "incident_incidents";
const ALERTS_FIRED: &str = "incident_alerts_fired_total";
const ACK: &str = "incident_time_to_acknowledge_seconds";
const RESOLVE: &str = "incident_time_to_resolve_seconds";
const RIGHT: Option<(&str, &str)> = Some((METRICS_USERNAME, METRICS_PASSWORD));

/// The logs ingested by (service, severity) in a scrape.
fn ingested(scrape: &Exposition) -> BTreeMap<(String, String), u64> {
    scrape
        .series(LOGS_INGESTED)
        .into_iter()
        .map(|(labels, v)| {
            (
                (labels["service"].clone(), labels["severity"].clone()),
                // A count prints as an integer.
                v.to_string().parse::<u64>().unwrap(),
            )
        })
        .collect()
}

/// Waits until a scrape satisfies `check`; returns it.
async fn scrape_when(t: &TestStack, what: &str, check: impl Fn(&Exposition) -> bool) -> Exposition {
    eventually(what, || async {
        let scrape = t.scrape().await;
        check(&scrape).then_some(scrape)
    })
    .await
}

fn count(counts: &BTreeMap<(String, String), u64>, service: &str, severity: &str) -> u64 {
    counts
        .get(&(service.to_string(), severity.to_string()))
        .copied()
        .unwrap_or_else(|| panic!("no series for {service} {severity} in {counts:?}"))
}

fn status(scrape: &Exposition, status: &str) -> f64 {
    scrape.value(INCIDENTS_GAUGE, &[("status", status)])
}

/// Incidents ACTIVE, ACKNOWLEDGED and RESOLVED.
fn statuses(scrape: &Exposition) -> (f64, f64, f64) {
    (
        status(scrape, "ACTIVE"),
        status(scrape, "ACKNOWLEDGED"),
        status(scrape, "RESOLVED"),
    )
}

/// Observations of the time to acknowledge and of the time to resolve.
fn transitions(scrape: &Exposition) -> (f64, f64) {
    (
        scrape.value(&format!("{ACK}_count"), &[]),
        scrape.value(&format!("{RESOLVE}_count"), &[]),
    )
}

#[tokio::test]
async fn every_metrics_route_needs_the_basic_auth_credentials() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("not-a-scraper").await;
    let bearer = format!("Bearer {token}");
    for path in [PROMETHEUS, GRAFANA, GRAFANA_METRICS] {
        let wrong = [
            None,
            Some((METRICS_USERNAME, "wrong")),
            Some((METRICS_USERNAME, "")),
            Some((METRICS_USERNAME, "local-metrics-and-more")),
            Some(("admin", METRICS_PASSWORD)),
        ];
        for credentials in wrong {
            let response = t.metrics_get(path, credentials).await;
            let challenge = header(response.headers(), "www-authenticate").to_string();
            assert!(
                challenge.starts_with("Basic realm=\"metrics\""),
                "{path} {credentials:?}: {challenge:?}"
            );
            assert_news_error(response, 401, path).await;
        }
        // A user token is no metrics credential.
        let response = t
            .http
            .get(t.url(path))
            .header("authorization", &bearer)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 401, "{path} with a user token");

        let response = t.metrics_get(path, RIGHT).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(header(response.headers(), "cache-control"), "no-store");

        // Only GET: another method is a 405 naming it.
        let response = t
            .http
            .post(t.url(path))
            .basic_auth(METRICS_USERNAME, Some(METRICS_PASSWORD))
            .send()
            .await
            .unwrap();
        assert!(
            header(response.headers(), "allow").contains("GET"),
            "{path}"
        );
        assert_news_error(response, 405, path).await;
    }
    let page = t.metrics_get(GRAFANA, RIGHT).await;
    assert!(header(page.headers(), "content-type").starts_with("text/html"));
    let csp = header(page.headers(), "content-security-policy").to_string();
    assert!(
        csp.contains("script-src 'sha256-") && csp.contains("connect-src 'self'"),
        "{csp}"
    );
    assert!(!csp.contains("unsafe"), "{csp}");
    let html = page.text().await.unwrap();
    assert!(
        html.contains(GRAFANA_METRICS),
        "the page reads the JSON route"
    );
    let report = t.metrics_report().await;
    assert_eq!(report["metrics"].as_array().unwrap().len(), 7, "{report}");
}

#[tokio::test]
async fn a_burst_is_counted_exactly_by_service_and_severity_and_every_scrape_agrees() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let services = ["checkout", "payments", "search", "edge \"eu\"\\west"];
    let severities = ["TRACE", "DEBUG", "INFO", "WARN"];
    let mut expected: BTreeMap<(String, String), u64> = BTreeMap::new();
    let mut batches = Vec::new();
    for batch in 0..3 {
        let logs: Vec<Value> = (0..500)
            .map(|i| {
                let service = services[(i + batch) % services.len()];
                let severity = severities[(i / 7) % severities.len()];
                *expected
                    .entry((service.to_string(), severity.to_string()))
                    .or_default() += 1;
                log(service, severity, &format!("request {batch}/{i} served"))
            })
            .collect();
        batches.push(Value::Array(logs));
    }
    // One fingerprint's errors: one incident, one alert, among the burst.
    let errors: Vec<Value> = (0..7)
        .map(|i| log("checkout", "ERROR", &format!("Ledger write {i} failed")))
        .collect();
    *expected
        .entry(("checkout".to_string(), "ERROR".to_string()))
        .or_default() += 7;
    batches.push(Value::Array(errors));
    let total: u64 = expected.values().sum();
    let sent = futures::future::join_all(batches.iter().map(|b| t.ingest(b))).await;
    assert!(sent.iter().all(|r| r.status() == 202));

    let first = scrape_when(&t, "every log counted", |s| {
        s.total(LOGS_INGESTED) >= total as f64
            && status(s, "ACTIVE") == 1.0
            && s.value(ALERTS_FIRED, &[("severity", "ERROR")]) == 1.0
    })
    .await;
    assert_eq!(ingested(&first), expected, "exactly what was ingested");

    // Nothing more arrives later, and every scrape reads the same totals.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let second = t.scrape().await;
    assert_eq!(first, second, "two scrapes, the same figures");

    // The dashboard's JSON holds the same figures.
    let report = t.metrics_report().await;
    let logs = report["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == LOGS_INGESTED)
        .unwrap();
    assert_eq!(logs["type"], "counter");
    let from_json: BTreeMap<(String, String), u64> = logs["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                (
                    s["labels"]["service"].as_str().unwrap().to_string(),
                    s["labels"]["severity"].as_str().unwrap().to_string(),
                ),
                s["value"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(from_json, expected);
}

#[tokio::test]
async fn a_redelivered_message_is_counted_once_even_over_several_transactions() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let processor = incidents_processor_function::handler(t.env("IncidentsProcessorFunction"))
        .await
        .unwrap();
    let now = chrono::Utc::now();
    let millis = now.timestamp_millis();
    let at = now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let stored = |i: usize, service: &str, severity: &str| {
        json!({
            "id": format!("{millis:013}-{:032x}", 0x5000 + i),
            "serviceName": service,
            "type": "APPLICATION_LOG",
            "severity": severity,
            "logContent": format!("tick {i}"),
            "timestamp": at,
            "receivedAt": at,
        })
    };
    // 120 services in one message: the first 100 (in name order) get series of their own,
    // the rest count as "other"; 101 series and the marker are more than one transaction.
    let mut logs: Vec<Value> = (0..120)
        .map(|i| stored(i, &format!("svc-{i:03}"), "INFO"))
        .collect();
    logs.extend((120..123).map(|i| stored(i, "svc-000", "WARN")));
    let message = json!({"kind": "logs", "logs": logs}).to_string();
    deliver_repeatedly(processor.as_ref(), &message).await;
    let scrape = t.scrape().await;
    let counts = ingested(&scrape);
    assert_eq!(counts.values().sum::<u64>(), 123, "{counts:?}");
    assert_eq!(
        counts.len(),
        102,
        "100 services' INFO, svc-000's WARN, other"
    );
    assert_eq!(count(&counts, "svc-000", "WARN"), 3);
    assert_eq!(count(&counts, "svc-099", "INFO"), 1);
    assert_eq!(count(&counts, "other", "INFO"), 20);
    assert!(!counts.contains_key(&("svc-100".to_string(), "INFO".to_string())));

    // Later messages: a registered service keeps its series, a new one is "other".
    let late = json!({"kind": "logs", "logs": [
        stored(200, "svc-050", "DEBUG"),
        stored(201, "brand-new", "DEBUG"),
    ]})
    .to_string();
    let response = processor
        .handle(sqs_event(&[("m3", late.clone()), ("m4", late)]))
        .await
        .unwrap();
    assert!(response.batch_item_failures.is_empty());
    let counts = ingested(&t.scrape().await);
    assert_eq!(count(&counts, "svc-050", "DEBUG"), 1);
    assert_eq!(count(&counts, "other", "DEBUG"), 1);
    assert_eq!(counts.values().sum::<u64>(), 125);
}

#[tokio::test]
async fn incidents_by_status_follow_every_move_and_each_transition_is_observed_once() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let (_, token) = t.operator("oncall").await;
    let start = t.scrape().await;
    for s in ["ACTIVE", "ACKNOWLEDGED", "RESOLVED"] {
        assert_eq!(
            start.get(INCIDENTS_GAUGE, &[("status", s)]),
            Some(0.0),
            "{s}"
        );
    }
    assert_eq!(transitions(&start), (0.0, 0.0));
    assert!(
        start.get(&format!("{ACK}_count"), &[]).is_some(),
        "shown at zero"
    );

    let message = "Ledger write failed for account 42";
    t.ingest_ok(&log("billing", "ERROR", message)).await;
    let opened = scrape_when(&t, "an ACTIVE incident", |s| {
        status(s, "ACTIVE") == 1.0 && s.value(ALERTS_FIRED, &[("severity", "ERROR")]) == 1.0
    })
    .await;
    assert_eq!(status(&opened, "RESOLVED"), 0.0);
    let incidents = t.incidents_when(&token, 1).await;
    let path = format!("{INCIDENTS}/{}", incidents[0]["id"].as_str().unwrap());
    let opened_at = std::time::Instant::now();

    let patch = |status: &'static str| {
        let path = path.clone();
        let token = token.clone();
        let t = &t;
        async move {
            t.patch_json_auth(&path, &token, &json!({ "status": status }))
                .await
                .status()
                .as_u16()
        }
    };
    assert_eq!(patch("ACKNOWLEDGED").await, 200);
    let acked = t.scrape().await;
    assert_eq!(statuses(&acked), (0.0, 1.0, 0.0));
    assert_eq!(transitions(&acked), (1.0, 0.0));
    let ack_sum = acked.value(&format!("{ACK}_sum"), &[]);
    let waited = opened_at.elapsed().as_secs_f64() + 30.0;
    assert!(ack_sum > 0.0 && ack_sum < waited, "{ack_sum}");
    assert_eq!(acked.value(&format!("{ACK}_bucket"), &[("le", "60")]), 1.0);
    assert_eq!(
        acked.value(&format!("{ACK}_bucket"), &[("le", "+Inf")]),
        1.0
    );

    // A refused move changes nothing.
    assert_eq!(patch("ACKNOWLEDGED").await, 400);
    assert_eq!(t.scrape().await, acked);

    assert_eq!(patch("RESOLVED").await, 200);
    let resolved = t.scrape().await;
    assert_eq!(statuses(&resolved), (0.0, 0.0, 1.0));
    assert_eq!(transitions(&resolved), (1.0, 1.0));

    // A new occurrence reopens it (and raises the rule's alert again for the new opening).
    t.ingest_ok(&log("billing", "ERROR", message)).await;
    let reopened = scrape_when(&t, "the incident reopened", |s| {
        status(s, "ACTIVE") == 1.0 && s.value(ALERTS_FIRED, &[("severity", "ERROR")]) == 2.0
    })
    .await;
    assert_eq!(statuses(&reopened), (1.0, 0.0, 0.0));
    assert_eq!(transitions(&reopened), (1.0, 1.0));

    // Resolved straight from ACTIVE: one more time to resolve, none to acknowledge.
    assert_eq!(patch("RESOLVED").await, 200);
    let again = t.scrape().await;
    assert_eq!(statuses(&again), (0.0, 0.0, 1.0));
    assert_eq!(transitions(&again), (1.0, 2.0));
    assert_eq!(again.total(LOGS_INGESTED), 2.0);
}

#[tokio::test]
async fn an_analysis_is_counted_once_with_its_model_latency() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let metrics = Metrics::new(
        Table::new(t.aws().await.dynamodb, t.table("IncidentMetricsTable")),
        Clock::system(),
    );
    let answered = Analysis {
        id: "5b0f3c1e-0000-4000-8000-00000000000a",
        mode: "local",
        provider: "ollama",
        outcome: Outcome::Ok,
        latency: Some(Duration::from_millis(1_200)),
    };
    assert!(metrics.record_analysis(&answered).await.unwrap());
    assert!(
        !metrics.record_analysis(&answered).await.unwrap(),
        "counted once"
    );
    let failed = Analysis {
        id: "5b0f3c1e-0000-4000-8000-00000000000b",
        outcome: Outcome::Error,
        latency: None,
        ..answered.clone()
    };
    assert!(metrics.record_analysis(&failed).await.unwrap());

    let scrape = t.scrape().await;
    let analyses = "incident_analyses_total";
    let labels = |outcome| {
        [
            ("mode", "local"),
            ("provider", "ollama"),
            ("outcome", outcome),
        ]
    };
    assert_eq!(scrape.get(analyses, &labels("ok")), Some(1.0));
    assert_eq!(scrape.get(analyses, &labels("error")), Some(1.0));
    let latency = "incident_llm_latency_seconds";
    let series = [("mode", "local"), ("provider", "ollama")];
    assert_eq!(scrape.get(&format!("{latency}_count"), &series), Some(1.0));
    assert_eq!(scrape.get(&format!("{latency}_sum"), &series), Some(1.2));
    let bucket = |le| {
        scrape.value(
            &format!("{latency}_bucket"),
            &[series[0], series[1], ("le", le)],
        )
    };
    assert_eq!(
        (bucket("1"), bucket("2.5"), bucket("+Inf")),
        (0.0, 1.0, 1.0)
    );
}

#[tokio::test]
async fn an_unreachable_metrics_table_is_a_503_and_the_page_still_loads() {
    let t = TestStack::for_product(stack_tests::Product::Incidents).await;
    let dead = format!("http://127.0.0.1:{}", stack_tests::server::closed_port());
    let router = incidents_metrics_function::router(
        t.env("IncidentsMetricsFunction")
            .with("AWS_ENDPOINT_URL", dead),
    )
    .await
    .unwrap();
    use base64::Engine;
    let basic = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD
            .encode(format!("{METRICS_USERNAME}:{METRICS_PASSWORD}"))
    );
    for (path, status) in [(PROMETHEUS, 503), (GRAFANA_METRICS, 503), (GRAFANA, 200)] {
        let answer = send(
            &router,
            request(
                "GET",
                path,
                &[("authorization", basic.as_str())],
                String::new(),
            ),
        )
        .await;
        assert_eq!(answer.status.as_u16(), status, "{path}: {}", answer.text());
        if status == 503 {
            assert_eq!(answer.json()["code"], 503);
        }
    }
}

#[tokio::test]
async fn guessing_the_password_is_braked_per_address() {
    let t = TestStack::start_with(BTreeMap::from([(
        "MetricsRateLimitPerAddress".to_string(),
        "3/60".to_string(),
    )]))
    .await;
    let guess = |ip: &'static str, password: &'static str| {
        from(
            t.http
                .get(t.url(PROMETHEUS))
                .basic_auth(METRICS_USERNAME, Some(password)),
            ip,
        )
        .send()
    };
    stack_tests::limits::in_one_window(60, Duration::from_secs(20)).await;
    for password in ["guess-1", "guess-2"] {
        assert_eq!(guess("203.0.113.9", password).await.unwrap().status(), 401);
    }
    assert_eq!(
        guess("203.0.113.9", METRICS_PASSWORD)
            .await
            .unwrap()
            .status(),
        200
    );
    // The address's minute is spent: even the right password waits.
    let refused = guess("203.0.113.9", METRICS_PASSWORD).await.unwrap();
    assert_rate_limited(refused, PROMETHEUS, 60).await;
    // Another address is another client.
    assert_eq!(
        guess("198.51.100.4", METRICS_PASSWORD)
            .await
            .unwrap()
            .status(),
        200
    );
}
