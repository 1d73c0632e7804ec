//! The step after scoring: the models compared on their scores. Their order by mean NDCG,
//! every column's mean, and what resampling tells of the differences: bootstrap intervals of
//! the NDCG means, sign-flip tests of each model against the leader, Holm's adjustment; and
//! the verdict ([`super::verdict`]) from the same scores.

use super::columns;
use super::{verdict, Collection, Leaderboard, ModelRow, Scores, TargetRow};
use crate::metrics::{self, TargetScores};

/// The leaderboard of `collection` from its `scores`.
pub fn resample<K: Sync>(collection: &Collection<K>, scores: Scores) -> Leaderboard {
    let order = leaderboard_order(&collection.models, &scores.by_model);
    // The verdict is one thread's work, the resampling every thread's: side by side, the
    // resampling takes up what the verdict leaves of the cores.
    let (decision, models) = rayon::join(
        || verdict(collection, &scores),
        || {
            let left_out: Vec<usize> = (0..collection.models.len())
                .map(|model| {
                    (scores.evaluated.iter())
                        .filter(|&&position| !collection.targets[position].pooled(model))
                        .count()
                })
                .collect();
            model_rows(&collection.models, &scores.by_model, &order, &left_out)
        },
    );
    let per_target = (scores.evaluated.iter().enumerate())
        .map(|(index, &position)| {
            TargetRow::new(
                collection.targets[position].target.clone(),
                position,
                order.iter().map(|&model| scores.by_model[model][index]),
            )
        })
        .collect();
    Leaderboard {
        settings: scores.settings,
        pool_depth: collection.pool_depth,
        partial: scores.partial,
        judgments: None,
        by_rater: None,
        targets: scores.targets,
        models,
        per_target,
        decision,
    }
}

/// The per-target values the models are ranked and compared by.
fn ranking_values(scores: &[TargetScores]) -> impl Iterator<Item = Option<f64>> + '_ {
    let columns::Value::Mean(metric) = columns::RANKING.value else {
        unreachable!("the ranking column is a mean")
    };
    scores.iter().map(metric.score)
}

/// Model indices by mean NDCG descending (undefined last), then by name.
fn leaderboard_order(models: &[String], scores: &[Vec<TargetScores>]) -> Vec<usize> {
    let mean_ndcg: Vec<Option<f64>> = (scores.iter())
        .map(|s| metrics::mean(ranking_values(s)).value)
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

/// The rows in leaderboard `order`, each compared with the first (the leader); `left_out[m]`
/// counts the evaluated targets whose pool left model m out.
fn model_rows(
    models: &[String],
    scores: &[Vec<TargetScores>],
    order: &[usize],
    left_out: &[usize],
) -> Vec<ModelRow> {
    let defined_ndcg: Vec<Vec<f64>> = (order.iter())
        .map(|&model| ranking_values(&scores[model]).flatten().collect())
        .collect();
    let samples: Vec<&[f64]> = defined_ndcg.iter().map(Vec::as_slice).collect();
    let leader = order.first().map(|&model| &scores[model]);
    // Paired: only the targets where both a model and the leader are defined.
    let differences: Vec<Vec<f64>> = (order.iter())
        .map(|&model| {
            (leader.into_iter())
                .flat_map(|leader| ranking_values(leader).zip(ranking_values(&scores[model])))
                .filter_map(|(leader, this)| Some(this? - leader?))
                .collect()
        })
        .collect();
    // Each spreads its resamples over the cores.
    let intervals = metrics::bootstrap_ci95_each(&samples);
    // The leader (position 0) is not tested against itself.
    let compared_with_leader: Vec<&[f64]> = (differences.iter().enumerate())
        .map(|(position, differences)| {
            if position > 0 {
                differences.as_slice()
            } else {
                &[]
            }
        })
        .collect();
    let p_values = metrics::sign_flip_p_values_each(&compared_with_leader);
    let mut rows: Vec<ModelRow> = (order.iter().enumerate())
        .map(|(position, &model)| {
            let scores = &scores[model];
            ModelRow {
                model: models[model].clone(),
                rank: position + 1,
                means: (columns::means())
                    .map(|(_, _, metric)| metrics::mean(scores.iter().map(metric.score)).value)
                    .collect(),
                ci95: intervals[position],
                targets: samples[position].len(),
                mean_diff_vs_leader: metrics::mean(differences[position].iter().map(|&d| Some(d)))
                    .value,
                p_value_vs_leader: p_values[position],
                p_value_holm: None,
                left_out_of: left_out[model],
            }
        })
        .collect();

    let compared: Vec<usize> = (0..rows.len())
        .filter(|&row| rows[row].p_value_vs_leader.is_some())
        .collect();
    let p_values: Vec<f64> = (compared.iter())
        .filter_map(|&row| rows[row].p_value_vs_leader)
        .collect();
    for (&row, adjusted) in compared.iter().zip(metrics::holm(&p_values)) {
        rows[row].p_value_holm = Some(adjusted);
    }
    rows
}
