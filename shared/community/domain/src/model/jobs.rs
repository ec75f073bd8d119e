//! What the workers' steps did: the answers of the facade's calls for the community's
//! workers (the sweeper, the summarizer, the index scheduler, the indexer).

/// What one cleanup step did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CleanupStep {
    /// Items of the owner index undone (or found already undone) in this step.
    pub handled: usize,
    /// Posts soft-deleted in this step: the search index is to catch up with them.
    pub deleted_posts: Vec<String>,
    /// Nothing of the user is left: the cleanup is finished.
    pub finished: bool,
}

/// What became of a state change conditioned on the summary's version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Written.
    Done,
    /// The post has moved on (a newer request, already finished, deleted): nothing written.
    Stale,
}

/// What one run of the topic slug migration did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SlugMigration {
    /// Topics moved to the slug their name has now.
    pub moved: usize,
    /// Topics left on their old slug: another topic holds the new one.
    pub taken: usize,
    /// Nothing is left to move: the migration is marked finished (later runs read one item).
    pub finished: bool,
}

/// What one run of the mark-index backfill did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MarkBackfill {
    /// Marks given their `gsi3` keys in this run.
    pub indexed: usize,
    /// The posts of those marks: the indexer is to walk them once (a post already not public
    /// takes its marks out of their lists then).
    pub posts: Vec<String>,
    /// The whole table has been read: later runs read one item.
    pub finished: bool,
}

/// What indexing a post did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexOutcome {
    /// The index holds the post as it is now (or it is gone from it).
    Done,
    /// The transaction budget ran out; a new index request continues it.
    Paused,
}
