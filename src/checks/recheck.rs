//! Re-checking: an already rated pair of a finished target, shown again blind and without its
//! rating, and the new answer stored apart from the ratings. A re-check never changes a
//! rating, and a pair is re-checked once: the first answer counts.

use sqlx::{SqliteConnection, SqlitePool};

use crate::db;
use crate::db::checks::NewRecheck;
use crate::db::WriteQueue;
use crate::domain::{PaperKey, Stars};

/// Why a re-check was refused; nothing was stored.
#[derive(Debug, thiserror::Error)]
pub enum RecheckError {
    /// The pair (by external ids) is no rated pair of a finished target.
    #[error("paper {paper:?} of target {target:?} is not a rated pair of a finished target")]
    NotRechecked { target: String, paper: String },
    #[error("the study database failed")]
    Database(#[from] sqlx::Error),
}

/// A pair to re-check, drawn at random among the rated pairs of finished targets not
/// re-checked yet; `None` when there is none.
pub async fn next_pair(pool: &SqlitePool) -> Result<Option<(PaperKey, PaperKey)>, sqlx::Error> {
    db::checks::recheck_candidate(&mut *pool.acquire().await?).await
}

/// Stores the re-check of `paper` for `target` (external ids) with `stars`, as the browser
/// session tagged `browser` gives it, durably before it returns. Answers whether it was
/// stored: false when the pair had been re-checked before (its first answer stays).
pub async fn record(
    pool: &SqlitePool,
    write_queue: &WriteQueue,
    target: &str,
    paper: &str,
    stars: Stars,
    browser: &str,
) -> Result<bool, RecheckError> {
    let mut tx = write_queue.begin(pool).await?;
    let recorded = record_in(&mut tx, target, paper, stars, browser).await;
    tx.finish(recorded).await
}

async fn record_in(
    conn: &mut SqliteConnection,
    target: &str,
    paper: &str,
    stars: Stars,
    browser: &str,
) -> Result<bool, RecheckError> {
    let refused = || RecheckError::NotRechecked {
        target: target.to_owned(),
        paper: paper.to_owned(),
    };
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
}
