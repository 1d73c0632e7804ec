//! Importers: papers, recommendations and ratings, each read whole from a file, checked, and
//! written in one transaction, so that a file is imported whole or not at all.
//!
//! Every importer reads its file through the one reader of records ([`records`]) before it
//! takes the study's write lock, so that raters are kept waiting only while it writes. It
//! works on a connection of its own ([`ImportConnection`]), never one of the pool.

mod input;
pub mod papers;
pub mod ratings;
pub mod recommendations;
mod records;
pub mod trec;

use std::fmt;
use std::io::Read;
use std::path::Path;

use rand::Rng;
use sqlx::SqlitePool;

pub use crate::db::bulk::ImportConnection;

/// What a file holds, and how to read it.
#[derive(Debug, Clone)]
pub enum Kind {
    Papers(Format),
    Recommendations(recommendations::Options),
    Ratings,
}

/// Imports one file in one transaction of its own: all of it, or (on any error) nothing.
///
/// `source` names the file in problems; `rng` draws the display keys of pairs entering the
/// pool; `read` is called once the whole file is read and checked, as the write begins (a
/// progress bar of the reading gives way to one of the writing).
pub async fn import_file<R: Read>(
    pool: &SqlitePool,
    kind: &Kind,
    reader: R,
    source: &str,
    rng: &mut impl Rng,
    read: impl FnOnce(),
) -> Result<Summary, ImportError> {
    let mut conn = ImportConnection::open(pool).await?;
    let result = async {
        let staged = Staged::read(&mut conn, kind, reader, source).await?;
        read();
        conn.begin().await?;
        let summary = staged.write(&mut conn, rng).await?;
        conn.commit().await?;
        Ok(summary)
    }
    .await;
    // A transaction left open by a failure is rolled back as the connection closes.
    conn.close().await;
    result
}

/// Imports one file inside the transaction the caller began on `conn` (commit only on `Ok`).
pub async fn import<R: Read>(
    conn: &mut ImportConnection,
    kind: &Kind,
    reader: R,
    source: &str,
    rng: &mut impl Rng,
) -> Result<Summary, ImportError> {
    Staged::read(conn, kind, reader, source)
        .await?
        .write(conn, rng)
        .await
}

/// A file read and checked, ready to be written.
enum Staged {
    Papers(papers::Staged),
    Recommendations(recommendations::Staged),
    Ratings(ratings::Staged),
}

impl Staged {
    /// Reads and checks a whole file: nothing is written, and the write lock is not taken.
    async fn read<R: Read>(
        conn: &mut ImportConnection,
        kind: &Kind,
        reader: R,
        source: &str,
    ) -> Result<Staged, ImportError> {
        Ok(match kind {
            Kind::Papers(format) => Staged::Papers(papers::stage(reader, *format, source)?),
            Kind::Recommendations(options) => {
                let papers = conn.direct(crate::db::papers::index).await?;
                Staged::Recommendations(recommendations::stage(reader, options, papers, source)?)
            }
            Kind::Ratings => {
                let papers = conn.direct(crate::db::papers::index).await?;
                Staged::Ratings(ratings::stage(reader, &papers, source)?)
            }
        })
    }

    /// Writes what was read, inside the caller's transaction: the one place where an import,
    /// of any kind and from any caller, changes the study.
    async fn write(
        self,
        conn: &mut ImportConnection,
        rng: &mut impl Rng,
    ) -> Result<Summary, ImportError> {
        let summary = match self {
            Staged::Papers(staged) => staged.write(conn).await,
            Staged::Recommendations(staged) => staged.write(conn, rng).await,
            Staged::Ratings(staged) => staged.write(conn, rng).await,
        }?;
        // Once for the whole file, and only if it changed something: a server's evaluation in
        // memory is out of date from now on, and not before.
        if summary.changed() {
            crate::db::study::bump_revision(conn).await?;
        }
        Ok(summary)
    }
}

/// At most this many problems are reported for one file; the rest are counted.
pub const MAX_REPORTED_PROBLEMS: usize = 50;

/// One problem in an input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line, when the problem belongs to one.
    pub line: Option<u64>,
    /// The column (CSV) or key (JSONL) concerned, if any.
    pub field: Option<String>,
    pub message: String,
}

impl Problem {
    pub fn at(line: u64, field: Option<&str>, message: impl Into<String>) -> Problem {
        Problem {
            line: Some(line),
            field: field.map(str::to_owned),
            message: message.into(),
        }
    }

    pub fn whole_file(message: impl Into<String>) -> Problem {
        Problem {
            line: None,
            field: None,
            message: message.into(),
        }
    }
}

/// Every problem found in one input file (up to [`MAX_REPORTED_PROBLEMS`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidInput {
    pub source: String,
    pub problems: Vec<Problem>,
    /// Problems found beyond the reported ones.
    pub unreported: u64,
}

