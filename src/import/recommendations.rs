//! The models' ranked lists, from CSV or JSONL (`model,target,rank,paper[,score]`) or TREC run
//! files (`target Q0 paper rank score model`).
//!
//! Rows are buffered one target at a time and written when the target changes, so memory does
//! not grow with the file. A (model, target) list in the file replaces the stored one; if the
//! rows of one list are scattered through the file, the part written earlier is read back and
//! merged, so any row order gives the same result. Only the targets the study rates now get a
//! pool; the lists of the others are stored, to be pooled when they are chosen.

use std::collections::{HashMap, HashSet};
use std::io::Read;

use rand::Rng;
use serde::Deserialize;
use sqlx::SqliteConnection;

use super::input::{self, Header, Lines};
use super::{Format, ImportError, Problem, Problems, Summary};
use crate::db::blind_pool::NewPair;
use crate::db::papers::PaperRef;
use crate::db::recommendations::{self as stored, NewEntry, NewRow};
use crate::db::targets::TargetChoice;
use crate::db::{self, blind_pool};
use crate::domain::{ModelId, PaperId};

const CSV_HEADER: &str = "model,target,rank,paper[,score]";

/// New targets' rows are written once this many are staged.
const STAGED_ROWS_LIMIT: usize = 8 * stored::ROWS_PER_INSERT;

/// How the importer reads a file.
#[derive(Debug, Clone)]
pub struct Options {
    pub format: Format,
    /// Names the model of every row, instead of the file's model column or TREC run tag.
    pub model: Option<String>,
}

/// One row as read, before its ids are resolved.
struct Row<'a> {
    model: &'a str,
    target: &'a str,
    paper: &'a str,
    rank: Option<i64>,
    score: Option<f64>,
}

/// An entry of a list being assembled; `line` is `None` for entries written earlier in this
/// import and read back for a merge.
#[derive(Debug, Clone, Copy)]
struct Pending {
    paper: PaperRef,
    given_rank: Option<i64>,
    score: Option<f64>,
    line: Option<u64>,
}

/// Imports recommendations inside the caller's transaction, refreshing the pool of every
/// target rated now whose lists changed. `rng` draws the pool's display keys and the order
/// keys of new targets.
pub async fn import<R: Read>(
    conn: &mut SqliteConnection,
    reader: R,
    options: &Options,
    source: &str,
    rng: &mut impl Rng,
) -> Result<Summary, ImportError> {
    let papers = db::papers::id_index(&mut *conn).await?;
    let depth = db::study::pool_depth(&mut *conn).await?.get();
    let rates_all = db::targets::choice(&mut *conn).await? == TargetChoice::All;
    let known = db::targets::known(&mut *conn).await?;
    let mut importer = Importer {
        papers: &papers,
        options,
        depth,
        models: HashMap::new(),
        seen_lists: HashSet::new(),
        rates_all,
        targets_with_lists: known.with_lists_or_pool,
        active: known.active,
        staged_targets: Vec::new(),
        staged_rows: Vec::new(),
        staged_pairs: Vec::new(),
        current_target: None,
        buffer: Vec::new(),
        problems: Problems::new(source),
        summary: Summary::new("lists"),
    };
    if let Some(problem) =
        (options.model.as_deref()).and_then(|model| check_model_name(model, 0).err())
    {
        return Err(importer
            .problems
            .fail(Problem::whole_file(format!("--model: {}", problem.message))));
    }
    match options.format {
        Format::Csv => importer.read_csv(conn, reader, rng).await?,
        Format::Jsonl | Format::Trec => importer.read_lines(conn, reader, rng).await?,
    }
    importer.flush(conn, rng).await?;
    importer.write_staged(conn, rng).await?;
    if importer.summary.read == 0 && importer.problems.is_empty() {
        importer.problems.push(Problem::whole_file(
            "the file holds no recommendations (an empty file imports nothing)",
        ));
    }
    let summary = importer.summary;
    importer.problems.into_result()?;
    Ok(summary)
}

