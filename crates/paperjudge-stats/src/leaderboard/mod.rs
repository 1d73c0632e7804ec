//! The model comparison of a study held in memory, under one set of [`Settings`]: pure
//! functions, no I/O.
//!
//! Two steps, each in its module: [`score`] every model on every evaluated target, then
//! [`resample`]: the models compared (order, means, bootstrap intervals, sign-flip tests
//! against the leader, and the [`verdict`] over the targets in the order they were
//! completed). The result, a [`Leaderboard`], renders as JSON, CSV and a
//! terminal table (definitions: `docs/metrics.md`); every table's columns come from
//! [`columns::COLUMNS`].

pub mod columns;
mod csv;
mod json;
mod judge;
mod options;
mod resample;
mod score;
mod table;
mod trec_eval;
mod verdict;

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;

use serde::Serialize;

use crate::decision::{Decision, Margin};
use crate::domain::{Grade, PoolDepth, RaterName};
use crate::metrics::{Judgments, Settings};
use crate::words::plural;
use columns::{Column, Value};

pub use judge::{
    with_judge, JudgeBoard, JudgePair, JudgedTargets, RatersOnly, VERDICT_WITH_A_JUDGE,
};
pub use options::{LeaderboardOption, LeaderboardOptions, OnThePage, OPTIONS};
pub use resample::{resample, resample_again, Kept, Resampled};
pub use score::{score, score_again, score_target, Scores};
pub use verdict::{verdict, verdict_again, Watched};

/// Holm-adjusted p-values at or above this leave a model tied with the leader.
pub const SIGNIFICANCE_LEVEL: f64 = 0.05;

/// One target of the study as the leaderboard needs it.
#[derive(Debug, Clone)]
pub struct TargetInput<K> {
    /// The target's external paper id.
    pub target: String,
    /// Every pooled pair of the target is rated (by every rater it needs).
    pub fully_rated: bool,
    /// Every rated paper of the target, whichever model retrieved it, with its judgment.
    pub judgments: HashMap<K, Grade>,
    /// Each model's ranked list, best first, in the order of [`Collection::models`]; `None` when
    /// the model has no list for this target.
    pub lists: Vec<Option<Vec<K>>>,
    /// The models (by position) whose lists the target's pool left out, pruned before it was
    /// built: their papers were not all rated, and they are scored nowhere on it.
    pub left_out: Vec<usize>,
}

impl<K> TargetInput<K> {
    /// Whether the target's pool was built from `model`'s list.
    pub fn pooled(&self, model: usize) -> bool {
        !self.left_out.contains(&model)
    }
}

/// A study as the leaderboard reads it, a test collection in the words of IR: the models and
/// their lists (the runs), the targets (the topics) and their judgments (the qrels).
#[derive(Debug, Clone)]
pub struct Collection<K> {
    pub models: Vec<String>,
    /// The targets with a rating (others may be given: they count as unrated). Shared: a
    /// study's collection made again after a rating takes every target that did not change
    /// from the one before, without copying it.
    pub targets: Vec<Arc<TargetInput<K>>>,
    /// Every target of the study: those given and those without ratings, which need not be
    /// given (they are only counted).
    pub total: usize,
    pub pool_depth: PoolDepth,
    /// The order the verdict watches the fully rated targets in; `None` where it is not
    /// known (then there is no verdict).
    pub completion: Option<Completion>,
}

/// The fully rated targets of a [`Collection`] in the order they were completed, and the targets
/// they are drawn from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// Positions among the study's targets, the first completed first.
    pub order: Vec<usize>,
    /// How many targets the study rates (those with a pool).
    pub population: usize,
    /// Papers with recommendations that are not chosen yet: targets the study could add.
    pub choosable: usize,
}

