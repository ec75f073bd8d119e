//! The incident intelligence: analyses by the chosen provider (cloud or local, each its own
//! model double), with and without retrieval, the 502 on an answer that is not the asked
//! JSON, redaction before the model and the table, stored analyses queried and deleted (one,
//! and all through the sweeper), the brake, `/health` and `/docs`.

mod analyze;
mod routes;
mod stored;

use stack_tests::incidents::log;
use stack_tests::TestStack;

const POOL_LOG: &str = "ERROR checkout-api: HikariPool-1 - Connection is not available, request \
    timed out after 30000ms (total=10, active=10, idle=0, waiting=42)";

/// A stored log of `service`; its id once the processor has stored it.
async fn stored_log(t: &TestStack, token: &str, service: &str, message: &str) -> String {
    let id = t.ingest_ok(&log(service, "ERROR", message)).await.remove(0);
    t.timeline_with(token, &format!("serviceName={service}"), 1)
        .await;
    id
}
