//! The data-access layer: the study file's connections and this process's write queue
//! ([`Database`]: every command's write transaction and every query's read), the connections
//! stepped directly ([`direct`]), the lists packed one value per list ([`packed`]), the
//! reading of the domain's types from their columns ([`column`]), and the one table no single feature owns (the study's settings and revision
//! counter, [`study`]). Each feature's SQL is the `store` module of its folder
//! (`study/raters/store.rs`, `study/evaluation/store.rs`, ...), private to the study.

pub mod column;
pub mod direct;
pub mod packed;
pub mod study;

pub(in crate::study) use super::evaluation::store as evaluation;
pub(in crate::study) use super::guidelines::store as guidelines;
pub(in crate::study) use super::import::store as import;
pub(in crate::study) use super::lists::store as lists;
pub(in crate::study) use super::papers::store as papers;
pub(in crate::study) use super::pool::store as pool;
pub(in crate::study) use super::pruning::store as pruning;
pub(in crate::study) use super::raters::store as raters;
pub(in crate::study) use super::rating::store as rating;
pub(in crate::study) use super::recheck::store as recheck;
pub(in crate::study) use super::targets::store as targets;

/// The one rule of "a rater is done with a target", as SQL over the target's row `t` and the
/// rater's assignment `a`: every pair of the target's pool rated by them (a pool with no pair
/// finishes nobody). Every store that asks it writes it with this macro (inside `concat!`);
/// the schema's triggers that keep `targets.raters_done` write it of their `NEW`/`OLD` rows,
/// and a test below checks that copy in `migrations/schema.sql` against this text.
macro_rules! rater_done {
    () => {
        "(t.pooled > 0 AND a.rated = t.pooled)"
    };
}
pub(in crate::study) use rater_done;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rusqlite::TransactionBehavior;
use sqlx::pool::PoolConnection;
use sqlx::sqlite::{
    Sqlite, SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
    SqliteSynchronous,
};
use sqlx::SqliteConnection;

use crate::blocking;
use crate::study::error::StudyError;

/// How every connection to the study file is set up.
///
/// WAL lets the web app read while a rating commits; `synchronous = FULL` makes every commit
/// durable before we answer that it is saved; the busy timeout turns writer contention into
/// waiting instead of "database is locked".
pub fn connect_options(path: &Path) -> SqliteConnectOptions {
    SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Full)
        .foreign_keys(true)
        .busy_timeout(BUSY_TIMEOUT)
}

/// How long a statement waits for another connection's lock before it fails.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Opens the study with connections set up as `options` say, and brings its schema up to date.
pub async fn open_with(options: SqliteConnectOptions) -> Result<SqlitePool, sqlx::Error> {
    let connections = SqlitePoolOptions::new()
        .max_connections(8)
        .connect_with(options)
        .await?;
    sqlx::migrate!("./migrations").run(&connections).await?;
    study::ensure_exists(&connections).await?;
    Ok(connections)
}

/// The study file as the features reach it: its connections and this process's write queue.
/// Every command is one write transaction ([`Database::write`], or [`Database::write_directly`]
/// on a connection of its own), every query one read ([`Database::read`]). Cloning it is cheap:
/// clones share the connections and the queue.
///
/// The work done inside answers the study's error, as every command and query does: the
/// stores' errors (the drivers') become one with `?`.
#[derive(Debug, Clone)]
pub struct Database {
    /// Every query's read and every command's write but an import of papers or lists and a
    /// command that builds pools, which open a connection of their own ([`direct`]).
    connections: SqlitePool,
    path: Arc<Path>,
    write_queue: WriteQueue,
}

impl Database {
    /// Opens the study with connections set up as `options` say, and brings its schema up to
    /// date.
    pub async fn open_with(options: SqliteConnectOptions) -> Result<Database, sqlx::Error> {
        let path: PathBuf = options.get_filename().to_owned();
        Ok(Database {
            connections: open_with(options).await?,
            path: path.into(),
            write_queue: WriteQueue::default(),
        })
    }

    /// The study's connections, for a read of one statement (no transaction of its own).
    pub fn connections(&self) -> &SqlitePool {
        &self.connections
    }

