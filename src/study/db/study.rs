//! Study-wide settings and counts.

use rand::Rng;
use sqlx::{SqliteConnection, SqlitePool};

use crate::domain::PoolDepth;

/// Makes the study's one row, with its form secret, unless it is there: a study made already is
/// only read, so that opening it neither waits for another process's write (a server's, an
/// import's) nor needs to write.
pub(crate) async fn ensure_exists(connections: &SqlitePool) -> Result<(), sqlx::Error> {
    let made: Option<bool> =
        sqlx::query_scalar("SELECT form_secret IS NOT NULL FROM study WHERE id = 1")
            .fetch_optional(connections)
            .await?;
    if made == Some(true) {
        return Ok(());
    }
    sqlx::query("INSERT OR IGNORE INTO study (id, pool_depth, created_at) VALUES (1, ?, ?)")
        .bind(i64::from(PoolDepth::DEFAULT.get()))
        .bind(super::now_rfc3339())
        .execute(connections)
        .await?;
    // Another process opening the new study at the same moment may have given it its secret
    // already: the first one set is kept.
    let secret: [u8; FORM_SECRET_BYTES] = rand::rng().random();
    sqlx::query("UPDATE study SET form_secret = ? WHERE id = 1 AND form_secret IS NULL")
        .bind(&secret[..])
        .execute(connections)
        .await?;
    Ok(())
}

/// 256 bits, the size of the HMAC-SHA256 output it keys.
const FORM_SECRET_BYTES: usize = 32;

/// The study's secret for signing the forms' CSRF tokens (made when the study was opened).
pub async fn form_secret<'e, E>(executor: E) -> Result<Vec<u8>, sqlx::Error>
where
    E: sqlx::SqliteExecutor<'e>,
{
    sqlx::query_scalar("SELECT form_secret FROM study WHERE id = 1 AND form_secret IS NOT NULL")
        .fetch_one(executor)
        .await
}

const POOL_DEPTH: &str = "SELECT pool_depth FROM study WHERE id = 1";

pub async fn pool_depth<'e, E>(executor: E) -> Result<PoolDepth, sqlx::Error>
where
    E: sqlx::SqliteExecutor<'e>,
{
    let depth: i64 = sqlx::query_scalar(POOL_DEPTH).fetch_one(executor).await?;
    Ok(valid_pool_depth(depth))
}

/// The pool depth, read directly (see [`super::direct`]).
pub fn pool_depth_directly(conn: &rusqlite::Connection) -> rusqlite::Result<PoolDepth> {
    let depth: i64 = conn.query_row(POOL_DEPTH, [], |row| row.get(0))?;
    Ok(valid_pool_depth(depth))
}

fn valid_pool_depth(stored: i64) -> PoolDepth {
    // The CHECK constraint of the schema keeps the stored value in range.
    PoolDepth::new(stored).unwrap_or(PoolDepth::DEFAULT)
}

/// Marks a change of what the evaluation reads, other than a rating: call once per import and
/// once per change of the targets chosen, inside its transaction. Ratings need no call: each
/// change of one adds a row to the rating history, whose last id is the other half of the
/// revision (see [`crate::study::db::evaluation::Revision`]).
pub async fn bump_revision(conn: &mut SqliteConnection) -> Result<(), sqlx::Error> {
    sqlx::query(BUMP_REVISION).execute(conn).await?;
    Ok(())
}

/// [`bump_revision`], directly (see [`super::direct`]).
pub fn bump_revision_directly(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    conn.execute(BUMP_REVISION, [])?;
    Ok(())
}

const BUMP_REVISION: &str = "UPDATE study SET revision = revision + 1 WHERE id = 1";

/// Whether any model has a list: from then on the pool depth is fixed.
pub async fn has_recommendations(conn: &mut SqliteConnection) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM recommendations)")
        .fetch_one(conn)
        .await
}

pub async fn set_pool_depth(
    conn: &mut SqliteConnection,
    depth: PoolDepth,
) -> Result<(), sqlx::Error> {
    sqlx::query("UPDATE study SET pool_depth = ? WHERE id = 1")
        .bind(i64::from(depth.get()))
        .execute(conn)
        .await?;
    Ok(())
}

/// The study's own counts `paperjudge status` prints: papers, models, list entries, and the
/// rating changes made with provenance known.
pub async fn counts(conn: &mut SqliteConnection) -> Result<(i64, i64, i64, i64), sqlx::Error> {
    sqlx::query_as(
        "SELECT
            (SELECT COUNT(*) FROM papers),
            (SELECT COUNT(*) FROM models),
            (SELECT COUNT(*) FROM recommendations),
            (SELECT COUNT(*) FROM rating_history WHERE provenance_known = 1)",
    )
    .fetch_one(conn)
    .await
}
