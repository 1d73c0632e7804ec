//! The one read of the models' lists of a single target, for the per-target view of the
//! leaderboard, which shows each paper with its judgment.
//!
//! Seeing which model ranked which paper, and how a paper was rated, unblinds the target. Once
//! it is fully rated that can no longer bias a rating of it, so the read refuses any target
//! before then.

use crate::study::ListedPaper;
use sqlx::SqlitePool;

use super::targets;
use crate::domain::PaperKey;

/// Every model's top `k` for `target`, by model name and position; `None` unless the target
/// is fully rated.
pub async fn top_lists(
    connections: &SqlitePool,
    target: PaperKey,
    k: usize,
) -> Result<Option<Vec<ListedPaper>>, sqlx::Error> {
    // One read transaction: the lists are read from the same snapshot the check saw.
    let mut tx = connections.begin().await?;
    if !targets::is_fully_rated(&mut *tx, target).await? {
        return Ok(None);
    }
    let papers = sqlx::query_as(
        "SELECT m.name AS model, r.position, p.id AS key, p.external_id AS paper, p.title
         FROM recommendations r
         JOIN models m ON m.id = r.model_id
         JOIN papers p ON p.id = r.paper_id
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::PaperId;
    use crate::study::db::{papers, small_study};

    /// The per-target view's lists are refused by the data layer too, whoever asks, until the
    /// target is fully rated.
    #[tokio::test]
    async fn the_lists_of_a_target_not_fully_rated_are_not_read() {
        let dir = tempfile::tempdir().expect("a directory");
        let study = small_study(dir.path()).await;
        let connections = &study.connections;
        let key = async |id: &str| {
            (papers::id_of(connections, &PaperId::given(id)).await)
                .expect("read")
                .expect("a paper")
        };
        let (t1, t2) = (key("T1").await, key("T2").await);
        assert_eq!(top_lists(connections, t2, 8).await.expect("read"), None);
        let t1_lists = top_lists(connections, t1, 8).await.expect("read");
        assert_eq!(t1_lists.map(|lists| lists.len()), Some(3));
    }
}
