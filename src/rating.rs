//! Rating: how a rater's change of a rating reaches the study, whoever asks for it (the web
//! today). Imports write ratings their own way, a whole file in one transaction.
//!
//! The rules: only a paper in the blind pool of a target being rated can be rated, and each
//! change (a set, a clear, an undo) is one write transaction of the [`WriteQueue`], committed
//! durably (WAL with `synchronous = FULL`) before the function returns, so that "saved" means
//! saved. Every change is recorded in the rating history with the browser session that made
//! it, which is what undo goes by.

use sqlx::{SqliteConnection, SqlitePool};

use crate::db;
use crate::db::ratings::{Source, Undone};
use crate::db::targets::Progress;
use crate::db::WriteQueue;
use crate::domain::{PaperKey, Stars};

/// Why a change was refused; nothing changed.
#[derive(Debug, thiserror::Error)]
pub enum RatingError {
    /// The paper is no target being rated (never one, or dropped).
    #[error("there is no target {} in this study", .0 .0)]
    NoSuchTarget(PaperKey),
    /// The paper (by its external id) is not in the target's pool, or no paper at all.
    #[error("paper {0:?} is not in the pool of this target")]
    NotInPool(String),
    #[error("the study database failed")]
    Database(#[from] sqlx::Error),
}

/// Sets (`Some`) or clears (`None`) the rating of `paper` (an external id) for `target`, as
/// the browser session tagged `browser` asks; answers the target's progress after it.
pub async fn rate(
    pool: &SqlitePool,
    write_queue: &WriteQueue,
    target: PaperKey,
    paper: &str,
    stars: Option<Stars>,
    browser: &str,
) -> Result<Progress, RatingError> {
    let mut tx = write_queue.begin(pool).await?;
    let rated = rate_in(&mut tx, target, paper, stars, browser).await;
    tx.finish(rated).await
}

async fn rate_in(
    conn: &mut SqliteConnection,
    target: PaperKey,
    paper: &str,
    stars: Option<Stars>,
    browser: &str,
) -> Result<Progress, RatingError> {
    progress(conn, target).await?;
    let not_in_pool = || RatingError::NotInPool(paper.to_owned());
    let paper = db::papers::id_of(&mut *conn, paper)
        .await?
        .ok_or_else(not_in_pool)?;
    if !db::blind_pool::contains(&mut *conn, target, paper).await? {
        return Err(not_in_pool());
    }
    let source = Source::Web { browser };
    db::ratings::set(conn, target, paper, stars, &db::now_rfc3339(), source).await?;
    progress(conn, target).await
}

/// What an undo did: the paper whose rating went back, and to which stars. `undone` is false
/// with a `paper` when another rater (or an import) changed that paper after this browser's
/// change: their rating stays, and `stars` is it. Neither, when there was nothing to undo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undo {
    pub undone: bool,
    /// The paper's external id.
    pub paper: Option<String>,
    pub stars: Option<Stars>,
    pub progress: Progress,
}

/// Reverts the last change the browser session tagged `browser` made on `target`; see
/// [`db::ratings::undo_last_web_change`] for how undos walk back through the history.
pub async fn undo(
    pool: &SqlitePool,
    write_queue: &WriteQueue,
    target: PaperKey,
    browser: &str,
) -> Result<Undo, RatingError> {
    let mut tx = write_queue.begin(pool).await?;
    let undone = undo_in(&mut tx, target, browser).await;
    tx.finish(undone).await
}

async fn undo_in(
    conn: &mut SqliteConnection,
    target: PaperKey,
    browser: &str,
) -> Result<Undo, RatingError> {
    progress(conn, target).await?;
    let undone =
        db::ratings::undo_last_web_change(conn, target, browser, &db::now_rfc3339()).await?;
    let (undone, paper, stars) = match undone {
        None => (false, None, None),
        Some(Undone::Reverted(reverted)) => (true, Some(reverted.paper), reverted.change.current),
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
}

/// The target's progress; [`RatingError::NoSuchTarget`] when the paper is no target.
async fn progress(conn: &mut SqliteConnection, target: PaperKey) -> Result<Progress, RatingError> {
    db::targets::progress(conn, target)
        .await?
        .ok_or(RatingError::NoSuchTarget(target))
}
