//! The models' ranked lists, from CSV or JSONL (`model,target,rank,paper[,score]`) or TREC run
//! files (`target Q0 paper rank score model`).
//!
//! A (model, target) list in the file replaces the stored one; the rows of a list may come in
//! any order and anywhere in the file. The whole file is read, sorted by (target, model) and
//! checked before the study's write lock is taken ([`stage`]); then, target by target, each
//! list is compared with the stored one and written only if it differs, and the pool of each
//! target rated now follows the lists that changed ([`Staged::write`]). So an import costs
//! about the same whatever the order of its rows and whatever the study already holds, and
//! its result does not depend on that order. Only the targets the study rates now get a pool;
//! the lists of the others are stored, to be pooled when they are chosen.

mod lists;
mod rows;

use std::collections::HashMap;
use std::io::Read;

use rand::Rng;

use super::Summary;
use crate::domain::TargetChoice;
use crate::domain::{ModelId, PaperKey, PoolDepth};
use crate::formats::records::Records;
use crate::formats::{Format, InvalidInput, Problem, Problems, RowsRead};
use crate::study::db;
use crate::study::db::import::{self as stored, ListWriter, Model};
use crate::study::db::papers::PaperIndex;
use crate::study::db::pool::PoolWriter;
use crate::study::db::targets::{Found, ListedTargets};
use crate::study::pool::BlindPoolChange;
use lists::{Gathered, Lists, NewRow};
use rows::RowParser;

/// How the importer reads a file.
#[derive(Debug, Clone)]
pub struct Options {
    pub format: Format,
    /// Names the model of every row, instead of the file's model column or TREC run tag.
    pub model: Option<String>,
}

/// A recommendations file, read, sorted into lists and checked.
pub struct Staged {
    papers: PaperIndex,
    lists: Lists,
    read: u64,
    dropped: u64,
}

