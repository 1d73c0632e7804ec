//! The library as the pages show it: a paper, a paper at its place in a model's list, a
//! pooled paper with the rater's rating. (The library's search is the targets'
//! ([`super::targets::search`]): its hits say what the study makes of each paper.)

/// The feature's SQL: reached by the study only (as `db::papers` too).
pub(in crate::study) mod store;

use serde::Serialize;

use crate::domain::{Grade, PaperId, PaperKey};

/// A paper as pages show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Paper {
    pub id: i64,
    pub external_id: PaperId,
    pub title: String,
    pub abstract_text: String,
    pub authors: String,
    pub year: Option<i64>,
    pub url: String,
}

/// A paper at its place in one model's list, with its judgment (`None` when unrated: a paper
/// below the pool depth may be; or when every rater who answered could not judge it), which
/// the evaluation fills in.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedPaper {
    pub model: String,
    pub position: i64,
    pub key: PaperKey,
    pub paper: PaperId,
    pub title: String,
    pub judgment: Option<Grade>,
    /// Its raters answered "can't judge", all of them.
    pub cannot_judge: bool,
}

/// A pooled paper with the rater's current rating of it, as the rating page lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PooledPaper {
    pub paper: Paper,
    /// The rater's rating; `None` while they have not rated it.
    pub rating: Option<crate::study::rating::Rating>,
}

/// The paper of row key `key`, as pages show it; `None` when the library has none.
pub(in crate::study) async fn get<'e, E: sqlx::SqliteExecutor<'e>>(
    executor: E,
    key: PaperKey,
) -> Result<Option<Paper>, sqlx::Error> {
    Ok(store::get(executor, key).await?.map(Paper::from))
}

impl From<store::PaperRow> for Paper {
    fn from(row: store::PaperRow) -> Paper {
        Paper {
            id: row.id,
            external_id: row.external_id,
            title: row.title,
            abstract_text: row.abstract_text,
            authors: row.authors,
            year: row.year,
            url: row.url,
        }
    }
}

impl From<crate::study::db::targets::PooledPaperRow> for PooledPaper {
    fn from(row: crate::study::db::targets::PooledPaperRow) -> PooledPaper {
        let rating = (row.rated)
            .then(|| crate::study::db::rating::of_ratings_row(row.stars, row.note))
            .flatten();
        PooledPaper {
            paper: row.paper.into(),
            rating,
        }
    }
}
