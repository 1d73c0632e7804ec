//! Ratings CSV: `target,paper,stars` are required (`stars` 1 to 5, or `cannot-judge`);
//! `rated_at` (RFC 3339) is kept when given; `rater` names whose rating it is (without the
//! column, every rating is the rater of `--rater`, by default the owner's); `note` is the
//! rater's note (empty: none; without the column, a rating keeps the note it has); other
//! columns (the exported titles) are ignored, so an exported file re-imports as is.

use std::collections::HashMap;
use std::io::Read;

use rand::Rng;
use sqlx::SqliteConnection;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::{KnownRater, Summary};
use crate::domain::{Answer, Note, PaperKey, RaterId, RaterName};
use crate::formats::input::{self, Header};
use crate::formats::records::{Parse, Records};
use crate::formats::{Format, InvalidInput, Problem, Problems, RowsRead};
use crate::study::db::papers::PaperIndex;
use crate::study::db::rating::Pair;
use crate::study::db::{self, pool, rating};
use crate::study::rating::Rating as Stored;

/// How to read a ratings file.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Whose ratings a file without a `rater` column holds; `None`: the owner's.
    pub rater: Option<RaterName>,
}

/// A ratings file, read and checked.
pub struct Staged {
    ratings: Vec<Rating>,
    read: u64,
}

/// Reads and checks a whole ratings file, resolving its ids against `papers` and its raters
/// against `raters`, and counting its rows in `rows`.
pub fn stage<R: Read>(
    reader: R,
    papers: &PaperIndex,
    raters: &[KnownRater],
    options: &Options,
    source: &str,
    rows: &RowsRead,
) -> Result<Staged, InvalidInput> {
    let mut problems = Problems::new(source);
    let default_rater = match &options.rater {
        None => RaterId::OWNER,
        Some(name) => match resolve_rater(raters, name) {
            Ok(id) => id,
            Err(message) => {
                return Err(problems.fail(Problem::whole_file(format!("--rater: {message}"))))
            }
        },
    };
    let parser = RatingParser {
        papers,
        raters,
        default_rater,
    };
    let mut records = match Records::open(reader, Format::Csv, parser, rows) {
        Ok(records) => records,
        Err(problem) => return Err(problems.fail(problem)),
    };
    let mut ratings = Vec::new();
    let mut first_line_of_pair: HashMap<(PaperKey, PaperKey, RaterId), u64> = HashMap::new();
    while let Some(record) = records.next() {
        let (line, rating) = match record {
            Ok(record) => record,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        let pair = (rating.target, rating.paper, rating.rater);
        if let Some(first) = first_line_of_pair.insert(pair, line) {
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
            if pool::ensure_pair(conn, rating.target, rating.paper, rng).await? {
                summary.pool_added += 1;
            }
            let pair = Pair {
                target: rating.target,
                paper: rating.paper,
                rater: rating.rater,
            };
            let previous = rating::current(&mut *conn, pair).await?;
            let note = match rating.note {
                Some(note) => note,
                None => previous.as_ref().and_then(|kept| kept.note.clone()),
            };
            let stored = Stored {
                answer: rating.answer,
                note,
            };
            let rated_at = rating.rated_at.as_deref().unwrap_or(&now);
            let change = rating::set(
                conn,
                pair,
                previous,
                Some(stored),
                rated_at,
                rating::Source::Import,
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
    rater: RaterId,
    answer: Answer,
    rated_at: Option<String>,
    /// The file's note (`Some(None)`: none); `None` without a `note` column.
    note: Option<Option<Note>>,
}

/// Reads ratings from CSV, resolving ids against the study's papers and raters.
struct RatingParser<'a> {
    papers: &'a PaperIndex,
    raters: &'a [KnownRater],
    /// Whose ratings the rows are without a `rater` column.
    default_rater: RaterId,
}

struct CsvColumns {
    target: usize,
    paper: usize,
    stars: usize,
    rated_at: Option<usize>,
    rater: Option<usize>,
    note: Option<usize>,
    count: usize,
}

/// The rater of a name, unless the study has no such rater or they were removed.
fn resolve_rater(raters: &[KnownRater], name: &RaterName) -> Result<RaterId, String> {
    match raters.iter().find(|(_, known, _)| known == name) {
        Some((_, _, true)) => Err(format!(
            "the rater {name:?} was removed; `paperjudge raters add` brings them back"
        )),
        Some((id, _, false)) => Ok(*id),
        None => Err(format!(
            "there is no rater {name:?} in this study (`paperjudge raters list` lists them)"
        )),
    }
}

impl Parse for RatingParser<'_> {
    type Row<'r>
        = Rating
    where
        Self: 'r;
    const ITEMS: &'static str = "ratings";
    const FORMATS: &'static [Format] = &[Format::Csv];
    const CSV_HEADER: &'static str = "target,paper,stars[,rated_at][,rater][,note]";
    type Columns = CsvColumns;

    fn locate(&self, header: &Header) -> Result<CsvColumns, Problem> {
        Ok(CsvColumns {
            target: header.require("target", Self::CSV_HEADER)?,
            paper: header.require("paper", Self::CSV_HEADER)?,
            stars: header.require("stars", Self::CSV_HEADER)?,
            rated_at: header.optional("rated_at"),
            rater: header.optional("rater"),
            note: header.optional("note"),
            count: header.columns(),
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
        // Untrimmed, unlike the other fields: stars are one digit (or `cannot-judge`) and
        // nothing else, as the web takes them (` 3` is refused there too).
        let answer = input::utf8_field(record, columns.stars, "stars", line)?
            .parse()
            .map_err(|error: crate::domain::InvalidAnswer| {
                Problem::at(line, Some("stars"), error.to_string())
            })?;
        let note = match columns.note {
            Some(index) => Some(
                Note::new(text(index, "note")?)
                    .map_err(|invalid| Problem::at(line, Some("note"), invalid.to_string()))?,
            ),
            None => None,
        };
        let rated_at = match columns.rated_at {
            Some(index) => parse_rated_at(text(index, "rated_at")?, line)?,
            None => None,
        };
        let rater = match columns.rater {
            Some(index) => {
                let name = RaterName::new(text(index, "rater")?)
                    .map_err(|invalid| Problem::at(line, Some("rater"), invalid.to_string()))?;
                resolve_rater(self.raters, &name)
                    .map_err(|message| Problem::at(line, Some("rater"), message))?
            }
            None => self.default_rater,
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
            rater,
            answer,
            rated_at,
            note,
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