struct Importer<'a> {
    papers: &'a HashMap<Box<str>, PaperRef>,
    options: &'a Options,
    depth: u32,
    models: HashMap<String, ModelId>,
    /// Lists already written by this import (merged, not replaced, if they come up again).
    seen_lists: HashSet<(PaperId, ModelId)>,
    /// The study rates every candidate target: each new one is rated, and gets a pool.
    rates_all: bool,
    /// Targets with stored lists, pool or ratings, including those of this import.
    targets_with_lists: HashSet<PaperId>,
    /// Targets rated now, whose pools follow their lists.
    active: HashSet<PaperId>,
    /// New targets, their rows, and the pool pairs of those rated now, written in batches.
    staged_targets: Vec<PaperId>,
    staged_rows: Vec<NewRow>,
    staged_pairs: Vec<NewPair>,
    current_target: Option<PaperRef>,
    /// The current target's lists, in the order their models first appeared.
    buffer: Vec<(ModelId, String, Vec<Pending>)>,
    problems: Problems,
    summary: Summary,
}

impl Importer<'_> {
    async fn read_csv<R: Read>(
        &mut self,
        conn: &mut SqliteConnection,
        reader: R,
        rng: &mut impl Rng,
    ) -> Result<(), sqlx::Error> {
        let mut reader = input::open_csv(reader);
        let columns = match Header::read(&mut reader, CSV_HEADER)
            .and_then(|header| CsvColumns::locate(&header, self.options.model.is_some()))
        {
            Ok(columns) => columns,
            Err(problem) => {
                self.problems.push(problem);
                return Ok(());
            }
        };
        let mut record = csv::ByteRecord::new();
        loop {
            let line = match input::next_record(&mut reader, &mut record) {
                Ok(Some(line)) => line,
                Ok(None) => return Ok(()),
                Err(problem) => {
                    self.problems.push(problem);
                    return Ok(());
                }
            };
            self.summary.read += 1;
            match columns.row(&record, line, self.options.model.as_deref()) {
                Ok(row) => self.accept(conn, row, line, rng).await?,
                Err(problem) => self.problems.push(problem),
            }
        }
    }

    async fn read_lines<R: Read>(
        &mut self,
        conn: &mut SqliteConnection,
        reader: R,
        rng: &mut impl Rng,
    ) -> Result<(), sqlx::Error> {
        let mut lines = Lines::new(reader);
        loop {
            let (line, text) = match lines.next_line() {
                Ok(Some(next)) => next,
                Ok(None) => return Ok(()),
                Err(problem) => {
                    self.problems.push(problem);
                    return Ok(());
                }
            };
            self.summary.read += 1;
            let parsed = match self.options.format {
                Format::Trec => trec_row(text, line, self.options.model.as_deref()),
                _ => json_row(text, line, self.options.model.as_deref()),
            };
            match parsed {
                Ok(JsonOrTrec::Trec(row)) => self.accept(conn, row, line, rng).await?,
                Ok(JsonOrTrec::Json(row)) => {
                    let row = Row {
                        model: row.model(),
                        target: &row.target,
                        paper: &row.paper,
                        rank: row.rank,
                        score: row.score,
                    };
                    self.accept(conn, row, line, rng).await?
                }
                Err(problem) => self.problems.push(problem),
            }
        }
    }

    /// Resolves a row's ids and adds it to the current target's lists.
    async fn accept(
        &mut self,
        conn: &mut SqliteConnection,
        row: Row<'_>,
        line: u64,
        rng: &mut impl Rng,
    ) -> Result<(), sqlx::Error> {
        let target = self.resolve(row.target, "target", line);
        let paper = self.resolve(row.paper, "paper", line);
        if let Err(problem) = check_model_name(row.model, line) {
            self.problems.push(problem);
            return Ok(());
        }
        let (Some(target), Some(paper)) = (target, paper) else {
            return Ok(());
        };
        if target == paper {
            self.summary.dropped += 1;
            return Ok(());
        }
        if self.current_target != Some(target) {
            self.flush(conn, rng).await?;
            self.current_target = Some(target);
        }
        let model = match self.models.get(row.model) {
            Some(model) => *model,
            None => {
                let model = stored::model_id(conn, row.model).await?;
                self.models.insert(row.model.to_owned(), model);
                model
            }
        };
        let entry = Pending {
            paper,
            given_rank: row.rank,
            score: row.score,
            line: Some(line),
        };
        match self.buffer.iter_mut().find(|(key, _, _)| *key == model) {
            Some((_, _, entries)) => entries.push(entry),
            None => self.buffer.push((model, row.model.to_owned(), vec![entry])),
        }
        Ok(())
    }

    fn resolve(&mut self, id: &str, column: &str, line: u64) -> Option<PaperRef> {
        let reference = self.papers.get(id.trim()).copied();
        if reference.is_none() {
            self.problems.push(Problem::at(
                line,
                Some(column),
                format!("unknown paper id {id:?}: import it with `paperjudge import papers` first"),
            ));
        }
        reference
    }

    /// Orders and checks the buffered lists of the current target and writes them (new
    /// targets in batches), with the target's pool. Once any problem is known nothing more is
    /// written (the transaction will be rolled back), but lists are still checked so that
    /// every problem is reported.
    async fn flush(
        &mut self,
        conn: &mut SqliteConnection,
        rng: &mut impl Rng,
    ) -> Result<(), sqlx::Error> {
        let Some(target) = self.current_target.take() else {
            return Ok(());
        };
        let lists = std::mem::take(&mut self.buffer);
        if self.targets_with_lists.insert(target.key) {
            self.stage_new_target(target.key, lists, rng);
            if self.staged_rows.len() >= STAGED_ROWS_LIMIT {
                self.write_staged(conn, rng).await?;
            }
            Ok(())
        } else {
            // Stored lists to replace or merge, and a pool to keep: go through the database,
            // after what is staged, so that every read sees it.
            self.write_staged(conn, rng).await?;
            self.replace_lists(conn, target.key, lists, rng).await
        }
    }

    /// A target without stored lists, pool or ratings: its lists (and its pool, if the study
    /// rates it) follow from the file alone.
    fn stage_new_target(
        &mut self,
        target: PaperId,
        lists: Vec<(ModelId, String, Vec<Pending>)>,
        rng: &mut impl Rng,
    ) {
        self.staged_targets.push(target);
        let mut pooled = HashSet::new();
        for (model, model_name, entries) in lists {
            self.seen_lists.insert((target, model));
            self.summary.added += 1;
            let Some(ordered) = self.order(entries, &model_name) else {
                continue;
            };
            pooled.extend(
                ordered
                    .iter()
                    .take(self.depth as usize)
                    .map(|entry| entry.paper),
            );
            if self.problems.is_empty() {
                self.staged_rows.extend(
                    (1..)
                        .zip(ordered)
                        .map(|(position, entry)| (target, model, position, entry)),
                );
            }
        }
        if !(self.rates_all || self.active.contains(&target)) {
            return;
        }
        let pairs = blind_pool::with_display_keys(target, pooled, rng);
        self.summary.pool_added += pairs.len() as u64;
        if self.problems.is_empty() {
            self.staged_pairs.extend(pairs);
        }
    }

    async fn write_staged(
        &mut self,
        conn: &mut SqliteConnection,
        rng: &mut impl Rng,
    ) -> Result<(), sqlx::Error> {
        if self.problems.is_empty() {
            db::targets::register_listed(conn, &self.staged_targets, rng).await?;
            stored::insert_rows(conn, &self.staged_rows).await?;
            blind_pool::insert_pairs(conn, &self.staged_pairs).await?;
        }
        self.staged_targets.clear();
        self.staged_rows.clear();
        self.staged_pairs.clear();
        Ok(())
    }

    /// A target with stored lists, pool or ratings: each list in the file replaces the stored
    /// one (or, if it came up earlier in this file, is merged with it), then the pool is
    /// refreshed from what is stored.
    async fn replace_lists(
        &mut self,
        conn: &mut SqliteConnection,
        target: PaperId,
        lists: Vec<(ModelId, String, Vec<Pending>)>,
        rng: &mut impl Rng,
    ) -> Result<(), sqlx::Error> {
        let mut rows = Vec::new();
        for (model, model_name, mut entries) in lists {
            if self.seen_lists.insert((target, model)) {
                if self.problems.is_empty() && stored::delete_list(conn, target, model).await? {
                    self.summary.updated += 1;
                } else {
                    self.summary.added += 1;
                }
            } else if self.problems.is_empty() {
                // Scattered rows: merge with the part of this list written earlier.
                for earlier in stored::list(conn, target, model).await? {
                    entries.push(Pending {
                        paper: self.papers[earlier.paper_external_id.as_str()],
                        given_rank: earlier.given_rank,
                        score: earlier.score,
                        line: None,
                    });
                }
                stored::delete_list(conn, target, model).await?;
            }
            if let Some(ordered) = self.order(entries, &model_name) {
                rows.extend(
                    (1..)
                        .zip(ordered)
                        .map(|(position, entry)| (target, model, position, entry)),
                );
            }
        }
        if self.problems.is_empty() {
            stored::insert_rows(conn, &rows).await?;
            // A target with only ratings so far becomes a candidate.
            db::targets::register_listed(conn, &[target], rng).await?;
            if self.rates_all || self.active.contains(&target) {
                let change = blind_pool::refresh_target(conn, target, self.depth, rng).await?;
                self.summary.pool_added += change.added;
                self.summary.pool_removed += change.removed;
            }
        }
        Ok(())
    }

    /// Puts one list in order (by rank, or by score for TREC runs and rank-less lists) and
    /// checks it; `None` after recording its problems.
    fn order(&mut self, mut entries: Vec<Pending>, model: &str) -> Option<Vec<NewEntry>> {
        let ranked = entries.iter().find(|entry| entry.given_rank.is_some());
        let unranked = entries.iter().find(|entry| entry.given_rank.is_none());
        if let (Some(ranked), Some(unranked)) = (ranked, unranked) {
            // Ordered by rank, the rows without one have no place; ordered by score, the
            // ranks would be dropped without a word.
            self.problems.push(Problem::at(
                later_line(ranked, unranked),
                Some("rank"),
                format!(
                    "the list of model {model:?} for this target gives a rank on {} but none on \
                     {}: give every row of a list a rank, or none (to order it by score)",
                    line_name(ranked),
                    line_name(unranked)
                ),
            ));
            return None;
        }
        let by_rank = self.options.format != Format::Trec && ranked.is_some();
        if by_rank {
            entries.sort_by_key(|entry| entry.given_rank);
            for pair in entries.windows(2) {
                if pair[0].given_rank == pair[1].given_rank {
                    let rank = pair[1].given_rank.unwrap_or_default();
                    self.problems.push(Problem::at(
                        later_line(&pair[0], &pair[1]),
                        Some("rank"),
                        format!(
                            "rank {rank} appears twice in the list of model {model:?} for this \
                             target{}",
                            also_at(&pair[0], &pair[1])
                        ),
                    ));
                    return None;
                }
            }
        } else if let Some(unranked) = entries.iter().find(|entry| entry.score.is_none()) {
            self.problems.push(Problem::at(
                unranked.line.unwrap_or_default(),
                Some("score"),
                format!(
                    "the list of model {model:?} for this target has rows without a rank, so \
                     every row needs a score to order it, and this one has none"
                ),
            ));
            return None;
        } else {
            // trec_eval's order: score descending, ties broken by document id descending.
            entries.sort_by(|a, b| {
                b.score
                    .partial_cmp(&a.score)
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(b.paper.id_order.cmp(&a.paper.id_order))
            });
        }
        let mut lines_by_paper: HashMap<PaperId, &Pending> = HashMap::new();
        for entry in &entries {
            if let Some(first) = lines_by_paper.insert(entry.paper.key, entry) {
                self.problems.push(Problem::at(
                    later_line(first, entry),
                    Some("paper"),
                    format!(
                        "the same paper appears twice in the list of model {model:?} for this \
                         target{}",
                        also_at(first, entry)
                    ),
                ));
                return None;
            }
        }
        Some(
            entries
                .iter()
                .map(|entry| NewEntry {
                    paper: entry.paper.key,
                    given_rank: if by_rank { entry.given_rank } else { None },
                    score: entry.score,
                })
                .collect(),
        )
    }
}

