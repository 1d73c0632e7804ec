//! The file formats paperjudge reads, whatever reads them (an import into a study, a replay of
//! TREC qrels and runs): the formats ([`Format`]), the one reader of records every importer
//! reads its file through ([`records`], within the byte limits of [`input`]), TREC's qrels and
//! runs ([`trec`]), and the problems a file has, each named by file, line and column
//! ([`Problem`], [`InvalidInput`]). Pure: no study, no database.

pub mod input;
pub mod records;
pub mod trec;

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::domain::PaperId;

/// At most this many problems are reported for one file; the rest are counted.
pub const MAX_REPORTED_PROBLEMS: usize = 50;

/// The lines a problem found on many lines names: the first this many.
pub const LINES_NAMED: usize = 10;

/// One problem in an input file: on one line, on the whole file, or the same problem (column
/// and message) on several lines, reported once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line, when the problem belongs to one: the first it is on.
    pub line: Option<u64>,
    /// The column (CSV) or key (JSONL) concerned, if any.
    pub field: Option<String>,
    pub message: String,
    /// The lines it is on, the first [`LINES_NAMED`] of them, in order (empty for the whole
    /// file).
    pub lines: Vec<u64>,
    /// How many lines it is on (1 for the whole file).
    pub count: u64,
    /// The message was cut: problems whose messages read the same may differ past the cut.
    cut: bool,
}

/// The longest message of one problem, in characters: a message quotes the file's text (an
/// id, a value), which may be as long as a field, 64 KiB.
const MAX_MESSAGE_CHARACTERS: usize = 500;

impl Problem {
    pub fn at(line: u64, field: Option<&str>, message: impl Into<String>) -> Problem {
        let (message, cut) = bounded(message.into());
        Problem {
            line: Some(line),
            field: field.map(str::to_owned),
            message,
            lines: vec![line],
            count: 1,
            cut,
        }
    }

    pub fn whole_file(message: impl Into<String>) -> Problem {
        let (message, cut) = bounded(message.into());
        Problem {
            line: None,
            field: None,
            message,
            lines: Vec::new(),
            count: 1,
            cut,
        }
    }

    /// Counts `line` as one more with this problem.
    fn also_on(&mut self, line: u64) {
        self.count += 1;
        // Lines come in order but for the few problems found once a list is complete.
        let at = self.lines.partition_point(|&named| named < line);
        if at < LINES_NAMED {
            self.lines.insert(at, line);
            self.lines.truncate(LINES_NAMED);
            self.line = self.lines.first().copied();
        }
    }

    /// The lines named: "1, 5, 9", with "…" after them when it is on more.
    pub fn lines_named(&self) -> String {
        let mut named: Vec<String> = self.lines.iter().map(u64::to_string).collect();
        if self.count > self.lines.len() as u64 {
            named.push("…".to_owned());
        }
        named.join(", ")
    }
}

/// `message` cut to [`MAX_MESSAGE_CHARACTERS`], saying how much more there was, and whether
/// it was cut.
fn bounded(message: String) -> (String, bool) {
    let characters = message.chars().count();
    if characters <= MAX_MESSAGE_CHARACTERS {
        return (message, false);
    }
    let shown: String = message.chars().take(MAX_MESSAGE_CHARACTERS).collect();
    let cut = format!(
        "{shown}… (the message goes on for {} more characters)",
        characters - MAX_MESSAGE_CHARACTERS
    );
    (cut, true)
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
            if problem.count > 1 {
                write!(
                    f,
                    " (on {} lines: {})",
                    problem.count,
                    problem.lines_named()
                )?;
            }
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

    pub fn count_one(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// Collects the problems of one file while it is read; a problem of a line that another line
/// has already (the same column and message) is counted with it, so that a file with one
/// mistake on every line reads as one problem.
#[derive(Debug)]
pub struct Problems {
    source: String,
    reported: Vec<Problem>,
    /// Where each problem of a line is in `reported`, by its column and message.
    by_text: HashMap<(Option<String>, String), usize>,
    unreported: u64,
}

impl Problems {
    pub fn new(source: &str) -> Problems {
        Problems {
            source: source.to_owned(),
            reported: Vec::new(),
            by_text: HashMap::new(),
            unreported: 0,
        }
    }

    pub fn push(&mut self, problem: Problem) {
        let Some(line) = problem.line.filter(|_| !problem.cut) else {
            return self.report(problem);
        };
        let text = (problem.field.clone(), problem.message.clone());
        match self.by_text.get(&text) {
            Some(&index) => self.reported[index].also_on(line),
            None if self.reported.len() < MAX_REPORTED_PROBLEMS => {
                self.by_text.insert(text, self.reported.len());
                self.reported.push(problem);
            }
            None => self.unreported += 1,
        }
    }

    fn report(&mut self, problem: Problem) {
        if self.reported.len() < MAX_REPORTED_PROBLEMS {
            self.reported.push(problem);
        } else {
            self.unreported += 1;
        }
    }

    /// The import fails on this one problem (one that stops the reading, like a bad header).
    pub fn fail(mut self, problem: Problem) -> InvalidInput {
        self.push(problem);
        self.into_invalid()
    }

    pub fn is_empty(&self) -> bool {
        self.reported.is_empty()
    }

    /// `Err` with every problem, by line, if there was any.
    pub fn into_result(self) -> Result<(), InvalidInput> {
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
pub fn check_paper_id(id: &str, line: u64, column: &str) -> Result<(), Problem> {
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
pub fn json_problem(error: &serde_json::Error, line: u64) -> Problem {
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
pub fn parse_score(text: &str, line: u64) -> Result<Option<f64>, Problem> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_problem_on_many_lines_is_one_with_its_first_lines() {
        let mut problems = Problems::new("f");
        for line in (3..=40).rev() {
            problems.push(Problem::at(line, Some("year"), "bad"));
        }
        problems.push(Problem::at(2, Some("title"), "bad"));
        problems.push(Problem::whole_file("bad"));
        let invalid = problems.into_result().unwrap_err();
        let firsts: Vec<(Option<u64>, u64, Vec<u64>)> = (invalid.problems.iter())
            .map(|problem| (problem.line, problem.count, problem.lines.clone()))
            .collect();
        assert_eq!(
            firsts,
            [
                (None, 1, vec![]),
                (Some(2), 1, vec![2]),
                (Some(3), 38, (3..=12).collect()),
            ]
        );
        assert_eq!(
            invalid.to_string(),
            "f: bad\nf:2: `title`: bad\nf:3: `year`: bad (on 38 lines: 3, 4, 5, 6, 7, 8, 9, 10, \
             11, 12, …)"
        );
    }

    #[test]
    fn problems_whose_messages_were_cut_are_never_taken_for_one() {
        let mut problems = Problems::new("f");
        for line in 1..=3 {
            let long = format!("{}{line}", "x".repeat(MAX_MESSAGE_CHARACTERS + 5));
            problems.push(Problem::at(line, None, long));
        }
        let invalid = problems.into_result().unwrap_err();
        assert_eq!(invalid.problems.len(), 3);
    }
}
