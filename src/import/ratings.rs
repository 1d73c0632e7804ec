//! Ratings CSV: `target,paper,stars` are required; `rated_at` (RFC 3339) is kept when given;
//! other columns (the exported titles) are ignored, so an exported file re-imports as is.

use std::collections::HashMap;
use std::io::Read;

use rand::Rng;
use sqlx::SqliteConnection;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::input::{self, Header};
use super::{ImportError, Problem, Problems, Summary};
use crate::db::{self, blind_pool, ratings};
use crate::domain::{PaperId, Stars};

const CSV_HEADER: &str = "target,paper,stars[,rated_at]";

/// Imports ratings inside the caller's transaction: each pair is set to the file's stars and
/// the change goes into the rating history. A rated pair not yet in the pool joins it, so the
/// rater can see and change it.
pub async fn import<R: Read>(
    conn: &mut SqliteConnection,
    reader: R,
    source: &str,
    rng: &mut impl Rng,
) -> Result<Summary, ImportError> {
    let papers = db::papers::id_index(&mut *conn).await?;
    let mut problems = Problems::new(source);
    let mut summary = Summary::new("ratings");
    let mut reader = input::open_csv(reader);
    let header = match Header::read(&mut reader, CSV_HEADER) {
        Ok(header) => header,
        Err(problem) => return Err(problems.fail(problem)),
    };
    let located = (|| {
        Ok::<_, Problem>((
            header.require("target", CSV_HEADER)?,
            header.require("paper", CSV_HEADER)?,
            header.require("stars", CSV_HEADER)?,
        ))
    })();
    let (target_column, paper_column, stars_column) = match located {
        Ok(columns) => columns,
        Err(problem) => return Err(problems.fail(problem)),
    };
    let rated_at_column = header.optional("rated_at");
    let now = db::now_rfc3339();
    let mut first_line_of_pair: HashMap<(PaperId, PaperId), u64> = HashMap::new();
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
        if let Err(problem) = input::check_field_count(&record, header.len(), line) {
            problems.push(problem);
            continue;
        }
        let parsed = (|| {
            let text = |index: usize, column: &str| {
                input::utf8_field(&record, index, column, line).map(str::trim)
            };
            let resolve = |column: &str, index: usize| -> Result<PaperId, Problem> {
                let id = text(index, column)?;
                papers.get(id).map(|paper| paper.key).ok_or_else(|| {
                    Problem::at(line, Some(column), format!("unknown paper id {id:?}"))
                })
            };
            let target = resolve("target", target_column)?;
            let paper = resolve("paper", paper_column)?;
            let stars_text = text(stars_column, "stars")?;
            let stars: Stars =
                stars_text
                    .parse()
                    .map_err(|error: crate::domain::InvalidStars| {
                        Problem::at(line, Some("stars"), error.to_string())
                    })?;
            let rated_at = match rated_at_column {
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
            Ok((target, paper, stars, rated_at))
        })();
        let (target, paper, stars, rated_at) = match parsed {
            Ok(parsed) => parsed,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        if let Some(first) = first_line_of_pair.insert((target, paper), line) {
            problems.push(Problem::at(
                line,
                None,
                format!("this pair is rated twice in the file (also line {first})"),
            ));
            continue;
        }
        if !problems.is_empty() {
            continue;
        }
        blind_pool::ensure_pair(conn, target, paper, rng).await?;
        let rated_at = rated_at.as_deref().unwrap_or(&now);
        let change = ratings::set(
            conn,
            target,
            paper,
            Some(stars),
            rated_at,
            ratings::Source::Import,
        )
        .await?;
        match change.previous {
            None => summary.added += 1,
            Some(_) if change.changed() => summary.updated += 1,
            Some(_) => summary.unchanged += 1,
        }
    }
    if summary.read == 0 && problems.is_empty() {
        problems.push(Problem::whole_file(format!(
            "the file has a header but no ratings ({CSV_HEADER})"
        )));
    }
    problems.into_result()?;
    Ok(summary)
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
