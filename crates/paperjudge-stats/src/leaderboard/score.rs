//! Scoring: every model's value of every mean column on every evaluated target, and the counts
//! of the targets around them.

use std::hash::Hash;

use rayon::prelude::*;

use super::columns;
use super::{Collection, Partial, TargetCounts, TargetInput};
use crate::metrics::{self, OnTarget, Settings, TargetScores, TargetTops};

/// Every model scored on every evaluated target under one set of settings.
#[derive(Debug, Clone)]
pub struct Scores {
    pub settings: Settings,
    pub partial: Partial,
    pub targets: TargetCounts,
    /// The positions among the study's targets of those evaluated, in order.
    pub evaluated: Vec<usize>,
    /// `by_model[model]`: the model's value of each mean column ([`columns::means`], in their
    /// order) on the first evaluated target, then on the second, and so on.
    by_model: Vec<Vec<Option<f64>>>,
    /// Each evaluated target's [`NothingToFind`], in order.
    nothing_to_find: Vec<NothingToFind>,
}

/// Whether a target has nothing to find (what even a missing list scores there): no judged
/// paper with a positive gain (its NDCG is undefined), none reaching the threshold (its P, R,
/// F1, AP, RR and unique relevant are).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct NothingToFind {
    no_gain: bool,
    no_relevant: bool,
}

/// One evaluated target's values (model after model, as [`mean_values`] gives them) and
/// whether it has nothing to find.
type TargetValues = (Vec<Option<f64>>, NothingToFind);

impl Scores {
    /// The values of the model at `model` (in the study's order) on the `index`-th evaluated
    /// target, one per mean column.
    pub fn on_target(&self, model: usize, index: usize) -> &[Option<f64>] {
        let width = columns::means().count();
        &self.by_model[model][index * width..(index + 1) * width]
    }

    /// The model's values of the mean column at `position` on every evaluated target, in order.
    pub fn values(&self, model: usize, position: usize) -> impl Iterator<Item = Option<f64>> + '_ {
        let width = columns::means().count();
        (self.by_model[model].iter().skip(position))
            .step_by(width)
            .copied()
    }

    /// The number of models scored.
    pub fn models(&self) -> usize {
        self.by_model.len()
    }

    /// The model's NDCG (the ranking column) on the `index`-th evaluated target.
    pub fn ndcg(&self, model: usize, index: usize) -> Option<f64> {
        self.on_target(model, index)[columns::ranking_position()]
    }

    /// Every model's values and what is to find on the `index`-th evaluated target, as
    /// scoring it gives them.
    fn target_values(&self, index: usize) -> TargetValues {
        let values = (0..self.by_model.len())
            .flat_map(|model| self.on_target(model, index))
            .copied()
            .collect();
        (values, self.nothing_to_find[index])
    }

    /// Whether `other` holds the same values of every model, bit for bit, on as many
    /// evaluated targets.
    pub fn same_values(&self, other: &Scores) -> bool {
        let bits = |values: &Vec<Option<f64>>| -> Vec<Option<u64>> {
            values.iter().map(|value| value.map(f64::to_bits)).collect()
        };
        self.by_model.len() == other.by_model.len()
            && (self.by_model.iter().zip(&other.by_model)).all(|(a, b)| bits(a) == bits(b))
    }
}

/// Scores every model of `study` on each target that `partial` evaluates.
pub fn score<K: Copy + Eq + Hash + Send + Sync>(
    collection: &Collection<K>,
    settings: Settings,
    partial: Partial,
) -> Scores {
    scored(collection, settings, partial, |_| None)
}

/// [`score`] after a change of the study: a target the `earlier` scores (of the same settings
/// and `partial`) evaluated is not scored again where nothing it is scored from changed.
/// `earlier_position[p]` is where target p was among the targets `earlier` was scored from,
/// for a target whose judgments, lists and pool are as they were then (`None` for another).
/// The scores are those [`score`] gives, to the bit: a target's values depend on that target
/// alone.
pub fn score_again<K: Copy + Eq + Hash + Send + Sync>(
    collection: &Collection<K>,
    earlier: &Scores,
    earlier_position: &[Option<usize>],
) -> Scores {
    scored(collection, earlier.settings, earlier.partial, |position| {
        let then = earlier_position.get(position).copied().flatten()?;
        let index = earlier.evaluated.binary_search(&then).ok()?;
        Some(earlier.target_values(index))
    })
}

