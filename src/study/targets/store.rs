//! Targets: which papers the study rates now, their progress, their pooled papers in blind
//! order, and which one to rate next.
//!
//! The `targets` table holds one row per paper that is or could be a target: it has lists,
//! a pool, or was chosen. A row is *active* when the study rates it now: every candidate (a
//! paper with lists) while the study rates all of them, else the chosen ones. Every view of
//! rating progress reads the active rows only, with the counts kept on them, so that no page
//! scans the pool of a large library.
//!
//! Targets are listed in the order their papers were first imported (`papers.id`), which
//! follows the researcher's own papers file; `/next` offers them in a random order fixed
//! once per target (`order_key`).

use rand::Rng;
use sqlx::{FromRow, SqliteConnection, SqliteExecutor};

use crate::domain::{PaperId, PaperKey, Progress, RaterId, RaterName, TargetChoice};
use crate::study::db;
use crate::study::db::column::{self, Stored};
use crate::study::db::papers::PaperRow;

/// Which active targets to list, and which page of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listing {
    /// Leave out the finished targets.
    pub only_unfinished: bool,
    pub offset: i64,
    pub limit: i64,
}

/// A rater's part of the study: the targets they took, their ratings of them against the
/// pairs pooled, and how many of them they rated whole. Only the rater's own doings move these
/// counts: a target they took keeps its pool (see [`super::pruning`]), and the targets others
/// take are not counted. `more_to_rate`: some target still needs them (one of theirs not
/// rated whole, or one still needing a rater), as `/next` would find.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RaterOverview {
    pub pairs: Progress,
    pub finished: i64,
    pub targets: i64,
    pub more_to_rate: bool,
}

/// The targets of the study at a glance: which it rates and how far it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overview {
    pub choice: TargetChoice,
    /// The targets rated now.
    pub active: i64,
    /// Papers with recommendations, chosen or not.
    pub candidates: i64,
    /// Pooled and rated pairs of the active targets.
    pub pairs: Progress,
    /// Active targets fully rated: every pooled pair rated by every rater it needs.
    pub finished: i64,
    /// Active targets with a rating, not fully rated.
    pub partly_rated: i64,
    /// Active targets without a pool: chosen before any model recommended for them.
    pub without_pool: i64,
}

/// The study's stored choice (`study.target_choice`) as a [`TargetChoice`].
pub(in crate::study) fn choice_of(text: &str) -> TargetChoice {
    // The schema's CHECK constraint allows only these two.
    if text == "chosen" {
        TargetChoice::Chosen
    } else {
        TargetChoice::All
    }
}

/// How the study decides which targets it rates (directly: see [`crate::study::db::direct`]).
pub fn choice(conn: &rusqlite::Connection) -> rusqlite::Result<TargetChoice> {
    let text: String =
        conn.query_row("SELECT target_choice FROM study WHERE id = 1", [], |row| {
            row.get(0)
        })?;
    Ok(choice_of(&text))
}

pub fn set_choice(conn: &rusqlite::Connection, choice: TargetChoice) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE study SET target_choice = ? WHERE id = 1",
        [choice.as_str()],
    )?;
    Ok(())
}

/// The overview from the row of [`OVERVIEW`].
pub(in crate::study) fn overview_of(row: OverviewRow) -> Overview {
    let (choice, active, candidates, pooled, rated, finished, partly_rated, without_pool) = row;
    Overview {
        choice: choice_of(&choice),
        active,
        candidates,
        pairs: Progress {
            rated,
            total: pooled,
        },
        finished,
        partly_rated,
        without_pool,
    }
}

pub async fn overview<'e, E: SqliteExecutor<'e>>(executor: E) -> Result<Overview, sqlx::Error> {
    let row: OverviewRow = sqlx::query_as(OVERVIEW).fetch_one(executor).await?;
    Ok(overview_of(row))
}

/// The query of [`overview`]; its row is an [`OverviewRow`]. (The evaluation reads it too,
/// through SQLite directly: see [`crate::study::db::evaluation`].)
pub(in crate::study) const OVERVIEW: &str = "SELECT (SELECT target_choice FROM study WHERE id = 1),
        COUNT(*),
        (SELECT COUNT(*) FROM targets WHERE listed = 1),
        COALESCE(SUM(pooled), 0),
        COALESCE(SUM(rated), 0),
        COALESCE(SUM(fully_rated), 0),
        COALESCE(SUM(rated > 0 AND NOT fully_rated), 0),
        COALESCE(SUM(pooled = 0), 0)
 FROM targets WHERE active = 1";

