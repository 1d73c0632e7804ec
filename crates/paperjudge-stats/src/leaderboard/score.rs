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
}

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

    /// The model's NDCG (the ranking column) on the `index`-th evaluated target.
    pub fn ndcg(&self, model: usize, index: usize) -> Option<f64> {
        self.on_target(model, index)[columns::ranking_position()]
    }
}

/// Scores every model of `study` on each target that `partial` evaluates.
pub fn score<K: Copy + Eq + Hash + Sync>(
    collection: &Collection<K>,
    settings: Settings,
    partial: Partial,
) -> Scores {
    let evaluated: Vec<usize> = (0..collection.targets.len())
        .filter(|&position| partial.evaluates(&collection.targets[position]))
        .collect();
    let width = columns::means().count();
    // Each target's values, model after model.
    let by_target: Vec<Vec<Option<f64>>> = (evaluated.par_iter())
        .map(|&position| mean_values(&collection.targets[position], &settings))
        .collect();
    let by_model = (0..collection.models.len())
        .map(|model| {
            (by_target.iter())
                .flat_map(|values| &values[model * width..(model + 1) * width])
                .copied()
                .collect()
        })
        .collect();
    Scores {
        settings,
        partial,
        targets: count_targets(collection, &evaluated, partial, &settings),
        evaluated,
        by_model,
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

fn count_targets<K: Copy + Eq + Hash>(
    collection: &Collection<K>,
    evaluated: &[usize],
    partial: Partial,
    settings: &Settings,
) -> TargetCounts {
    // What even a missing list scores tells whether a target has anything to find.
    let nothing_to_find: Vec<TargetScores> = (evaluated.iter())
        .map(|&position| {
            metrics::evaluate_target(&[], &collection.targets[position].judgments, settings)
        })
        .collect();
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
        skipped_empty: nothing_to_find.iter().filter(|s| s.ndcg.is_none()).count(),
        unrated: total - evaluated.len() - left_out,
        partly_rated,
        skipped_no_relevant: (nothing_to_find.iter())
            .filter(|s| s.precision.is_none())
            .count(),
        judged: None,
    }
}