    /// The study file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs the work of a command in one write transaction of its own, in turn on the write
    /// queue: committed durably when `work` succeeds, rolled back when it fails. A command
    /// waits at most [`LOCK_WAIT`] for another process's write (an import).
    pub async fn write<T>(
        &self,
        work: impl AsyncFnOnce(&mut SqliteConnection) -> Result<T, StudyError>,
    ) -> Result<T, StudyError> {
        self.write_as(Writer::Command, work).await
    }

    /// [`Database::write`], on a connection set up for `writer`.
    pub async fn write_as<T>(
        &self,
        writer: Writer,
        work: impl AsyncFnOnce(&mut SqliteConnection) -> Result<T, StudyError>,
    ) -> Result<T, StudyError> {
        let turn = self.write_queue.turn(writer).await?;
        let mut tx = turn.begin(&self.connections).await?;
        let done = work(&mut tx).await;
        tx.finish(done).await
    }

    /// Opens a connection of its own to the study for a command that builds pools, set up for
    /// `writer` (see [`direct::open_writer`]).
    pub async fn open_directly(&self, writer: Writer) -> Result<rusqlite::Connection, StudyError> {
        let path = self.path.to_path_buf();
        Ok(blocking::run(move || direct::open_writer(&path, writer)).await?)
    }

    /// Runs the work of a command that builds pools (choosing targets, pruning) in an
    /// immediate transaction on a connection of its own stepped directly, as
    /// [`Database::write_directly_as`] says.
    pub async fn write_directly<T: Send + 'static>(
        &self,
        work: impl FnOnce(&rusqlite::Transaction) -> Result<T, StudyError> + Send + 'static,
    ) -> Result<T, StudyError> {
        let conn = self.open_directly(Writer::Command).await?;
        self.write_directly_as(Writer::Command, conn, work).await
    }

    /// Runs the work of `writer` in an immediate transaction of its own on `conn`, a
    /// connection of its own stepped directly (opened for `writer`), in this process's turn of
    /// the write queue, on a thread that may block: committed durably when `work` succeeds,
    /// rolled back when it fails. The connection is closed at the end.
    pub async fn write_directly_as<T: Send + 'static>(
        &self,
        writer: Writer,
        mut conn: rusqlite::Connection,
        work: impl FnOnce(&rusqlite::Transaction) -> Result<T, StudyError> + Send + 'static,
    ) -> Result<T, StudyError> {
        let _turn = self.write_queue.turn(writer).await?;
        blocking::run(move || {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let done = work(&tx)?;
            tx.commit()?;
            Ok(done)
        })
        .await
    }

    /// Runs the reads of a query in one read transaction, so that they see one state of the
    /// study.
    pub async fn read<T>(
        &self,
        work: impl AsyncFnOnce(&mut SqliteConnection) -> Result<T, StudyError>,
    ) -> Result<T, StudyError> {
        let mut tx = self.connections.begin().await?;
        let read = work(&mut tx).await?;
        tx.commit().await?;
        Ok(read)
    }
}

/// The write transactions of this process take turns here, in arrival order, before SQLite
/// sees them. Left to SQLite, a writer that finds the database locked polls with sleeps of up
/// to 100 ms, so with many raters at once some wait far longer than the queue ahead of them.
///
/// An import of this process (from the browser) holds its turn for as long as it writes, as
/// an import of another process holds SQLite's write lock: a command waits for it at most
/// [`LOCK_WAIT`], as it waits for the other process's lock, and is then refused with
/// [`ImportHoldsTheStudy`].
#[derive(Debug, Clone, Default)]
pub struct WriteQueue {
    turns: Arc<tokio::sync::Mutex<()>>,
    /// Whether the turn is an import's now.
    importing: Arc<tokio::sync::watch::Sender<bool>>,
}

/// How long a write of the queue waits for another process's write (an import) to finish
/// before it gives up: a rater is told within seconds why the save waits, instead of hearing
/// nothing for the 30 s of the busy timeout.
pub const LOCK_WAIT: Duration = Duration::from_secs(2);

