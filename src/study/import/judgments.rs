//! A machine judge's grades as CSV (`paperjudge import judgments FILE --judge NAME`):
//! `target,paper,stars` are required, `explanation` is kept when given; other columns (those of
//! `export judgments`: `judge`, `judged_at`) are ignored, so an exported file re-imports as is.
//! Whole stars 1..5, as a rater gives them.
//!
//! Read and checked whole here; the study writes what was read (`Study::import`), apart from
//! the ratings: a grade never touches a rating, the pool or a target's progress.

use std::collections::HashMap;
use std::io::Read;

use crate::domain::{JudgeName, PaperKey, Stars};
use crate::formats::input::{self, Header};
use crate::formats::records::{Parse, Records};
use crate::formats::{Format, InvalidInput, Problem, Problems, RowsRead};
use crate::study::db::papers::PaperIndex;

/// How to read a judgments file: whose grades it holds.
#[derive(Debug, Clone)]
pub struct Options {
    pub judge: JudgeName,
}

/// A judgments file, read and checked.
#[derive(Debug)]
pub struct Staged {
    pub grades: Vec<StagedGrade>,
    /// Data rows read.
    pub read: u64,
}

/// One grade as read, its ids resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StagedGrade {
    pub target: PaperKey,
    pub paper: PaperKey,
    pub stars: Stars,
    /// `None` when the file has no `explanation` column or the field is empty.
    pub explanation: Option<String>,
}

/// Reads and checks a whole judgments file, resolving its ids against `papers` and counting
/// its rows in `rows`: every problem, by line and column, or the grades.
pub fn stage<R: Read>(
    reader: R,
    papers: &PaperIndex,
    source: &str,
    rows: &RowsRead,
) -> Result<Staged, InvalidInput> {
    let mut problems = Problems::new(source);
    let parser = GradeParser { papers };
    let mut records = match Records::open(reader, Format::Csv, parser, rows) {
        Ok(records) => records,
        Err(problem) => return Err(problems.fail(problem)),
    };
    let mut grades = Vec::new();
    let mut first_line_of_pair: HashMap<(PaperKey, PaperKey), u64> = HashMap::new();
    while let Some(record) = records.next() {
        let (line, grade) = match record {
            Ok(record) => record,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        if let Some(first) = first_line_of_pair.insert((grade.target, grade.paper), line) {
            problems.push(Problem::at(
                line,
                None,
                format!("this pair is graded twice in the file (also line {first})"),
            ));
        } else if problems.is_empty() {
            grades.push(grade);
        }
    }
    problems.into_result()?;
    Ok(Staged {
        grades,
        read: records.read(),
    })
}

/// Reads grades from CSV, resolving ids against the study's papers.
struct GradeParser<'a> {
    papers: &'a PaperIndex,
}

struct CsvColumns {
    target: usize,
    paper: usize,
    stars: usize,
    explanation: Option<usize>,
    count: usize,
}

impl Parse for GradeParser<'_> {
    type Row<'r>
        = StagedGrade
    where
        Self: 'r;
    const ITEMS: &'static str = "judgments";
    const FORMATS: &'static [Format] = &[Format::Csv];
    const CSV_HEADER: &'static str = "target,paper,stars[,explanation]";
    type Columns = CsvColumns;

    fn locate(&self, header: &Header) -> Result<CsvColumns, Problem> {
        Ok(CsvColumns {
            target: header.require("target", Self::CSV_HEADER)?,
            paper: header.require("paper", Self::CSV_HEADER)?,
            stars: header.require("stars", Self::CSV_HEADER)?,
            explanation: header.optional("explanation"),
            count: header.columns(),
        })
    }

    fn csv<'r>(
        &'r self,
        columns: &CsvColumns,
        record: &'r csv::ByteRecord,
        line: u64,
    ) -> Result<StagedGrade, Problem> {
        input::check_field_count(record, columns.count, line)?;
        let text = |index: usize, column: &str| input::utf8_field(record, index, column, line);
        let resolve = |column: &str, index: usize| -> Result<PaperKey, Problem> {
            let id = text(index, column)?.trim();
            self.papers
                .resolve(id)
                .ok_or_else(|| Problem::at(line, Some(column), format!("unknown paper id {id:?}")))
        };
        let target = resolve("target", columns.target)?;
        let paper = resolve("paper", columns.paper)?;
        // Whole stars exactly as written: ` 3`, `3.0` or `7` are refused, as a rating's are.
        let stars: Stars = text(columns.stars, "stars")?.parse().map_err(
            |error: crate::domain::InvalidStars| {
                Problem::at(line, Some("stars"), error.to_string())
            },
        )?;
        let explanation = match columns.explanation {
            Some(index) => Some(text(index, "explanation")?.trim())
                .filter(|explanation| !explanation.is_empty())
                .map(str::to_owned),
            None => None,
        };
        if target == paper {
            return Err(Problem::at(
                line,
                Some("paper"),
                "a paper cannot be graded as a recommendation for itself",
            ));
        }
        Ok(StagedGrade {
            target,
            paper,
            stars,
            explanation,
        })
    }
}