impl fmt::Display for InvalidInput {
    /// One line per problem: `file:line: column `name`: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, problem) in self.problems.iter().enumerate() {
            if index > 0 {
                writeln!(f)?;
            }
            write!(f, "{}", self.source)?;
            if let Some(line) = problem.line {
                write!(f, ":{line}")?;
            }
            write!(f, ": ")?;
            if let Some(field) = &problem.field {
                write!(f, "`{field}`: ")?;
            }
            write!(f, "{}", problem.message)?;
        }
        if self.unreported > 0 {
            write!(
                f,
                "\n{}: {} more problems not shown; nothing was imported",
                self.source, self.unreported
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for InvalidInput {}

/// Collects the problems of one file while it is read.
#[derive(Debug)]
pub(crate) struct Problems {
    source: String,
    reported: Vec<Problem>,
    unreported: u64,
}

impl Problems {
    pub(crate) fn new(source: &str) -> Problems {
        Problems {
            source: source.to_owned(),
            reported: Vec::new(),
            unreported: 0,
        }
    }

    pub(crate) fn push(&mut self, problem: Problem) {
        if self.reported.len() < MAX_REPORTED_PROBLEMS {
            self.reported.push(problem);
        } else {
            self.unreported += 1;
        }
    }

    /// The import fails on this one problem (one that stops the reading, like a bad header).
    pub(crate) fn fail(mut self, problem: Problem) -> ImportError {
        self.push(problem);
        ImportError::Invalid(self.into_invalid())
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.reported.is_empty()
    }

    /// `Err` with every problem, by line, if there was any.
    pub(crate) fn into_result(self) -> Result<(), InvalidInput> {
        if self.reported.is_empty() {
            Ok(())
        } else {
            Err(self.into_invalid())
        }
    }

    fn into_invalid(mut self) -> InvalidInput {
        // Some problems (a duplicate within a list) are found only when the list is complete.
        self.reported.sort_by_key(|problem| problem.line);
        InvalidInput {
            source: self.source,
            problems: self.reported,
            unreported: self.unreported,
        }
    }
}

/// Why an import did not happen. Nothing was written in either case.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{0}")]
    Invalid(#[from] InvalidInput),
    #[error("database error during import")]
    Database(#[from] sqlx::Error),
}

/// What an import did, printed as one line at its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// What `added`, `updated` and `unchanged` count: papers, lists or ratings.
    pub items: &'static str,
    /// Data rows read from the file.
    pub read: u64,
    pub added: u64,
    pub updated: u64,
    pub unchanged: u64,
    /// Rows left out on purpose (a model recommending the target itself).
    pub dropped: u64,
    pub pool_added: u64,
    pub pool_removed: u64,
}

impl Summary {
    /// Whether the import changed the study: an item or a pair of the pool added, updated or
    /// removed. A file with a header and no rows, or with the rows stored already, does not.
    pub fn changed(&self) -> bool {
        self.added + self.updated + self.pool_added + self.pool_removed > 0
    }

    pub fn new(items: &'static str) -> Summary {
        Summary {
            items,
            read: 0,
            added: 0,
            updated: 0,
            unchanged: 0,
            dropped: 0,
            pool_added: 0,
            pool_removed: 0,
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "read {} rows; {}: {} added, {} updated, {} unchanged; {} rows dropped",
            self.read, self.items, self.added, self.updated, self.unchanged, self.dropped
        )?;
        if self.pool_added > 0 || self.pool_removed > 0 {
            write!(
                f,
                "; pool: {} pairs added, {} removed",
                self.pool_added, self.pool_removed
            )?;
        }
        if !self.changed() {
            write!(f, "; nothing changed")?;
        }
        Ok(())
    }
}

/// The format of an input file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Csv,
    Jsonl,
    Trec,
}

impl Format {
    /// The format's name, as problems say it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "CSV",
            Format::Jsonl => "JSONL",
            Format::Trec => "TREC",
        }
    }

    /// The format its extension implies: `.csv`, `.jsonl`, or `.run`/`.trec`/`.txt` for TREC.
    pub fn from_extension(path: &Path) -> Option<Format> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "csv" => Some(Format::Csv),
            "jsonl" | "ndjson" => Some(Format::Jsonl),
            "run" | "trec" | "txt" => Some(Format::Trec),
            _ => None,
        }
    }
}

/// A paper id must be usable in TREC files, which separate fields by whitespace, and hold no
/// control or format character (see [`crate::domain::is_control_or_format`]): a problem of
/// `column` at `line` otherwise.
pub(crate) fn check_paper_id(id: &str, line: u64, column: &str) -> Result<(), Problem> {
    let why = if id.is_empty() {
        "is empty".to_owned()
    } else if id.chars().any(char::is_whitespace) {
        format!("{id:?} contains whitespace, which TREC files cannot hold")
    } else if let Some(c) = invisible_character(id) {
        format!("{id:?} {c}")
    } else {
        return Ok(());
    };
    Err(Problem::at(
        line,
        Some(column),
        format!("the paper id {why}"),
    ))
}

/// What is wrong with a name holding a control or format character, if it holds one.
pub(crate) fn invisible_character(name: &str) -> Option<String> {
    let c = name
        .chars()
        .find(|c| crate::domain::is_control_or_format(*c))?;
    Some(format!(
        "contains the control or format character U+{:04X}, which is invisible or acts on the \
         text around it",
        u32::from(c)
    ))
}

/// A JSONL line that does not parse: serde's message, with the column but without its own
/// line number (always 1 for a single line).
pub(crate) fn json_problem(error: &serde_json::Error, line: u64) -> Problem {
    let message = error.to_string();
    let message = message
        .rfind(" at line ")
        .map_or(message.as_str(), |end| &message[..end]);
    Problem::at(
        line,
        None,
        format!("invalid JSON at column {}: {message}", error.column()),
    )
}
