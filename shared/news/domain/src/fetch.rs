//! Fetching feed documents from URLs that users submit, safely: the platform's guarded
//! fetcher ([`platform::fetch`]: SSRF guard in the resolver, one deadline, size cap, redirects
//! checked hop by hop), which the recipe import uses too.

pub use platform::fetch::*;
