//! The clustering: TF-IDF vectors, sparse candidate pairs from an inverted index, and
//! average-linkage agglomeration over the pairs at or above the threshold.

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::fmt;

use chrono::{DateTime, Utc};

use crate::article::{Article, ArticleId, SourceId, TopicId};
use crate::text;

/// A headline term counts this many times a term of the text.
pub const TITLE_WEIGHT: u32 = 2;
/// The weight of a term written as a name (see [`text::capitalised_terms`]) is multiplied
/// by this: names say which event it is ("Malatya", "Okafor"), common words what kind.
pub const NAME_WEIGHT: f64 = 2.0;
/// Only the first tokens of an article's text are read: the lede says what happened.
pub const MAX_TEXT_TOKENS: usize = 120;
/// An article's vector keeps its heaviest terms only (bounded memory per article).
pub const MAX_TERMS: usize = 64;
/// Each article keeps its nearest neighbours only (bounded edges: at most
/// `MAX_NEIGHBOURS × articles`).
pub const MAX_NEIGHBOURS: usize = 32;
/// Pairs less similar than this are not kept (they count as 0 in average linkage).
pub const EDGE_FLOOR: f64 = 0.05;
/// A term held by more than `max(MAX_DF_FLOOR, articles / MAX_DF_SHARE)` of the day's
/// articles is ignored, like a stop word ("football" on a day of football): it would weigh
/// little anyway (idf), and it bounds the pairs the inverted index proposes.
pub const MAX_DF_FLOOR: usize = 100;
/// See [`MAX_DF_FLOOR`].
pub const MAX_DF_SHARE: usize = 10;
/// The default threshold, chosen on the labelled set (see the crate docs).
pub const DEFAULT_THRESHOLD: f64 = 0.2;

/// The cosine similarity two groups of articles need, on average over their pairs, to be
/// one story: in (0, 1].
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Threshold(f64);

/// A threshold outside (0, 1] (or not a number).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InvalidThreshold(pub f64);

impl fmt::Display for InvalidThreshold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "threshold {} is not in (0, 1]", self.0)
    }
}

impl std::error::Error for InvalidThreshold {}

impl Threshold {
    pub fn new(value: f64) -> Result<Self, InvalidThreshold> {
        if value > 0.0 && value <= 1.0 {
            Ok(Self(value))
        } else {
            Err(InvalidThreshold(value))
        }
    }

    pub fn get(self) -> f64 {
        self.0
    }
}

impl Default for Threshold {
    fn default() -> Self {
        Self(DEFAULT_THRESHOLD)
    }
}

/// How the similarity of two groups of articles is measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Linkage {
    /// The mean similarity over all their pairs (a pair below [`EDGE_FLOOR`] counts as 0):
    /// a group joins only what most of its articles resemble, so no chains.
    #[default]
    Average,
    /// The most similar pair: any chain of pairs at the threshold joins (kept for
    /// comparison; it chains stories of one topic together, see the crate docs).
    Single,
}

/// The clustering's settings; `Options::default()` is what the crate docs measured.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Options {
    pub threshold: Threshold,
    pub linkage: Linkage,
}

/// A distinct source of a story.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StorySource {
    pub id: SourceId,
    /// The source's name as on its first article in the story.
    pub title: String,
    /// The story's articles from this source.
    pub articles: usize,
    pub first_published_at: DateTime<Utc>,
}

/// One event: the articles that report it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Story {
    /// Oldest first (then by id); never empty.
    pub articles: Vec<Article>,
    /// Distinct sources, in the order they first reported the story (ties: the article id).
    pub sources: Vec<StorySource>,
    /// The headline of the representative article.
    pub headline: String,
    /// The article most similar to the rest of the story (the medoid; ties go to the
    /// earlier article, then the smaller id).
    pub representative: ArticleId,
    /// The union of the articles' topics, sorted.
    pub topics: Vec<TopicId>,
    pub first_published_at: DateTime<Utc>,
    pub last_published_at: DateTime<Utc>,
}

/// [`cluster_with`] and the default [`Options`].
pub fn cluster(articles: Vec<Article>) -> Vec<Story> {
    cluster_with(articles, &Options::default())
}

