//! The study's raters (row 1 the owner), their passwords' hashes, the plan of how many rate
//! each target (`rating_plan`), and who took which target (`assignments`; its counts are kept
//! by the triggers of the migration `raters`).

use sqlx::{SqliteConnection, SqliteExecutor};

use crate::domain::{PaperKey, RaterId, RaterName};
use crate::study::db;
use crate::study::db::column::{self, Stored};

/// A rater as the study lists them (`study::RaterProgress` is what the faces get).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct RaterRow {
    #[sqlx(try_from = "Stored<RaterId>")]
    pub id: RaterId,
    #[sqlx(try_from = "Stored<RaterName>")]
    pub name: RaterName,
    /// Still signs in (not removed).
    pub active: bool,
    /// Their ratings, of every target.
    pub ratings: i64,
    /// Targets they took (from `/next` or with a rating) and have not rated every pooled pair
    /// of.
    pub targets_in_progress: i64,
    /// Targets they rated every pooled pair of.
    pub targets_finished: i64,
}

/// Every rater but the owner, by name, removed ones too (`active` false).
pub async fn list<'e, E: SqliteExecutor<'e>>(executor: E) -> Result<Vec<RaterRow>, sqlx::Error> {
    sqlx::query_as(concat!(
        "SELECT r.id, r.name, r.removed_at IS NULL AS active,
                    (SELECT COUNT(*) FROM ratings g WHERE g.rater_id = r.id) AS ratings,
                    (SELECT COUNT(*) FROM assignments a JOIN targets t ON t.target_id = a.target_id
                     WHERE a.rater_id = r.id AND t.active = 1 AND NOT ",
        db::rater_done!(),
        ") AS targets_in_progress,
                    (SELECT COUNT(*) FROM assignments a JOIN targets t ON t.target_id = a.target_id
                     WHERE a.rater_id = r.id AND t.active = 1 AND ",
        db::rater_done!(),
        ") AS targets_finished
             FROM raters r WHERE r.id <> 1
             ORDER BY r.name"
    ))
    .fetch_all(executor)
    .await
}

/// Whether the study has raters beyond its owner, removed ones too: then its ratings may be
/// several per pair, and every view says which judgments it used.
pub async fn has_raters<'e, E: SqliteExecutor<'e>>(executor: E) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM raters WHERE id <> 1)")
        .fetch_one(executor)
        .await
}

/// Whether the study has raters who sign in (not removed): then every visitor signs in.
pub async fn has_active_raters<'e, E: SqliteExecutor<'e>>(
    executor: E,
) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM raters WHERE id <> 1 AND removed_at IS NULL)")
        .fetch_one(executor)
        .await
}

/// A rater as an import of ratings knows them: id, name, and whether they were removed.
pub type KnownRater = (RaterId, RaterName, bool);

/// Every rater, the owner too (directly: see [`crate::study::db::direct`]).
pub fn known_directly(conn: &rusqlite::Connection) -> rusqlite::Result<Vec<KnownRater>> {
    (conn.prepare("SELECT id, name, removed_at IS NOT NULL FROM raters")?)
        .query_map([], |row| {
            Ok((column::get(row, 0)?, column::get(row, 1)?, row.get(2)?))
        })?
        .collect()
}

/// Every rater's name, the owner's and removed raters' too.
pub async fn names<'e, E: SqliteExecutor<'e>>(executor: E) -> Result<Vec<RaterName>, sqlx::Error> {
    let names: Vec<Stored<RaterName>> = sqlx::query_scalar("SELECT name FROM raters")
        .fetch_all(executor)
        .await?;
    Ok(names.into_iter().map(|Stored(name)| name).collect())
}

/// A rater found by name: their id, their password's hash (`None` for the owner) and whether
/// they were removed.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Found {
    #[sqlx(try_from = "Stored<RaterId>")]
    pub id: RaterId,
    pub password_hash: Option<String>,
    pub removed: bool,
}

pub async fn find<'e, E: SqliteExecutor<'e>>(
    executor: E,
    name: &RaterName,
) -> Result<Option<Found>, sqlx::Error> {
    sqlx::query_as(
        "SELECT id, password_hash, removed_at IS NOT NULL AS removed FROM raters WHERE name = ?",
    )
    .bind(name.as_str())
    .fetch_optional(executor)
    .await
}

/// The name and password hash of rater `id` while they may sign in; `None` once removed (or
/// never a rater, or the owner).
pub async fn active<'e, E: SqliteExecutor<'e>>(
    executor: E,
    id: RaterId,
) -> Result<Option<(RaterName, String)>, sqlx::Error> {
    let row: Option<(Stored<RaterName>, String)> = sqlx::query_as(
        "SELECT name, password_hash FROM raters
         WHERE id = ? AND removed_at IS NULL AND password_hash IS NOT NULL",
    )
    .bind(id.0)
    .fetch_optional(executor)
    .await?;
    Ok(row.map(|(Stored(name), hash)| (name, hash)))
}

