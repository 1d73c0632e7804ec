//! SQLite stepped directly: the connection of an import, opened for it alone, and the read
//! connections of the evaluation ([`open_reader`]).
//!
//! An import never borrows a connection of the pool. It opens one with its own settings and
//! closes it at the end, so that nothing it changed outlives it, whether the import succeeds,
//! fails or is cancelled: foreign keys off (every id an importer writes was resolved against
//! the papers table, or created, in the same transaction, so SQLite's checks would only repeat
//! that work row by row) and a page cache of [`CACHE_KIB`], enough for the pages an import
//! works on at a time, as it writes target by target.
//!
//! sqlx hands every statement to a worker thread and every row back through a channel: a few
//! microseconds a row, which over the millions of rows of a large import is most of its time.
//! So the hot loops run on the same connection's SQLite handle, locked away from sqlx for the
//! while, through rusqlite, which steps prepared statements directly (the same bundled SQLite
//! library: rusqlite is built on sqlx's `libsqlite3-sys`).

use std::borrow::Cow;
use std::fmt;
use std::path::Path;

use rusqlite::OpenFlags;
use sqlx::error::{DatabaseError, ErrorKind};
use sqlx::{ConnectOptions, SqliteConnection, SqlitePool};

/// The page cache of an import's connection: 64 MiB.
pub const CACHE_KIB: i64 = 64 << 10;

/// A connection opened for one import.
pub struct ImportConnection {
    conn: SqliteConnection,
}

impl ImportConnection {
    /// Opens a connection to the study of `pool`, set up as every connection is (WAL, durable
    /// commits, the busy timeout) but for the import's settings above.
    pub async fn open(pool: &SqlitePool) -> Result<ImportConnection, sqlx::Error> {
        let options = pool
            .connect_options()
            .as_ref()
            .clone()
            .foreign_keys(false)
            .pragma("cache_size", format!("-{CACHE_KIB}"));
        Ok(ImportConnection {
            conn: options.connect().await?,
        })
    }

    /// Begins the import's write transaction.
    pub async fn begin(&mut self) -> Result<(), sqlx::Error> {
        sqlx::query("BEGIN IMMEDIATE")
            .execute(&mut self.conn)
            .await?;
        Ok(())
    }

    pub async fn commit(&mut self) -> Result<(), sqlx::Error> {
        sqlx::query("COMMIT").execute(&mut self.conn).await?;
        Ok(())
    }

    /// Closes the connection; SQLite rolls back a transaction left open.
    pub async fn close(self) {
        if let Err(error) = sqlx::Connection::close(self.conn).await {
            tracing::debug!(%error, "closing the import's connection failed");
        }
    }

    /// Runs `work` on the connection's SQLite handle, directly (see the module's comment).
    pub async fn direct<T>(
        &mut self,
        work: impl FnOnce(&rusqlite::Connection) -> rusqlite::Result<T>,
    ) -> Result<T, sqlx::Error> {
        let mut handle = self.conn.lock_handle().await?;
        // SAFETY: the handle is a live SQLite connection, and sqlx does not touch it while
        // `handle` keeps it locked (which borrows `self.conn` mutably besides). The rusqlite
        // connection does not own it (it neither closes it nor leaves a statement prepared on
        // it once dropped), and it is dropped at the end of this function, before `handle`.
        let direct = unsafe { rusqlite::Connection::from_handle(handle.as_raw_handle().as_ptr()) }
            .map_err(DirectError::from)?;
        let result = work(&direct).map_err(DirectError::from);
        drop(direct);
        Ok(result?)
    }
}

impl std::ops::Deref for ImportConnection {
    type Target = SqliteConnection;

    fn deref(&self) -> &SqliteConnection {
        &self.conn
    }
}

impl std::ops::DerefMut for ImportConnection {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        &mut self.conn
    }
}

/// Opens a connection of its own to the study file at `path` that only reads, stepped
/// directly: for reads of many rows (see [`super::evaluation`]), on a thread that may block.
/// It waits for locks as every connection does. (Opened read-write but `query_only`: a
/// read-only connection cannot open a WAL study whose shared-memory file is missing.)
pub fn open_reader(path: &Path) -> Result<rusqlite::Connection, sqlx::Error> {
    let open = || {
        let conn = rusqlite::Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(super::BUSY_TIMEOUT)?;
        conn.pragma_update(None, "query_only", true)?;
        Ok(conn)
    };
    open().map_err(database_error)
}

