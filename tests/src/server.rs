//! The one way a test starts a server of its own (a fake model, an OTLP receiver, a feed
//! server, a control endpoint): an axum router on a free loopback port, stopped when dropped.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::handler::Handler;
use axum::Router;
use tokio::task::JoinHandle;

/// A router served on `127.0.0.1` and a free port until dropped.
pub struct TestServer {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl TestServer {
    pub async fn start(app: Router) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        let addr = listener.local_addr().expect("bound address");
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { addr, task }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:{port}{path}`; `path` is empty or starts with `/`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A fake of a remote service: one handler answers every request, sharing state `T` (what
/// to answer, what it was asked) with the test; stopped when dropped.
pub struct FakeServer<T> {
    server: TestServer,
    shared: Arc<Mutex<T>>,
}

impl<T: Send + 'static> FakeServer<T> {
    /// Serves `handler`, whose state is `State<Arc<Mutex<T>>>` starting as `state`.
    pub async fn start<H, A>(state: T, handler: H) -> Self
    where
        H: Handler<A, Arc<Mutex<T>>>,
        A: 'static,
    {
        let shared = Arc::new(Mutex::new(state));
        let app = Router::new()
            .fallback(handler)
            .with_state(Arc::clone(&shared));
        Self {
            server: TestServer::start(app).await,
            shared,
        }
    }

    /// See [`TestServer::url`].
    pub fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    pub fn lock(&self) -> MutexGuard<'_, T> {
        lock(&self.shared)
    }
}

/// The state a server shares with its test; a panicking handler must not hide what it saw.
pub fn lock<T>(shared: &Mutex<T>) -> MutexGuard<'_, T> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A loopback port nothing listens on (to see a connection refused).
pub fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port()
}

/// A request body read whole (up to 16 MiB) and parsed as JSON; `None` when it is not JSON.
pub async fn json_body(body: axum::body::Body) -> Option<serde_json::Value> {
    let bytes = axum::body::to_bytes(body, 16 * 1024 * 1024).await.ok()?;
    serde_json::from_slice(&bytes).ok()
}