impl<K> Collection<K> {
    /// A collection of exactly the targets given.
    ///
    /// # Panics
    /// When a target does not have exactly one list entry per model.
    pub fn of(models: Vec<String>, targets: Vec<TargetInput<K>>, pool_depth: PoolDepth) -> Self {
        for target in &targets {
            assert_eq!(
                target.lists.len(),
                models.len(),
                "target {} needs one list entry per model",
                target.target
            );
        }
        Collection {
            total: targets.len(),
            models,
            targets: targets.into_iter().map(Arc::new).collect(),
            pool_depth,
            completion: None,
        }
    }
}

/// Which targets a comparison evaluates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Partial {
    /// Only fully rated targets (every pooled pair rated): the default of every view a rater
    /// can reach, since a number that moved with each rating of a target still being rated
    /// would tell which models listed the paper just rated.
    #[default]
    Exclude,
    /// Also targets with at least one rating (`include-partial`), for an analyst who accepts
    /// that it unblinds the targets still being rated.
    Include,
}

/// `partial` as an address takes it: `exclude` or `include`.
impl std::str::FromStr for Partial {
    type Err = String;

    fn from_str(text: &str) -> Result<Partial, String> {
        match text {
            "exclude" => Ok(Partial::Exclude),
            "include" => Ok(Partial::Include),
            _ => Err(format!(
                "partial must be one of: exclude, include (got {text:?})"
            )),
        }
    }
}

impl Partial {
    pub fn as_str(self) -> &'static str {
        match self {
            Partial::Exclude => "exclude",
            Partial::Include => "include",
        }
    }

    /// Whether a target with a rating is evaluated.
    pub fn evaluates<K>(self, target: &TargetInput<K>) -> bool {
        !target.judgments.is_empty() && (target.fully_rated || self == Partial::Include)
    }
}

/// How many targets the comparison used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TargetCounts {
    /// Targets scored: fully rated ones, and with `include-partial` every one with a rating.
    pub evaluated: usize,
    /// Evaluated targets left out of the NDCG means: no judged paper has a positive gain
    /// (only with `empty = skip`).
    pub skipped_empty: usize,
    /// Targets without any rating.
    pub unrated: usize,
    /// Evaluated targets left out of the P, R, F1, AP, RR and unique relevant means: no judged paper reaches
    /// the threshold (only with `empty = skip`).
    pub skipped_no_relevant: usize,
    /// Targets with some but not all pooled pairs rated: scored nowhere unless
    /// `include-partial` (then among the evaluated ones).
    pub partly_rated: usize,
    /// With a judge: the targets whose every pooled pair it graded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judged: Option<usize>,
}

/// One model's row. Every `Option` is `None` where the value is undefined.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRow {
    pub model: String,
    /// 1-based position in the order of the rows.
    pub rank: usize,
    /// The value of each mean column of [`columns::COLUMNS`], in their order (see
    /// [`columns::means`]).
    pub means: Vec<Option<f64>>,
    /// 95% percentile-bootstrap interval of the mean NDCG.
    pub ci95: Option<[f64; 2]>,
    /// How many targets the mean NDCG averages.
    pub targets: usize,
    /// Mean per-target NDCG difference, this model minus the leader, over the targets where
    /// both are defined (0 for the leader).
    pub mean_diff_vs_leader: Option<f64>,
    /// Paired sign-flip randomization test against the leader; `None` for the leader.
    pub p_value_vs_leader: Option<f64>,
    /// `p_value_vs_leader` after Holm's adjustment over every pair of models (the leader is
    /// picked by the same data; see [`crate::metrics::compare_with_first`]).
    pub p_value_holm: Option<f64>,
    /// Evaluated targets whose pool left the model out (pruned before it was built): it is
    /// scored over the others.
    pub left_out_of: usize,
    /// With a judge: the raters' figures alone, which the NDCG, its interval and its
    /// comparisons replace when they are prediction-powered.
    pub human_only: Option<RatersOnly>,
}

