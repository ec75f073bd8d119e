//! Which code runs for which function: binary name (the template's
//! `Metadata.BuildProperties.Binary`) → a factory that builds the handler from the function's
//! environment, exactly as the binary's `main` does in Lambda at cold start.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use futures::FutureExt;
use platform::custom_resource::CustomResourceHandler;
use platform::{BoxError, Env, Function, ScheduleHandler, SqsHandler};

pub(crate) type Factory =
    Arc<dyn Fn(Env) -> BoxFuture<'static, Result<Function, BoxError>> + Send + Sync>;

/// Function factories by binary name.
#[derive(Clone, Default)]
pub struct Registry {
    factories: BTreeMap<String, Factory>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.factories.keys()).finish()
    }
}

impl Registry {
    pub fn new() -> Self {
        Self::default()
    }

    /// The general form: a factory producing any kind of [`Function`].
    pub fn function<F, Fut>(&mut self, binary: &str, factory: F) -> &mut Self
    where
        F: Fn(Env) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Function, BoxError>> + Send + 'static,
    {
        let factory: Factory = Arc::new(move |env| factory(env).boxed());
        self.factories.insert(binary.to_string(), factory);
        self
    }

    /// An HTTP function: its axum router.
    pub fn http<F, Fut>(&mut self, binary: &str, factory: F) -> &mut Self
    where
        F: Fn(Env) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<axum::Router, BoxError>> + Send + 'static,
    {
        self.function(binary, move |env| {
            factory(env).map(|r| r.map(Function::Http))
        })
    }

    /// An SQS worker.
    pub fn sqs<F, Fut>(&mut self, binary: &str, factory: F) -> &mut Self
    where
        F: Fn(Env) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Arc<dyn SqsHandler>, BoxError>> + Send + 'static,
    {
        self.function(binary, move |env| {
            factory(env).map(|r| r.map(Function::Sqs))
        })
    }

    /// A custom resource's function, which the stack invokes as it deploys.
    pub fn custom_resource<F, Fut>(&mut self, binary: &str, factory: F) -> &mut Self
    where
        F: Fn(Env) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Arc<dyn CustomResourceHandler>, BoxError>> + Send + 'static,
    {
        self.function(binary, move |env| {
            factory(env).map(|r| r.map(Function::CustomResource))
        })
    }

    /// A scheduled job.
    pub fn schedule<F, Fut>(&mut self, binary: &str, factory: F) -> &mut Self
    where
        F: Fn(Env) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Arc<dyn ScheduleHandler>, BoxError>> + Send + 'static,
    {
        self.function(binary, move |env| {
            factory(env).map(|r| r.map(Function::Schedule))
        })
    }

    pub fn contains(&self, binary: &str) -> bool {
        self.factories.contains_key(binary)
    }

    pub fn binaries(&self) -> impl Iterator<Item = &str> {
        self.factories.keys().map(String::as_str)
    }

    pub(crate) fn factory(&self, binary: &str) -> Option<Factory> {
        self.factories.get(binary).cloned()
    }
}

/// Every function of this repository, by binary name.
pub fn registry() -> Registry {
    let mut registry = Registry::new();
    registry.http("identity", identity_function::router);
    registry.custom_resource("identity-bootstrap", identity_bootstrap_function::handler);
    registry.http("web", web_function::router);
    registry.http("news", news_function::router);
    registry.http("news-intake", news_intake_function::router);
    registry.schedule("news-feed-scheduler", news_feed_scheduler_function::handler);
    registry.sqs("news-feed-worker", news_feed_worker_function::handler);
    registry.sqs("news-page-reader", news_page_reader_function::handler);
    registry.sqs("news-opml-worker", news_opml_worker_function::handler);
    registry.sqs("news-source-sweeper", news_source_sweeper_function::handler);
    registry.http("news-greader", news_greader_function::router);
    registry.http("assistant", assistant_function::router);
    registry.http("community", community_function::router);
    registry.sqs("community-indexer", community_indexer_function::handler);
    registry.sqs("community-views", community_views_function::handler);
    registry.sqs("community-sweeper", community_sweeper_function::handler);
    registry.sqs(
        "community-summarizer",
        community_summarizer_function::handler,
    );
    registry.schedule(
        "community-index-scheduler",
        community_index_scheduler_function::handler,
    );
    registry.http("community-uploads", community_uploads_function::router);
    registry.http("community-digests", community_digests_function::router);
    registry.http("recipes", recipes_function::router);
    registry.sqs("recipes-sweeper", recipes_sweeper_function::handler);
    registry.sqs(
        "community-digest-worker",
        community_digest_worker_function::handler,
    );
    registry.schedule(
        "community-digest-scheduler",
        community_digest_scheduler_function::handler,
    );
    registry.http("incidents-ingest", incidents_ingest_function::router);
    registry.http("incidents", incidents_function::router);
    registry.sqs("incidents-processor", incidents_processor_function::handler);
    registry.http("incidents-metrics", incidents_metrics_function::router);
    registry.http(
        "incidents-intelligence",
        incidents_intelligence_function::router,
    );
    registry.sqs(
        "incidents-intelligence-sweeper",
        incidents_intelligence_sweeper_function::handler,
    );
    registry.schedule("incidents-sweeper", incidents_sweeper_function::handler);
    registry.sqs("incidents-notifier", incidents_notifier_function::handler);
    registry
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn factories_build_the_declared_kind() {
        let mut r = Registry::new();
        r.http("web", |_env| async { Ok(axum::Router::new()) });
        assert!(r.contains("web"));
        assert!(!r.contains("nope"));
        let factory = r.factory("web").expect("factory");
        let built = factory(Env::new()).await.expect("build");
        assert!(matches!(built, Function::Http(_)));
        assert_eq!(format!("{r:?}"), r#"{"web"}"#);
    }
}