/// Groups the articles into stories, most important first: more distinct sources, then
/// more articles, then the more recent last article, then the smaller representative id.
///
/// The result depends only on the set of articles, not their order; an id given twice is
/// kept once (the smallest of its versions in [`Article`]'s order).
pub fn cluster_with(mut articles: Vec<Article>, options: &Options) -> Vec<Story> {
    articles.sort();
    articles.dedup_by(|later, earlier| later.id == earlier.id);
    let vectors = vectorize(&articles);
    let neighbours = neighbours(&vectors);
    let groups = match options.linkage {
        Linkage::Average => average_linkage(&neighbours, options.threshold.get()),
        Linkage::Single => single_linkage(&neighbours, options.threshold.get()),
    };
    stories(articles, groups, &neighbours)
}

/// A sparse unit vector: (term, weight), sorted by term.
type Vector = Vec<(u32, f64)>;

/// The most articles a term may be in and still count (see [`MAX_DF_FLOOR`]).
fn max_df(articles: usize) -> usize {
    MAX_DF_FLOOR.max(articles / MAX_DF_SHARE)
}

/// TF-IDF vectors (idf from the day's articles themselves), `(1 + ln tf)·idf·name`, without
/// the terms of more than [`max_df`] articles, the heaviest [`MAX_TERMS`] kept, L2-normalised.
fn vectorize(articles: &[Article]) -> Vec<Vector> {
    let mut dictionary: HashMap<String, u32> = HashMap::new();
    let mut counts: Vec<BTreeMap<u32, u32>> = Vec::with_capacity(articles.len());
    let mut names: Vec<Vec<u32>> = Vec::with_capacity(articles.len());
    for article in articles {
        let mut tf: BTreeMap<u32, u32> = BTreeMap::new();
        let title = text::terms(&article.title);
        let body = text::tokens(&article.text)
            .into_iter()
            .take(MAX_TEXT_TOKENS)
            .filter(|t| !text::is_stop_word(t))
            .map(|t| text::stem(&t));
        let weighted = title
            .into_iter()
            .map(|t| (t, TITLE_WEIGHT))
            .chain(body.map(|t| (t, 1)));
        for (term, weight) in weighted {
            let next = u32::try_from(dictionary.len()).unwrap_or(u32::MAX);
            let id = *dictionary.entry(term).or_insert(next);
            *tf.entry(id).or_default() += weight;
        }
        let mut named: Vec<u32> = text::capitalised_terms(&article.title)
            .into_iter()
            .chain(text::capitalised_terms(&article.text))
            .filter_map(|t| dictionary.get(&t).copied())
            .collect();
        named.sort_unstable();
        named.dedup();
        counts.push(tf);
        names.push(named);
    }
    let mut df: HashMap<u32, u32> = HashMap::new();
    for tf in &counts {
        for term in tf.keys() {
            *df.entry(*term).or_default() += 1;
        }
    }
    let max_df = u32::try_from(max_df(articles.len())).unwrap_or(u32::MAX);
    let n = articles.len() as f64;
    counts
        .into_iter()
        .zip(names)
        .map(|(tf, named)| {
            let mut weights: Vec<(u32, f64)> = tf
                .into_iter()
                .filter_map(|(term, count)| {
                    let d = df.get(&term).copied().unwrap_or(1);
                    (d <= max_df).then_some((term, count, f64::from(d)))
                })
                .map(|(term, count, d)| {
                    let idf = ((n + 1.0) / (d + 1.0)).ln() + 1.0;
                    let name = if named.binary_search(&term).is_ok() {
                        NAME_WEIGHT
                    } else {
                        1.0
                    };
                    (term, (1.0 + f64::from(count).ln()) * idf * name)
                })
                .collect();
            weights.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            weights.truncate(MAX_TERMS);
            let norm = weights.iter().map(|(_, w)| w * w).sum::<f64>().sqrt();
            if norm > 0.0 {
                for (_, w) in &mut weights {
                    *w /= norm;
                }
            }
            weights.sort_by_key(|(term, _)| *term);
            weights
        })
        .collect()
}

