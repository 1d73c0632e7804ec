//! Papers from CSV (`id,title[,abstract,authors,year,url]`) or JSONL (one object a line).

use std::collections::HashMap;
use std::io::Read;

use serde::Deserialize;
use sqlx::SqliteConnection;

use super::input::{self, Header, Lines};
use super::{check_external_id, Format, ImportError, Problem, Problems, Summary};
use crate::db::papers::{self, NewPaper, Upserted};

const CSV_HEADER: &str = "id,title[,abstract,authors,year,url]";

/// Imports papers inside the caller's transaction: new ids are added, known ids updated
/// (columns absent from the file keep their stored values).
pub async fn import<R: Read>(
    conn: &mut SqliteConnection,
    reader: R,
    format: Format,
    source: &str,
) -> Result<Summary, ImportError> {
    let mut problems = Problems::new(source);
    let mut summary = Summary::new("papers");
    let mut first_line_of_id = HashMap::new();
    let mut store = |paper: NewPaper, line: u64, problems: &mut Problems| {
        if let Some(first) = first_line_of_id.insert(paper.external_id.clone(), line) {
            problems.push(Problem::at(
                line,
                Some("id"),
                format!(
                    "paper {:?} appears twice in this file (also line {first})",
                    paper.external_id
                ),
            ));
            return None;
        }
        Some(paper)
    };
    match format {
        Format::Csv => {
            let mut reader = input::open_csv(reader);
            let columns = match Header::read(&mut reader, CSV_HEADER)
                .and_then(|header| CsvColumns::locate(&header))
            {
                Ok(columns) => columns,
                Err(problem) => return Err(problems.fail(problem)),
            };
            let mut record = csv::ByteRecord::new();
            loop {
                let line = match input::next_record(&mut reader, &mut record) {
                    Ok(Some(line)) => line,
                    Ok(None) => break,
                    Err(problem) => {
                        problems.push(problem);
                        break;
                    }
                };
                summary.read += 1;
                match columns.paper(&record, line) {
                    Ok(paper) => {
                        if let Some(paper) = store(paper, line, &mut problems) {
                            if problems.is_empty() {
                                count(&mut summary, papers::upsert(conn, &paper).await?);
                            }
                        }
                    }
                    Err(problem) => problems.push(problem),
                }
            }
        }
        Format::Jsonl => {
            let mut lines = Lines::new(reader);
            loop {
                let (line, text) = match lines.next_line() {
                    Ok(Some(next)) => next,
                    Ok(None) => break,
                    Err(problem) => {
                        problems.push(problem);
                        break;
                    }
                };
                summary.read += 1;
                match json_paper(text, line) {
                    Ok(paper) => {
                        if let Some(paper) = store(paper, line, &mut problems) {
                            if problems.is_empty() {
                                count(&mut summary, papers::upsert(conn, &paper).await?);
                            }
                        }
                    }
                    Err(problem) => problems.push(problem),
                }
            }
            if summary.read == 0 && problems.is_empty() {
                problems.push(Problem::whole_file(
                    "the file holds no papers; expected one JSON object a line",
                ));
            }
        }
        Format::Trec => problems.push(Problem::whole_file(
            "papers cannot be read from a TREC file; use CSV or JSONL",
        )),
    }
    problems.into_result()?;
    papers::index_new(conn).await?;
    Ok(summary)
}

fn count(summary: &mut Summary, upserted: Upserted) {
    match upserted {
        Upserted::Added => summary.added += 1,
        Upserted::Updated => summary.updated += 1,
        Upserted::Unchanged => summary.unchanged += 1,
    }
}

struct CsvColumns {
    id: usize,
    title: usize,
    abstract_text: Option<usize>,
    authors: Option<usize>,
    year: Option<usize>,
    url: Option<usize>,
    count: usize,
}

impl CsvColumns {
    fn locate(header: &Header) -> Result<CsvColumns, Problem> {
        Ok(CsvColumns {
            id: header.require("id", CSV_HEADER)?,
            title: header.require("title", CSV_HEADER)?,
            abstract_text: header.optional("abstract"),
            authors: header.optional("authors"),
            year: header.optional("year"),
            url: header.optional("url"),
            count: header.len(),
        })
    }

    fn paper(&self, record: &csv::ByteRecord, line: u64) -> Result<NewPaper, Problem> {
        input::check_field_count(record, self.count, line)?;
        let text = |index: usize, column: &str| input::utf8_field(record, index, column, line);
        let optional = |index: Option<usize>, column: &str| -> Result<Option<String>, Problem> {
            index
                .map(|index| text(index, column).map(|value| value.trim().to_owned()))
                .transpose()
        };
        let year = match self.year {
            None => None,
            Some(index) => Some(parse_year(text(index, "year")?, line)?),
        };
        validated(
            NewPaper {
                external_id: text(self.id, "id")?.trim().to_owned(),
                title: text(self.title, "title")?.trim().to_owned(),
                abstract_text: optional(self.abstract_text, "abstract")?,
                authors: optional(self.authors, "authors")?,
                year,
                url: optional(self.url, "url")?,
            },
            line,
        )
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
    if let Err(why) = check_external_id(&paper.external_id) {
        return Err(Problem::at(line, Some("id"), format!("the paper id {why}")));
    }
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
    let paper: JsonPaper =
        serde_json::from_slice(bytes).map_err(|error| super::json_problem(&error, line))?;
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
