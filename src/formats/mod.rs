//! The file formats paperjudge reads, whatever reads them (an import into a study, a replay of
//! TREC qrels and runs): the formats ([`Format`]), the one reader of records every importer
//! reads its file through ([`records`], within the byte limits of [`input`]), TREC's qrels and
//! runs ([`trec`]), and the problems a file has, each named by file, line and column
//! ([`Problem`], [`InvalidInput`]). Pure: no study, no database.

pub mod input;
pub mod records;
pub mod trec;

use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::domain::PaperId;

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

    pub(crate) fn count_one(&self) {
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

/// A score column's value (CSV, JSONL, a TREC run): empty for none, else a finite number.
pub(crate) fn parse_score(text: &str, line: u64) -> Result<Option<f64>, Problem> {
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<f64>() {
        Ok(score) if score.is_finite() => Ok(Some(score)),
        _ => Err(Problem::at(
            line,
            Some("score"),
            format!("expected a finite number, got {text:?}"),
        )),
    }
}