/// Each article's most similar others (cosine ≥ [`EDGE_FLOOR`], at most [`MAX_NEIGHBOURS`]),
/// made symmetric: `result[i]` holds `(j, similarity)` sorted by `j`.
///
/// The dot products are accumulated over an inverted index, so the work is Σ df² over the
/// terms, each df at most [`max_df`], rather than n² pairs, and only pairs that share a term
/// are ever looked at.
fn neighbours(vectors: &[Vector]) -> Vec<Vec<(usize, f64)>> {
    let n = vectors.len();
    let mut postings: HashMap<u32, Vec<(usize, f64)>> = HashMap::new();
    for (doc, vector) in vectors.iter().enumerate() {
        for &(term, weight) in vector {
            postings.entry(term).or_default().push((doc, weight));
        }
    }

    let mut accumulated = vec![0.0_f64; n];
    let mut touched: Vec<usize> = Vec::new();
    let mut edges: Vec<(usize, usize, f64)> = Vec::new();
    for (i, vector) in vectors.iter().enumerate() {
        for (term, weight) in vector {
            let Some(list) = postings.get(term) else {
                continue;
            };
            for &(j, other) in list {
                if j == i {
                    continue;
                }
                if let Some(slot) = accumulated.get_mut(j) {
                    if *slot == 0.0 {
                        touched.push(j);
                    }
                    *slot += weight * other;
                }
            }
        }
        let mut nearest: Vec<(usize, f64)> = Vec::with_capacity(touched.len());
        for &j in &touched {
            let Some(slot) = accumulated.get_mut(j) else {
                continue;
            };
            let similarity = std::mem::take(slot);
            if similarity >= EDGE_FLOOR {
                nearest.push((j, similarity.min(1.0)));
            }
        }
        touched.clear();
        nearest.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        nearest.truncate(MAX_NEIGHBOURS);
        edges.extend(nearest.into_iter().map(|(j, s)| (i.min(j), i.max(j), s)));
    }
    edges.sort_by_key(|a| (a.0, a.1));
    edges.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);

    let mut adjacency: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for (a, b, s) in edges {
        if let Some(list) = adjacency.get_mut(a) {
            list.push((b, s));
        }
        if let Some(list) = adjacency.get_mut(b) {
            list.push((a, s));
        }
    }
    for list in &mut adjacency {
        list.sort_by_key(|(j, _)| *j);
    }
    adjacency
}

/// A merge candidate of average linkage: the greatest mean first, then the smaller ids.
#[derive(PartialEq)]
struct Candidate {
    mean: f64,
    a: usize,
    b: usize,
}

impl Eq for Candidate {}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.mean
            .total_cmp(&other.mean)
            .then_with(|| (other.a, other.b).cmp(&(self.a, self.b)))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Agglomerative average linkage (UPGMA) over the sparse pairs: repeatedly merge the two
/// groups of greatest mean pair similarity while it is at least `threshold`. Groups hold the
/// sum of similarities to each neighbouring group; a merge adds the two maps (work bounded by
/// the edges), and stale heap entries are recognised by recomputing their mean.
fn average_linkage(adjacency: &[Vec<(usize, f64)>], threshold: f64) -> Vec<Vec<usize>> {
    let n = adjacency.len();
    let mut members: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
    let mut sums: Vec<BTreeMap<usize, f64>> = adjacency
        .iter()
        .map(|list| list.iter().copied().collect())
        .collect();
    let size = |members: &[Vec<usize>], g: usize| members.get(g).map_or(0, Vec::len) as f64;
    let mut heap = BinaryHeap::new();
    for (a, list) in adjacency.iter().enumerate() {
        for &(b, s) in list {
            if a < b && s >= threshold {
                heap.push(Candidate { mean: s, a, b });
            }
        }
    }
    while let Some(Candidate { mean, a, b }) = heap.pop() {
        let current = sums.get(a).and_then(|m| m.get(&b)).copied();
        let Some(sum) = current else { continue };
        if sum / (size(&members, a) * size(&members, b)) != mean {
            continue;
        }
        // Merge b into a.
        let absorbed = sums.get_mut(b).map(std::mem::take).unwrap_or_default();
        let moved = members.get_mut(b).map(std::mem::take).unwrap_or_default();
        if let Some(list) = members.get_mut(a) {
            list.extend(moved);
        }
        if let Some(map) = sums.get_mut(a) {
            map.remove(&b);
        }
        for (k, s) in absorbed {
            if k == a {
                continue;
            }
            if let Some(map) = sums.get_mut(k) {
                map.remove(&b);
                *map.entry(a).or_default() += s;
            }
            if let Some(map) = sums.get_mut(a) {
                *map.entry(k).or_default() += s;
            }
        }
        let size_a = size(&members, a);
        if let Some(map) = sums.get(a) {
            for (&k, &s) in map {
                let mean = s / (size_a * size(&members, k));
                if mean >= threshold {
                    heap.push(Candidate {
                        mean,
                        a: a.min(k),
                        b: a.max(k),
                    });
                }
            }
        }
    }
    members.retain(|m| !m.is_empty());
    members
}

