//! The target a rater is to rate next, in the study's random order (what `/next` opens).

use super::Handle;
use crate::domain::Progress;
use crate::study::db;
use crate::study::error::StudyError;
use crate::study::papers::Paper;
use crate::study::raters::Rater;

/// The target to rate next, in the study's random order.
#[derive(Debug, Clone)]
pub struct NextTarget {
    pub target: Paper,
    pub progress: Progress,
}

impl Handle<'_> {
    /// The target `rater` is to rate next (what `/next` opens): the first in the study's
    /// random order that they took and have not rated whole, or that still needs a rater,
    /// which in a study with raters they then take (a command: two raters asking at once get
    /// different targets when each needs one; the owner rating alone takes a target with a
    /// first rating, as a rating takes it). `None` when no target needs them. While pruning is
    /// on, the models the verdict rules out are pruned first, so that the pool of the target it
    /// names leaves them out.
    pub async fn next(&self, rater: &Rater) -> Result<Option<NextTarget>, StudyError> {
        self.pruning.prune_ruled_out().await?;
        self.db
            .write(async |conn| {
                let Some(target) = db::targets::first_to_rate(&mut *conn, rater.id).await? else {
                    return Ok(None);
                };
                if db::raters::has_active_raters(&mut *conn).await? {
                    db::raters::assign(&mut *conn, target, rater.id, &db::now_rfc3339()).await?;
                }
                let paper = crate::study::papers::get(&mut *conn, target).await?;
                let progress = db::targets::rater_progress(&mut *conn, target, rater.id).await?;
                Ok(paper
                    .zip(progress)
                    .map(|(target, progress)| NextTarget { target, progress }))
            })
            .await
    }
}
