//! The lists of a recommendations file, gathered whole and put in order before anything is
//! written: rows are sorted by (target, model, line) once, so that the rows of a list may
//! come in any order and anywhere in the file, and each list is then ordered and checked.

use std::collections::HashMap;
use std::num::NonZeroI64;

use crate::formats::{Problem, Problems};
use crate::study::db::import::NewEntry;
use crate::study::db::papers::PaperIndex;

/// One row of the file, its ids resolved: 32 bytes, so that the 6.4 million rows of a large
/// study take about 200 MB.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    rank: Option<NonZeroI64>,
    /// NaN for a row without a score (every score read is finite).
    score: f64,
    /// Numbers of the papers (see [`PaperIndex`]): their order is that of their ids.
    target: u32,
    paper: u32,
    model: u32,
    line: u32,
}

impl Entry {
    fn score(&self) -> Option<f64> {
        (!self.score.is_nan()).then_some(self.score)
    }

    fn line(&self) -> u64 {
        u64::from(self.line)
    }
}

/// A row to gather, its ids resolved.
pub(super) struct NewRow {
    pub target: u32,
    pub paper: u32,
    pub model: u32,
    pub rank: Option<i64>,
    pub score: Option<f64>,
    pub line: u64,
}

/// The rows of a file as they are read, and the names of its models.
#[derive(Default)]
pub(super) struct Gathered {
    entries: Vec<Entry>,
    models: Vec<String>,
    model_numbers: HashMap<String, u32>,
    last_model: Option<u32>,
}

impl Gathered {
    /// The number of a model met before.
    pub(super) fn model(&mut self, name: &str) -> Option<u32> {
        // The rows of a model mostly come one after another.
        if let Some(number) = self.last_model {
            if self.models[number as usize] == name {
                return Some(number);
            }
        }
        let number = *self.model_numbers.get(name)?;
        self.last_model = Some(number);
        Some(number)
    }

    /// Numbers a model met for the first time, in the order models first appear.
    pub(super) fn add_model(&mut self, name: &str) -> u32 {
        let number = self.models.len() as u32;
        self.models.push(name.to_owned());
        self.model_numbers.insert(name.to_owned(), number);
        self.last_model = Some(number);
        number
    }

    /// Keeps a row; `Err` if its line is beyond what a row can hold.
    pub(super) fn push(&mut self, row: NewRow) -> Result<(), Problem> {
        let line = u32::try_from(row.line).map_err(|_| {
            Problem::whole_file(format!(
                "the file has more than {} lines, more than an import reads",
                u32::MAX
            ))
        })?;
        self.entries.push(Entry {
            rank: row.rank.and_then(NonZeroI64::new),
            score: row.score.unwrap_or(f64::NAN),
            target: row.target,
            paper: row.paper,
            model: row.model,
            line,
        });
        Ok(())
    }

    /// Sorts the rows into lists, orders each one (by rank, or by score as trec_eval does)
    /// and checks it; a list with a problem is recorded in `problems`.
    pub(super) fn into_lists(self, papers: &PaperIndex, problems: &mut Problems) -> Lists {
        let Gathered {
            mut entries,
            models,
            ..
        } = self;
        // Models numbered in the order of their names, so that nothing depends on which came
        // first in the file.
        let mut by_name: Vec<u32> = (0..models.len() as u32).collect();
        by_name.sort_by(|a, b| models[*a as usize].cmp(&models[*b as usize]));
        let mut renumbered = vec![0; models.len()];
        for (new, old) in (0..).zip(&by_name) {
            renumbered[*old as usize] = new;
        }
        let models: Vec<String> = by_name
            .iter()
            .map(|old| models[*old as usize].clone())
            .collect();
        for entry in &mut entries {
            entry.model = renumbered[entry.model as usize];
        }
        // Lines are unique, so the order is total and an unstable sort is deterministic.
        entries.sort_unstable_by_key(|entry| (entry.target, entry.model, entry.line));

        let mut checker = Checker {
            seen_in: vec![u32::MAX; papers.len()],
            first_line: vec![0; papers.len()],
        };
        let mut spans = Vec::new();
        let mut start = 0;
        let mut list_number = 0;
        while start < entries.len() {
            let first = entries[start];
            let length = entries[start..]
                .iter()
                .take_while(|entry| entry.target == first.target && entry.model == first.model)
                .count();
            let end = start + length;
            let model = &models[first.model as usize];
            match checker.order(&mut entries[start..end], model, list_number) {
                Ok(by_rank) => spans.push(Span {
                    start,
                    end,
                    by_rank,
                }),
                Err(problem) => problems.push(problem),
            }
            start = end;
            list_number += 1;
        }
        Lists {
            entries,
            models,
            spans,
        }
    }
}