/// This process's turn to write, held until it is dropped.
pub struct Turn {
    _turn: tokio::sync::OwnedMutexGuard<()>,
    writer: Writer,
    /// Set for an import's turn, which says so while it lasts.
    importing: Option<Arc<tokio::sync::watch::Sender<bool>>>,
}

impl Drop for Turn {
    fn drop(&mut self) {
        if let Some(importing) = &self.importing {
            importing.send_replace(false);
        }
    }
}

/// A command waited [`LOCK_WAIT`] for an import of this process to finish writing.
#[derive(Debug, thiserror::Error)]
#[error("an import of this process has held the study for {LOCK_WAIT:?}")]
pub struct ImportHoldsTheStudy;

impl From<ImportHoldsTheStudy> for StudyError {
    fn from(busy: ImportHoldsTheStudy) -> StudyError {
        StudyError::Busy(Box::new(busy))
    }
}

impl WriteQueue {
    /// Waits for this process's turn to write, as `writer`: a command waits at most
    /// [`LOCK_WAIT`] while an import has the turn; an import waits as long as it takes, and
    /// says that it has the turn until it drops it.
    pub async fn turn(&self, writer: Writer) -> Result<Turn, ImportHoldsTheStudy> {
        let turn = self.turns.clone().lock_owned();
        let turn = match writer {
            Writer::Import => {
                let turn = turn.await;
                self.importing.send_replace(true);
                return Ok(Turn {
                    _turn: turn,
                    writer,
                    importing: Some(self.importing.clone()),
                });
            }
            Writer::Command => turn,
        };
        let mut importing = self.importing.subscribe();
        let import_too_long = async {
            // The sender lives as long as the queue, so this waits until an import has the turn.
            let _ = importing.wait_for(|importing| *importing).await;
            tokio::time::sleep(LOCK_WAIT).await;
        };
        tokio::select! {
            turn = turn => Ok(Turn { _turn: turn, writer, importing: None }),
            () = import_too_long => Err(ImportHoldsTheStudy),
        }
    }
}

impl Turn {
    /// Begins an immediate transaction in this turn on one of `connections`, set up for the
    /// turn's writer.
    ///
    /// The transaction is begun and ended with plain SQL rather than `sqlx::Transaction`:
    /// when SQLite rolls a transaction back by itself (a full disk does), sqlx's rollback
    /// fails and leaves the connection believing it is still inside the transaction, so that
    /// every later `BEGIN` on it fails. Here every failure ends in a rollback, or in closing
    /// the connection.
    pub async fn begin(self, connections: &SqlitePool) -> Result<WriteTransaction, sqlx::Error> {
        let mut conn = connections.acquire().await?;
        let begun = match self.writer {
            Writer::Command => {
                let wait = format!("PRAGMA busy_timeout = {}", LOCK_WAIT.as_millis());
                sqlx::query(&wait).execute(&mut *conn).await?;
                let begun = sqlx::query("BEGIN IMMEDIATE").execute(&mut *conn).await;
                let restore = format!("PRAGMA busy_timeout = {}", BUSY_TIMEOUT.as_millis());
                if let Err(error) = sqlx::query(&restore).execute(&mut *conn).await {
                    // Never hand a connection with another wait back to the others.
                    conn.close_on_drop();
                    if begun.is_ok() {
                        return Err(error);
                    }
                }
                begun
            }
            Writer::Import => {
                // Closed at the end: nothing of the import's settings outlives it.
                conn.close_on_drop();
                for (pragma, value) in direct::IMPORT_PRAGMAS {
                    sqlx::query(&format!("PRAGMA {pragma} = {value}"))
                        .execute(&mut *conn)
                        .await?;
                }
                sqlx::query("BEGIN IMMEDIATE").execute(&mut *conn).await
            }
        };
        begun?;
        Ok(WriteTransaction {
            conn,
            open: true,
            _turn: self,
        })
    }
}

/// Who writes, and so how the transaction's connection is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    /// A command a person waits for: it waits at most [`LOCK_WAIT`] for another process.
    Command,
    /// An import: it waits as long as SQLite waits for a lock, and works with the import's
    /// settings ([`direct::IMPORT_PRAGMAS`]) on a connection closed at its end.
    Import,
}

