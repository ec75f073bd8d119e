//! SDK clients built on their first call.

use std::fmt;
use std::sync::{Arc, OnceLock};

/// An SDK client built on its first call, shared by every clone. Building one parses its
/// service's endpoint partitions (~0.7 M instructions each, measured with callgrind): a cold
/// start whose first request never calls that service (most of an API's) should not pay it.
pub struct LazyClient<C> {
    client: Arc<OnceLock<C>>,
    build: Arc<dyn Fn() -> C + Send + Sync>,
}

impl<C> LazyClient<C> {
    /// A client `build` makes on the first [`Self::get`].
    pub fn new(build: impl Fn() -> C + Send + Sync + 'static) -> Self {
        Self {
            client: Arc::new(OnceLock::new()),
            build: Arc::new(build),
        }
    }

    /// A client already built (the tests' own).
    pub fn ready(client: C) -> Self
    where
        C: Clone + Send + Sync + 'static,
    {
        let cell = OnceLock::new();
        let built = client.clone();
        let _ = cell.set(client);
        Self {
            client: Arc::new(cell),
            build: Arc::new(move || built.clone()),
        }
    }

    /// The client, built now if this is its first use.
    pub fn get(&self) -> &C {
        self.client.get_or_init(|| (self.build)())
    }

    /// Whether it has been built (for tests of what init builds).
    pub fn is_built(&self) -> bool {
        self.client.get().is_some()
    }
}

impl<C> Clone for LazyClient<C> {
    fn clone(&self) -> Self {
        Self {
            client: Arc::clone(&self.client),
            build: Arc::clone(&self.build),
        }
    }
}

impl<C> fmt::Debug for LazyClient<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LazyClient")
            .field("built", &self.client.get().is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn built_once_on_first_use_and_shared_by_clones() {
        let builds = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&builds);
        let lazy = LazyClient::new(move || counted.fetch_add(1, Ordering::SeqCst) + 10);
        let clone = lazy.clone();
        assert!(!lazy.is_built());
        assert_eq!(builds.load(Ordering::SeqCst), 0, "nothing built up front");
        assert_eq!(*clone.get(), 10);
        assert_eq!(*lazy.get(), 10);
        assert!(lazy.is_built());
        assert_eq!(builds.load(Ordering::SeqCst), 1);
        assert_eq!(*LazyClient::ready(7).get(), 7);
    }
}
