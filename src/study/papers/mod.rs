//! The library as the pages show it: a paper, and a hit of a search with its marked words.

/// The feature's SQL: reached by the study only (as `db::papers` too).
pub(in crate::study) mod store;

use serde::Serialize;
use sqlx::FromRow;

use crate::domain::{Grade, PaperId, PaperKey};

/// A paper as pages show it.
#[derive(Debug, Clone, PartialEq, Eq, FromRow, Serialize)]
pub struct Paper {
    pub id: i64,
    pub external_id: PaperId,
    pub title: String,
    #[sqlx(rename = "abstract")]
    pub abstract_text: String,
    pub authors: String,
    pub year: Option<i64>,
    pub url: String,
}

/// A paper a search found, best first, with what the study makes of it.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct Hit {
    pub id: i64,
    pub external_id: PaperId,
    pub title: String,
    pub authors: String,
    pub year: Option<i64>,
    /// A passage of the abstract around the words found, each found word between
    /// [`MARK_START`] and [`MARK_END`].
    pub passage: String,
    /// Some model has a list for it.
    pub listed: bool,
    /// It is a target being rated.
    pub active: bool,
    pub rated: i64,
    /// Pairs pooled; for a rater, only of a target they took: the pool of one nobody took yet
    /// may change with others' doings (pruning), and a rater reads no count that moves so.
    pub pooled: Option<i64>,
}

/// Where a found word starts and ends in [`Hit::passage`].
pub const MARK_START: char = '\u{2}';

pub const MARK_END: char = '\u{3}';

/// A paper at its place in one model's list, with its judgment (`None` when unrated: a paper
/// below the pool depth may be), which the evaluation fills in.
#[derive(Debug, Clone, PartialEq, FromRow)]
pub struct ListedPaper {
    pub model: String,
    pub position: i64,
    pub key: PaperKey,
    pub paper: PaperId,
    pub title: String,
    #[sqlx(skip)]
    pub judgment: Option<Grade>,
}

/// A pooled paper with the rater's current rating of it, as the rating page lists it.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct PooledPaper {
    #[sqlx(flatten)]
    pub paper: Paper,
    pub stars: Option<i64>,
}
