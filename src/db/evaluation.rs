//! What the evaluation layer reads: models, targets, ratings and the top of every list.

use sqlx::SqlitePool;

/// A study as the metrics need it, in plain row ids.
#[derive(Debug, Default)]
pub struct EvaluationData {
    /// (model id, name), by name.
    pub models: Vec<(i64, String)>,
    /// (target id, external id), by external id: every target with a pool.
    pub targets: Vec<(i64, String)>,
    /// (target id, paper id, stars).
    pub ratings: Vec<(i64, i64, i64)>,
    /// (target id, model id, paper id) of the first `depth` positions of every list of a
    /// rated target, best first within each list.
    pub list_entries: Vec<(i64, i64, i64)>,
}

pub async fn load(pool: &SqlitePool, depth: usize) -> Result<EvaluationData, sqlx::Error> {
    let mut conn = pool.begin().await?;
    let models = sqlx::query_as("SELECT id, name FROM models ORDER BY name")
        .fetch_all(&mut *conn)
        .await?;
    let targets = sqlx::query_as(
        "SELECT t.id, t.external_id FROM (SELECT DISTINCT target_id FROM pool) p
         JOIN papers t ON t.id = p.target_id ORDER BY t.external_id",
    )
    .fetch_all(&mut *conn)
    .await?;
    let ratings = sqlx::query_as("SELECT target_id, paper_id, stars FROM ratings")
        .fetch_all(&mut *conn)
        .await?;
    // Unrated targets are not evaluated, so their lists are not read.
    let list_entries = sqlx::query_as(
        "SELECT target_id, model_id, paper_id FROM recommendations
         WHERE target_id IN (SELECT DISTINCT target_id FROM ratings) AND position <= ?
         ORDER BY target_id, model_id, position",
    )
    .bind(i64::try_from(depth).unwrap_or(i64::MAX))
    .fetch_all(&mut *conn)
    .await?;
    conn.commit().await?;
    Ok(EvaluationData {
        models,
        targets,
        ratings,
        list_entries,
    })
}