/// Stores a new password hash for rater `id` (never the owner, who has none stored).
pub async fn set_password(
    conn: &mut SqliteConnection,
    id: RaterId,
    password_hash: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE raters SET password_hash = ? WHERE id = ? AND id <> 1")
        .bind(password_hash)
        .bind(id.0)
        .execute(conn)
        .await?;
    Ok(())
}

/// Adds a rater, or brings back a removed one under a new password: the targets they had
/// rated a part of are theirs again.
pub async fn add(
    conn: &mut SqliteConnection,
    name: &RaterName,
    password_hash: &str,
    now: &str,
) -> Result<RaterId, sqlx::Error> {
    let Stored(id): Stored<RaterId> = sqlx::query_scalar(
        "INSERT INTO raters (name, password_hash, added_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (name) DO UPDATE SET password_hash = ?2, added_at = ?3, removed_at = NULL
         RETURNING id",
    )
    .bind(name.as_str())
    .bind(password_hash)
    .bind(now)
    .fetch_one(&mut *conn)
    .await?;
    sqlx::query(
        "INSERT OR IGNORE INTO assignments (target_id, rater_id, rated, assigned_at)
         SELECT target_id, rater_id, COUNT(*), MIN(rated_at) FROM ratings WHERE rater_id = ?
         GROUP BY target_id",
    )
    .bind(id.0)
    .execute(conn)
    .await?;
    Ok(id)
}

/// Removes rater `id`: they can no longer sign in, and the targets they took and did not
/// finish wait for another rater. Their ratings stay.
pub async fn remove(
    conn: &mut SqliteConnection,
    id: RaterId,
    now: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE raters SET removed_at = ? WHERE id = ?")
        .bind(now)
        .bind(id.0)
        .execute(&mut *conn)
        .await?;
    sqlx::query(concat!(
        "DELETE FROM assignments AS a
             WHERE a.rater_id = ?1
               AND NOT EXISTS (SELECT 1 FROM targets t WHERE t.target_id = a.target_id AND ",
        db::rater_done!(),
        ")"
    ))
    .bind(id.0)
    .execute(conn)
    .await?;
    Ok(())
}

/// How many raters rate each target, and the share of targets with one more
/// (`study::RatingPlan` is what the faces get).
#[derive(Debug, Clone, Copy, PartialEq, sqlx::FromRow)]
pub struct Plan {
    /// Raters per target (`raters set --per-target`).
    pub per_target: i64,
    /// The share of targets one more rater rates, as set or by default.
    pub overlap: f64,
    /// Whether the share is the default's (not set).
    pub overlap_by_default: bool,
    /// Raters who sign in (not removed), the owner left out.
    pub raters: i64,
}

pub async fn plan<'e, E: SqliteExecutor<'e>>(executor: E) -> Result<Plan, sqlx::Error> {
    sqlx::query_as(
        "SELECT p.per_target, p.overlap, s.overlap IS NULL AS overlap_by_default,
                p.raters
         FROM rating_plan p, study s WHERE s.id = 1",
    )
    .fetch_one(executor)
    .await
}

/// Sets the plan: `None` keeps what is set; the overlap `Some(None)` goes back to the default.
pub async fn set_plan(
    conn: &mut SqliteConnection,
    per_target: Option<i64>,
    overlap: Option<Option<f64>>,
) -> Result<(), sqlx::Error> {
    if let Some(per_target) = per_target {
        sqlx::query("UPDATE study SET raters_per_target = ? WHERE id = 1")
            .bind(per_target)
            .execute(&mut *conn)
            .await?;
    }
    if let Some(overlap) = overlap {
        sqlx::query("UPDATE study SET overlap = ? WHERE id = 1")
            .bind(overlap)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Brings every target's `needed` to the plan (after a change of the plan or of the raters);
/// answers how many changed.
pub async fn follow_plan(conn: &mut SqliteConnection) -> Result<u64, sqlx::Error> {
    let done = sqlx::query(
        "UPDATE targets SET needed = n.needed
         FROM target_needs n
         WHERE n.target_id = targets.target_id AND targets.needed <> n.needed",
    )
    .execute(conn)
    .await?;
    Ok(done.rows_affected())
}

/// Whether `rater` may rate `target`: the owner any target; a rater one they took, or one that
/// still needs a rater.
pub async fn may_rate(
    conn: &mut SqliteConnection,
    target: PaperKey,
    rater: RaterId,
) -> Result<bool, sqlx::Error> {
    if rater == RaterId::OWNER {
        return Ok(true);
    }
    let may: Option<bool> = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM assignments WHERE target_id = ?1 AND rater_id = ?2)
                OR t.raters < t.needed
         FROM targets t WHERE t.target_id = ?1",
    )
    .bind(target.0)
    .bind(rater.0)
    .fetch_optional(conn)
    .await?;
    Ok(may.unwrap_or(false))
}

/// Gives `target` to `rater`, if they had not taken it.
pub async fn assign(
    conn: &mut SqliteConnection,
    target: PaperKey,
    rater: RaterId,
    now: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT OR IGNORE INTO assignments (target_id, rater_id, assigned_at) VALUES (?, ?, ?)",
    )
    .bind(target.0)
    .bind(rater.0)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}
