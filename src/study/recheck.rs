//! Re-checking: an already rated pair of a finished target, shown again blind and without its
//! rating, and the new answer stored apart from the ratings. A re-check never changes a
//! rating, and a pair is re-checked once: the first answer counts.

use super::{Paper, RecheckProgress, Refusal, Study, StudyError};
use crate::db;
use crate::db::checks::NewRecheck;
use crate::domain::{PaperId, Stars};

/// What the re-check page shows: how far the re-checking is, and a pair to re-check (the
/// target and the paper), drawn at random among the rated pairs of finished targets not
/// re-checked yet; none when there is none.
#[derive(Debug, Clone)]
pub struct Recheck {
    pub progress: RecheckProgress,
    pub pair: Option<(Paper, Paper)>,
}

impl Study {
    /// Stores the re-check of `paper` for `target` with `stars`, as the browser session tagged
    /// `browser` gives it. Answers whether it was stored: false when the pair had been
    /// re-checked before (its first answer stays).
    pub async fn recheck(
        &self,
        target: &PaperId,
        paper: &PaperId,
        stars: Stars,
        browser: &str,
    ) -> Result<bool, StudyError> {
        let refused = || Refusal::NotRechecked {
            target: target.to_owned(),
            paper: paper.to_owned(),
        };
        self.write(async |conn| {
            let target = db::papers::id_of(&mut *conn, target)
                .await?
                .ok_or_else(refused)?;
            let paper = db::papers::id_of(&mut *conn, paper)
                .await?
                .ok_or_else(refused)?;
            let (stars_then, rated_at) = db::checks::rating_to_recheck(&mut *conn, target, paper)
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
            };
            Ok(db::checks::record_recheck(conn, recheck).await?)
        })
        .await
    }

    /// The re-check page: the progress, and a pair to re-check.
    pub async fn recheck_page(&self) -> Result<Recheck, StudyError> {
        self.read(async |conn| {
            let progress = db::checks::recheck_progress(&mut *conn).await?;
            let pair = match db::checks::recheck_candidate(&mut *conn).await? {
                Some((target, paper)) => {
                    let target = db::papers::get(&mut *conn, target).await?;
                    let paper = db::papers::get(&mut *conn, paper).await?;
                    target.zip(paper)
                }
                None => None,
            };
            Ok(Recheck { progress, pair })
        })
        .await
    }

    /// How far the re-checking is.
    pub async fn recheck_progress(&self) -> Result<RecheckProgress, StudyError> {
        Ok(db::checks::recheck_progress(&self.connections).await?)
    }
}