/// Connected components of the pairs at or above `threshold` (union-find).
fn single_linkage(adjacency: &[Vec<(usize, f64)>], threshold: f64) -> Vec<Vec<usize>> {
    let n = adjacency.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while let Some(&p) = parent.get(i) {
            if p == i {
                break;
            }
            let grandparent = parent.get(p).copied().unwrap_or(p);
            if let Some(slot) = parent.get_mut(i) {
                *slot = grandparent;
            }
            i = p;
        }
        i
    }
    for (a, list) in adjacency.iter().enumerate() {
        for &(b, s) in list {
            if s >= threshold {
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                if let Some(slot) = parent.get_mut(ra.max(rb)) {
                    *slot = ra.min(rb);
                }
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..n {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    groups.into_values().collect()
}

fn stories(
    articles: Vec<Article>,
    groups: Vec<Vec<usize>>,
    adjacency: &[Vec<(usize, f64)>],
) -> Vec<Story> {
    let mut group_of = vec![0_usize; articles.len()];
    for (g, members) in groups.iter().enumerate() {
        for &i in members {
            if let Some(slot) = group_of.get_mut(i) {
                *slot = g;
            }
        }
    }
    // Each article's summed similarity to the rest of its story.
    let centrality: Vec<f64> = adjacency
        .iter()
        .enumerate()
        .map(|(i, list)| {
            list.iter()
                .filter(|(j, _)| group_of.get(*j) == group_of.get(i))
                .map(|(_, s)| s)
                .sum()
        })
        .collect();
    let mut slots: Vec<Option<Article>> = articles.into_iter().map(Some).collect();
    let mut stories: Vec<Story> = Vec::with_capacity(groups.len());
    for members in groups {
        let key = |i: usize| {
            let published = slots
                .get(i)
                .and_then(Option::as_ref)
                .map(|a| a.published_at);
            (
                centrality.get(i).copied().unwrap_or(0.0),
                Reverse(published),
                Reverse(i),
            )
        };
        let best = members
            .iter()
            .copied()
            .max_by(|&x, &y| {
                let (cx, px, ix) = key(x);
                let (cy, py, iy) = key(y);
                cx.total_cmp(&cy).then((px, ix).cmp(&(py, iy)))
            })
            .and_then(|i| slots.get(i).and_then(Option::as_ref))
            .map(|a| (a.id.clone(), a.title.clone()));
        let Some((representative, headline)) = best else {
            continue;
        };
        let mut articles: Vec<Article> = members
            .iter()
            .filter_map(|&i| slots.get_mut(i).and_then(Option::take))
            .collect();
        articles.sort_by(|a, b| (a.published_at, &a.id).cmp(&(b.published_at, &b.id)));
        if let Some(story) = story(articles, representative, headline) {
            stories.push(story);
        }
    }
    stories.sort_by(|a, b| {
        (
            Reverse(a.sources.len()),
            Reverse(a.articles.len()),
            Reverse(a.last_published_at),
            &a.representative,
        )
            .cmp(&(
                Reverse(b.sources.len()),
                Reverse(b.articles.len()),
                Reverse(b.last_published_at),
                &b.representative,
            ))
    });
    stories
}

/// A story of articles sorted oldest first; `None` when there are none.
fn story(articles: Vec<Article>, representative: ArticleId, headline: String) -> Option<Story> {
    let first_published_at = articles.first()?.published_at;
    let last_published_at = articles.last()?.published_at;
    let mut sources: Vec<StorySource> = Vec::new();
    for article in &articles {
        match sources.iter_mut().find(|s| s.id == article.source_id) {
            Some(source) => source.articles += 1,
            None => sources.push(StorySource {
                id: article.source_id.clone(),
                title: article.source_title.clone(),
                articles: 1,
                first_published_at: article.published_at,
            }),
        }
    }
    let mut topics: Vec<TopicId> = articles.iter().flat_map(|a| a.topics.clone()).collect();
    topics.sort();
    topics.dedup();
    Some(Story {
        articles,
        sources,
        headline,
        representative,
        topics,
        first_published_at,
        last_published_at,
    })
}