/// An error of SQLite (or of a typed value read) met through rusqlite, as sqlx's.
pub fn database_error(error: rusqlite::Error) -> sqlx::Error {
    DirectError::from(error).into()
}

/// An error of SQLite met through rusqlite, as a database error of sqlx: callers tell a full
/// disk or a lock by its code, whichever way the statement ran.
#[derive(Debug)]
struct DirectError {
    message: String,
    /// SQLite's extended result code, if the error came from SQLite.
    code: Option<i32>,
    source: rusqlite::Error,
}

impl From<rusqlite::Error> for DirectError {
    fn from(source: rusqlite::Error) -> DirectError {
        let code = match &source {
            rusqlite::Error::SqliteFailure(error, _) => Some(error.extended_code),
            _ => None,
        };
        DirectError {
            message: source.to_string(),
            code,
            source,
        }
    }
}

impl fmt::Display for DirectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DirectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

impl DatabaseError for DirectError {
    fn message(&self) -> &str {
        &self.message
    }

    fn code(&self) -> Option<Cow<'_, str>> {
        self.code.map(|code| Cow::Owned(code.to_string()))
    }

    fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self
    }

    fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
        self
    }

    fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
        self
    }

    fn kind(&self) -> ErrorKind {
        ErrorKind::Other
    }
}

/// The most rows one [`RowsInsert`] statement writes.
const ROWS_PER_STATEMENT: usize = 32;

/// An INSERT of many rows at a time on an import's connection: one statement writes up to
/// [`ROWS_PER_STATEMENT`] rows, which spares SQLite most of the work of starting and ending a
/// statement for every row. A statement is prepared for each number of rows met.
///
/// Write the INSERT as `INSERT OR FAIL`: a statement that may abort half-way makes SQLite
/// copy every page it changes into a journal of its own, to undo the half; an import undoes
/// its whole transaction on any error anyway.
pub struct RowsInsert<'c> {
    conn: &'c rusqlite::Connection,
    /// `INSERT INTO table (columns) VALUES`.
    head: &'static str,
    /// Whatever follows the rows, such as an ON CONFLICT clause.
    tail: &'static str,
    columns: usize,
    /// By number of rows, less one.
    statements: Vec<Option<rusqlite::Statement<'c>>>,
}

impl<'c> RowsInsert<'c> {
    pub fn new(
        conn: &'c rusqlite::Connection,
        head: &'static str,
        columns: usize,
        tail: &'static str,
    ) -> RowsInsert<'c> {
        RowsInsert {
            conn,
            head,
            tail,
            columns,
            statements: (0..ROWS_PER_STATEMENT).map(|_| None).collect(),
        }
    }

    /// Inserts `rows`, `bind` binding the values of each one from the parameter it is given
    /// on (1-based, as SQLite counts them); answers how many rows were inserted.
    pub fn insert<T>(
        &mut self,
        rows: &[T],
        mut bind: impl FnMut(&mut rusqlite::Statement<'c>, usize, &T) -> rusqlite::Result<()>,
    ) -> rusqlite::Result<usize> {
        let mut inserted = 0;
        for chunk in rows.chunks(ROWS_PER_STATEMENT) {
            let statement = match &mut self.statements[chunk.len() - 1] {
                Some(statement) => statement,
                empty => {
                    let sql = insert_sql(self.head, self.columns, chunk.len(), self.tail);
                    empty.insert(self.conn.prepare(&sql)?)
                }
            };
            for (index, row) in chunk.iter().enumerate() {
                bind(statement, index * self.columns + 1, row)?;
            }
            inserted += statement.raw_execute()?;
        }
        Ok(inserted)
    }
}

fn insert_sql(head: &str, columns: usize, rows: usize, tail: &str) -> String {
    let row = format!("({})", vec!["?"; columns].join(", "));
    format!("{head} {} {tail}", vec![row; rows].join(", "))
}