/// Finds the problems of a list; remembers which list saw each paper last.
struct Checker {
    seen_in: Vec<u32>,
    first_line: Vec<u32>,
}

impl Checker {
    /// Puts one list (in file order) in order: by rank if it gives ranks (`Ok(true)`), else by
    /// score descending, ties broken by paper id descending as trec_eval does (`Ok(false)`).
    fn order(&mut self, list: &mut [Entry], model: &str, number: u32) -> Result<bool, Problem> {
        let ranked = list.iter().find(|entry| entry.rank.is_some());
        let unranked = list.iter().find(|entry| entry.rank.is_none());
        if let (Some(ranked), Some(unranked)) = (ranked, unranked) {
            // Ordered by rank, the rows without one have no place; ordered by score, the
            // ranks would be dropped without a word.
            return Err(Problem::at(
                ranked.line().max(unranked.line()),
                Some("rank"),
                format!(
                    "the list of model {model:?} for this target gives a rank on line {} but \
                     none on line {}: give every row of a list a rank, or none (to order it \
                     by score)",
                    ranked.line(),
                    unranked.line()
                ),
            ));
        }
        let by_rank = ranked.is_some();
        if by_rank {
            // Stable: of two rows of one rank, the earlier line comes first.
            list.sort_by_key(|entry| entry.rank);
            if let Some(pair) = list.windows(2).find(|pair| pair[0].rank == pair[1].rank) {
                let rank = pair[1].rank.map_or(0, NonZeroI64::get);
                return Err(Problem::at(
                    pair[1].line(),
                    Some("rank"),
                    format!(
                        "rank {rank} appears twice in the list of model {model:?} for this \
                         target (also line {})",
                        pair[0].line()
                    ),
                ));
            }
        } else if let Some(unscored) = list.iter().find(|entry| entry.score().is_none()) {
            return Err(Problem::at(
                unscored.line(),
                Some("score"),
                format!(
                    "the list of model {model:?} for this target has rows without a rank, so \
                     every row needs a score to order it, and this one has none"
                ),
            ));
        } else {
            list.sort_by(|a, b| {
                b.score
                    .partial_cmp(&a.score)
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(b.paper.cmp(&a.paper))
            });
        }
        for entry in list.iter() {
            let paper = entry.paper as usize;
            if self.seen_in[paper] == number {
                let first = self.first_line[paper];
                return Err(Problem::at(
                    entry.line().max(u64::from(first)),
                    Some("paper"),
                    format!(
                        "the same paper appears twice in the list of model {model:?} for this \
                         target (also line {})",
                        entry.line().min(u64::from(first))
                    ),
                ));
            }
            self.seen_in[paper] = number;
            self.first_line[paper] = entry.line;
        }
        Ok(by_rank)
    }
}

/// Where one list lies among the sorted rows, and how it was ordered.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    by_rank: bool,
}

/// Every list of a file, in order and checked, sorted by target and model.
pub(super) struct Lists {
    entries: Vec<Entry>,
    /// The file's models, by name.
    models: Vec<String>,
    spans: Vec<Span>,
}

/// One list, ready to be written.
pub(super) struct List<'a> {
    pub target: u32,
    pub model: u32,
    entries: &'a [Entry],
    by_rank: bool,
}

impl List<'_> {
    /// The entries as stored: paper, the rank given (for a list ordered by rank) and score.
    pub(super) fn to_new_entries(&self, papers: &PaperIndex, into: &mut Vec<NewEntry>) {
        into.clear();
        into.extend(self.entries.iter().map(|entry| NewEntry {
            paper: papers.id(entry.paper),
            given_rank: if self.by_rank {
                entry.rank.map(NonZeroI64::get)
            } else {
                None
            },
            score: entry.score(),
        }));
    }
}

impl Lists {
    /// The models, numbered as [`List::model`] numbers them.
    pub(super) fn models(&self) -> &[String] {
        &self.models
    }

    /// The lists of each target, target after target.
    pub(super) fn by_target(&self) -> impl Iterator<Item = Vec<List<'_>>> {
        let mut spans = self.spans.iter().peekable();
        std::iter::from_fn(move || {
            let first = spans.next()?;
            let target = self.entries[first.start].target;
            let mut lists = vec![self.list(first)];
            while let Some(span) = spans.next_if(|span| self.entries[span.start].target == target) {
                lists.push(self.list(span));
            }
            Some(lists)
        })
    }

    fn list(&self, span: &Span) -> List<'_> {
        let entries = &self.entries[span.start..span.end];
        List {
            target: entries[0].target,
            model: entries[0].model,
            entries,
            by_rank: span.by_rank,
        }
    }
}
