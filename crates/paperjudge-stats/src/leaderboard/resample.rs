//! The step after scoring: the models compared on their scores. Their order by mean NDCG,
//! every column's mean, and what resampling tells of the differences: bootstrap intervals of
//! the NDCG means, sign-flip tests of every pair of models and Holm's adjustment over them all
//! (the table shows each model against the leader); and the verdict ([`super::verdict`]) from
//! the same scores.

use std::collections::HashMap;
use std::sync::Arc;

use super::columns;
use super::verdict::{verdict_again, Watched};
use super::{Collection, Leaderboard, ModelRow, Scores, TargetRow};
use crate::decision::Margin;
use crate::metrics::{self, additive};

/// The leaderboard of `collection` from its `scores`, its verdict with `margin`.
pub fn resample<K: Send + Sync>(
    collection: &Collection<K>,
    scores: Scores,
    margin: Margin,
) -> Leaderboard {
    resample_again(collection, scores, margin, None).board
}

/// A leaderboard with what the next one of the same options can take up (see
/// [`resample_again`]).
#[derive(Debug, Clone)]
pub struct Resampled {
    pub board: Leaderboard,
    pub kept: Kept,
}

/// What the next leaderboard of the same options takes up of one (see [`resample_again`]):
/// its rows and the few facts that tell whether they still hold, not the whole board (whose
/// per-target rows a kept board would otherwise hold twice).
#[derive(Debug, Clone)]
pub struct Kept {
    /// The scores it was resampled from.
    pub scores: Arc<Scores>,
    margin: Margin,
    /// The evaluated targets, in order.
    targets: Vec<String>,
    models: Vec<ModelRow>,
    /// The resampling's sums over the evaluated targets (the models in the collection's
    /// order), which the next board adds its newly evaluated targets to.
    sums: additive::Sums,
    /// Its verdict's sequences.
    watched: Option<Watched>,
}

/// [`resample`] after a change of the study, taking up what `earlier` (of the same options)
/// computed, with the same result to the bit:
///
/// - where every model's values on the evaluated targets are those `earlier` was resampled
///   from (a rating of a target still being rated, a note, a change that finishes no target),
///   its means, intervals and tests are the same numbers: they are kept;
/// - otherwise (a target finished, or a rating of a finished one changed) the means are
///   computed again (sums over every target in their order, which a sum kept beside would
///   round differently), but the resampling takes up `earlier`'s sums
///   ([`additive::Sums`]): a newly evaluated target is added to them, a changed one taken
///   away and added with its new values, one no longer evaluated taken away. Their sums are
///   exact, so the intervals and tests are those of the sums over the targets afresh, to the
///   bit, whatever the order the targets came in;
/// - the verdict's sequences take up where `earlier`'s stopped when the targets completed then
///   come first, unchanged, in the completion order (see [`verdict_again`]).
pub fn resample_again<K: Send + Sync>(
    collection: &Collection<K>,
    scores: Scores,
    margin: Margin,
    earlier: Option<&Kept>,
) -> Resampled {
    let order = leaderboard_order(&collection.models, &scores);
    let left_out: Vec<usize> = (0..collection.models.len())
        .map(|model| {
            (scores.evaluated.iter())
                .filter(|&&position| !collection.targets[position].pooled(model))
                .count()
        })
        .collect();
    let targets: Vec<String> = (scores.evaluated.iter())
        .map(|&position| collection.targets[position].target.clone())
        .collect();
    let same_values = earlier.filter(|earlier| {
        earlier.margin == margin
            && earlier.targets == targets
            && earlier.scores.same_values(&scores)
    });
    // The verdict is one thread's work, the resampling every thread's: side by side, the
    // resampling takes up what the verdict leaves of the cores.
    let ((decision, watched), (models, sums)) = rayon::join(
        || {
            verdict_again(
                collection,
                &scores,
                margin,
                earlier.and_then(|e| e.watched.as_ref()),
            )
        },
        || match same_values {
            Some(earlier) => {
                let rows = (earlier.models.iter())
                    .zip(&order)
                    .map(|(row, &model)| ModelRow {
                        left_out_of: left_out[model],
                        ..row.clone()
                    })
                    .collect();
                (rows, earlier.sums.clone())
            }
            None => {
                let sums = resampling_sums(&scores, &targets, earlier);
                let rows = model_rows(
                    &collection.models,
                    &scores,
                    &targets,
                    &sums,
                    &order,
                    &left_out,
                );
                (rows, sums)
            }
        },
    );
    let per_target = (scores.evaluated.iter().zip(&targets).enumerate())
        .map(|(index, (&position, target))| {
            TargetRow::new(
                target.clone(),
                position,
                order.iter().map(|&model| scores.on_target(model, index)),
            )
        })
        .collect();
    let board = Leaderboard {
        settings: scores.settings,
        margin,
        pool_depth: collection.pool_depth,
        partial: scores.partial,
        judgments: None,
        by_rater: None,
        targets: scores.targets,
        models: models.clone(),
        per_target,
        decision,
        judge: None,
    };
    Resampled {
        board,
        kept: Kept {
            scores: Arc::new(scores),
            margin,
            targets,
            models,
            sums,
            watched,
        },
    }
}

