//! A row of a recommendations file, in each format: CSV or JSONL (`model,target,rank,paper
//! [,score]`) and TREC runs (`target Q0 paper rank score model`).

use std::borrow::Cow;

use serde::Deserialize;

use crate::formats::input::{self, Header};
use crate::formats::records::Parse;
use crate::formats::trec::{self, RunLine};
use crate::formats::{json_problem, parse_score, Format, Problem};

/// One row as read, before its ids are resolved.
pub(super) struct Row<'r> {
    pub model: Cow<'r, str>,
    pub target: Cow<'r, str>,
    pub paper: Cow<'r, str>,
    pub rank: Option<i64>,
    pub score: Option<f64>,
}

/// Reads rows of recommendations; `model` names the model of every row, instead of the
/// file's model column or TREC run tag.
pub(super) struct RowParser<'a> {
    pub model: Option<&'a str>,
}

pub(super) struct CsvColumns {
    model: Option<usize>,
    target: usize,
    rank: Option<usize>,
    paper: usize,
    score: Option<usize>,
    count: usize,
}

impl Parse for RowParser<'_> {
    type Row<'r>
        = Row<'r>
    where
        Self: 'r;
    const ITEMS: &'static str = "recommendations";
    const FORMATS: &'static [Format] = &[Format::Csv, Format::Jsonl, Format::Trec];
    const CSV_HEADER: &'static str = "model,target,rank,paper[,score]";
    type Columns = CsvColumns;

    fn locate(&self, header: &Header) -> Result<CsvColumns, Problem> {
        let model = match header.optional("model") {
            Some(index) => Some(index),
            None if self.model.is_some() => None,
            None => Some(header.require("model", Self::CSV_HEADER)?),
        };
        let columns = CsvColumns {
            model,
            target: header.require("target", Self::CSV_HEADER)?,
            rank: header.optional("rank"),
            paper: header.require("paper", Self::CSV_HEADER)?,
            score: header.optional("score"),
            count: header.columns(),
        };
        if columns.rank.is_none() && columns.score.is_none() {
            return Err(Problem::at(
                1,
                Some("rank"),
                format!(
                    "the header needs a rank or a score column to order the lists ({})",
                    Self::CSV_HEADER
                ),
            ));
        }
        Ok(columns)
    }

    fn csv<'r>(
        &'r self,
        columns: &CsvColumns,
        record: &'r csv::ByteRecord,
        line: u64,
    ) -> Result<Row<'r>, Problem> {
        input::check_field_count(record, columns.count, line)?;
        let text = |index: usize, column: &str| {
            input::utf8_field(record, index, column, line).map(str::trim)
        };
        let model = match (self.model, columns.model) {
            (Some(name), _) => name,
            (None, Some(index)) => text(index, "model")?,
            (None, None) => {
                return Err(Problem::at(
                    line,
                    Some("model"),
                    "no model column, and no --model to name the model",
                ))
            }
        };
        let rank = match columns.rank {
            Some(index) => parse_rank(text(index, "rank")?, line)?,
            None => None,
        };
        let score = match columns.score {
            Some(index) => parse_score(text(index, "score")?, line)?,
            None => None,
        };
        if rank.is_none() && score.is_none() {
            return Err(Problem::at(
                line,
                Some("rank"),
                "the row has neither a rank nor a score",
            ));
        }
        Ok(Row {
            model: Cow::Borrowed(model),
            target: Cow::Borrowed(text(columns.target, "target")?),
            paper: Cow::Borrowed(text(columns.paper, "paper")?),
            rank,
            score,
        })
    }

    fn json<'r>(&'r self, text: &'r [u8], line: u64) -> Result<Row<'r>, Problem> {
        let row: JsonRow<'r> =
            serde_json::from_slice(text).map_err(|error| json_problem(&error, line))?;
        let model = match (self.model, row.model) {
            (Some(name), _) => Cow::Borrowed(name),
            (None, Some(model)) => model,
            (None, None) => {
                return Err(Problem::at(
                    line,
                    Some("model"),
                    "the object has no \"model\" key (or pass --model NAME)",
                ))
            }
        };
        if row.rank.is_none() && row.score.is_none() {
            return Err(Problem::at(
                line,
                Some("rank"),
                "the object has neither a \"rank\" nor a \"score\"",
            ));
        }
        if row.score.is_some_and(|score| !score.is_finite()) {
            return Err(Problem::at(line, Some("score"), "expected a finite number"));
        }
        if let Some(rank) = row.rank {
            if rank < 1 {
                return Err(Problem::at(
                    line,
                    Some("rank"),
                    format!("expected a positive integer rank, got {rank}"),
                ));
            }
        }
        Ok(Row {
            model,
            target: row.target,
            paper: row.paper,
            rank: row.rank,
            score: row.score,
        })
    }

    fn trec<'r>(&'r self, run: RunLine<'r>, line: u64) -> Result<Row<'r>, Problem> {
        let model = (self.model.or(run.model)).ok_or_else(|| {
            trec::untagged(
                line,
                "give its name with --model NAME or the import page's Model name",
            )
        })?;
        Ok(Row {
            model: Cow::Borrowed(model),
            target: Cow::Borrowed(run.target),
            paper: Cow::Borrowed(run.paper),
            // trec_eval ignores the rank column and orders by score.
            rank: None,
            score: Some(run.score),
        })
    }
}

#[derive(Deserialize)]
struct JsonRow<'a> {
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow)]
    target: Cow<'a, str>,
    #[serde(borrow)]
    paper: Cow<'a, str>,
    rank: Option<i64>,
    score: Option<f64>,
}

fn parse_rank(text: &str, line: u64) -> Result<Option<i64>, Problem> {
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<i64>() {
        Ok(rank) if rank >= 1 => Ok(Some(rank)),
        _ => Err(Problem::at(
            line,
            Some("rank"),
            format!("expected a positive integer rank, got {text:?}"),
        )),
    }
}
