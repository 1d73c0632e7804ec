//! The queries of the pages and commands that show the study as it is: each one read.

use super::{
    BlindPoolRow, Hit, Listing, Overview, Paper, Progress, RatingRow, Refusal, Study, StudyError,
    StudyStatus, TargetSummary,
};
use crate::db;
use crate::domain::PaperKey;

pub use crate::db::targets::PooledPaper;

/// A target's rating page: the target, its pooled papers in the blind order with their stars,
/// and the target to rate after it.
#[derive(Debug, Clone)]
pub struct RatingPage {
    pub target: Paper,
    pub papers: Vec<PooledPaper>,
    pub progress: Progress,
    /// The next target with unrated pairs in the study's random order; never this one.
    pub next_target: Option<PaperKey>,
}

/// A page of the targets being rated, with the study's targets at a glance.
#[derive(Debug, Clone)]
pub struct TargetList {
    pub overview: Overview,
    pub targets: Vec<TargetSummary>,
}

/// The target to rate next, in the study's random order.
#[derive(Debug, Clone)]
pub struct NextTarget {
    pub target: Paper,
    pub progress: Progress,
}

/// What a search of the library found, with the study's targets at a glance.
#[derive(Debug, Clone)]
pub struct Search {
    pub overview: Overview,
    /// A page of the papers found, best first, and how many were found in all; `None` when
    /// the search had no word to search for.
    pub found: Option<(Vec<Hit>, i64)>,
}

impl Study {
    /// The rating page of `target`; refused when the paper is no target being rated (never
    /// one, or dropped). Blind: it reads the pool and the ratings, never a model, rank, score
    /// or list.
    pub async fn rating_page(&self, target: PaperKey) -> Result<RatingPage, StudyError> {
        self.read(async |conn| {
            let no_such_target = || StudyError::from(Refusal::NoSuchTarget(target));
            if db::targets::progress(&mut *conn, target).await?.is_none() {
                return Err(no_such_target());
            }
            let papers = db::targets::pooled_papers(&mut *conn, target).await?;
            let paper = db::papers::get(&mut *conn, target)
                .await?
                .ok_or_else(no_such_target)?;
            let next_target = db::targets::next_to_rate(conn, target).await?;
            let progress = Progress {
                rated: papers.iter().filter(|paper| paper.stars.is_some()).count() as i64,
                total: papers.len() as i64,
            };
            Ok(RatingPage {
                target: paper,
                papers,
                progress,
                next_target,
            })
        })
        .await
    }

    /// The targets being rated that `listing` asks for, in import order.
    pub async fn targets(&self, listing: Listing) -> Result<TargetList, StudyError> {
        self.read(async |conn| {
            Ok(TargetList {
                overview: db::targets::overview(&mut *conn).await?,
                targets: db::targets::list(&mut *conn, listing).await?,
            })
        })
        .await
    }

    /// The targets of the study at a glance: which it rates and how far it is.
    pub async fn overview(&self) -> Result<Overview, StudyError> {
        Ok(db::targets::overview(&self.connections).await?)
    }

    /// The target to rate next: the first target with unrated pairs in the study's random
    /// order (what `/next` opens); `None` when every pooled pair is rated. While pruning is on,
    /// the models the verdict rules out are pruned first (a command), so that the pool of the
    /// target it names leaves them out.
    pub async fn next_target(&self) -> Result<Option<NextTarget>, StudyError> {
        self.prune_ruled_out().await?;
        self.read(async |conn| {
            let Some(target) = db::targets::first_to_rate(&mut *conn).await? else {
                return Ok(None);
            };
            let paper = db::papers::get(&mut *conn, target).await?;
            let progress = db::targets::progress(&mut *conn, target).await?;
            Ok(paper
                .zip(progress)
                .map(|(target, progress)| NextTarget { target, progress }))
        })
        .await
    }

    /// The papers whose id, title, authors or abstract hold every word of `text` (see
    /// [`db::papers::search_expression`]), `limit` of them from `offset`.
    pub async fn search(&self, text: &str, offset: i64, limit: i64) -> Result<Search, StudyError> {
        let expression = db::papers::search_expression(text);
        self.read(async |conn| {
            let overview = db::targets::overview(&mut *conn).await?;
            let found = match &expression {
                Some(expression) => {
                    Some(db::papers::search(conn, expression, offset, limit).await?)
                }
                None => None,
            };
            Ok(Search { overview, found })
        })
        .await
    }

    /// The counts `paperjudge status` prints.
    pub async fn status(&self) -> Result<StudyStatus, StudyError> {
        Ok(db::study::status(&self.connections).await?)
    }

    /// Every rating, by target id and paper id: the ratings CSV and the qrels.
    pub async fn ratings(&self) -> Result<Vec<RatingRow>, StudyError> {
        Ok(db::ratings::all_rows(&self.connections).await?)
    }

    /// The blind pool of every target being rated, by target id and display position.
    pub async fn blind_pool(&self) -> Result<Vec<BlindPoolRow>, StudyError> {
        Ok(db::blind_pool::all_rows(&self.connections).await?)
    }
}
