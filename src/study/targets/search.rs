//! The library searched, for targets to choose: each paper found with what the study makes of
//! it (a candidate, a target being rated, its pairs rated), beside the targets at a glance.

use super::{Handle, Overview};
use crate::domain::{PaperId, RaterId};
use crate::study::db;
use crate::study::error::StudyError;

/// A paper a search found, best first, with what the study makes of it.
#[derive(Debug, Clone, PartialEq, Eq)]
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

impl From<db::papers::HitRow> for Hit {
    fn from(row: db::papers::HitRow) -> Hit {
        Hit {
            id: row.id,
            external_id: row.external_id,
            title: row.title,
            authors: row.authors,
            year: row.year,
            passage: row.passage,
            listed: row.listed,
            active: row.active,
            rated: row.rated,
            pooled: row.pooled,
        }
    }
}

/// What a search of the library found, with the study's targets at a glance.
#[derive(Debug, Clone)]
pub struct Search {
    pub overview: Overview,
    /// A page of the papers found, best first, and how many were found in all; `None` when
    /// the search had no word to search for and no filter.
    pub found: Option<(Vec<Hit>, i64)>,
}

/// Which papers a search looks among.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Among {
    /// The whole library.
    #[default]
    Library,
    /// The papers some model recommended for: those that can be targets with a pool.
    WithRecommendations,
}

impl Handle<'_> {
    /// The papers (`among` all, or those with recommendations) whose id, title, authors or
    /// abstract hold every word of `text` (see [`db::papers::search_expression`]), best first,
    /// `limit` of them from `offset`; without a word, the papers with recommendations by id
    /// when `among` asks for those (else nothing). Each target with the pairs rated of the
    /// study (`rater` `None`: the owner's view) or of `rater` alone.
    pub async fn search(
        &self,
        text: &str,
        among: Among,
        page: (i64, i64),
        rater: Option<RaterId>,
    ) -> Result<Search, StudyError> {
        let expression = db::papers::search_expression(text);
        let only_listed = among == Among::WithRecommendations;
        self.db
            .read(async |conn| {
                let overview = db::targets::overview(&mut *conn).await?;
                let found = match &expression {
                    Some(expression) => {
                        Some(db::papers::search(conn, expression, only_listed, page, rater).await?)
                    }
                    None if only_listed => Some(db::papers::listed(conn, page, rater).await?),
                    None => None,
                };
                let found =
                    found.map(|(hits, count)| (hits.into_iter().map(Hit::from).collect(), count));
                Ok(Search { overview, found })
            })
            .await
    }
}
