//! Scoring: every model's per-target scores on every evaluated target, and the counts of the
//! targets around them.

use std::hash::Hash;

use rayon::prelude::*;

use super::{Collection, Partial, TargetCounts, TargetInput};
use crate::metrics::{self, Settings, TargetScores};

/// Every model scored on every evaluated target under one set of settings.
#[derive(Debug, Clone)]
pub struct Scores {
    pub settings: Settings,
    pub partial: Partial,
    pub targets: TargetCounts,
    /// The positions among the study's targets of those evaluated, in order.
    pub evaluated: Vec<usize>,
    /// `by_model[model][t]`: the model's scores on the `t`-th evaluated target.
    pub by_model: Vec<Vec<TargetScores>>,
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
    let by_target: Vec<Vec<TargetScores>> = (evaluated.par_iter())
        .map(|&position| score_target(&collection.targets[position], &settings))
        .collect();
    let by_model = (0..collection.models.len())
        .map(|model| by_target.iter().map(|target| target[model]).collect())
        .collect();
    Scores {
        settings,
        partial,
        targets: count_targets(collection, &evaluated, partial, &settings),
        evaluated,
        by_model,
    }
}

/// Every model's scores on one target, in the order of the study's models; a model the
/// target's pool left out has every score undefined there.
pub fn score_target<K: Copy + Eq + Hash>(
    target: &TargetInput<K>,
    settings: &Settings,
) -> Vec<TargetScores> {
    (target.lists.iter().enumerate())
        .map(|(model, list)| {
            if !target.pooled(model) {
                return TargetScores::default();
            }
            let list = list.as_deref().unwrap_or_default();
            metrics::evaluate_target(list, &target.judgments, settings)
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
