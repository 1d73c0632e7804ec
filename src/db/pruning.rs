//! Pruning's state: whether the study prunes, the models pruned, and the models whose lists
//! each target's pool leaves out (docs/metrics.md, "The verdict").
//!
//! One rule holds after every write: a target without a rating leaves out exactly the models
//! pruned now (none while pruning is off), and its pool is the union of the other models' top
//! pool depth; a target with a rating keeps the exclusions its pool was built with. Pools are
//! rebuilt directly (see [`super::direct`]), in the commands that change them.

use rand::Rng;
use sqlx::{SqliteConnection, SqliteExecutor};

use super::blind_pool::{self, BlindPoolChange};
use crate::domain::{ModelId, PaperKey};

const IS_ON: &str = "SELECT pruning = 1 FROM study WHERE id = 1";

/// Whether pruning took `paper` out of the pool of `target`: a model the target's pool leaves
/// out lists the paper in its top `depth`. A rater whose page of the target was open before the
/// pool shrank still sees the paper, and may rate it (see `Study::rate`).
pub async fn pruned_away(
    conn: &mut SqliteConnection,
    target: PaperKey,
    paper: PaperKey,
    depth: u32,
) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM recommendations r
                        JOIN pool_exclusions e ON e.target_id = r.target_id
                                              AND e.model_id = r.model_id
                        WHERE r.target_id = ?1 AND r.paper_id = ?2 AND r.position <= ?3)",
    )
    .bind(target.0)
    .bind(paper.0)
    .bind(i64::from(depth))
    .fetch_one(conn)
    .await
}

/// Whether the study prunes.
pub async fn is_on<'e, E: SqliteExecutor<'e>>(executor: E) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar(IS_ON).fetch_one(executor).await
}

/// [`is_on`], directly.
pub fn is_on_directly(conn: &rusqlite::Connection) -> rusqlite::Result<bool> {
    conn.query_row(IS_ON, [], |row| row.get(0))
}

/// Turns pruning on or off. Off forgets the models pruned: targets without a rating then get
/// their full pools back (see [`rebuild_unrated_pools`]).
pub fn set(conn: &rusqlite::Connection, on: bool) -> rusqlite::Result<()> {
    conn.execute("UPDATE study SET pruning = ? WHERE id = 1", [on])?;
    if !on {
        conn.execute("DELETE FROM pruned_models", [])?;
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
pub fn add_pruned(conn: &rusqlite::Connection, models: &[String]) -> rusqlite::Result<()> {
    let now = super::now_rfc3339();
    let mut insert = conn.prepare(
        "INSERT OR IGNORE INTO pruned_models (model_id, pruned_at)
         SELECT id, ? FROM models WHERE name = ?",
    )?;
    for name in models {
        insert.execute((&now, name))?;
    }
    Ok(())
}

/// Makes `target`, if it has no rating, leave out exactly the models pruned now. Call before
/// its pool is built or refreshed.
pub fn exclude_pruned_if_unrated(
    conn: &rusqlite::Connection,
    target: PaperKey,
) -> rusqlite::Result<()> {
    const UNRATED: &str = "NOT EXISTS (SELECT 1 FROM ratings WHERE target_id = ?1)";
    conn.prepare_cached(&format!(
        "DELETE FROM pool_exclusions WHERE target_id = ?1 AND {UNRATED}"
    ))?
    .execute([target.0])?;
    conn.prepare_cached(&format!(
        "INSERT INTO pool_exclusions (target_id, model_id)
         SELECT ?1, model_id FROM pruned_models WHERE {UNRATED}"
    ))?
    .execute([target.0])?;
    Ok(())
}

/// Every target's excluded models, for the targets that have any.
pub fn exclusions(conn: &rusqlite::Connection) -> rusqlite::Result<Vec<(PaperKey, ModelId)>> {
    (conn
        .prepare("SELECT target_id, model_id FROM pool_exclusions ORDER BY target_id, model_id")?)
    .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
    .collect()
}

/// Brings every target being rated that has no rating back to the rule: its exclusions become
/// the models pruned now, and its pool follows (a paper it keeps keeps its place in the blind
/// order; see [`blind_pool::refresh_target`]). Nothing to do, and one cheap query, while no
/// model is pruned and no pool leaves one out.
pub fn rebuild_unrated_pools(
    conn: &rusqlite::Connection,
    depth: u32,
    rng: &mut impl Rng,
) -> rusqlite::Result<BlindPoolChange> {
    let mut change = BlindPoolChange::default();
    let anything: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM pruned_models) OR EXISTS (SELECT 1 FROM pool_exclusions)",
        [],
        |row| row.get(0),
    )?;
    if !anything {
        return Ok(change);
    }
    let out_of_rule: Vec<PaperKey> = (conn.prepare(
        "SELECT t.target_id FROM targets t
         WHERE t.active = 1 AND t.rated = 0
           AND (EXISTS (SELECT model_id FROM pruned_models
                        EXCEPT SELECT model_id FROM pool_exclusions e
                               WHERE e.target_id = t.target_id)
                OR EXISTS (SELECT model_id FROM pool_exclusions e WHERE e.target_id = t.target_id
                           EXCEPT SELECT model_id FROM pruned_models))
         ORDER BY t.target_id",
    )?)
    .query_map([], |row| row.get(0))?
    .collect::<rusqlite::Result<_>>()?;
    for target in out_of_rule {
        exclude_pruned_if_unrated(conn, target)?;
        let refreshed = blind_pool::refresh_target(conn, target, depth, rng)?;
        change.added += refreshed.added;
        change.removed += refreshed.removed;
    }
    Ok(change)
}