/// The columns of [`OVERVIEW`], in order.
pub(in crate::study) type OverviewRow = (String, i64, i64, i64, i64, i64, i64, i64);

/// The active targets, in import order, with the study's progress (`rater` `None`), or those a
/// rater has taken or may take with their own progress.
pub async fn list<'e, E: SqliteExecutor<'e>>(
    executor: E,
    listing: Listing,
    rater: Option<RaterId>,
) -> Result<Vec<TargetSummaryRow>, sqlx::Error> {
    match rater {
        None => sqlx::query_as(
            "SELECT p.id, p.external_id, p.title, t.rated, t.pooled AS total,
                    t.fully_rated AS finished, 1 AS taken
             FROM targets t JOIN papers p ON p.id = t.target_id
             WHERE t.active = 1 AND NOT (?1 AND t.fully_rated)
             ORDER BY t.target_id
             LIMIT ?2 OFFSET ?3",
        ),
        // Without an assignment (`a` all NULL), the rule is NULL: not done.
        Some(_) => sqlx::query_as(concat!(
            "SELECT p.id, p.external_id, p.title, COALESCE(a.rated, 0) AS rated,
                    t.pooled AS total, COALESCE(",
            db::rater_done!(),
            ", 0) AS finished,
                    a.rater_id IS NOT NULL AS taken
             FROM targets t JOIN papers p ON p.id = t.target_id
             LEFT JOIN assignments a ON a.target_id = t.target_id AND a.rater_id = ?4
             WHERE t.active = 1 AND (a.rater_id IS NOT NULL OR t.raters < t.needed)
               AND NOT (?1 AND COALESCE(",
            db::rater_done!(),
            ", 0))
             ORDER BY t.target_id
             LIMIT ?2 OFFSET ?3"
        )),
    }
    .bind(listing.only_unfinished)
    .bind(listing.limit)
    .bind(listing.offset)
    .bind(rater.map(|rater| rater.0))
    .fetch_all(executor)
    .await
}

/// A target being rated with its progress, of the study or of one rater.
#[derive(Debug, FromRow)]
pub(in crate::study) struct TargetSummaryRow {
    pub id: i64,
    #[sqlx(try_from = "Stored<PaperId>")]
    pub external_id: PaperId,
    pub title: String,
    pub rated: i64,
    pub total: i64,
    pub finished: bool,
    pub taken: bool,
}

/// The study's progress of one target; `None` when the paper is no target being rated.
pub async fn progress<'e, E: SqliteExecutor<'e>>(
    executor: E,
    target: PaperKey,
) -> Result<Option<Progress>, sqlx::Error> {
    let row: Option<(i64, i64)> =
        sqlx::query_as("SELECT rated, pooled FROM targets WHERE target_id = ? AND active = 1")
            .bind(target.0)
            .fetch_optional(executor)
            .await?;
    Ok(row.map(|(rated, total)| Progress { rated, total }))
}

/// `rater`'s progress of one target: their ratings of its pool; `None` when the paper is no
/// target being rated.
pub async fn rater_progress<'e, E: SqliteExecutor<'e>>(
    executor: E,
    target: PaperKey,
    rater: RaterId,
) -> Result<Option<Progress>, sqlx::Error> {
    let row: Option<(i64, i64)> = sqlx::query_as(
        "SELECT COALESCE(a.rated, 0), t.pooled FROM targets t
         LEFT JOIN assignments a ON a.target_id = t.target_id AND a.rater_id = ?2
         WHERE t.target_id = ?1 AND t.active = 1",
    )
    .bind(target.0)
    .bind(rater.0)
    .fetch_optional(executor)
    .await?;
    Ok(row.map(|(rated, total)| Progress { rated, total }))
}

/// Whether every pooled pair of `target` is rated by every rater it needs.
pub async fn is_fully_rated<'e, E: SqliteExecutor<'e>>(
    executor: E,
    target: PaperKey,
) -> Result<bool, sqlx::Error> {
    let fully_rated: Option<bool> =
        sqlx::query_scalar("SELECT fully_rated FROM targets WHERE target_id = ? AND active = 1")
            .bind(target.0)
            .fetch_optional(executor)
            .await?;
    Ok(fully_rated.unwrap_or(false))
}

pub async fn rater_overview<'e, E: SqliteExecutor<'e>>(
    executor: E,
    rater: RaterId,
) -> Result<RaterOverview, sqlx::Error> {
    let (rated, total, finished, targets, more_to_rate): (i64, i64, i64, i64, bool) =
        sqlx::query_as(&format!(
            "SELECT COALESCE(SUM(a.rated), 0), COALESCE(SUM(t.pooled), 0),
                    COALESCE(SUM({rater_done}), 0), COUNT(*),
                    EXISTS (SELECT 1 FROM targets t WHERE {NEEDS_RATER})
             FROM assignments a JOIN targets t ON t.target_id = a.target_id
             WHERE a.rater_id = ?1 AND t.active = 1",
            rater_done = db::rater_done!()
        ))
        .bind(rater.0)
        .fetch_one(executor)
        .await?;
    Ok(RaterOverview {
        pairs: Progress { rated, total },
        finished,
        targets,
        more_to_rate,
    })
}

/// The pool of `target` in the blind display order with `rater`'s stars; empty when it has
/// none.
pub async fn pooled_papers<'e, E: SqliteExecutor<'e>>(
    executor: E,
    target: PaperKey,
    rater: RaterId,
) -> Result<Vec<PooledPaperRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT p.id, p.external_id, p.title, p.abstract, p.authors, p.year, p.url,
                r.rater_id IS NOT NULL AS rated, r.stars, r.note
         FROM pool
         JOIN papers p ON p.id = pool.paper_id
         LEFT JOIN ratings r ON r.target_id = pool.target_id AND r.paper_id = pool.paper_id
                            AND r.rater_id = ?2
         WHERE pool.target_id = ?1
         ORDER BY pool.sort_key, pool.paper_id",
    )
    .bind(target.0)
    .bind(rater.0)
    .fetch_all(executor)
    .await
}

/// A paper of a target's pool with the rater's rating columns (`rated`: they have a row).
#[derive(Debug, FromRow)]
pub(in crate::study) struct PooledPaperRow {
    #[sqlx(flatten)]
    pub paper: PaperRow,
    pub rated: bool,
    pub stars: Option<i64>,
    pub note: Option<String>,
}

/// The targets that still need `rater` (`?1`), as a condition on the row `t` of a target:
/// being rated, with a pool, and either taken by them and not rated whole by them, or not
/// taken by as many raters as it needs.
const NEEDS_RATER: &str = "t.active = 1 AND t.pooled > 0
    AND COALESCE((SELECT a.rated < t.pooled FROM assignments a
                  WHERE a.target_id = t.target_id AND a.rater_id = ?1),
                 t.raters < t.needed)";

/// The first target `rater` is to rate: the first in the study's random order that still
/// needs them.
pub async fn first_to_rate<'e, E: SqliteExecutor<'e>>(
    executor: E,
    rater: RaterId,
) -> Result<Option<PaperKey>, sqlx::Error> {
    let target: Option<i64> = sqlx::query_scalar(&format!(
        "SELECT t.target_id FROM targets t
         WHERE {NEEDS_RATER}
         ORDER BY t.order_key, t.target_id
         LIMIT 1"
    ))
    .bind(rater.0)
    .fetch_optional(executor)
    .await?;
    Ok(target.map(PaperKey))
}

/// The target for `rater` after `current` in the study's random order, wrapping around to the
/// first; never `current` itself.
pub async fn next_to_rate(
    conn: &mut SqliteConnection,
    current: PaperKey,
    rater: RaterId,
) -> Result<Option<PaperKey>, sqlx::Error> {
    // Two walks along the index in key order, each stopping at the first target that needs
    // the rater: one ORDER BY that put later targets first would sort them all on every view.
    let after: Option<i64> = sqlx::query_scalar(&format!(
        "SELECT t.target_id FROM targets t, targets c
         WHERE c.target_id = ?2 AND {NEEDS_RATER}
           AND (t.order_key, t.target_id) > (c.order_key, c.target_id)
         ORDER BY t.order_key, t.target_id
         LIMIT 1"
    ))
    .bind(rater.0)
    .bind(current.0)
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(target) = after {
        return Ok(Some(PaperKey(target)));
    }
    let first: Option<i64> = sqlx::query_scalar(&format!(
        "SELECT t.target_id FROM targets t
         WHERE {NEEDS_RATER} AND t.target_id <> ?2
         ORDER BY t.order_key, t.target_id
         LIMIT 1"
    ))
    .bind(rater.0)
    .bind(current.0)
    .fetch_optional(conn)
    .await?;
    Ok(first.map(PaperKey))
}

/// What an import of lists finds of a target before it writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// Some model has a list for it.
    pub listed: bool,
    /// It is rated now.
    pub active: bool,
}

