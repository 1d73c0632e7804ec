//! Study-wide settings and counts.

use rand::Rng;
use serde::Serialize;
use sqlx::SqlitePool;

use crate::domain::PoolDepth;

pub(crate) async fn ensure_exists(pool: &SqlitePool) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT OR IGNORE INTO study (id, pool_depth, created_at) VALUES (1, ?, ?)")
        .bind(i64::from(PoolDepth::DEFAULT.get()))
        .bind(super::now_rfc3339())
        .execute(pool)
        .await?;
    let has_secret: bool =
        sqlx::query_scalar("SELECT form_secret IS NOT NULL FROM study WHERE id = 1")
            .fetch_one(pool)
            .await?;
    if !has_secret {
        let secret: [u8; FORM_SECRET_BYTES] = rand::rng().random();
        sqlx::query("UPDATE study SET form_secret = ? WHERE id = 1 AND form_secret IS NULL")
            .bind(&secret[..])
            .execute(pool)
            .await?;
    }
    Ok(())
}

/// 256 bits, the size of the HMAC-SHA256 output it keys.
const FORM_SECRET_BYTES: usize = 32;

/// The study's secret for signing the forms' CSRF tokens (made when the study was opened).
pub async fn form_secret<'e, E>(executor: E) -> Result<Vec<u8>, sqlx::Error>
where
    E: sqlx::SqliteExecutor<'e>,
{
    sqlx::query_scalar("SELECT form_secret FROM study WHERE id = 1 AND form_secret IS NOT NULL")
        .fetch_one(executor)
        .await
}

pub async fn pool_depth<'e, E>(executor: E) -> Result<PoolDepth, sqlx::Error>
where
    E: sqlx::SqliteExecutor<'e>,
{
    let depth: i64 = sqlx::query_scalar("SELECT pool_depth FROM study WHERE id = 1")
        .fetch_one(executor)
        .await?;
    // The CHECK constraint of the schema keeps the stored value in range.
    Ok(PoolDepth::new(depth).unwrap_or(PoolDepth::DEFAULT))
}

/// Why the pool depth could not be changed.
#[derive(Debug, thiserror::Error)]
pub enum SetPoolDepthError {
    #[error(
        "the pool depth is {current} and cannot change to {requested}: the study already holds \
         recommendations (start a new study file with --db to use another depth)"
    )]
    FixedByRecommendations {
        current: PoolDepth,
        requested: PoolDepth,
    },
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// Sets the pool depth, which is allowed only while the study has no recommendations.
pub async fn set_pool_depth(pool: &SqlitePool, depth: PoolDepth) -> Result<(), SetPoolDepthError> {
    let mut tx = pool.begin().await?;
    let current = pool_depth(&mut *tx).await?;
    if current == depth {
        return Ok(());
    }
    let has_recommendations: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM recommendations)")
            .fetch_one(&mut *tx)
            .await?;
    if has_recommendations {
        return Err(SetPoolDepthError::FixedByRecommendations {
            current,
            requested: depth,
        });
    }
    sqlx::query("UPDATE study SET pool_depth = ? WHERE id = 1")
        .bind(i64::from(depth.get()))
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// The counts `paperjudge status` prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StudyStatus {
    pub papers: i64,
    pub models: i64,
    pub targets: i64,
    pub recommendations: i64,
    pub pooled_pairs: i64,
    pub rated_pairs: i64,
    pub targets_finished: i64,
    pub pool_depth: u32,
}

pub async fn status(pool: &SqlitePool) -> Result<StudyStatus, sqlx::Error> {
    let (papers, models, targets, recommendations, pooled_pairs, rated_pairs, targets_finished): (
        i64,
        i64,
        i64,
        i64,
        i64,
        i64,
        i64,
    ) = sqlx::query_as(
        "SELECT
            (SELECT COUNT(*) FROM papers),
            (SELECT COUNT(*) FROM models),
            (SELECT COUNT(DISTINCT target_id) FROM pool),
            (SELECT COUNT(*) FROM recommendations),
            (SELECT COUNT(*) FROM pool),
            (SELECT COUNT(*) FROM pool JOIN ratings USING (target_id, paper_id)),
            (SELECT COUNT(*) FROM (
                SELECT p.target_id FROM pool p
                LEFT JOIN ratings r USING (target_id, paper_id)
                GROUP BY p.target_id HAVING COUNT(r.stars) = COUNT(*)))",
    )
    .fetch_one(pool)
    .await?;
    Ok(StudyStatus {
        papers,
        models,
        targets,
        recommendations,
        pooled_pairs,
        rated_pairs,
        targets_finished,
        pool_depth: pool_depth(pool).await?.get(),
    })
}
