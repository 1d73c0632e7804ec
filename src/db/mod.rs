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
use std::sync::Arc;
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

/// The write transactions of this process take turns here, in arrival order, before SQLite
/// sees them. Left to SQLite, a writer that finds the database locked polls with sleeps of up
/// to 100 ms, so with many raters at once some wait far longer than the queue ahead of them.
#[derive(Debug, Clone, Default)]
pub struct WriteQueue(Arc<tokio::sync::Mutex<()>>);

impl WriteQueue {
    /// Waits for this process's turn to write, then begins an immediate transaction.
    pub async fn begin(&self, pool: &SqlitePool) -> Result<WriteTransaction, sqlx::Error> {
        let turn = self.0.clone().lock_owned().await;
        let transaction = pool.begin_with("BEGIN IMMEDIATE").await?;
        Ok(WriteTransaction {
            transaction,
            _turn: turn,
        })
    }
}

/// A write transaction holding its turn of the [`WriteQueue`] until it ends.
pub struct WriteTransaction {
    transaction: sqlx::Transaction<'static, sqlx::Sqlite>,
    _turn: tokio::sync::OwnedMutexGuard<()>,
}

impl WriteTransaction {
    pub async fn commit(self) -> Result<(), sqlx::Error> {
        self.transaction.commit().await
    }
}

impl std::ops::Deref for WriteTransaction {
    type Target = sqlx::SqliteConnection;

    fn deref(&self) -> &Self::Target {
        &self.transaction
    }
}

impl std::ops::DerefMut for WriteTransaction {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.transaction
    }
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
