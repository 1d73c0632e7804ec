//! SQLite stepped directly, through rusqlite, on connections of their own: the connection of a
//! command that builds pools ([`open_writer`]: importing papers or lists, choosing targets,
//! pruning) and the evaluation's read connections ([`open_reader`]).
//!
//! sqlx hands every statement to a worker thread and every row back through a channel: a few
//! microseconds a row, which over the millions of rows of a large import, the pools of
//! thousands of targets chosen at once, or the quarter of a million list entries an evaluation
//! reads, is most of the time. These paths step prepared statements directly instead, on
//! threads that may block (the same bundled SQLite library: rusqlite is built on sqlx's
//! `libsqlite3-sys`). Each opens its connection for the work and closes it at the end, so that
//! nothing it set outlives it; a command writes in its turn of the study's write queue like
//! every other write of the process.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::{Writer, BUSY_TIMEOUT, LOCK_WAIT};

/// How an import's connection differs from the others: foreign keys off (every id an
/// importer writes was resolved against the papers table, or created, in the same
/// transaction, so SQLite's checks would only repeat that work row by row), and a page cache
/// of 64 MiB, enough for the pages an import works on at a time, as it writes target by
/// target.
pub const IMPORT_PRAGMAS: [(&str, &str); 2] = [("foreign_keys", "OFF"), ("cache_size", "-65536")];

/// Opens a connection of its own to the study file at `path` for one command of `writer`: set
/// up as every connection is (WAL, durable commits, foreign keys), waiting for another
/// process's write as long as [`Writer`] says, and for an import with [`IMPORT_PRAGMAS`].
pub fn open_writer(path: &Path, writer: Writer) -> rusqlite::Result<Connection> {
    let conn = open(path)?;
    conn.pragma_update(None, "journal_mode", "wal")?;
    conn.pragma_update(None, "synchronous", "full")?;
    match writer {
        Writer::Command => {
            conn.busy_timeout(LOCK_WAIT)?;
            conn.pragma_update(None, "foreign_keys", true)?;
        }
        Writer::Import => {
            for (pragma, value) in IMPORT_PRAGMAS {
                conn.pragma_update(None, pragma, value)?;
            }
        }
    }
    Ok(conn)
}

/// Opens a connection of its own to the study file at `path` that only reads: for reads of
/// many rows (see [`super::evaluation`]), on a thread that may block. It waits for locks as
/// every connection does. (Opened read-write but `query_only`: a read-only connection cannot
/// open a WAL study whose shared-memory file is missing.)
pub fn open_reader(path: &Path) -> rusqlite::Result<Connection> {
    let conn = open(path)?;
    conn.pragma_update(None, "query_only", true)?;
    Ok(conn)
}

/// A connection to the existing study file at `path`, waiting for locks as every connection
/// does.
fn open(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    Ok(conn)
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
