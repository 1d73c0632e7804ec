//! Re-checking: a pair of a finished target the rater rated, shown to them again blind and
//! without their rating, and the new answer stored apart from the ratings. A re-check never
//! changes a rating, and a rater re-checks a pair once: the first answer counts. Each rater
//! re-checks their own ratings only.

/// The feature's SQL: reached by the study only (as `db::recheck` too).
pub(in crate::study) mod store;

use crate::domain::{PaperId, RaterId, Stars};
use crate::study::db::recheck::NewRecheck;
use crate::study::db::{self, Database};
use crate::study::error::{Refusal, StudyError};
use crate::study::papers::{self, Paper};
use crate::study::raters::Rater;

/// What the re-check page shows: how far the re-checking is, and a pair to re-check (the
/// target and the paper), drawn at random among the rated pairs of finished targets not
/// re-checked yet; none when there is none.
#[derive(Debug, Clone)]
pub struct Recheck {
    pub progress: RecheckProgress,
    pub pair: Option<(Paper, Paper)>,
    /// The study has raters besides its owner.
    pub with_raters: bool,
}

/// Re-checking's commands and queries (`study.recheck()`).
#[derive(Debug, Clone, Copy)]
pub struct Handle<'s> {
    db: &'s Database,
}

impl<'s> Handle<'s> {
    pub(in crate::study) fn new(db: &'s Database) -> Handle<'s> {
        Handle { db }
    }

    /// Stores `rater`'s re-check of `paper` for `target` with `stars`, as the browser session
    /// tagged `browser` gives it. Answers whether it was stored: false when they had re-checked
    /// the pair before (their first answer stays).
    pub async fn record(
        &self,
        target: &PaperId,
        paper: &PaperId,
        stars: Stars,
        browser: &str,
        rater: &Rater,
    ) -> Result<bool, StudyError> {
        let refused = || Refusal::NotRechecked {
            target: target.to_owned(),
            paper: paper.to_owned(),
        };
        self.db
            .write(async |conn| {
                let target = db::papers::id_of(&mut *conn, target)
                    .await?
                    .ok_or_else(refused)?;
                let paper = db::papers::id_of(&mut *conn, paper)
                    .await?
                    .ok_or_else(refused)?;
                let (stars_then, rated_at) =
                    db::recheck::rating_to_recheck(&mut *conn, target, paper, rater.id)
                        .await?
                        .ok_or_else(refused)?;
                let now = db::now_rfc3339();
                let recheck = NewRecheck {
                    target,
                    paper,
                    stars_then,
                    rated_at: &rated_at,
                    stars,
                    rechecked_at: &now,
                    browser,
                    rater: rater.id,
                };
                Ok(db::recheck::record_recheck(conn, recheck).await?)
            })
            .await
    }

    /// `rater`'s re-check page: their progress, and a pair of theirs to re-check.
    pub async fn page(&self, rater: &Rater) -> Result<Recheck, StudyError> {
        self.db
            .read(async |conn| {
                let progress = db::recheck::recheck_progress(&mut *conn, Some(rater.id)).await?;
                let pair = match db::recheck::recheck_candidate(&mut *conn, rater.id).await? {
                    Some((target, paper)) => {
                        let target = papers::get(&mut *conn, target).await?;
                        let paper = papers::get(&mut *conn, paper).await?;
                        target.zip(paper)
                    }
                    None => None,
                };
                Ok(Recheck {
                    progress,
                    pair,
                    with_raters: db::raters::has_raters(conn).await?,
                })
            })
            .await
    }

    /// How far the re-checking is: of `rater`, or of every rater (`None`).
    pub async fn progress(&self, rater: Option<RaterId>) -> Result<RecheckProgress, StudyError> {
        Ok(db::recheck::recheck_progress(self.db.connections(), rater).await?)
    }
}

pub use store::RecheckProgress;
