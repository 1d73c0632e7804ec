//! Papers from CSV (`id,title[,abstract,authors,year,url]`) or JSONL (one object a line).

use std::collections::HashMap;
use std::io::Read;

use serde::Deserialize;

use super::Summary;
use crate::formats::input::{self, Header};
use crate::formats::records::{Parse, Records};
use crate::formats::{check_paper_id, Format, InvalidInput, Problem, Problems, RowsRead};
use crate::study::db::papers::{self, NewPaper, PaperWriter, Upserted};

/// A papers file, read and checked.
pub struct Staged {
    papers: Vec<NewPaper>,
    read: u64,
}

/// Reads and checks a whole papers file, counting its rows in `rows`.
pub fn stage<R: Read>(
    reader: R,
    format: Format,
    source: &str,
    rows: &RowsRead,
) -> Result<Staged, InvalidInput> {
    let mut problems = Problems::new(source);
    let mut records = match Records::open(reader, format, PaperParser, rows) {
        Ok(records) => records,
        Err(problem) => return Err(problems.fail(problem)),
    };
    let mut papers = Vec::new();
    let mut first_line_of_id = HashMap::new();
    while let Some(record) = records.next() {
        let (line, paper) = match record {
            Ok(record) => record,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        if let Some(first) = first_line_of_id.insert(paper.external_id.clone(), line) {
            problems.push(Problem::at(
                line,
                Some("id"),
                format!(
                    "paper {:?} appears twice in this file (also line {first})",
                    paper.external_id
                ),
            ));
        } else if problems.is_empty() {
            papers.push(paper);
        }
    }
    if records.read() == 0 && problems.is_empty() && format == Format::Jsonl {
        problems.push(Problem::whole_file(
            "the file holds no papers; expected one JSON object a line",
        ));
    }
    problems.into_result()?;
    Ok(Staged {
        papers,
        read: records.read(),
    })
}

impl Staged {
    /// Adds the new ids and updates the known ones (columns absent from the file keep their
    /// stored values), inside the caller's transaction.
    pub(super) fn write(self, conn: &rusqlite::Connection) -> rusqlite::Result<Summary> {
        let mut summary = Summary::new("papers");
        summary.read = self.read;
        let mut writer = PaperWriter::prepare(conn)?;
        for paper in &self.papers {
            match writer.upsert(paper)? {
                Upserted::Added => summary.added += 1,
                Upserted::Updated => summary.updated += 1,
                Upserted::Unchanged => summary.unchanged += 1,
            }
        }
        papers::index_new(conn)?;
        Ok(summary)
    }
}

/// Reads papers from CSV or JSONL.
struct PaperParser;

/// Where the columns of a papers CSV are.
struct CsvColumns {
    id: usize,
    title: usize,
    abstract_text: Option<usize>,
    authors: Option<usize>,
    year: Option<usize>,
    url: Option<usize>,
    count: usize,
}

impl Parse for PaperParser {
    type Row<'r> = NewPaper;
    const ITEMS: &'static str = "papers";
    const FORMATS: &'static [Format] = &[Format::Csv, Format::Jsonl];
    const CSV_HEADER: &'static str = "id,title[,abstract,authors,year,url]";

    type Columns = CsvColumns;

    fn locate(&self, header: &Header) -> Result<CsvColumns, Problem> {
        Ok(CsvColumns {
            id: header.require("id", Self::CSV_HEADER)?,
            title: header.require("title", Self::CSV_HEADER)?,
            abstract_text: header.optional("abstract"),
            authors: header.optional("authors"),
            year: header.optional("year"),
            url: header.optional("url"),
            count: header.columns(),
        })
    }

    fn csv<'r>(
        &'r self,
        columns: &CsvColumns,
        record: &'r csv::ByteRecord,
        line: u64,
    ) -> Result<NewPaper, Problem> {
        input::check_field_count(record, columns.count, line)?;
        let text = |index: usize, column: &str| input::utf8_field(record, index, column, line);
        let optional = |index: Option<usize>, column: &str| -> Result<Option<String>, Problem> {
            index
                .map(|index| text(index, column).map(|value| value.trim().to_owned()))
                .transpose()
        };
        let year = match columns.year {
            None => None,
            Some(index) => Some(parse_year(text(index, "year")?, line)?),
        };
        validated(
            NewPaper {
                external_id: text(columns.id, "id")?.trim().to_owned(),
                title: text(columns.title, "title")?.trim().to_owned(),
                abstract_text: optional(columns.abstract_text, "abstract")?,
                authors: optional(columns.authors, "authors")?,
                year,
                url: optional(columns.url, "url")?,
            },
            line,
        )
    }

    fn json<'r>(&'r self, text: &'r [u8], line: u64) -> Result<NewPaper, Problem> {
        json_paper(text, line)
    }
}

fn parse_year(text: &str, line: u64) -> Result<Option<i64>, Problem> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<i64>() {
        Ok(year) if (0..=9999).contains(&year) => Ok(Some(year)),
        _ => Err(Problem::at(
            line,
            Some("year"),
            format!("expected a year such as 2019, got {text:?}"),
        )),
    }
}

fn validated(paper: NewPaper, line: u64) -> Result<NewPaper, Problem> {
    let texts = [
        ("id", Some(&paper.external_id)),
        ("title", Some(&paper.title)),
        ("abstract", paper.abstract_text.as_ref()),
        ("authors", paper.authors.as_ref()),
        ("url", paper.url.as_ref()),
    ];
    for (field, text) in texts {
        if let Some(text) = text {
            input::check_field_size(text, field, line)?;
        }
    }
    check_paper_id(&paper.external_id, line, "id")?;
    if paper.title.is_empty() {
        return Err(Problem::at(line, Some("title"), "the title is empty"));
    }
    Ok(paper)
}

/// `authors` in JSONL: one string, or an array of names.
#[derive(Deserialize)]
#[serde(untagged)]
enum Authors {
    Joined(String),
    List(Vec<String>),
}

/// A year in JSONL: a number or a string of digits.
#[derive(Deserialize)]
#[serde(untagged)]
enum Year {
    Number(i64),
    Text(String),
}

/// Keys other than these are ignored, as other columns are in CSV.
#[derive(Deserialize)]
struct JsonPaper {
    id: String,
    title: String,
    #[serde(rename = "abstract")]
    abstract_text: Option<String>,
    authors: Option<Authors>,
    #[serde(default, deserialize_with = "present")]
    year: Option<Option<Year>>,
    url: Option<String>,
}

/// Tells a key given as `null` (`Some(None)`) from a missing key (`None`).
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

fn json_paper(bytes: &[u8], line: u64) -> Result<NewPaper, Problem> {
    let paper: JsonPaper = serde_json::from_slice(bytes)
        .map_err(|error| crate::formats::json_problem(&error, line))?;
    let year = match paper.year {
        None => None,
        Some(None) => Some(None),
        Some(Some(Year::Number(year))) => Some(parse_year(&year.to_string(), line)?),
        Some(Some(Year::Text(year))) => Some(parse_year(&year, line)?),
    };
    validated(
        NewPaper {
            external_id: paper.id.trim().to_owned(),
            title: paper.title.trim().to_owned(),
            abstract_text: paper.abstract_text.map(|text| text.trim().to_owned()),
            authors: paper.authors.map(|authors| match authors {
                Authors::Joined(names) => names.trim().to_owned(),
                Authors::List(names) => names.join("; "),
            }),
            year,
            url: paper.url.map(|url| url.trim().to_owned()),
        },
        line,
    )
}