fn later_line(a: &Pending, b: &Pending) -> u64 {
    a.line.max(b.line).unwrap_or_default()
}

fn line_name(entry: &Pending) -> String {
    match entry.line {
        Some(line) => format!("line {line}"),
        None => "a row earlier in the file".to_owned(),
    }
}

/// A model name is not empty and holds no control or format character.
fn check_model_name(model: &str, line: u64) -> Result<(), Problem> {
    let problem = |message: String| Problem::at(line, Some("model"), message);
    if model.trim().is_empty() {
        return Err(problem("the model name is empty".to_owned()));
    }
    input::check_field_size(model, "model", line)?;
    match super::invisible_character(model) {
        Some(why) => Err(problem(format!("the model name {model:?} {why}"))),
        None => Ok(()),
    }
}

fn also_at(a: &Pending, b: &Pending) -> String {
    match (a.line, b.line) {
        (Some(x), Some(y)) => format!(" (also line {})", x.min(y)),
        _ => " (also earlier in the file)".to_owned(),
    }
}

struct CsvColumns {
    model: Option<usize>,
    target: usize,
    rank: Option<usize>,
    paper: usize,
    score: Option<usize>,
    count: usize,
}

impl CsvColumns {
    fn locate(header: &Header, model_given: bool) -> Result<CsvColumns, Problem> {
        let model = match header.optional("model") {
            Some(index) => Some(index),
            None if model_given => None,
            None => Some(header.require("model", CSV_HEADER)?),
        };
        let columns = CsvColumns {
            model,
            target: header.require("target", CSV_HEADER)?,
            rank: header.optional("rank"),
            paper: header.require("paper", CSV_HEADER)?,
            score: header.optional("score"),
            count: header.len(),
        };
        if columns.rank.is_none() && columns.score.is_none() {
            return Err(Problem::at(
                1,
                Some("rank"),
                format!(
                    "the header needs a rank or a score column to order the lists ({CSV_HEADER})"
                ),
            ));
        }
        Ok(columns)
    }

