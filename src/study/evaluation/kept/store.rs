//! The SQL of the kept outputs (`kept_outputs`): a read by key on the study's connections,
//! and a write on a connection of its own that never waits.

use std::path::Path;
use std::time::Duration;

use rusqlite::{OpenFlags, TransactionBehavior};
use sqlx::SqliteConnection;

use super::KeptOutput;

/// The most outputs kept, the most recently made: the same revision under a few options and
/// formats.
const MOST_KEPT: i64 = 8;

/// The output kept under `key`; `None` when there is none, or when the row is not whole (its
/// digest is not its output's).
pub async fn find(conn: &mut SqliteConnection, key: &str) -> Result<Option<String>, sqlx::Error> {
    let row: Option<(String, i64)> =
        sqlx::query_as("SELECT output, digest FROM kept_outputs WHERE key = ?")
            .bind(key)
            .fetch_optional(conn)
            .await?;
    Ok(row
        .filter(|(output, digest)| *digest == digest_of(output))
        .map(|(output, _)| output))
}

/// Keeps `kept`, replacing the row of its key and deleting those of other builds and
/// revisions, and all but the [`MOST_KEPT`] made last: in one transaction on a connection of
/// its own to the study at `path` (never created), which fails at once when another holds the
/// write lock. Not durable before it answers (`synchronous = NORMAL`): an output lost is
/// computed again.
pub fn keep(path: &Path, kept: &KeptOutput) -> rusqlite::Result<()> {
    let mut conn = rusqlite::Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::ZERO)?;
    conn.pragma_update(None, "synchronous", "normal")?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute(
        "DELETE FROM kept_outputs WHERE build <> ?1 OR revision <> ?2",
        (kept.build, &kept.revision),
    )?;
    tx.execute(
        "INSERT OR REPLACE INTO kept_outputs (key, build, revision, output, digest, made_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        (
            &kept.key,
            kept.build,
            &kept.revision,
            &kept.output,
            digest_of(&kept.output),
            crate::study::db::now_rfc3339(),
        ),
    )?;
    tx.execute(
        "DELETE FROM kept_outputs
         WHERE rowid NOT IN (SELECT rowid FROM kept_outputs ORDER BY rowid DESC LIMIT ?1)",
        [MOST_KEPT],
    )?;
    tx.commit()
}

/// FNV-1a 64 of `output`, as SQLite's integer holds it.
fn digest_of(output: &str) -> i64 {
    let hash = (output.bytes()).fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    i64::from_ne_bytes(hash.to_ne_bytes())
}
