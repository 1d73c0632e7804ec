//! What the evaluation layer reads: models, rated targets, ratings and the top of every list.
//!
//! Lists and judgments come aggregated, one row per target: a study holds millions of list
//! entries, and rows, not bytes, are what a query costs through the driver.

use sqlx::SqlitePool;

/// A study as the metrics need it, in plain row ids.
#[derive(Debug, Default)]
pub struct EvaluationData {
    /// (model id, name), by name.
    pub models: Vec<(i64, String)>,
    /// Every target rated now, with ratings or not.
    pub target_count: usize,
    /// The targets rated now that have some but not all pooled pairs rated.
    pub partly_rated: usize,
    /// Each target to evaluate: id, external id, its ratings as `code,…` with one code per
    /// rated paper: paper id × 8 + stars (see [`rating_code`]), and whether it is only partly
    /// rated.
    pub rated_targets: Vec<(i64, String, String, bool)>,
    /// The lists of each target to evaluate: target id, and `model papers;…` with the first
    /// `depth` papers of each list in ranked order, as `paper,…`.
    pub lists: Vec<(i64, String)>,
}

/// Splits a rating code of [`EvaluationData::rated_targets`] into paper id and stars. One
/// integer per rating is half the text conversions of a `paper:stars` pair.
pub fn rating_code(code: i64) -> (i64, i64) {
    (code >> 3, code & 7)
}

/// Reads what the evaluation of the targets rated now needs: those fully rated, and with
/// `include_partial` also those with at least one rating.
pub async fn load(
    pool: &SqlitePool,
    depth: usize,
    include_partial: bool,
) -> Result<EvaluationData, sqlx::Error> {
    // The models, the counts and the ratings come from one read transaction, the same
    // snapshot while raters keep rating.
    let mut tx = pool.begin().await?;
    let models = sqlx::query_as("SELECT id, name FROM models ORDER BY name")
        .fetch_all(&mut *tx)
        .await?;
    let (target_count, partly_rated): (i64, i64) = sqlx::query_as(
        "SELECT COUNT(*), COALESCE(SUM(rated > 0 AND rated < pooled), 0)
         FROM targets WHERE active = 1",
    )
    .fetch_one(&mut *tx)
    .await?;
    let rated_targets: Vec<(i64, String, String, bool)> = sqlx::query_as(
        "SELECT r.target_id, t.external_id, GROUP_CONCAT(r.paper_id * 8 + r.stars),
                s.rated < s.pooled
         FROM targets s
         JOIN ratings r ON r.target_id = s.target_id
         JOIN papers t ON t.id = s.target_id
         WHERE s.active = 1 AND s.rated > 0 AND (s.rated = s.pooled OR ?)
         GROUP BY r.target_id ORDER BY t.external_id",
    )
    .bind(include_partial)
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    // The lists of exactly the targets evaluated in that snapshot are most of the reading:
    // two connections read half of them each.
    let targets: Vec<i64> = rated_targets.iter().map(|(target, ..)| *target).collect();
    let (first_half, second_half) = targets.split_at(targets.len() / 2);
    let (mut lists, more_lists) = tokio::try_join!(
        lists_of(pool, first_half, depth),
        lists_of(pool, second_half, depth)
    )?;
    lists.extend(more_lists);
    Ok(EvaluationData {
        models,
        target_count: usize::try_from(target_count).unwrap_or_default(),
        partly_rated: usize::try_from(partly_rated).unwrap_or_default(),
        rated_targets,
        lists,
    })
}

/// The lists of `targets`, as [`EvaluationData::lists`] holds them.
async fn lists_of(
    pool: &SqlitePool,
    targets: &[i64],
    depth: usize,
) -> Result<Vec<(i64, String)>, sqlx::Error> {
    if targets.is_empty() {
        return Ok(Vec::new());
    }
    let targets =
        serde_json::to_string(targets).map_err(|error| sqlx::Error::Encode(error.into()))?;
    // Naming every model lets SQLite seek straight to the top of each list. One row per
    // target: each row costs a hand-over between the driver's threads. (An ORDER BY inside
    // GROUP_CONCAT needs SQLite 3.44; sqlx bundles a newer one.)
    let sql = "SELECT target_id, GROUP_CONCAT(model_id || ' ' || papers, ';')
         FROM (SELECT target_id, model_id, GROUP_CONCAT(paper_id ORDER BY position) AS papers
               FROM recommendations
               WHERE target_id IN (SELECT value FROM json_each(?))
                 AND model_id IN (SELECT id FROM models) AND position <= ?
               GROUP BY target_id, model_id)
         GROUP BY target_id";
    sqlx::query_as(sql)
        .bind(targets)
        .bind(i64::try_from(depth).unwrap_or(i64::MAX))
        .fetch_all(pool)
        .await
}

/// The targets of the decision: how many targets with a pool the study rates (the
/// population the rated ones are drawn from), and the fully rated ones in the order they
/// were completed, each at the moment its last pooled pair was first rated (a later change
/// of a rating does not move it), ties in the study's random order.
pub async fn completion_order(pool: &SqlitePool) -> Result<(usize, Vec<i64>), sqlx::Error> {
    let mut tx = pool.begin().await?;
    let population: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM targets WHERE active = 1 AND pooled > 0")
            .fetch_one(&mut *tx)
            .await?;
    let completed = sqlx::query_scalar(
        "SELECT t.target_id
         FROM targets t
         LEFT JOIN (SELECT first.target_id, MAX(first.id) AS completed
                    FROM (SELECT target_id, paper_id, MIN(id) AS id FROM rating_history
                          WHERE stars IS NOT NULL GROUP BY target_id, paper_id) first
                    JOIN pool p ON p.target_id = first.target_id AND p.paper_id = first.paper_id
                    GROUP BY first.target_id) c ON c.target_id = t.target_id
         WHERE t.active = 1 AND t.pooled > 0 AND t.rated = t.pooled
         ORDER BY c.completed NULLS LAST, t.order_key, t.target_id",
    )
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok((usize::try_from(population).unwrap_or_default(), completed))
}
