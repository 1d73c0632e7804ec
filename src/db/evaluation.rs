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
    /// Every target of the study (every paper with a pool), rated or not.
    pub target_count: usize,
    /// Each rated target: id, external id, and its ratings as `code,…` with one code per
    /// rated paper: paper id × 8 + stars (see [`rating_code`]).
    pub rated_targets: Vec<(i64, String, String)>,
    /// The lists of each rated target: target id, and `model papers;…` with the first
    /// `depth` papers of each list in ranked order, as `paper,…`.
    pub lists: Vec<(i64, String)>,
}

/// Splits a rating code of [`EvaluationData::rated_targets`] into paper id and stars. One
/// integer per rating is half the text conversions of a `paper:stars` pair.
pub fn rating_code(code: i64) -> (i64, i64) {
    (code >> 3, code & 7)
}

pub async fn load(pool: &SqlitePool, depth: usize) -> Result<EvaluationData, sqlx::Error> {
    // The models and the ratings come from one read transaction, the same snapshot while
    // raters keep rating; another connection counts the targets (which only imports change)
    // meanwhile.
    let snapshot = async {
        let mut tx = pool.begin().await?;
        let models = sqlx::query_as("SELECT id, name FROM models ORDER BY name")
            .fetch_all(&mut *tx)
            .await?;
        let rated_targets: Vec<(i64, String, String)> = sqlx::query_as(
            "SELECT r.target_id, t.external_id, GROUP_CONCAT(r.paper_id * 8 + r.stars)
             FROM ratings r JOIN papers t ON t.id = r.target_id
             GROUP BY r.target_id ORDER BY t.external_id",
        )
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok::<_, sqlx::Error>((models, rated_targets))
    };
    let count =
        sqlx::query_scalar::<_, i64>("SELECT COUNT(DISTINCT target_id) FROM pool").fetch_one(pool);
    let ((models, rated_targets), target_count) = tokio::try_join!(snapshot, count)?;
    // The lists of exactly the targets rated in that snapshot (unrated targets are not
    // evaluated) are most of the reading: two connections read half of them each.
    let targets: Vec<i64> = rated_targets.iter().map(|(target, _, _)| *target).collect();
    let (first_half, second_half) = targets.split_at(targets.len() / 2);
    let (mut lists, more_lists) = tokio::try_join!(
        lists_of(pool, first_half, depth),
        lists_of(pool, second_half, depth)
    )?;
    lists.extend(more_lists);
    Ok(EvaluationData {
        models,
        target_count: usize::try_from(target_count).unwrap_or_default(),
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
