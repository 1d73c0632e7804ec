//! The step after scoring: the models compared on their scores. Their order by mean NDCG,
//! every column's mean, and what resampling tells of the differences: bootstrap intervals of
//! the NDCG means, sign-flip tests of every pair of models and Holm's adjustment over them all
//! (the table shows each model against the leader); and the verdict ([`super::verdict`]) from
//! the same scores.

use std::sync::Arc;

use super::columns;
use super::verdict::{verdict_again, Watched};
use super::{Collection, Leaderboard, ModelRow, Scores, TargetRow};
use crate::decision::Margin;
use crate::metrics;

/// The leaderboard of `collection` from its `scores`, its verdict with `margin`.
pub fn resample<K: Sync>(
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
    /// Its verdict's sequences.
    watched: Option<Watched>,
}

/// [`resample`] after a change of the study, taking up what `earlier` (of the same options)
/// computed, with the same result to the bit:
///
/// - where every model's values on the evaluated targets are those `earlier` was resampled
///   from (a rating of a target still being rated, a note, a change that finishes no target),
///   its means, intervals and tests are the same numbers: they are kept;
/// - otherwise (a target finished, or a rating of a finished one changed) they are computed
///   again. The means are sums over every target in their order, which a sum kept beside
///   would round differently; the bootstrap draws its resamples' indices from the number of
///   targets, so one more target changes every resample; the sign-flip test gives each
///   target its place among the signs drawn: neither is a sum a target can be added to;
/// - the verdict's sequences take up where `earlier`'s stopped when the targets completed then
///   come first, unchanged, in the completion order (see [`verdict_again`]).
pub fn resample_again<K: Sync>(
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
    let ((decision, watched), models) = rayon::join(
        || {
            verdict_again(
                collection,
                &scores,
                margin,
                earlier.and_then(|e| e.watched.as_ref()),
            )
        },
        || match same_values {
            Some(earlier) => (earlier.models.iter())
                .zip(&order)
                .map(|(row, &model)| ModelRow {
                    left_out_of: left_out[model],
                    ..row.clone()
                })
                .collect(),
            None => model_rows(&collection.models, &scores, &order, &left_out),
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
            watched,
        },
    }
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
/// [`metrics::compare_with_first`]); `left_out[m]` counts the evaluated targets whose pool left
/// model m out.
fn model_rows(
    models: &[String],
    scores: &Scores,
    order: &[usize],
    left_out: &[usize],
) -> Vec<ModelRow> {
    let values: Vec<Vec<Option<f64>>> = (order.iter())
        .map(|&model| ranking_values(scores, model).collect())
        .collect();
    let samples: Vec<Vec<f64>> = (values.iter())
        .map(|values| values.iter().flatten().copied().collect())
        .collect();
    let samples: Vec<&[f64]> = samples.iter().map(Vec::as_slice).collect();
    // Each spreads its resamples over the cores.
    let intervals = metrics::bootstrap_ci95_each(&samples);
    let comparisons = metrics::compare_with_first(&values);
    (order.iter().zip(comparisons).enumerate())
        .map(|(position, (&model, comparison))| ModelRow {
            model: models[model].clone(),
            rank: position + 1,
            means: (columns::means())
                .map(|(column, ..)| metrics::mean(scores.values(model, column)).value)
                .collect(),
            ci95: intervals[position],
            targets: samples[position].len(),
            mean_diff_vs_leader: comparison.mean_difference,
            p_value_vs_leader: comparison.p_value,
            p_value_holm: comparison.p_value_holm,
            left_out_of: left_out[model],
            human_only: None,
        })
        .collect()
}
