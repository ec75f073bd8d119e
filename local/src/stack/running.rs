//! A started stack: what it provisioned and serves, firing schedules by hand, and shutdown.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use platform::Env;
use tokio::task::JoinHandle;
use tracing::{info, warn};

use crate::error::StackError;
use crate::iam::{self, AccessDenial, DenialLog};
use crate::invoke;
use crate::schedule::ScheduleTarget;
use crate::shutdown;

/// How long `shutdown` waits for an in-flight batch or request before abandoning it.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// A started stack. Dropping it stops pollers and timers too; `shutdown` also waits for them.
pub struct RunningStack {
    pub(super) base_url: String,
    pub(super) local_addr: SocketAddr,
    pub(super) physical: BTreeMap<String, String>,
    pub(super) envs: BTreeMap<String, Env>,
    pub(super) routes: Vec<(String, String)>,
    /// The gateway the server serves, for calls without a socket.
    pub(super) app: axum::Router,
    /// Function logical id → its local function URL.
    pub(super) function_urls: BTreeMap<String, String>,
    pub(super) schedules: BTreeMap<String, ScheduleTarget>,
    pub(super) stop: shutdown::Sender,
    pub(super) server: JoinHandle<()>,
    pub(super) tasks: Vec<JoinHandle<()>>,
    pub(super) denials: DenialLog,
    /// Keeps the functions' policies enforced while the stack runs.
    pub(super) _policies: iam::Registration,
}

impl RunningStack {
    /// The public base URL, e.g. `http://127.0.0.1:8080`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Table, bucket, event bus or rule name, or queue URL, of a provisioned resource.
    pub fn physical_name(&self, logical_id: &str) -> Option<String> {
        self.physical.get(logical_id).cloned()
    }

    /// The gateway as an axum app: what the server at [`Self::base_url`] serves, to call with
    /// `oneshot` (no socket, no HTTP client). A request may carry `ConnectInfo` for its source.
    pub fn app(&self) -> axum::Router {
        self.app.clone()
    }

    /// The environment a function was started with.
    pub fn function_env(&self, logical_id: &str) -> Option<&Env> {
        self.envs.get(logical_id)
    }

    /// `(route key, function)` of every HTTP route, e.g. `("ANY /api/users/{proxy+}", ...)`.
    pub fn routes(&self) -> &[(String, String)] {
        &self.routes
    }

    /// The local URL of a function's `FunctionUrlConfig` (`{base}/lambda-url/{binary}`, no
    /// trailing slash), where it answers its own, unprefixed paths.
    pub fn function_url(&self, logical_id: &str) -> Option<&str> {
        self.function_urls.get(logical_id).map(String::as_str)
    }

    /// Every function URL: logical id → URL.
    pub fn function_urls(&self) -> &BTreeMap<String, String> {
        &self.function_urls
    }

    /// The AWS calls of functions that their IAM policies refused, oldest first.
    pub fn access_denials(&self) -> Vec<AccessDenial> {
        self.denials.snapshot()
    }

    /// Invokes a scheduled function now, once per schedule event it has (disabled ones
    /// included: firing by hand is explicit), or once with `{}` if it has none.
    pub async fn fire_schedule(&self, function_logical_id: &str) -> Result<(), StackError> {
        let target = self
            .schedules
            .get(function_logical_id)
            .ok_or_else(|| StackError::NotScheduled(function_logical_id.to_string()))?;
        let fail = |e: invoke::InvokeError| StackError::Invocation {
            function: function_logical_id.to_string(),
            reason: e.to_string(),
        };
        if target.sources.is_empty() {
            return target.fire(None).await.map_err(fail);
        }
        for source in &target.sources {
            target.fire(Some(source)).await.map_err(fail)?;
        }
        Ok(())
    }

    /// Stops the server, pollers and timers, waiting briefly for in-flight work.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let aborts: Vec<_> = std::iter::once(&self.server)
            .chain(self.tasks.iter())
            .map(JoinHandle::abort_handle)
            .collect();
        let all = async move {
            let _ = self.server.await;
            for task in self.tasks {
                let _ = task.await;
            }
        };
        if tokio::time::timeout(SHUTDOWN_GRACE, all).await.is_err() {
            warn!("in-flight work did not finish in time; abandoning it");
            for abort in aborts {
                abort.abort();
            }
        }
        info!("local stack stopped");
    }
}
