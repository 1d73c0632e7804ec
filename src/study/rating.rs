//! Rating: a rater's change of a rating (a set, a clear, an undo). Imports write ratings their
//! own way, a whole file in one transaction.
//!
//! The rules: only a paper in the blind pool of a target being rated can be rated (or one that
//! pruning took out of it while its page was open, which comes back), and each change is one
//! command, committed durably before it answers, so that "saved" means saved.
//! Every change is recorded in the rating history with the browser session that made it,
//! which is what undo goes by.

use sqlx::SqliteConnection;

use super::{Progress, Refusal, Study, StudyError};
use crate::db;
use crate::db::ratings::{Source, Undone};
use crate::domain::{PaperId, PaperKey, Stars};

/// What an undo did: the paper whose rating went back, and to which stars. `undone` is false
/// with a `paper` when another rater (or an import) changed that paper after this browser's
/// change: their rating stays, and `stars` is it. Neither, when there was nothing to undo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undo {
    pub undone: bool,
    pub paper: Option<PaperId>,
    pub stars: Option<Stars>,
    pub progress: Progress,
}

impl Study {
    /// Sets (`Some`) or clears (`None`) the rating of `paper` for `target`, as the browser
    /// session tagged `browser` asks; answers the target's progress after it.
    pub async fn rate(
        &self,
        target: PaperKey,
        paper: &PaperId,
        stars: Option<Stars>,
        browser: &str,
    ) -> Result<Progress, StudyError> {
        self.write(async |conn| {
            progress(conn, target).await?;
            let not_in_pool = || Refusal::NotInPool(paper.to_owned());
            let paper = db::papers::id_of(&mut *conn, paper)
                .await?
                .ok_or_else(not_in_pool)?;
            if !db::blind_pool::contains(&mut *conn, target, paper).await? {
                // A page opened before pruning shrank the target's pool still shows the paper:
                // its rating is kept, and the pair comes back into the pool.
                let depth = db::study::pool_depth(&mut *conn).await?.get();
                if !db::pruning::pruned_away(&mut *conn, target, paper, depth).await? {
                    return Err(not_in_pool().into());
                }
                db::blind_pool::ensure_pair(&mut *conn, target, paper, &mut rand::rng()).await?;
            }
            let source = Source::Web { browser };
            db::ratings::set(conn, target, paper, stars, &db::now_rfc3339(), source).await?;
            progress(conn, target).await
        })
        .await
    }

    /// Reverts the last change the browser session tagged `browser` made on `target`; see
    /// [`db::ratings::undo_last_web_change`] for how undos walk back through the history.
    pub async fn undo(&self, target: PaperKey, browser: &str) -> Result<Undo, StudyError> {
        self.write(async |conn| {
            progress(conn, target).await?;
            let undone =
                db::ratings::undo_last_web_change(conn, target, browser, &db::now_rfc3339())
                    .await?;
            let (undone, paper, stars) = match undone {
                None => (false, None, None),
                Some(Undone::Reverted(reverted)) => {
                    (true, Some(reverted.paper), reverted.change.current)
                }
                Some(Undone::Superseded { paper, kept }) => (false, Some(paper), kept),
            };
            let paper = match paper {
                Some(paper) => db::papers::get(&mut *conn, paper)
                    .await?
                    .map(|paper| paper.external_id),
                None => None,
            };
            Ok(Undo {
                undone,
                paper,
                stars,
                progress: progress(conn, target).await?,
            })
        })
        .await
    }
}

/// The target's progress; refused when the paper is no target being rated.
async fn progress(conn: &mut SqliteConnection, target: PaperKey) -> Result<Progress, StudyError> {
    db::targets::progress(conn, target)
        .await?
        .ok_or_else(|| Refusal::NoSuchTarget(target).into())
}
