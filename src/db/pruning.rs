//! Pruning's state: whether the study prunes, the models pruned, and the models whose lists
//! each target's pool leaves out (docs/metrics.md, "The verdict").
//!
//! One rule holds after every write: a target without a rating leaves out exactly the models
//! pruned now (none while pruning is off), and its pool is the union of the other models' top
//! pool depth; a target with a rating keeps the exclusions its pool was built with.

use rand::Rng;
use sqlx::{SqliteConnection, SqliteExecutor};

use super::blind_pool::{self, BlindPoolChange};
use crate::domain::{ModelId, PaperId};

/// Whether the study prunes.
pub async fn is_on<'e, E: SqliteExecutor<'e>>(executor: E) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar("SELECT pruning = 1 FROM study WHERE id = 1")
        .fetch_one(executor)
        .await
}

/// Turns pruning on or off. Off forgets the models pruned: targets without a rating then get
/// their full pools back (see [`rebuild_unrated_pools`]).
pub async fn set(conn: &mut SqliteConnection, on: bool) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE study SET pruning = ? WHERE id = 1")
        .bind(on)
        .execute(&mut *conn)
        .await?;
    if !on {
        sqlx::query("DELETE FROM pruned_models")
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// The models pruned, by name.
pub async fn pruned<'e, E: SqliteExecutor<'e>>(
    executor: E,
) -> Result<Vec<(ModelId, String)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT m.id, m.name FROM pruned_models p JOIN models m ON m.id = p.model_id
         ORDER BY m.name",
    )
    .fetch_all(executor)
    .await
}

/// Adds the models named `models` to the models pruned (those pruned already stay as they
/// were; a name that is no model is passed over).
pub async fn add_pruned(conn: &mut SqliteConnection, models: &[String]) -> Result<(), sqlx::Error> {
    let now = super::now_rfc3339();
    for name in models {
        sqlx::query(
            "INSERT OR IGNORE INTO pruned_models (model_id, pruned_at)
             SELECT id, ? FROM models WHERE name = ?",
        )
        .bind(&now)
        .bind(name)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// Makes `target`, if it has no rating, leave out exactly the models pruned now. Call before
/// its pool is built or refreshed.
pub async fn exclude_pruned_if_unrated(
    conn: &mut SqliteConnection,
    target: PaperId,
) -> Result<(), sqlx::Error> {
    const UNRATED: &str = "NOT EXISTS (SELECT 1 FROM ratings WHERE target_id = ?1)";
    sqlx::query(&format!(
        "DELETE FROM pool_exclusions WHERE target_id = ?1 AND {UNRATED}"
    ))
    .bind(target.0)
    .execute(&mut *conn)
    .await?;
    sqlx::query(&format!(
        "INSERT INTO pool_exclusions (target_id, model_id)
         SELECT ?1, model_id FROM pruned_models WHERE {UNRATED}"
    ))
    .bind(target.0)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Every target's excluded models, for the targets that have any.
pub async fn exclusions<'e, E: SqliteExecutor<'e>>(
    executor: E,
) -> Result<Vec<(PaperId, ModelId)>, sqlx::Error> {
    sqlx::query_as("SELECT target_id, model_id FROM pool_exclusions ORDER BY target_id, model_id")
        .fetch_all(executor)
        .await
}

/// Brings every target being rated that has no rating back to the rule: its exclusions become
/// the models pruned now, and its pool follows (a paper it keeps keeps its place in the blind
/// order; see [`blind_pool::refresh_target`]). Nothing to do, and one cheap query, while no
/// model is pruned and no pool leaves one out.
pub async fn rebuild_unrated_pools(
    conn: &mut SqliteConnection,
    depth: u32,
    rng: &mut impl Rng,
) -> Result<BlindPoolChange, sqlx::Error> {
    let mut change = BlindPoolChange::default();
    let anything: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM pruned_models) OR EXISTS (SELECT 1 FROM pool_exclusions)",
    )
    .fetch_one(&mut *conn)
    .await?;
    if !anything {
        return Ok(change);
    }
    let out_of_rule: Vec<PaperId> = sqlx::query_scalar(
        "SELECT t.target_id FROM targets t
         WHERE t.active = 1 AND t.rated = 0
           AND (EXISTS (SELECT model_id FROM pruned_models
                        EXCEPT SELECT model_id FROM pool_exclusions e
                               WHERE e.target_id = t.target_id)
                OR EXISTS (SELECT model_id FROM pool_exclusions e WHERE e.target_id = t.target_id
                           EXCEPT SELECT model_id FROM pruned_models))
         ORDER BY t.target_id",
    )
    .fetch_all(&mut *conn)
    .await?;
    for target in out_of_rule {
        exclude_pruned_if_unrated(conn, target).await?;
        let refreshed = blind_pool::refresh_target(conn, target, depth, rng).await?;
        change.added += refreshed.added;
        change.removed += refreshed.removed;
    }
    Ok(change)
}