    fn row<'r>(
        &self,
        record: &'r csv::ByteRecord,
        line: u64,
        model_override: Option<&'r str>,
    ) -> Result<Row<'r>, Problem> {
        input::check_field_count(record, self.count, line)?;
        let text = |index: usize, column: &str| {
            input::utf8_field(record, index, column, line).map(str::trim)
        };
        let model = match (model_override, self.model) {
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
        let rank = match self.rank {
            Some(index) => parse_rank(text(index, "rank")?, line)?,
            None => None,
        };
        let score = match self.score {
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
            model,
            target: text(self.target, "target")?,
            paper: text(self.paper, "paper")?,
            rank,
            score,
        })
    }
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

/// Ranks count from 1 (a JSON rank; a CSV rank is checked as it is parsed).
fn check_rank(rank: i64, line: u64) -> Result<i64, Problem> {
    if rank >= 1 {
        Ok(rank)
    } else {
        Err(Problem::at(
            line,
            Some("rank"),
            format!("expected a positive integer rank, got {rank}"),
        ))
    }
}

pub(super) fn parse_score(text: &str, line: u64) -> Result<Option<f64>, Problem> {
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

#[derive(Deserialize)]
struct JsonRow {
    model: Option<String>,
    target: String,
    paper: String,
    rank: Option<i64>,
    score: Option<f64>,
}

/// A JSON row owns its strings; a TREC row borrows from the line.
enum JsonOrTrec<'a> {
    Json(JsonRow),
    Trec(Row<'a>),
}

fn json_row<'a>(
    bytes: &'a [u8],
    line: u64,
    model_override: Option<&str>,
) -> Result<JsonOrTrec<'a>, Problem> {
    let mut row: JsonRow =
        serde_json::from_slice(bytes).map_err(|error| super::json_problem(&error, line))?;
    if let Some(name) = model_override {
        row.model = Some(name.to_owned());
    }
    if row.model.is_none() {
        return Err(Problem::at(
            line,
            Some("model"),
            "the object has no \"model\" key (or pass --model NAME)",
        ));
    }
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
        check_rank(rank, line)?;
    }
    Ok(JsonOrTrec::Json(row))
}

impl JsonRow {
    fn model(&self) -> &str {
        self.model.as_deref().unwrap_or_default()
    }
}

fn trec_row<'a>(
    bytes: &'a [u8],
    line: u64,
    model_override: Option<&'a str>,
) -> Result<JsonOrTrec<'a>, Problem> {
    let row = super::trec::run_line(bytes, line)?;
    Ok(JsonOrTrec::Trec(Row {
        model: model_override.unwrap_or(row.model),
        target: row.target,
        paper: row.paper,
        // trec_eval ignores the rank column and orders by score.
        rank: None,
        score: Some(row.score),
    }))
}