/// Reads and checks a whole recommendations file, resolving its ids against `papers` and
/// counting its rows in `rows`.
pub fn stage<R: Read>(
    reader: R,
    options: &Options,
    papers: PaperIndex,
    source: &str,
    rows: &RowsRead,
) -> Result<Staged, InvalidInput> {
    let mut problems = Problems::new(source);
    if let Some(model) = &options.model {
        if let Err(problem) = check_model_name(model, 0) {
            return Err(problems.fail(Problem::whole_file(format!("--model: {}", problem.message))));
        }
    }
    let parser = RowParser {
        model: options.model.as_deref(),
    };
    let mut records = match Records::open(reader, options.format, parser, rows) {
        Ok(records) => records,
        Err(problem) => return Err(problems.fail(problem)),
    };
    let mut gathered = Gathered::default();
    let mut last_target: Option<(String, u32)> = None;
    let mut dropped = 0;
    while let Some(record) = records.next() {
        let (line, row) = match record {
            Ok(record) => record,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        // A list's rows mostly come one after another: its target is found once.
        let target = match &last_target {
            Some((id, number)) if *id == row.target => Some(*number),
            _ => {
                let found = resolve(&papers, &row.target, "target", line, &mut problems);
                if let Some(number) = found {
                    last_target = Some((row.target.to_string(), number));
                }
                found
            }
        };
        let paper = resolve(&papers, &row.paper, "paper", line, &mut problems);
        let model = match gathered.model(&row.model) {
            Some(model) => model,
            None => match check_model_name(&row.model, line) {
                Ok(()) => gathered.add_model(&row.model),
                Err(problem) => {
                    problems.push(problem);
                    continue;
                }
            },
        };
        let (Some(target), Some(paper)) = (target, paper) else {
            continue;
        };
        if target == paper {
            dropped += 1;
            continue;
        }
        let row = NewRow {
            target,
            paper,
            model,
            rank: row.rank,
            score: row.score,
            line,
        };
        if let Err(problem) = gathered.push(row) {
            problems.push(problem);
            break;
        }
    }
    // A CSV file with a header and no rows imports nothing, and says so; a JSONL or TREC file
    // has no header, and one without a line is likely not the file meant.
    if records.read() == 0 && problems.is_empty() && options.format != Format::Csv {
        problems.push(Problem::whole_file(
            "the file holds no recommendations (an empty file imports nothing)",
        ));
    }
    let lists = gathered.into_lists(&papers, &mut problems);
    problems.into_result()?;
    Ok(Staged {
        papers,
        lists,
        read: records.read(),
        dropped,
    })
}

fn resolve(
    papers: &PaperIndex,
    id: &str,
    column: &str,
    line: u64,
    problems: &mut Problems,
) -> Option<u32> {
    let number = papers.number(id.trim());
    if number.is_none() {
        problems.push(Problem::at(
            line,
            Some(column),
            format!("unknown paper id {id:?}: import it with `paperjudge import papers` first"),
        ));
    }
    number
}

/// A model name is not empty and holds no control or format character.
fn check_model_name(model: &str, line: u64) -> Result<(), Problem> {
    let problem = |message: String| Problem::at(line, Some("model"), message);
    if model.trim().is_empty() {
        return Err(problem("the model name is empty".to_owned()));
    }
    crate::formats::input::check_field_size(model, "model", line)?;
    match crate::domain::invisible_character(model) {
        Some(why) => Err(problem(format!("the model name {model:?} {why}"))),
        None => Ok(()),
    }
}

impl Staged {
    /// Writes the lists inside the caller's transaction, target by target: a list equal to
    /// the stored one is left as it is, another replaces it, and the pool of a target rated
    /// now follows the lists of it that changed. `rng` draws the display keys of pairs
    /// entering the pool and the order keys of new targets, in the order of targets and
    /// papers, so that a seeded import gives the same study whatever the order of the rows.
    pub(super) fn write(
        self,
        conn: &rusqlite::Connection,
        rng: &mut impl Rng,
    ) -> rusqlite::Result<Summary> {
        let depth = db::study::pool_depth_directly(conn)?;
        let rates_all = db::targets::choice(conn)? == TargetChoice::All;
        let models = (self.lists.models().iter())
            .map(|name| stored::model(conn, name))
            .collect::<rusqlite::Result<Vec<Model>>>()?;
        let mut summary = Summary::new("lists");
        summary.read = self.read;
        summary.dropped = self.dropped;
        let mut left_out: HashMap<PaperKey, Vec<ModelId>> = HashMap::new();
        for (target, model) in db::pruning::exclusions(conn)? {
            left_out.entry(target).or_default().push(model);
        }
        Writer {
            lists: ListWriter::prepare(conn)?,
            pool: PoolWriter::prepare(conn)?,
            targets: ListedTargets::prepare(conn)?,
            papers: &self.papers,
            models: &models,
            left_out: &left_out,
            depth,
            rates_all,
            summary: &mut summary,
        }
        .write(&self.lists, rng)?;
        // A target new to the study, and so without a rating, leaves out the models pruned.
        let pruned = db::pruning::rebuild_unheld_pools(conn, depth, rng)?;
        summary.pool_added += pruned.added;
        summary.pool_removed += pruned.removed;
        Ok(summary)
    }
}

/// Writes the lists of a file, target by target.
struct Writer<'c, 'a> {
    lists: ListWriter<'c>,
    pool: PoolWriter<'c>,
    targets: ListedTargets<'c>,
    papers: &'a PaperIndex,
    models: &'a [Model],
    /// The models each target's pool leaves out (see [`db::pruning`]).
    left_out: &'a HashMap<PaperKey, Vec<ModelId>>,
    depth: PoolDepth,
    rates_all: bool,
    summary: &'a mut Summary,
}

impl Writer<'_, '_> {
    fn write(&mut self, lists: &Lists, rng: &mut impl Rng) -> rusqlite::Result<()> {
        let depth = self.depth.get() as usize;
        let mut new = Vec::new();
        let mut old = Vec::new();
        let mut arriving = Vec::new();
        let mut leaving = Vec::new();
        for target_lists in lists.by_target() {
            let target = self.papers.id(target_lists[0].target);
            let found = self.targets.find(target)?;
            let listed = found.is_some_and(|found| found.listed);
            arriving.clear();
            leaving.clear();
            for list in &target_lists {
                let model = self.models[list.model as usize];
                list.to_new_entries(self.papers, &mut new);
                // A target never listed, or a model new to the study, has no stored list.
                if listed && !model.new {
                    self.lists.stored(target, model.id, &mut old)?;
                } else {
                    old.clear();
                }
                if old == new {
                    self.summary.unchanged += 1;
                    continue;
                }
                if old.is_empty() {
                    self.summary.added += 1;
                } else {
                    self.summary.updated += 1;
                }
                self.lists.write(target, model.id, !old.is_empty(), &new)?;
                let pooled =
                    !(self.left_out.get(&target)).is_some_and(|out| out.contains(&model.id));
                if pooled {
                    arriving.extend(new.iter().take(depth).map(|entry| entry.paper));
                    leaving.extend(old.iter().take(depth).map(|entry| entry.paper));
                }
            }
            let active = Found::active_once_listed(found, self.rates_all);
            let mut change = BlindPoolChange::default();
            if active && !(arriving.is_empty() && leaving.is_empty()) {
                sorted_set(&mut arriving);
                sorted_set(&mut leaving);
                leaving.retain(|paper| arriving.binary_search(paper).is_err());
                change = self
                    .pool
                    .follow(target, &arriving, &leaving, self.depth, rng)?;
                self.summary.pool_added += change.added;
                self.summary.pool_removed += change.removed;
            }
            let pooled = change.added as i64 - change.removed as i64;
            self.targets.register(target, found, active, pooled, rng)?;
        }
        Ok(())
    }
}

fn sorted_set(papers: &mut Vec<PaperKey>) {
    papers.sort_unstable();
    papers.dedup();
}