impl ModelRow {
    /// The value of a column that holds one number (all but the interval).
    pub fn number(&self, column: &Column) -> Option<f64> {
        match column.value {
            Value::Mean(_) => self.means[columns::mean_position(column.key)?],
            Value::Interval => None,
            Value::Targets => Some(self.targets as f64),
            Value::Difference => self.mean_diff_vs_leader,
            Value::PValue => self.p_value_vs_leader,
            Value::PValueHolm => self.p_value_holm,
        }
    }

    /// For a model left out of some pools: which, and what it is scored over.
    pub fn pruned_in_words(&self) -> Option<String> {
        (self.left_out_of > 0).then(|| {
            format!(
                "pruned: left out of the pools of {} {}, scored over the {} whose pool held its \
                 list",
                self.left_out_of,
                plural(self.left_out_of, "target", "targets"),
                self.targets
            )
        })
    }

    /// The mean NDCG, by which the rows are ranked.
    pub fn ndcg(&self) -> Option<f64> {
        self.number(columns::RANKING)
    }

    /// Not the leader, yet not significantly worse than it (Holm-adjusted p ≥ 0.05).
    pub fn tied_with_leader(&self) -> bool {
        self.p_value_holm.is_some_and(|p| p >= SIGNIFICANCE_LEVEL)
    }

    /// A row with every value undefined, for tests to fill in (the app's too: public).
    pub fn undefined(model: &str, rank: usize) -> ModelRow {
        ModelRow {
            model: model.to_owned(),
            rank,
            means: vec![None; columns::means().count()],
            ci95: None,
            targets: 0,
            mean_diff_vs_leader: None,
            p_value_vs_leader: None,
            p_value_holm: None,
            left_out_of: 0,
            human_only: None,
        }
    }

    /// This row with `value` in the mean column named `key`.
    pub fn with(mut self, key: &str, value: Option<f64>) -> ModelRow {
        let position = columns::mean_position(key).expect("a mean column");
        self.means[position] = value;
        self
    }
}

/// The leader on one rater's stars alone (`judgments=rater:NAME`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RaterLeader {
    pub rater: RaterName,
    /// `None` before they rated a fully rated target whole.
    pub leader: Option<String>,
    /// The targets their stars rank the models over.
    pub targets: usize,
}

/// Whether `leader` leads on each rater's stars alone too, as a clause: "with either one's
/// stars alone LDA 300 still leads", or "the leader depends on who rated: with Cy's stars
/// alone (9 targets) LSA 200 leads instead of LDA 300", and who has rated no fully rated target
/// whole yet.
pub fn who_rated(leader: &str, by_rater: &[RaterLeader]) -> String {
    let differ: Vec<String> = (by_rater.iter())
        .filter_map(|rater| {
            let own = rater.leader.as_deref().filter(|own| *own != leader)?;
            Some(format!(
                "with {}'s stars alone ({} targets) {own} leads",
                rater.rater, rater.targets
            ))
        })
        .collect();
    let unfinished: Vec<&str> = (by_rater.iter())
        .filter(|rater| rater.leader.is_none())
        .map(|rater| rater.rater.as_str())
        .collect();
    if unfinished.len() == by_rater.len() {
        return "no rater has rated a fully rated target whole yet".to_owned();
    }
    let mut said = if !differ.is_empty() {
        format!(
            "the leader depends on who rated: {} instead of {leader}",
            differ.join("; ")
        )
    } else if !unfinished.is_empty() {
        format!("on the stars alone of each rater who rated a target whole, {leader} still leads")
    } else if by_rater.len() == 2 {
        format!("with either one's stars alone {leader} still leads")
    } else {
        format!("with any one's stars alone {leader} still leads")
    };
    if !unfinished.is_empty() {
        said.push_str(&format!(
            "; {} rated no fully rated target whole yet",
            listed(&unfinished)
        ));
    }
    said
}

