//! Targets as the rating pages see them: their progress, their pooled papers in blind order,
//! and which one to rate next.
//!
//! A target is a paper with a pool. Targets are listed in the order their papers were first
//! imported (`papers.id`), which follows the researcher's own papers file.

use serde::Serialize;
use sqlx::{FromRow, SqliteConnection, SqliteExecutor};

use super::papers::Paper;
use crate::domain::PaperKey;

/// How much of a pool is rated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Progress {
    pub rated: i64,
    pub total: i64,
}

impl Progress {
    pub fn is_finished(&self) -> bool {
        self.rated == self.total
    }

    /// Whole percent rated, rounded down so that 100 means every pair.
    pub fn percent(&self) -> i64 {
        if self.total == 0 {
            0
        } else {
            self.rated * 100 / self.total
        }
    }
}

/// One target with the progress of its pool.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct TargetSummary {
    pub id: i64,
    pub external_id: String,
    pub title: String,
    pub rated: i64,
    pub total: i64,
}

impl TargetSummary {
    pub fn progress(&self) -> Progress {
        Progress {
            rated: self.rated,
            total: self.total,
        }
    }
}

/// Every target, in import order.
pub async fn all<'e, E: SqliteExecutor<'e>>(
    executor: E,
) -> Result<Vec<TargetSummary>, sqlx::Error> {
    sqlx::query_as(
        "SELECT t.id, t.external_id, t.title, COUNT(r.stars) AS rated, COUNT(*) AS total
         FROM pool p
         JOIN papers t ON t.id = p.target_id
         LEFT JOIN ratings r ON r.target_id = p.target_id AND r.paper_id = p.paper_id
         GROUP BY t.id
         ORDER BY t.id",
    )
    .fetch_all(executor)
    .await
}

/// The progress of one target; `None` when the paper has no pool (is no target).
pub async fn progress<'e, E: SqliteExecutor<'e>>(
    executor: E,
    target: PaperKey,
) -> Result<Option<Progress>, sqlx::Error> {
    let (rated, total): (i64, i64) = sqlx::query_as(
        "SELECT COUNT(r.stars), COUNT(*)
         FROM pool p LEFT JOIN ratings r USING (target_id, paper_id)
         WHERE p.target_id = ?",
    )
    .bind(target.0)
    .fetch_one(executor)
    .await?;
    Ok((total > 0).then_some(Progress { rated, total }))
}

/// A pooled paper with its current rating, as the rating page lists it.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct PooledPaper {
    #[sqlx(flatten)]
    pub paper: Paper,
    pub stars: Option<i64>,
}

/// The pool of `target` in the blind display order; empty when the paper is no target.
pub async fn pooled_papers<'e, E: SqliteExecutor<'e>>(
    executor: E,
    target: PaperKey,
) -> Result<Vec<PooledPaper>, sqlx::Error> {
    sqlx::query_as(
        "SELECT p.id, p.external_id, p.title, p.abstract, p.authors, p.year, p.url, r.stars
         FROM pool
         JOIN papers p ON p.id = pool.paper_id
         LEFT JOIN ratings r ON r.target_id = pool.target_id AND r.paper_id = pool.paper_id
         WHERE pool.target_id = ?
         ORDER BY pool.sort_key, pool.paper_id",
    )
    .bind(target.0)
    .fetch_all(executor)
    .await
}

/// The first target, in import order, that has unrated pairs.
pub async fn first_with_unrated<'e, E: SqliteExecutor<'e>>(
    executor: E,
) -> Result<Option<PaperKey>, sqlx::Error> {
    let target: Option<i64> = sqlx::query_scalar(
        "SELECT p.target_id
         FROM pool p LEFT JOIN ratings r USING (target_id, paper_id)
         WHERE r.stars IS NULL
         ORDER BY p.target_id
         LIMIT 1",
    )
    .fetch_optional(executor)
    .await?;
    Ok(target.map(PaperKey))
}

/// The next target after `current` with unrated pairs, wrapping around to the first;
/// never `current` itself.
pub async fn next_with_unrated(
    conn: &mut SqliteConnection,
    current: PaperKey,
) -> Result<Option<PaperKey>, sqlx::Error> {
    // Two scans in the pool's key order, each stopping at the first unrated pair: the one
    // ORDER BY that puts later targets first would sort the whole pool on every page view.
    let after = first_unrated_between(&mut *conn, current.0 + 1, i64::MAX).await?;
    match after {
        Some(target) => Ok(Some(target)),
        None => first_unrated_between(conn, i64::MIN, current.0 - 1).await,
    }
}

/// The first target with an id in `low..=high` that has unrated pairs.
async fn first_unrated_between(
    conn: &mut SqliteConnection,
    low: i64,
    high: i64,
) -> Result<Option<PaperKey>, sqlx::Error> {
    let target: Option<i64> = sqlx::query_scalar(
        "SELECT p.target_id
         FROM pool p LEFT JOIN ratings r USING (target_id, paper_id)
         WHERE r.stars IS NULL AND p.target_id BETWEEN ? AND ?
         ORDER BY p.target_id
         LIMIT 1",
    )
    .bind(low)
    .bind(high)
    .fetch_optional(conn)
    .await?;
    Ok(target.map(PaperKey))
}