/// A write transaction holding its turn of the [`WriteQueue`] until it ends. One dropped
/// before it ended (a cancelled request) closes its connection, which rolls it back.
pub struct WriteTransaction {
    conn: PoolConnection<Sqlite>,
    open: bool,
    _turn: Turn,
}

impl WriteTransaction {
    /// Commits; if the commit fails, rolls back, so that the connection is fit for reuse.
    pub async fn commit(mut self) -> Result<(), sqlx::Error> {
        match sqlx::query("COMMIT").execute(&mut *self.conn).await {
            Ok(_) => {
                self.open = false;
                Ok(())
            }
            Err(error) => {
                self.roll_back().await;
                Err(error)
            }
        }
    }

    /// Commits when `work` (done inside this transaction) succeeded, rolls back when it
    /// failed; answers `work`'s result, or the commit's error.
    pub async fn finish<T, E: From<sqlx::Error>>(mut self, work: Result<T, E>) -> Result<T, E> {
        match work {
            Ok(value) => {
                self.commit().await?;
                Ok(value)
            }
            Err(error) => {
                self.roll_back().await;
                Err(error)
            }
        }
    }

    /// Rolls back. SQLite may have rolled back already (after a full disk, say), and then
    /// `ROLLBACK` fails; whatever the reason, a connection whose state is uncertain is closed
    /// rather than handed to the next writer.
    async fn roll_back(&mut self) {
        if let Err(error) = sqlx::query("ROLLBACK").execute(&mut *self.conn).await {
            tracing::debug!(%error, "the rollback failed; closing the connection");
            self.conn.close_on_drop();
        }
        self.open = false;
    }
}

impl Drop for WriteTransaction {
    fn drop(&mut self) {
        if self.open {
            self.conn.close_on_drop();
        }
    }
}

impl std::ops::Deref for WriteTransaction {
    type Target = sqlx::SqliteConnection;

    fn deref(&self) -> &Self::Target {
        &self.conn
    }
}

impl std::ops::DerefMut for WriteTransaction {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.conn
    }
}

/// Leaves the study file whole on its own, then closes the connections: the WAL is copied
/// into the file and emptied (`wal_checkpoint(TRUNCATE)`), and the last connection to close
/// removes it. A copy of the `.db` alone is then the whole study: people copy, sync and mail that one
/// file. Every command ends here, the server once it has stopped.
///
/// If another process (a running server) has the study open, the checkpoint does not wait for
/// it: that would hold up its writers. The study is whole in one file again once that process
/// closes it; until then, `paperjudge backup` makes the copy.
pub async fn close(connections: &SqlitePool) {
    let checkpoint = async {
        let mut conn = connections.acquire().await?;
        sqlx::query("PRAGMA busy_timeout = 0")
            .execute(&mut *conn)
            .await?;
        let (busy, _, _): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(TRUNCATE)")
            .fetch_one(&mut *conn)
            .await?;
        // Not back among the connections with the zero busy timeout.
        conn.close().await?;
        Ok::<_, sqlx::Error>(busy != 0)
    };
    match checkpoint.await {
        Ok(false) => {}
        Ok(true) => tracing::debug!(
            "another process has the study open: its write-ahead log stays until it closes"
        ),
        Err(error) => tracing::warn!(%error, "the study's write-ahead log was not checkpointed"),
    }
    connections.close().await;
}

/// Writes a consistent snapshot of the study to `file` (which must not exist) while others
/// go on reading and writing: SQLite's `VACUUM INTO` copies one read transaction.
///
/// The copy is written to a new file of a unique name beside the target, created here (so
/// nothing of anyone else's is ever overwritten or removed), and gets the target's name only
/// once complete and on disk, without replacing a file that appeared meanwhile: a crash never
/// leaves half a backup under the target's name.
pub async fn backup(connections: &SqlitePool, file: &Path) -> Result<(), sqlx::Error> {
    let directory = match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let name = file
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    // VACUUM INTO writes into an empty file.
    let partial = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".partial")
        .tempfile_in(directory)?;
    sqlx::query("VACUUM INTO ?")
        .bind(partial.path().to_string_lossy().into_owned())
        .execute(connections)
        .await?;
    // VACUUM INTO does not sync what it writes: the copy reaches the disk before it gets its
    // name, and the name before "backup written" is said.
    partial.as_file().sync_all()?;
    partial
        .persist_noclobber(file)
        .map_err(|error| sqlx::Error::Io(error.error))?;
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

