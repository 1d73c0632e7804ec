//! Ratings CSV: `target,paper,stars` are required; `rated_at` (RFC 3339) is kept when given;
//! other columns (the exported titles) are ignored, so an exported file re-imports as is.

use std::collections::HashMap;
use std::io::Read;

use rand::Rng;
use sqlx::SqliteConnection;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::input::{self, Header};
use super::records::{Parse, Records};
use super::{Format, InvalidInput, Problem, Problems, RowsRead, Summary};
use crate::db::papers::PaperIndex;
use crate::db::{self, blind_pool, ratings};
use crate::domain::{PaperKey, Stars};

/// A ratings file, read and checked.
pub struct Staged {
    ratings: Vec<Rating>,
    read: u64,
}

/// Reads and checks a whole ratings file, resolving its ids against `papers` and counting its
/// rows in `rows`.
pub fn stage<R: Read>(
    reader: R,
    papers: &PaperIndex,
    source: &str,
    rows: &RowsRead,
) -> Result<Staged, InvalidInput> {
    let mut problems = Problems::new(source);
    let parser = RatingParser { papers };
    let mut records = match Records::open(reader, Format::Csv, parser, rows) {
        Ok(records) => records,
        Err(problem) => return Err(problems.fail(problem)),
    };
    let mut ratings = Vec::new();
    let mut first_line_of_pair: HashMap<(PaperKey, PaperKey), u64> = HashMap::new();
    while let Some(record) = records.next() {
        let (line, rating) = match record {
            Ok(record) => record,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        if let Some(first) = first_line_of_pair.insert((rating.target, rating.paper), line) {
            problems.push(Problem::at(
                line,
                None,
                format!("this pair is rated twice in the file (also line {first})"),
            ));
        } else if problems.is_empty() {
            ratings.push(rating);
        }
    }
    problems.into_result()?;
    Ok(Staged {
        ratings,
        read: records.read(),
    })
}

impl Staged {
    /// Sets each pair to the file's stars inside the caller's transaction, recording the
    /// change in the rating history. A rated pair not yet in the pool joins it (and is
    /// counted), so the rater can see and change it.
    pub async fn write(
        self,
        conn: &mut SqliteConnection,
        rng: &mut impl Rng,
    ) -> Result<Summary, sqlx::Error> {
        let mut summary = Summary::new("ratings");
        summary.read = self.read;
        let now = db::now_rfc3339();
        for rating in self.ratings {
            if blind_pool::ensure_pair(conn, rating.target, rating.paper, rng).await? {
                summary.pool_added += 1;
            }
            let change = ratings::set(
                conn,
                rating.target,
                rating.paper,
                Some(rating.stars),
                rating.rated_at.as_deref().unwrap_or(&now),
                ratings::Source::Import,
            )
            .await?;
            match change.previous {
                None => summary.added += 1,
                Some(_) if change.changed() => summary.updated += 1,
                Some(_) => summary.unchanged += 1,
            }
        }
        Ok(summary)
    }
}

/// One rating as read, its ids resolved.
struct Rating {
    target: PaperKey,
    paper: PaperKey,
    stars: Stars,
    rated_at: Option<String>,
}

/// Reads ratings from CSV, resolving ids against the study's papers.
struct RatingParser<'a> {
    papers: &'a PaperIndex,
}

struct CsvColumns {
    target: usize,
    paper: usize,
    stars: usize,
    rated_at: Option<usize>,
    count: usize,
}

impl Parse for RatingParser<'_> {
    type Row<'r>
        = Rating
    where
        Self: 'r;
    const ITEMS: &'static str = "ratings";
    const FORMATS: &'static [Format] = &[Format::Csv];
    const CSV_HEADER: &'static str = "target,paper,stars[,rated_at]";
    type Columns = CsvColumns;

    fn locate(&self, header: &Header) -> Result<CsvColumns, Problem> {
        Ok(CsvColumns {
            target: header.require("target", Self::CSV_HEADER)?,
            paper: header.require("paper", Self::CSV_HEADER)?,
            stars: header.require("stars", Self::CSV_HEADER)?,
            rated_at: header.optional("rated_at"),
            count: header.len(),
        })
    }

    fn csv<'r>(
        &'r self,
        columns: &CsvColumns,
        record: &'r csv::ByteRecord,
        line: u64,
    ) -> Result<Rating, Problem> {
        input::check_field_count(record, columns.count, line)?;
        let text = |index: usize, column: &str| {
            input::utf8_field(record, index, column, line).map(str::trim)
        };
        let resolve = |column: &str, index: usize| -> Result<PaperKey, Problem> {
            let id = text(index, column)?;
            self.papers
                .resolve(id)
                .ok_or_else(|| Problem::at(line, Some(column), format!("unknown paper id {id:?}")))
        };
        let target = resolve("target", columns.target)?;
        let paper = resolve("paper", columns.paper)?;
        let stars = text(columns.stars, "stars")?.parse().map_err(
            |error: crate::domain::InvalidStars| {
                Problem::at(line, Some("stars"), error.to_string())
            },
        )?;
        let rated_at = match columns.rated_at {
            Some(index) => parse_rated_at(text(index, "rated_at")?, line)?,
            None => None,
        };
        if target == paper {
            return Err(Problem::at(
                line,
                Some("paper"),
                "a paper cannot be rated as a recommendation for itself",
            ));
        }
        Ok(Rating {
            target,
            paper,
            stars,
            rated_at,
        })
    }
}

/// `rated_at` in RFC 3339, normalised to UTC with second precision; empty means "now".
fn parse_rated_at(text: &str, line: u64) -> Result<Option<String>, Problem> {
    if text.is_empty() {
        return Ok(None);
    }
    let instant = OffsetDateTime::parse(text, &Rfc3339).map_err(|_| {
        Problem::at(
            line,
            Some("rated_at"),
            format!("expected an RFC 3339 time such as 2026-11-22T09:30:00Z, got {text:?}"),
        )
    })?;
    let utc = instant
        .to_offset(time::UtcOffset::UTC)
        .replace_nanosecond(0)
        .map_err(|_| Problem::at(line, Some("rated_at"), "invalid time"))?;
    utc.format(&Rfc3339).map(Some).map_err(|_| {
        Problem::at(
            line,
            Some("rated_at"),
            "the time cannot be written as RFC 3339",
        )
    })
}