/// Names as a sentence lists them: "Ann", "Ann and Bo", "Ann, Bo and Cy".
pub fn listed(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Every model on one evaluated target.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetRow {
    /// The target's external id.
    pub target: String,
    /// Its position among the targets of the [`Collection`].
    pub position: usize,
    /// For each model in row order, the value of each of [`columns::per_target`].
    values: Vec<Option<f64>>,
}

impl TargetRow {
    /// The row of `target` from each model's values of the mean columns (in
    /// [`columns::means`]' order), in row order.
    fn new<'a>(
        target: String,
        position: usize,
        means: impl Iterator<Item = &'a [Option<f64>]>,
    ) -> Self {
        let values = means
            .flat_map(|means| {
                (columns::means())
                    .filter(|(_, _, metric)| metric.per_target)
                    .map(|(at, ..)| means[at])
            })
            .collect();
        TargetRow {
            target,
            position,
            values,
        }
    }

    /// The per-target values of the model in row `row`, in the order of
    /// [`columns::per_target`].
    pub fn values(&self, row: usize) -> &[Option<f64>] {
        let width = columns::per_target().count();
        &self.values[row * width..(row + 1) * width]
    }

    /// This row with the models in another row order: new row `r` is old row `old[r]`.
    pub fn reordered(&self, old: &[usize]) -> TargetRow {
        TargetRow {
            target: self.target.clone(),
            position: self.position,
            values: old
                .iter()
                .flat_map(|&row| self.values(row))
                .copied()
                .collect(),
        }
    }

    /// The model in row `row`'s value of a per-target column; `None` for other columns.
    pub fn value(&self, row: usize, column: &Column) -> Option<f64> {
        let position = columns::per_target().position(|shown| shown.key == column.key)?;
        self.values(row)[position]
    }
}

/// The comparison of every model of a study.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaderboard {
    pub settings: Settings,
    /// How close to the leader the verdict counts a model as equivalent (0: never): a setting
    /// of the verdict, not of any metric.
    pub margin: Margin,
    pub pool_depth: PoolDepth,
    /// Whether partly rated targets were evaluated.
    pub partial: Partial,
    /// How one judgment per pair came from its raters' stars, in a study with raters; `None`
    /// with one rater, whose stars they are.
    pub judgments: Option<Judgments>,
    /// In a study with raters, the leader on each rater's stars alone: whether the verdict
    /// depends on who rated. `None` with one rater.
    pub by_rater: Option<Vec<RaterLeader>>,
    pub targets: TargetCounts,
    /// Sorted by NDCG descending (undefined last), then by model name; the first is the
    /// leader.
    pub models: Vec<ModelRow>,
    /// Every evaluated target, in input order, with the models in row order. Shared: a board
    /// adjusted for one reader (a rater's counts) is a copy of the kept one, and these rows,
    /// the bulk of it, are never what is adjusted.
    pub per_target: std::sync::Arc<[TargetRow]>,
    /// The anytime-valid verdict (see [`verdict`]); `None` with fewer than two models or
    /// where the order the targets were completed in is not known.
    pub decision: Option<Decision>,
    /// With a judge (`--judge NAME`): what it did to the board.
    pub judge: Option<JudgeBoard>,
}

impl Leaderboard {
    /// In a study with raters, whether the verdict depends on who rated, in words: the leader
    /// on each rater's stars alone against the leader here. `None` with one rater.
    pub fn who_rated_in_words(&self) -> Option<String> {
        let by_rater = self.by_rater.as_ref()?;
        let leader = (self.models.first())
            .filter(|row| row.ndcg().is_some())
            .map(|row| row.model.as_str());
        Some(match leader {
            Some(leader) => format!("Who rated: {}.", who_rated(leader, by_rater)),
            None => "Who rated: no model leads yet.".to_owned(),
        })
    }

    /// Scores and compares the models of `collection` under `settings`: [`score`], then
    /// [`resample`], the verdict with `margin`.
    pub fn of<K: Copy + Eq + Hash + Send + Sync>(
        collection: &Collection<K>,
        settings: Settings,
        margin: Margin,
        partial: Partial,
    ) -> Leaderboard {
        resample(collection, score(collection, settings, partial), margin)
    }
}

#[cfg(test)]
mod tests;
