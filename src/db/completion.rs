//! The order the verdict watches the targets in: the fully rated targets as they were
//! completed (see [`crate::decision`]).

use sqlx::SqliteExecutor;

use crate::domain::PaperId;

/// The targets being rated with every pooled pair rated, in the order they were completed:
/// each at the moment its last pooled pair was first rated (a later change of a rating does
/// not move it), ties in the study's random order.
pub async fn completion_order<'e, E: SqliteExecutor<'e>>(
    executor: E,
) -> Result<Vec<PaperId>, sqlx::Error> {
    // Only the history of the fully rated targets is read: the first rating of each pair,
    // then the last of those over the pairs of the pool. (A LEFT JOIN of the targets to that
    // aggregate would have SQLite scan the aggregate once per target.)
    sqlx::query_scalar(
        "SELECT first.target_id
         FROM (SELECT target_id, paper_id, MIN(id) AS id FROM rating_history
               WHERE target_id IN (SELECT target_id FROM targets
                                   WHERE active = 1 AND pooled > 0 AND rated = pooled)
                 AND stars IS NOT NULL
               GROUP BY target_id, paper_id) first
         JOIN pool USING (target_id, paper_id)
         JOIN targets USING (target_id)
         GROUP BY first.target_id
         ORDER BY MAX(first.id), targets.order_key, first.target_id",
    )
    .fetch_all(executor)
    .await
}