/// Every model's NDCG on one target.
type Values = Vec<Option<f64>>;

/// The resampling's sums of `scores` over the evaluated `targets`: `earlier`'s with what
/// changed since added and taken away, or afresh when there is no `earlier` or most changed.
fn resampling_sums(scores: &Scores, targets: &[String], earlier: Option<&Kept>) -> additive::Sums {
    let models = scores.models();
    let afresh = || {
        let targets: Vec<&str> = targets.iter().map(String::as_str).collect();
        additive::Sums::of(&targets, models, |model, index| scores.ndcg(model, index))
    };
    let Some(earlier) = earlier.filter(|earlier| earlier.scores.models() == models) else {
        return afresh();
    };
    let ndcgs = |scores: &Scores, index: usize| -> Values {
        (0..models).map(|model| scores.ndcg(model, index)).collect()
    };
    let same = |index: usize, earlier_index: usize| {
        (0..models).all(|model| {
            let bits = |scores: &Scores, index| scores.ndcg(model, index).map(f64::to_bits);
            bits(scores, index) == bits(&earlier.scores, earlier_index)
        })
    };
    let mut then: HashMap<&str, usize> = (earlier.targets.iter().enumerate())
        .map(|(index, target)| (target.as_str(), index))
        .collect();
    // What changed: (target, values to take away, values to add).
    let mut changes: Vec<(&str, Option<Values>, Option<Values>)> = Vec::new();
    for (index, target) in targets.iter().enumerate() {
        match then.remove(target.as_str()) {
            Some(earlier_index) if same(index, earlier_index) => {}
            Some(earlier_index) => changes.push((
                target,
                Some(ndcgs(&earlier.scores, earlier_index)),
                Some(ndcgs(scores, index)),
            )),
            None => changes.push((target, None, Some(ndcgs(scores, index)))),
        }
    }
    for (target, earlier_index) in then {
        changes.push((target, Some(ndcgs(&earlier.scores, earlier_index)), None));
    }
    // Each change draws one target's 10,000 weights and signs on one core; afresh, every
    // target's are drawn over all the cores.
    if changes.len() > targets.len() / 4 {
        return afresh();
    }
    let mut sums = earlier.sums.clone();
    for (target, before, now) in changes {
        if let Some(before) = before {
            sums.take_away(target, before);
        }
        if let Some(now) = now {
            sums.add(target, now);
        }
    }
    sums
}

/// The per-target values the model at `model` is ranked and compared by.
fn ranking_values(scores: &Scores, model: usize) -> impl Iterator<Item = Option<f64>> + '_ {
    scores.values(model, columns::ranking_position())
}

/// Model indices by mean NDCG descending (undefined last), then by name.
fn leaderboard_order(models: &[String], scores: &Scores) -> Vec<usize> {
    let mean_ndcg: Vec<Option<f64>> = (0..models.len())
        .map(|model| metrics::mean(ranking_values(scores, model)).value)
        .collect();
    let mut order: Vec<usize> = (0..models.len()).collect();
    order.sort_by(|&a, &b| {
        let by_ndcg = match (mean_ndcg[a], mean_ndcg[b]) {
            (Some(x), Some(y)) => y.total_cmp(&x),
            (x, y) => y.is_some().cmp(&x.is_some()),
        };
        by_ndcg.then_with(|| models[a].cmp(&models[b]))
    });
    order
}

/// The rows in leaderboard `order`, each compared with the first (the leader, see
/// [`additive::Sums::compare_with_first`]), from the resampling's `sums` over the evaluated
/// `targets`; `left_out[m]` counts the evaluated targets whose pool left model m out.
fn model_rows(
    models: &[String],
    scores: &Scores,
    targets: &[String],
    sums: &additive::Sums,
    order: &[usize],
    left_out: &[usize],
) -> Vec<ModelRow> {
    let values: Vec<Vec<Option<f64>>> = (order.iter())
        .map(|&model| ranking_values(scores, model).collect())
        .collect();
    let targets: Vec<&str> = targets.iter().map(String::as_str).collect();
    let comparisons = sums.compare_with_first(order, &targets, &values);
    (order.iter().zip(comparisons).enumerate())
        .map(|(position, (&model, comparison))| ModelRow {
            model: models[model].clone(),
            rank: position + 1,
            means: (columns::means())
                .map(|(column, ..)| metrics::mean(scores.values(model, column)).value)
                .collect(),
            ci95: sums.ci95(model),
            targets: values[position].iter().flatten().count(),
            mean_diff_vs_leader: comparison.mean_difference,
            p_value_vs_leader: comparison.p_value,
            p_value_holm: comparison.p_value_holm,
            left_out_of: left_out[model],
            human_only: None,
        })
        .collect()
}
