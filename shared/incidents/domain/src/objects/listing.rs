//! A prefix's objects listed lazily in key order (newest objects first), a listing call at a
//! time.

use std::collections::VecDeque;

use super::keys::parse_key;
use super::{Listed, LogObjects, ObjectsError, LIST_PAGE};

/// What one page read from S3, and how many logs it compared with its filters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageReads {
    pub lists: usize,
    pub gets: usize,
    pub examined: usize,
}

/// One prefix's listing, read lazily in key order (newest objects first).
pub(super) struct Listing {
    pub(super) prefix: String,
    pub(super) start_after: String,
    pub(super) token: Option<String>,
    pub(super) ahead: VecDeque<Listed>,
    pub(super) done: bool,
}

impl Listing {
    /// The listing of `prefix` from `start_after` (see [`super::keys::start_after`]).
    pub(super) fn new(prefix: String, start_after: String) -> Self {
        Self {
            prefix,
            start_after,
            token: None,
            ahead: Default::default(),
            done: false,
        }
    }
}

impl LogObjects {
    async fn list_more(
        &self,
        listing: &mut Listing,
        reads: &mut PageReads,
    ) -> Result<(), ObjectsError> {
        let mut call = self
            .s3
            .list_objects_v2()
            .bucket(&self.bucket)
            .prefix(&listing.prefix)
            .max_keys(LIST_PAGE);
        call = match &listing.token {
            Some(token) => call.continuation_token(token),
            None => call.start_after(&listing.start_after),
        };
        let out = call
            .send()
            .await
            .map_err(|e| self.fail("ListObjectsV2", &e))?;
        reads.lists += 1;
        for object in out.contents() {
            if let Some(listed) = object
                .key()
                .and_then(|k| parse_key(k, object.size().unwrap_or(0)))
            {
                listing.ahead.push_back(listed);
            }
        }
        listing.token = out.next_continuation_token().map(str::to_string);
        listing.done = listing.token.is_none();
        Ok(())
    }

    /// The next object of `listing` whose newest log is at least `lo`, without taking it.
    pub(super) async fn peek<'a>(
        &self,
        listing: &'a mut Listing,
        lo: i64,
        reads: &mut PageReads,
    ) -> Result<Option<&'a Listed>, ObjectsError> {
        if listing.ahead.is_empty() && !listing.done {
            self.list_more(listing, reads).await?;
        }
        if listing.ahead.front().is_some_and(|o| o.newest < lo) {
            // Older than the page's range, and so is everything after it.
            listing.ahead.clear();
            listing.done = true;
        }
        Ok(listing.ahead.front())
    }
}
