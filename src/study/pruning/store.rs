//! Pruning's state: whether the study prunes, the models pruned, and the models whose lists
//! each target's pool leaves out (docs/metrics.md, "The verdict").
//!
//! One rule holds after every write: a target nobody holds leaves out exactly the models pruned
//! now (none while pruning is off), and its pool is the union of the other models' top pool
//! depth; a target held keeps the exclusions its pool was built with. A target is *held* once
//! it has a rating or a rater took it (`assignments`): the pool its raters were shown never
//! changes under them, so that a page shows every paper that may be rated for the target, and
//! a paper a pruned model lists, shown to no one, is refused like any paper outside the pool
//! (one that joined the pool would tell the rater which model listed it). Pools are rebuilt
//! directly (see [`crate::study::db::direct`]), in the commands that change them.

use rand::Rng;
use sqlx::SqliteExecutor;

use crate::domain::{ModelId, PaperKey, PoolDepth};
use crate::study::db::column::{self, Stored};
use crate::study::db::pool;
use crate::study::db::pool::BlindPoolChange;

const IS_ON: &str = "SELECT pruning = 1 FROM study WHERE id = 1";

/// Whether the study prunes.
pub async fn is_on<'e, E: SqliteExecutor<'e>>(executor: E) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar(IS_ON).fetch_one(executor).await
}

/// [`is_on`], directly.
pub fn is_on_directly(conn: &rusqlite::Connection) -> rusqlite::Result<bool> {
    conn.query_row(IS_ON, [], |row| row.get(0))
}

/// Turns pruning on or off. Off forgets the models pruned: targets nobody holds then get their
/// full pools back (see [`rebuild_unheld_pools`]).
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
    let rows: Vec<(Stored<ModelId>, String)> = sqlx::query_as(
        "SELECT m.id, m.name FROM pruned_models p JOIN models m ON m.id = p.model_id
         ORDER BY m.name",
    )
    .fetch_all(executor)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(Stored(id), name)| (id, name))
        .collect())
}

/// Adds the models named `models` to the models pruned (those pruned already stay as they
/// were; a name that is no model is passed over).
pub fn add_pruned(conn: &rusqlite::Connection, models: &[String]) -> rusqlite::Result<()> {
    let now = crate::study::db::now_rfc3339();
    let mut insert = conn.prepare(
        "INSERT OR IGNORE INTO pruned_models (model_id, pruned_at)
         SELECT id, ? FROM models WHERE name = ?",
    )?;
    for name in models {
        insert.execute((&now, name))?;
    }
    Ok(())
}

/// Makes `target`, if nobody holds it (no rating, no rater took it), leave out exactly the
/// models pruned now. Call before its pool is built or refreshed.
pub fn exclude_pruned_if_unheld(
    conn: &rusqlite::Connection,
    target: PaperKey,
) -> rusqlite::Result<()> {
    const UNHELD: &str = "NOT EXISTS (SELECT 1 FROM ratings WHERE target_id = ?1)
                          AND NOT EXISTS (SELECT 1 FROM assignments WHERE target_id = ?1)";
    conn.prepare_cached(&format!(
        "DELETE FROM pool_exclusions WHERE target_id = ?1 AND {UNHELD}"
    ))?
    .execute([target.0])?;
    conn.prepare_cached(&format!(
        "INSERT INTO pool_exclusions (target_id, model_id)
         SELECT ?1, model_id FROM pruned_models WHERE {UNHELD}"
    ))?
    .execute([target.0])?;
    Ok(())
}

/// Every target's excluded models, for the targets that have any.
pub fn exclusions(conn: &rusqlite::Connection) -> rusqlite::Result<Vec<(PaperKey, ModelId)>> {
    (conn
        .prepare("SELECT target_id, model_id FROM pool_exclusions ORDER BY target_id, model_id")?)
    .query_map([], |row| Ok((column::get(row, 0)?, column::get(row, 1)?)))?
    .collect()
}

/// Brings every target being rated that nobody holds (no rating, no rater took it) back to the
/// rule: its exclusions become the models pruned now, and its pool follows (a paper it keeps keeps its place in the blind
/// order; see [`pool::refresh_target`]). Nothing to do, and one cheap query, while no
/// model is pruned and no pool leaves one out.
pub fn rebuild_unheld_pools(
    conn: &rusqlite::Connection,
    depth: PoolDepth,
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
         WHERE t.active = 1 AND t.rated = 0 AND t.raters = 0
           AND (EXISTS (SELECT model_id FROM pruned_models
                        EXCEPT SELECT model_id FROM pool_exclusions e
                               WHERE e.target_id = t.target_id)
                OR EXISTS (SELECT model_id FROM pool_exclusions e WHERE e.target_id = t.target_id
                           EXCEPT SELECT model_id FROM pruned_models))
         ORDER BY t.target_id",
    )?)
    .query_map([], |row| column::get(row, 0))?
    .collect::<rusqlite::Result<_>>()?;
    for target in out_of_rule {
        exclude_pruned_if_unheld(conn, target)?;
        let refreshed = pool::refresh_target(conn, target, depth, rng)?;
        change.added += refreshed.added;
        change.removed += refreshed.removed;
    }
    Ok(change)
}
