//! Topic activity, computed from a 14-slot day ring kept on each topic (no scan, no cron).
//!
//! Days are UTC days since the epoch. Slot `day % 14` counts the posts **first published**
//! into the topic that day; `ringDays[i]` says which day slot `i` holds, so a slot left from
//! an older fortnight is simply ignored (and overwritten by the next publication that lands
//! in it). The ring is an activity log and is never decremented; `totalPostCount` is the
//! census and follows unpublishing and topic removal.
//!
//! - `postsThisWeek`: the slots of days `today-6 ..= today`;
//! - `postsPrevWeek`: the slots of days `today-13 ..= today-7`;
//! - `activityScore`: Σ over ages 0..13 of `count(age) · 2^(-age/7)` (a half-life of 7 days),
//!   rounded to 2 decimals;
//! - `isHot`: `postsThisWeek >= 3` and `postsThisWeek >= 1.5 · postsPrevWeek`: growth, not
//!   size, so a steady large topic is not hot and a small one taking off is.

use chrono::{DateTime, Utc};

/// Slots of the ring: two weeks of days.
pub const RING_DAYS: usize = 14;
/// The fewest posts this week for a topic to be hot.
pub const HOT_MIN_POSTS: i64 = 3;

/// UTC days since the epoch.
pub fn day_of(at: DateTime<Utc>) -> i64 {
    at.timestamp().div_euclid(86_400)
}

/// The ring slot of `day`.
pub fn slot_of(day: i64) -> usize {
    usize::try_from(day.rem_euclid(14)).unwrap_or(0)
}

/// A topic's ring as stored: which day each slot holds and its count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ring {
    pub days: [i64; RING_DAYS],
    pub counts: [i64; RING_DAYS],
}

impl Default for Ring {
    /// No day held: -1 never matches a real day.
    fn default() -> Self {
        Self {
            days: [-1; RING_DAYS],
            counts: [0; RING_DAYS],
        }
    }
}

/// The figures a topic shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Activity {
    pub posts_this_week: i64,
    pub posts_prev_week: i64,
    pub activity_score: f64,
    pub is_hot: bool,
}

impl Ring {
    /// The ring read back; lists of the wrong length read as an empty ring.
    pub fn from_lists(days: &[i64], counts: &[i64]) -> Self {
        let mut ring = Self::default();
        if days.len() == RING_DAYS && counts.len() == RING_DAYS {
            ring.days.copy_from_slice(days);
            ring.counts.copy_from_slice(counts);
        }
        ring
    }

    /// Whether slot of `day` already holds `day` (add to it) or an older day (restart it).
    pub fn holds(&self, day: i64) -> bool {
        self.days.get(slot_of(day)).is_some_and(|d| *d == day)
    }

    /// The ring after one post first published on `day`.
    pub fn record(&mut self, day: i64) {
        let i = slot_of(day);
        let held = self.holds(day);
        if let (Some(d), Some(c)) = (self.days.get_mut(i), self.counts.get_mut(i)) {
            if held {
                *c += 1;
            } else {
                *d = day;
                *c = 1;
            }
        }
    }

    /// The posts of `day`, when its slot still holds it.
    fn count_of(&self, day: i64) -> i64 {
        if self.holds(day) {
            self.counts.get(slot_of(day)).copied().unwrap_or(0)
        } else {
            0
        }
    }

    /// The figures as of `today`.
    pub fn activity(&self, today: i64) -> Activity {
        let this_week: i64 = (0..7).map(|age| self.count_of(today - age)).sum();
        let prev_week: i64 = (7..14).map(|age| self.count_of(today - age)).sum();
        let score: f64 = (0..14)
            .map(|age| {
                // Ages and counts are small: exact in f64.
                #[allow(clippy::cast_precision_loss)]
                let (count, age_f) = (self.count_of(today - age) as f64, age as f64);
                count * (-age_f / 7.0).exp2()
            })
            .sum();
        #[allow(clippy::cast_precision_loss)]
        let is_hot = this_week >= HOT_MIN_POSTS && this_week as f64 >= 1.5 * prev_week as f64;
        Activity {
            posts_this_week: this_week,
            posts_prev_week: prev_week,
            activity_score: (score * 100.0).round() / 100.0,
            is_hot,
        }
    }
}

/// A category of the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Category {
    pub id: &'static str,
    pub label: &'static str,
    pub sort_order: u32,
}

