//! The blind pool: which pairs the rater sees, and in which order.
//!
//! Each pair's display order comes from a random `sort_key` drawn once, when the pair enters
//! the pool, and never redrawn: the order is stable across visits, and a pair that arrives
//! later (a new model) lands at a random place among the others without moving them. The key
//! is independent of every model and rank, so the order says nothing about provenance.
//!
//! Every function here that adds or removes pairs keeps `targets.pooled` in step, in the same
//! transaction. (A trigger would do it row by row, which costs an import of a large library's
//! pools seconds; here it is one statement per few hundred targets.) The target's row must
//! exist first.

use std::collections::HashSet;

use rand::Rng;
use sqlx::{SqliteConnection, SqliteExecutor};

use crate::domain::{PaperId, PaperKey, PoolDepth};
use crate::study::db::column::{self, Stored};

/// What a change of pools did: the pairs added and removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlindPoolChange {
    pub added: u64,
    pub removed: u64,
}

/// The rule of the pool, for the pairs `pairs` selects of it: a pair stays while it is rated,
/// or while some model the pool does not leave out (see [`crate::study::db::pruning`]) ranks it in its
/// top `:depth` (bound as the study's [`PoolDepth`]); the others are deleted. Every change of a
/// pool goes by it ([`refresh_target`], [`PoolWriter::follow`]), its pairs picked by the
/// parameters before `:depth`.
macro_rules! let_go {
    ($pairs:literal) => {
        concat!(
            "DELETE FROM pool WHERE ",
            $pairs,
            " AND NOT EXISTS (SELECT 1 FROM ratings r
                         WHERE r.target_id = pool.target_id AND r.paper_id = pool.paper_id)
         AND NOT EXISTS (SELECT 1 FROM recommendations c
                         WHERE c.model_id IN (SELECT id FROM models)
                           AND c.target_id = pool.target_id AND c.position <= :depth
                           AND c.paper_id = pool.paper_id
                           AND c.model_id NOT IN (SELECT model_id FROM pool_exclusions e
                                                  WHERE e.target_id = pool.target_id))"
        )
    };
}

/// Makes the pool of `target` the union of the top `depth` of every model its pool does not
/// leave out (see [`crate::study::db::pruning`]), keeping rated pairs even when no model ranks them any
/// more, and `targets.pooled` with it (directly: see [`crate::study::db::direct`]).
pub fn refresh_target(
    conn: &rusqlite::Connection,
    target: PaperKey,
    depth: PoolDepth,
    rng: &mut impl Rng,
) -> rusqlite::Result<BlindPoolChange> {
    let wanted: HashSet<PaperKey> = (conn.prepare_cached(crate::study::db::import::TOP_PAPERS)?)
        .query_map((target.0, depth.get()), |row| column::get(row, 0))?
        .collect::<rusqlite::Result<_>>()?;
    let present: HashSet<PaperKey> = (conn
        .prepare_cached("SELECT paper_id FROM pool WHERE target_id = ?")?)
    .query_map([target.0], |row| column::get(row, 0))?
    .collect::<rusqlite::Result<_>>()?;
    let removed = conn
        .prepare_cached(let_go!("target_id = ?1"))?
        .execute((target.0, depth.get()))? as u64;
    let arriving = with_display_keys(target, wanted.difference(&present).copied(), rng);
    let mut insert =
        conn.prepare_cached("INSERT INTO pool (target_id, paper_id, sort_key) VALUES (?, ?, ?)")?;
    for (target, paper, key) in &arriving {
        insert.execute((target.0, paper.0, key))?;
    }
    let change = BlindPoolChange {
        added: arriving.len() as u64,
        removed,
    };
    conn.prepare_cached(crate::study::db::targets::ADD_POOLED)?
        .execute((target.0, change.added as i64 - change.removed as i64))?;
    Ok(change)
}

/// Changes the pools of an import's targets (directly: see [`crate::study::db::direct`]). It leaves
/// `targets.pooled` to its caller, which writes the change with the rest of the target's row
/// (see [`crate::study::db::targets::ListedTargets::register`]), in the same transaction.
pub struct PoolWriter<'c> {
    add: crate::study::db::direct::RowsInsert<'c>,
    keys: Vec<(PaperKey, i64)>,
    remove: rusqlite::Statement<'c>,
}