impl Found {
    /// Whether a target found as `found` is rated once models list it: a target of the
    /// study stays one, and every candidate is one while the study rates them all.
    pub fn active_once_listed(found: Option<Found>, rates_all: bool) -> bool {
        rates_all || found.is_some_and(|found| found.active)
    }
}

/// The target rows of an import of lists (directly: see [`crate::study::db::direct`]).
pub struct ListedTargets<'c> {
    find: rusqlite::Statement<'c>,
    add: rusqlite::Statement<'c>,
    update: rusqlite::Statement<'c>,
}

impl<'c> ListedTargets<'c> {
    pub fn prepare(conn: &'c rusqlite::Connection) -> rusqlite::Result<ListedTargets<'c>> {
        Ok(ListedTargets {
            find: conn.prepare("SELECT listed, active FROM targets WHERE target_id = ?")?,
            add: conn.prepare(
                "INSERT INTO targets (target_id, listed, active, order_key, pooled)
                 VALUES (?, 1, ?, ?, ?)",
            )?,
            update: conn.prepare(
                "UPDATE targets SET listed = 1, active = ?, pooled = pooled + ?
                 WHERE target_id = ?",
            )?,
        })
    }

    /// The row of `target`; `None` when it has none (never listed, pooled nor chosen).
    pub fn find(&mut self, target: PaperKey) -> rusqlite::Result<Option<Found>> {
        let mut rows = self.find.query([target.0])?;
        match rows.next()? {
            Some(row) => Ok(Some(Found {
                listed: row.get(0)?,
                active: row.get(1)?,
            })),
            None => Ok(None),
        }
    }

    /// Records that models have lists for `target` (found as `found`), whose pool changed by
    /// `pooled` pairs, adding its row with a random order key if it has none; `active` as
    /// [`Found::active_once_listed`] says.
    pub fn register(
        &mut self,
        target: PaperKey,
        found: Option<Found>,
        active: bool,
        pooled: i64,
        rng: &mut impl Rng,
    ) -> rusqlite::Result<()> {
        match found {
            None => {
                let order_key: i64 = rng.random();
                self.add.execute((target.0, active, order_key, pooled))?;
            }
            Some(found) if !found.listed || found.active != active || pooled != 0 => {
                self.update.execute((active, pooled, target.0))?;
            }
            Some(_) => {}
        }
        Ok(())
    }
}

/// Adds the row of `target` if it has none (a rating arrives for a target no model listed):
/// active while the study rates all candidates.
pub async fn ensure(
    conn: &mut SqliteConnection,
    target: PaperKey,
    rng: &mut impl Rng,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT OR IGNORE INTO targets (target_id, active, order_key)
         VALUES (?, (SELECT target_choice = 'all' FROM study WHERE id = 1), ?)",
    )
    .bind(target.0)
    .bind(rng.random::<i64>())
    .execute(conn)
    .await?;
    Ok(())
}