/// The built-in categories, in catalog order; `other` takes every topic not mapped below.
pub const CATEGORIES: [Category; 8] = [
    Category {
        id: "technology",
        label: "Technology",
        sort_order: 10,
    },
    Category {
        id: "science",
        label: "Science",
        sort_order: 20,
    },
    Category {
        id: "business",
        label: "Business",
        sort_order: 30,
    },
    Category {
        id: "world",
        label: "World",
        sort_order: 40,
    },
    Category {
        id: "culture",
        label: "Culture",
        sort_order: 50,
    },
    Category {
        id: "sports",
        label: "Sports",
        sort_order: 60,
    },
    Category {
        id: "health",
        label: "Health",
        sort_order: 70,
    },
    Category {
        id: "other",
        label: "Other",
        sort_order: 80,
    },
];

/// Well-known topic slugs and their category (with their sort order inside it).
const KNOWN_TOPICS: &[(&str, &str, u32)] = &[
    ("technology", "technology", 1),
    ("tech", "technology", 2),
    ("ai", "technology", 3),
    ("programming", "technology", 4),
    ("rust", "technology", 5),
    ("software", "technology", 6),
    ("security", "technology", 7),
    ("science", "science", 1),
    ("space", "science", 2),
    ("climate", "science", 3),
    ("physics", "science", 4),
    ("biology", "science", 5),
    ("business", "business", 1),
    ("economy", "business", 2),
    ("finance", "business", 3),
    ("markets", "business", 4),
    ("startups", "business", 5),
    ("world", "world", 1),
    ("politics", "world", 2),
    ("europe", "world", 3),
    ("culture", "culture", 1),
    ("books", "culture", 2),
    ("music", "culture", 3),
    ("film", "culture", 4),
    ("art", "culture", 5),
    ("sports", "sports", 1),
    ("football", "sports", 2),
    ("health", "health", 1),
    ("medicine", "health", 2),
    ("fitness", "health", 3),
];

/// The sort order of topics the map does not place.
pub const DEFAULT_TOPIC_SORT_ORDER: u32 = 1000;

/// The category and sort order of a new topic with this slug.
pub fn placement(slug: &str) -> (&'static str, u32) {
    KNOWN_TOPICS
        .iter()
        .find(|(s, _, _)| *s == slug)
        .map(|(_, c, o)| (*c, *o))
        .unwrap_or(("other", DEFAULT_TOPIC_SORT_ORDER))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn week_buckets_activity_and_hot_with_fixed_clock() {
        let today = 20_000;
        let mut ring = Ring::default();
        for _ in 0..3 {
            ring.record(today);
        }
        ring.record(today - 6);
        ring.record(today - 7);
        ring.record(today - 13);
        let a = ring.activity(today);
        assert_eq!(a.posts_this_week, 4);
        assert_eq!(a.posts_prev_week, 2);
        // 3 + 2^(-6/7) + 2^(-1) + 2^(-13/7)
        let expected = 3.0 + (-6.0f64 / 7.0).exp2() + 0.5 + (-13.0f64 / 7.0).exp2();
        assert_eq!(a.activity_score, (expected * 100.0).round() / 100.0);
        assert!(a.is_hot, "4 this week against 2 before");

        // A fortnight later every slot is stale: nothing counts.
        let later = ring.activity(today + 14);
        assert_eq!((later.posts_this_week, later.posts_prev_week), (0, 0));
        assert_eq!(later.activity_score, 0.0);

        // Steady activity is not hot.
        let mut steady = Ring::default();
        for age in 0..14 {
            steady.record(today - age);
        }
        let s = steady.activity(today);
        assert_eq!((s.posts_this_week, s.posts_prev_week), (7, 7));
        assert!(!s.is_hot);

        // A slot reused by a newer day restarts at 1.
        let mut reused = Ring::default();
        reused.record(today - 14);
        reused.record(today - 14);
        reused.record(today);
        assert_eq!(reused.activity(today).posts_this_week, 1);
    }

    #[test]
    fn unknown_slugs_go_to_other() {
        assert_eq!(placement("space"), ("science", 2));
        assert_eq!(placement("knitting"), ("other", DEFAULT_TOPIC_SORT_ORDER));
        assert!(CATEGORIES.iter().any(|c| c.id == "other"));
        for (_, category, _) in KNOWN_TOPICS {
            assert!(CATEGORIES.iter().any(|c| c.id == *category));
        }
    }
}