impl<'c> PoolWriter<'c> {
    pub fn prepare(conn: &'c rusqlite::Connection) -> rusqlite::Result<PoolWriter<'c>> {
        Ok(PoolWriter {
            add: crate::study::db::direct::RowsInsert::new(
                conn,
                "INSERT OR FAIL INTO pool (target_id, paper_id, sort_key) VALUES",
                3,
                "ON CONFLICT (target_id, paper_id) DO NOTHING",
            ),
            keys: Vec::new(),
            remove: conn.prepare(let_go!("target_id = ?1 AND paper_id = ?2"))?,
        })
    }

    /// Follows a change of the lists of `target`: `arriving` are the papers some changed list
    /// now ranks in its top `depth`, `leaving` those it ranked there before and no longer does
    /// (both sorted, without repeats). Each arriving paper not yet pooled joins the pool with
    /// a display key drawn now (a key drawn for a pair already pooled is thrown away: a key is
    /// never redrawn); each leaving one leaves it unless it is rated or another list ranks it
    /// in its top `depth`.
    pub fn follow(
        &mut self,
        target: PaperKey,
        arriving: &[PaperKey],
        leaving: &[PaperKey],
        depth: PoolDepth,
        rng: &mut impl Rng,
    ) -> rusqlite::Result<BlindPoolChange> {
        let mut change = BlindPoolChange::default();
        self.keys.clear();
        self.keys
            .extend(arriving.iter().map(|paper| (*paper, rng.random::<i64>())));
        let added = self
            .add
            .insert(&self.keys, |statement, first, (paper, key)| {
                statement.raw_bind_parameter(first, target.0)?;
                statement.raw_bind_parameter(first + 1, paper.0)?;
                statement.raw_bind_parameter(first + 2, *key)
            })?;
        change.added = added as u64;
        for paper in leaving {
            change.removed += self.remove.execute((target.0, paper.0, depth.get()))? as u64;
        }
        Ok(change)
    }
}

/// A pair entering the pool: target, paper, display key.
pub type NewPair = (PaperKey, PaperKey, i64);

/// Draws a display key for each paper arriving in the pool of `target`.
pub fn with_display_keys(
    target: PaperKey,
    papers: impl IntoIterator<Item = PaperKey>,
    rng: &mut impl Rng,
) -> Vec<NewPair> {
    let mut papers: Vec<PaperKey> = papers.into_iter().collect();
    // Sorted so that keys drawn from a seeded generator do not depend on hash order.
    papers.sort_unstable();
    papers
        .into_iter()
        .map(|paper| (target, paper, rng.random::<i64>()))
        .collect()
}

/// Adds one pair to the pool (a rating imported for a pair no model pooled), if missing,
/// and the target's row if it has none; answers whether the pair was added.
pub async fn ensure_pair(
    conn: &mut SqliteConnection,
    target: PaperKey,
    paper: PaperKey,
    rng: &mut impl Rng,
) -> Result<bool, sqlx::Error> {
    crate::study::db::targets::ensure(&mut *conn, target, rng).await?;
    let inserted =
        sqlx::query("INSERT OR IGNORE INTO pool (target_id, paper_id, sort_key) VALUES (?, ?, ?)")
            .bind(target.0)
            .bind(paper.0)
            .bind(rng.random::<i64>())
            .execute(&mut *conn)
            .await?;
    let added = inserted.rows_affected() > 0;
    if added {
        sqlx::query(crate::study::db::targets::ADD_POOLED)
            .bind(target.0)
            .bind(1)
            .execute(conn)
            .await?;
    }
    Ok(added)
}

pub async fn contains<'e, E: SqliteExecutor<'e>>(
    executor: E,
    target: PaperKey,
    paper: PaperKey,
) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pool WHERE target_id = ? AND paper_id = ?)")
        .bind(target.0)
        .bind(paper.0)
        .fetch_one(executor)
        .await
}

/// The blind pool of every target being rated, by target id and display position, with the
/// owner's stars (with raters, each rates blind in the app; the file is for another rater).
pub async fn all_rows<'e, E: SqliteExecutor<'e>>(
    executor: E,
) -> Result<Vec<ExportedPoolEntryRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT t.external_id AS target, p.external_id AS paper,
                ROW_NUMBER() OVER (PARTITION BY pool.target_id
                                   ORDER BY pool.sort_key, pool.paper_id) AS position,
                r.stars AS stars
         FROM targets s
         JOIN pool ON pool.target_id = s.target_id
         JOIN papers t ON t.id = pool.target_id
         JOIN papers p ON p.id = pool.paper_id
         LEFT JOIN ratings r ON r.target_id = pool.target_id AND r.paper_id = pool.paper_id
                            AND r.rater_id = 1
         WHERE s.active = 1
         ORDER BY t.external_id, position",
    )
    .fetch_all(executor)
    .await
}

/// A row of the blind pool as exported.
#[derive(Debug, sqlx::FromRow)]
pub struct ExportedPoolEntryRow {
    #[sqlx(try_from = "Stored<PaperId>")]
    pub target: PaperId,
    #[sqlx(try_from = "Stored<PaperId>")]
    pub paper: PaperId,
    pub position: i64,
    pub stars: Option<i64>,
}
