//! The one read that joins the models' lists with the ratings of a single target, for the
//! per-target view of the leaderboard.
//!
//! Seeing which model ranked which paper, and how a paper was rated, unblinds the target. Once
//! every pooled paper of it is rated that can no longer bias a rating of it, so the read
//! refuses any target before then.

use sqlx::{FromRow, SqlitePool};

use super::targets;
use crate::domain::{PaperId, PaperKey, Stars};

/// A paper at its place in one model's list, with its stars (`None` when unrated: a paper
/// below the pool depth may be).
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct ListedPaper {
    pub model: String,
    pub position: i64,
    pub paper: PaperId,
    pub title: String,
    pub stars: Option<Stars>,
}

/// Every model's top `k` for `target`, by model name and position; `None` unless the target
/// has a pool and every pair of it is rated.
pub async fn top_lists(
    connections: &SqlitePool,
    target: PaperKey,
    k: usize,
) -> Result<Option<Vec<ListedPaper>>, sqlx::Error> {
    // One read transaction: the lists are read from the same snapshot the check saw.
    let mut tx = connections.begin().await?;
    let finished = targets::progress(&mut *tx, target)
        .await?
        .is_some_and(|progress| progress.is_finished());
    if !finished {
        return Ok(None);
    }
    let papers = sqlx::query_as(
        "SELECT m.name AS model, r.position, p.external_id AS paper, p.title, ra.stars
         FROM recommendations r
         JOIN models m ON m.id = r.model_id
         JOIN papers p ON p.id = r.paper_id
         LEFT JOIN ratings ra ON ra.target_id = r.target_id AND ra.paper_id = r.paper_id
         WHERE r.model_id IN (SELECT id FROM models) AND r.target_id = ? AND r.position <= ?
         ORDER BY m.name, r.position",
    )
    .bind(target.0)
    .bind(i64::try_from(k).unwrap_or(i64::MAX))
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Some(papers))
}