/// Scores every model on each target that `partial` evaluates, but those whose values
/// `known(position)` gives.
fn scored<K: Copy + Eq + Hash + Send + Sync>(
    collection: &Collection<K>,
    settings: Settings,
    partial: Partial,
    known: impl Fn(usize) -> Option<TargetValues> + Sync,
) -> Scores {
    let evaluated: Vec<usize> = (0..collection.targets.len())
        .filter(|&position| partial.evaluates(&collection.targets[position]))
        .collect();
    let width = columns::means().count();
    // Each target's values, model after model.
    let by_target: Vec<TargetValues> = (evaluated.par_iter())
        .map(|&position| {
            known(position).unwrap_or_else(|| {
                let target = &collection.targets[position];
                (
                    mean_values(target, &settings),
                    nothing_to_find(target, &settings),
                )
            })
        })
        .collect();
    let by_model = (0..collection.models.len())
        .map(|model| {
            (by_target.iter())
                .flat_map(|(values, _)| &values[model * width..(model + 1) * width])
                .copied()
                .collect()
        })
        .collect();
    let nothing_to_find: Vec<NothingToFind> =
        by_target.into_iter().map(|(_, nothing)| nothing).collect();
    Scores {
        settings,
        partial,
        targets: count_targets(collection, &evaluated, &nothing_to_find, partial),
        evaluated,
        by_model,
        nothing_to_find,
    }
}

/// Every model's standard scores on one target, in the order of the study's models; a model
/// the target's pool left out has every score undefined there.
pub fn score_target<K: Copy + Eq + Hash>(
    target: &TargetInput<K>,
    settings: &Settings,
) -> Vec<TargetScores> {
    on_target(target, settings).1
}

/// Every model's top k of the target and its standard scores (undefined for a model the pool
/// left out).
fn on_target<K: Copy + Eq + Hash>(
    target: &TargetInput<K>,
    settings: &Settings,
) -> (TargetTops, Vec<TargetScores>) {
    let lists = (target.lists.iter()).map(|list| list.as_deref().unwrap_or_default());
    let (tops, mut scores) = TargetTops::of(lists, &target.judgments, settings);
    for (model, scores) in scores.iter_mut().enumerate() {
        if !target.pooled(model) {
            *scores = TargetScores::default();
        }
    }
    (tops, scores)
}

/// Every model's value of each mean column on one target, model after model; a model the
/// target's pool left out has every value undefined there.
fn mean_values<K: Copy + Eq + Hash>(
    target: &TargetInput<K>,
    settings: &Settings,
) -> Vec<Option<f64>> {
    let (tops, scores) = on_target(target, settings);
    (scores.iter().enumerate())
        .flat_map(|(model, scores)| {
            let on = OnTarget {
                model,
                tops: &tops,
                settings,
                scores,
            };
            let pooled = target.pooled(model);
            columns::means().map(move |(_, _, metric)| pooled.then(|| (metric.score)(&on))?)
        })
        .collect()
}

/// What even a missing list scores on `target` tells whether it has anything to find.
fn nothing_to_find<K: Copy + Eq + Hash>(
    target: &TargetInput<K>,
    settings: &Settings,
) -> NothingToFind {
    let scores = metrics::evaluate_target(&[], &target.judgments, settings);
    NothingToFind {
        no_gain: scores.ndcg.is_none(),
        no_relevant: scores.precision.is_none(),
    }
}

fn count_targets<K>(
    collection: &Collection<K>,
    evaluated: &[usize],
    nothing_to_find: &[NothingToFind],
    partial: Partial,
) -> TargetCounts {
    let partly_rated = (collection.targets.iter())
        .filter(|target| !target.judgments.is_empty() && !target.fully_rated)
        .count();
    let left_out = match partial {
        Partial::Exclude => partly_rated,
        Partial::Include => 0,
    };
    let total = collection.total.max(collection.targets.len());
    TargetCounts {
        evaluated: evaluated.len(),
        skipped_empty: nothing_to_find.iter().filter(|n| n.no_gain).count(),
        unrated: total - evaluated.len() - left_out,
        partly_rated,
        skipped_no_relevant: nothing_to_find.iter().filter(|n| n.no_relevant).count(),
        judged: None,
    }
}
