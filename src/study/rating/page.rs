//! A target's rating page for one rater: blind, their own stars only.

use super::Handle;
use crate::domain::{Guidelines, PaperKey, Progress};
use crate::study::db;
use crate::study::error::{Refusal, StudyError};
use crate::study::guidelines::in_force;
use crate::study::papers::{Paper, PooledPaper};
use crate::study::raters::Rater;

/// A target's rating page for one rater: the target, its pooled papers in the blind order with
/// the rater's ratings (and notes), the study's guidelines, and the target to rate after it.
#[derive(Debug, Clone)]
pub struct RatingPage {
    pub target: Paper,
    pub papers: Vec<PooledPaper>,
    pub progress: Progress,
    /// The next target that needs the rater in the study's random order; never this one.
    pub next_target: Option<PaperKey>,
    /// The study has raters besides its owner.
    pub with_raters: bool,
    /// The study's guidelines in force, if it has some.
    pub guidelines: Option<Guidelines>,
}

impl Handle<'_> {
    /// `rater`'s rating page of `target`, with their own stars only; refused when the paper is
    /// no target being rated (never one, or dropped), or when it has the raters it needs and
    /// `rater` is not one of them. Blind: it reads the pool and the rater's ratings, never a
    /// model, rank, score or list, nor another rater's stars or notes.
    pub async fn page(&self, target: PaperKey, rater: &Rater) -> Result<RatingPage, StudyError> {
        self.db
            .read(async |conn| {
                let no_such_target = || StudyError::from(Refusal::NoSuchTarget(target));
                if db::targets::progress(&mut *conn, target).await?.is_none() {
                    return Err(no_such_target());
                }
                if !db::raters::may_rate(&mut *conn, target, rater.id).await? {
                    return Err(Refusal::TargetTaken(target).into());
                }
                let papers: Vec<PooledPaper> =
                    (db::targets::pooled_papers(&mut *conn, target, rater.id)
                        .await?
                        .into_iter())
                    .map(PooledPaper::from)
                    .collect();
                let paper = crate::study::papers::get(&mut *conn, target)
                    .await?
                    .ok_or_else(no_such_target)?;
                let next_target = db::targets::next_to_rate(&mut *conn, target, rater.id).await?;
                let progress = Progress {
                    rated: papers.iter().filter(|paper| paper.rating.is_some()).count() as i64,
                    total: papers.len() as i64,
                };
                Ok(RatingPage {
                    target: paper,
                    papers,
                    progress,
                    next_target,
                    with_raters: db::raters::has_raters(&mut *conn).await?,
                    guidelines: (in_force(conn).await?).map(|guidelines| guidelines.markdown),
                })
            })
            .await
    }
}