/// A target as choosing and dropping see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChoiceState {
    pub listed: bool,
    pub active: bool,
    pub rated: i64,
}

/// The state of `target`; `None` when it has no row (never listed, pooled nor chosen).
pub fn state(
    conn: &rusqlite::Connection,
    target: PaperKey,
) -> rusqlite::Result<Option<ChoiceState>> {
    let mut statement =
        conn.prepare_cached("SELECT listed, active, rated FROM targets WHERE target_id = ?")?;
    let mut rows = statement.query([target.0])?;
    rows.next()?
        .map(|row| {
            Ok(ChoiceState {
                listed: row.get(0)?,
                active: row.get(1)?,
                rated: row.get(2)?,
            })
        })
        .transpose()
}

/// Makes `target` active, adding its row (with a random order key) if it has none.
pub fn activate(
    conn: &rusqlite::Connection,
    target: PaperKey,
    rng: &mut impl Rng,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO targets (target_id, active, order_key) VALUES (?, 1, ?)
         ON CONFLICT (target_id) DO UPDATE SET active = 1",
    )?
    .execute((target.0, rng.random::<i64>()))?;
    Ok(())
}

pub fn deactivate(conn: &rusqlite::Connection, target: PaperKey) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE targets SET active = 0 WHERE target_id = ?")?
        .execute([target.0])?;
    Ok(())
}