/// A small study of two targets for the data layer's own tests: T1 (pooled P1, P2, P3, every
/// pair rated) and T2 (pooled P1, P2, one pair rated), from the lists of models a and b, made
/// through the study's import as a file would be.
#[cfg(test)]
pub(super) async fn small_study(dir: &Path) -> crate::study::Study {
    use rand::SeedableRng;

    use crate::formats::Format;
    use crate::study::import::ImportFile;
    use crate::study::import::{recommendations, Kind};
    use crate::study::Study;

    let study = Study::open(&dir.join("study.db")).await.expect("a study");
    let files = [
        (
            Kind::Papers(Format::Csv),
            "id,title\nT1,One\nT2,Two\nP1,A\nP2,B\nP3,C\n",
        ),
        (
            Kind::Recommendations(recommendations::Options {
                format: Format::Csv,
                model: None,
            }),
            "model,target,rank,paper\na,T1,2,P2\na,T1,1,P1\nb,T1,1,P3\na,T2,1,P1\nb,T2,1,P2\n",
        ),
        (
            Kind::Ratings(Default::default()),
            "target,paper,stars\nT1,P1,5\nT1,P2,3\nT1,P3,1\nT2,P1,4\n",
        ),
    ];
    for (kind, text) in files {
        let file = ImportFile::new("test.csv", std::io::Cursor::new(text.as_bytes().to_vec()));
        let rng = rand::rngs::StdRng::seed_from_u64(1);
        study
            .import()
            .files(kind, vec![file], rng, ())
            .await
            .expect("imported");
    }
    study
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::time::Instant;

    #[tokio::test(start_paused = true)]
    async fn a_command_waits_at_most_lock_wait_for_an_import_of_this_process() {
        let queue = WriteQueue::default();
        let import = queue.turn(Writer::Import).await.expect("the import's turn");
        let started = Instant::now();
        assert!(queue.turn(Writer::Command).await.is_err());
        assert_eq!(started.elapsed(), LOCK_WAIT);
        drop(import);
        let started = Instant::now();
        assert!(queue.turn(Writer::Command).await.is_ok());
        assert_eq!(started.elapsed(), Duration::ZERO);
    }

    #[tokio::test(start_paused = true)]
    async fn behind_another_command_a_command_waits_as_long_as_it_takes() {
        let queue = WriteQueue::default();
        // An import that has ended says so: it is no reason to give up any more.
        drop(queue.turn(Writer::Import).await.expect("the import's turn"));
        let first = queue.turn(Writer::Command).await.expect("a turn");
        let waiting = queue.clone();
        let second = tokio::spawn(async move { waiting.turn(Writer::Command).await.is_ok() });
        tokio::time::sleep(LOCK_WAIT * 10).await;
        drop(first);
        assert!(second.await.expect("the second command"));
    }
    /// The schema's triggers that keep `targets.raters_done` write "a rater is done" as
    /// [`rater_done!`] does, of their own rows: a change of the rule changes both.
    #[test]
    fn the_schemas_triggers_write_a_rater_done_as_the_stores_do() {
        let schema = include_str!("../../../migrations/schema.sql")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let of = |target: &str, assignment: &str| {
            rater_done!()
                .replace("t.", target)
                .replace("a.", assignment)
        };
        // On assignments: the target's row unqualified, the assignment's NEW or OLD row.
        assert_eq!(schema.matches(&of("", "NEW.")).count(), 2);
        assert_eq!(schema.matches(&of("", "OLD.")).count(), 2);
        // On targets: the target's NEW row, each assignment `a`, inside a WHERE.
        let counted = of("NEW.", "a.");
        let counted = counted.trim_start_matches('(').trim_end_matches(')');
        assert_eq!(schema.matches(counted).count(), 1);
    }
}
