//! Importers: papers, recommendations, ratings and a machine judge's grades (judgments), each
//! read whole from a file and checked ([`Bulk::read`], [`ratings::stage`], [`judgments::stage`])
//! before anything is written, then written in one
//! transaction by the study's import command (`Study::import`), so that a file (or the files of
//! one import) is imported whole or not at all.
//!
//! Every importer reads its file through the one reader of records ([`records`]); a file is
//! read before it is written, and the first (or only) file of an import before the study's
//! write lock is taken, so that raters are kept waiting only while it writes. Papers and lists
//! are written directly on a connection of the import's own ([`Bulk::write`]); ratings as the
//! raters' are ([`ratings::Staged::write`]); a judge's grades apart from both, by the study.
//! The SQL that writes the models' lists is [`store`]; an import from the browser is a job of
//! its own ([`upload`]: the files received, then imported as the command line would).

mod command;
mod input;
pub mod judgments;
pub mod papers;
pub mod ratings;
pub mod recommendations;
mod records;
pub(in crate::study) mod store;
pub mod trec;
mod upload;

use std::fmt;
use std::io::Read;
use std::ops::AddAssign;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rand::Rng;

use crate::domain::PaperId;
use crate::study::db::papers::PaperIndex;
use crate::study::db::raters::KnownRater;

pub use command::{ImportFile, ImportProgress};
pub(in crate::study) use upload::ImportJobs;
pub use upload::{JobFailure, JobId, JobReport, JobState, Outcome, Upload, JOBS_KEPT};

/// What a file holds, and how to read it.
#[derive(Debug, Clone)]
pub enum Kind {
    Papers(Format),
    Recommendations(recommendations::Options),
    Ratings(ratings::Options),
    /// A machine judge's grades, never ratings.
    Judgments(judgments::Options),
}

impl Kind {
    /// What the file holds, in a word: `papers`, `recommendations`, `ratings` or `judgments`.
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Papers(_) => "papers",
            Kind::Recommendations(_) => "recommendations",
            Kind::Ratings(_) => "ratings",
            Kind::Judgments(_) => "judgments",
        }
    }
}

/// A file of papers or of lists, and how to read it.
#[derive(Debug, Clone)]
pub enum BulkKind {
    Papers(Format),
    Recommendations(recommendations::Options),
}

impl BulkKind {
    /// Whether the file's rows name papers of the study, resolved against its paper index.
    pub fn resolves_ids(&self) -> bool {
        matches!(self, BulkKind::Recommendations(_))
    }
}

/// A file of papers or lists, read and checked, written directly on the import's own
/// connection.
pub enum Bulk {
    Papers(papers::Staged),
    Recommendations(recommendations::Staged),
}

impl Bulk {
    /// Reads and checks a whole file: nothing is written. `papers` is the study's paper index
    /// when the kind [resolves ids](BulkKind::resolves_ids) (any index otherwise); `source`
    /// names the file in problems; every row read is counted in `rows`.
    pub fn read<R: Read>(
        kind: &BulkKind,
        reader: R,
        papers: PaperIndex,
        source: &str,
        rows: &RowsRead,
    ) -> Result<Bulk, InvalidInput> {
        Ok(match kind {
            BulkKind::Papers(format) => Bulk::Papers(papers::stage(reader, *format, source, rows)?),
            BulkKind::Recommendations(options) => Bulk::Recommendations(recommendations::stage(
                reader, options, papers, source, rows,
            )?),
        })
    }

    /// Writes what was read inside the caller's transaction on the import's connection;
    /// `rng` draws the display keys of the pairs entering the pool.
    pub fn write(
        self,
        conn: &rusqlite::Connection,
        rng: &mut impl Rng,
    ) -> rusqlite::Result<Summary> {
        match self {
            Bulk::Papers(staged) => staged.write(conn),
            Bulk::Recommendations(staged) => staged.write(conn, rng),
        }
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

/// The longest message of one problem, in characters: a message quotes the file's text (an
/// id, a value), which may be as long as a field, 64 KiB.
const MAX_MESSAGE_CHARACTERS: usize = 500;

impl Problem {
    pub fn at(line: u64, field: Option<&str>, message: impl Into<String>) -> Problem {
        Problem {
            line: Some(line),
            field: field.map(str::to_owned),
            message: bounded(message.into()),
        }
    }

    pub fn whole_file(message: impl Into<String>) -> Problem {
        Problem {
            line: None,
            field: None,
            message: bounded(message.into()),
        }
    }
}

/// `message` cut to [`MAX_MESSAGE_CHARACTERS`], saying how much more there was.
fn bounded(message: String) -> String {
    let characters = message.chars().count();
    if characters <= MAX_MESSAGE_CHARACTERS {
        return message;
    }
    let shown: String = message.chars().take(MAX_MESSAGE_CHARACTERS).collect();
    format!(
        "{shown}… (the message goes on for {} more characters)",
        characters - MAX_MESSAGE_CHARACTERS
    )
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

/// Every file of one import that has problems, in the order the files were given (an import
/// of several files is all or nothing too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidFiles(Vec<InvalidInput>);

impl InvalidFiles {
    pub fn files(&self) -> &[InvalidInput] {
        &self.0
    }
}

impl From<Vec<InvalidInput>> for InvalidFiles {
    fn from(files: Vec<InvalidInput>) -> InvalidFiles {
        InvalidFiles(files)
    }
}

impl From<InvalidInput> for InvalidFiles {
    fn from(invalid: InvalidInput) -> InvalidFiles {
        InvalidFiles(vec![invalid])
    }
}

/// Each file's problems, one a line, file after file.
impl fmt::Display for InvalidFiles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, file) in self.0.iter().enumerate() {
            if index > 0 {
                writeln!(f)?;
            }
            write!(f, "{file}")?;
        }
        Ok(())
    }
}

impl std::error::Error for InvalidFiles {}

/// The rows an import has read so far, over all its files: shared with whoever follows the
/// import as it reads (the browser's page of an import).
#[derive(Debug, Clone, Default)]
pub struct RowsRead(Arc<AtomicU64>);

impl RowsRead {
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    fn count_one(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

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
    pub(crate) fn fail(mut self, problem: Problem) -> InvalidInput {
        self.push(problem);
        self.into_invalid()
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

/// The files of one import, summed up: what each file's line would say, added.
impl AddAssign for Summary {
    fn add_assign(&mut self, file: Summary) {
        self.read += file.read;
        self.added += file.added;
        self.updated += file.updated;
        self.unchanged += file.unchanged;
        self.dropped += file.dropped;
        self.pool_added += file.pool_added;
        self.pool_removed += file.pool_removed;
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

/// A paper id a file gives must be one a study can hold ([`PaperId::new`]): a problem of
/// `column` at `line` otherwise.
pub(crate) fn check_paper_id(id: &str, line: u64, column: &str) -> Result<(), Problem> {
    match PaperId::new(id) {
        Ok(_) => Ok(()),
        Err(why) => Err(Problem::at(
            line,
            Some(column),
            format!("the paper id {why}"),
        )),
    }
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