/// Makes every target inactive: the study is about to rate only what is chosen next.
pub fn deactivate_all(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    conn.execute("UPDATE targets SET active = 0 WHERE active = 1", [])?;
    Ok(())
}

/// Makes exactly the candidates (and targets with a pool) active; answers the candidates
/// that were not active before, whose pools may be missing or out of date.
pub fn activate_every_candidate(conn: &rusqlite::Connection) -> rusqlite::Result<Vec<PaperKey>> {
    let arriving = (conn.prepare(
        "SELECT target_id FROM targets WHERE listed = 1 AND active = 0 ORDER BY target_id",
    )?)
    .query_map([], |row| column::get(row, 0))?
    .collect::<rusqlite::Result<_>>()?;
    conn.execute("UPDATE targets SET active = (listed = 1 OR pooled > 0)", [])?;
    Ok(arriving)
}

/// The candidates (papers with lists), or only those not rated now, by external id (byte
/// order), so that a seeded sample of them does not depend on import order.
pub fn candidates(
    conn: &rusqlite::Connection,
    only_inactive: bool,
) -> rusqlite::Result<Vec<PaperKey>> {
    (conn.prepare(
        "SELECT t.target_id FROM targets t JOIN papers p ON p.id = t.target_id
         WHERE t.listed = 1 AND NOT (? AND t.active = 1)
         ORDER BY p.external_id",
    )?)
    .query_map([only_inactive], |row| column::get(row, 0))?
    .collect()
}

/// The ids of the fully rated targets being rated; with `rater`, only those that rater
/// rated whole too (as the leaderboard counts them under `judgments = rater:NAME`).
pub async fn finished_ids<'e, E: SqliteExecutor<'e>>(
    executor: E,
    rater: Option<&RaterName>,
) -> Result<Vec<PaperId>, sqlx::Error> {
    let ids: Vec<Stored<PaperId>> = sqlx::query_scalar(concat!(
        "SELECT p.external_id FROM targets t JOIN papers p ON p.id = t.target_id
         WHERE t.active = 1 AND t.fully_rated = 1
           AND (?1 IS NULL
                OR EXISTS (SELECT 1 FROM assignments a JOIN raters r ON r.id = a.rater_id
                           WHERE a.target_id = t.target_id AND r.name = ?1
                             AND ",
        db::rater_done!(),
        "))"
    ))
    .bind(rater.map(RaterName::as_str))
    .fetch_all(executor)
    .await?;
    Ok(ids.into_iter().map(|Stored(id)| id).collect())
}

/// Adds `?2` to the pooled count of target `?1` (the pool's writers do, in the transaction of
/// every change of a pool).
pub const ADD_POOLED: &str = "UPDATE targets SET pooled = pooled + ?2 WHERE target_id = ?1";

/// Whether `target` is unblinded: it has been fully rated (`targets.unblinded_at`, set by a
/// trigger in the transaction that first leaves it so), and its numbers are out. In a study
/// from before that, a per-target or include-partial view may have set it too.
pub async fn is_unblinded(
    conn: &mut SqliteConnection,
    target: PaperKey,
) -> Result<bool, sqlx::Error> {
    let unblinded: Option<bool> =
        sqlx::query_scalar("SELECT unblinded_at IS NOT NULL FROM targets WHERE target_id = ?")
            .bind(target.0)
            .fetch_optional(conn)
            .await?;
    Ok(unblinded.unwrap_or(false))
}
