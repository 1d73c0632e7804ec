//! The data-access layer: every SQL statement of paperjudge lives below this module.

pub mod evaluation;
pub mod papers;
pub mod pool;
pub mod ratings;
pub mod recommendations;
pub mod study;
pub mod targets;
pub mod unblinded;

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

/// Opens (creating if missing) the study file and brings its schema up to date.
///
/// WAL lets the web app read while a rating commits; `synchronous = FULL` makes every commit
/// durable before we answer that it is saved; the busy timeout turns writer contention into
/// waiting instead of "database is locked".
pub async fn open(path: &Path) -> Result<SqlitePool, sqlx::Error> {
    let options = SqliteConnectOptions::from_str("sqlite:")?
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(30));
    let pool = SqlitePoolOptions::new()
        .max_connections(8)
        .connect_with(options)
        .await?;
    sqlx::migrate!("./migrations").run(&pool).await?;
    study::ensure_exists(&pool).await?;
    Ok(pool)
}

/// Writes a consistent snapshot of the study to `file` (which must not exist) while others
/// go on reading and writing: SQLite's `VACUUM INTO` copies one read transaction. The copy is
/// written beside the target and renamed, so a crash never leaves half a backup.
pub async fn backup(pool: &SqlitePool, file: &Path) -> Result<(), sqlx::Error> {
    let partial = file.with_extension("partial");
    let _ = std::fs::remove_file(&partial);
    sqlx::query("VACUUM INTO ?")
        .bind(partial.to_string_lossy().into_owned())
        .execute(pool)
        .await?;
    // VACUUM INTO does not sync what it writes: the copy reaches the disk before it gets its
    // name, and the name before "backup written" is said.
    std::fs::File::open(&partial)?.sync_all()?;
    std::fs::rename(&partial, file)?;
    let directory = match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    std::fs::File::open(directory)?.sync_all()?;
    Ok(())
}

/// The current time as RFC 3339 UTC with second precision, as stored and exported.
pub fn now_rfc3339() -> String {
    let now = time::OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .expect("zero nanoseconds is always valid");
    now.format(&time::format_description::well_known::Rfc3339)
        .expect("a UTC date always formats as RFC 3339")
}
