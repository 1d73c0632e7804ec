//! Pool bias, leave one model out (Zobel 1998; Buckley et al. 2007): how a model that was not
//! pooled would fare. Each model is scored again with the judgments it alone brought into the
//! pool taken away, its ideal included, which is what trec_eval gives on qrels without them.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use serde::Serialize;

use super::ranking::{mean_ndcg, mean_ndcg_against, rank_of};
use crate::domain::Grade;
use crate::leaderboard::TargetInput;
use crate::metrics::Settings;

/// One model left out of the pool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelBias {
    pub model: String,
    /// Pooled pairs (target, paper) of evaluated targets that only this model had in its top
    /// pool depth.
    pub unique_pairs: usize,
    /// How many of them are rated relevant (stars at or above the threshold).
    pub unique_relevant: usize,
    /// Its NDCG@k as the leaderboard has it.
    pub ndcg: Option<f64>,
    /// Its NDCG@k with its unique pairs treated as unrated.
    pub ndcg_without: Option<f64>,
    /// `ndcg − ndcg_without`: how much a model that was not pooled loses.
    pub drop: Option<f64>,
    /// Its rank on the leaderboard.
    pub rank: usize,
    /// Its rank with `ndcg_without` among the others' real scores.
    pub rank_without: usize,
}

/// The pool bias of every model of a study.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolBias {
    /// Models in leaderboard order.
    pub models: Vec<ModelBias>,
    /// The largest drop of any model; `None` when no drop is defined.
    pub largest_drop: Option<f64>,
    /// The model with the largest drop.
    pub largest_drop_model: Option<String>,
    /// Whether leaving some model out of the pool changes its rank.
    pub any_rank_change: bool,
    pub sentence: String,
}

/// The pool bias of `models` on `targets` (their lists in the order of `models`) under
/// `settings`, with a pool of each model's top `pool_depth`.
pub fn pool_bias<K: Copy + Eq + Hash>(
    models: &[String],
    targets: &[&TargetInput<K>],
    settings: &Settings,
    pool_depth: usize,
) -> PoolBias {
    let scores: Vec<Option<f64>> = (0..models.len())
        .map(|model| mean_ndcg(targets, model, settings))
        .collect();
    let uniques: Vec<Vec<HashSet<K>>> = targets
        .iter()
        .map(|target| unique_papers(target, pool_depth))
        .collect();
    let mut rows: Vec<ModelBias> = (0..models.len())
        .map(|model| {
            let unique = |index: usize| &uniques[index][model];
            let unique_pairs = (0..targets.len()).map(|index| unique(index).len()).sum();
            let unique_relevant = (targets.iter().enumerate())
                .flat_map(|(index, target)| {
                    (unique(index).iter()).filter_map(|paper| target.judgments.get(paper))
                })
                .filter(|&&grade| settings.is_relevant(grade))
                .count();
            // What a model that was not pooled faces: its unique pairs unrated.
            let reduced: Vec<HashMap<K, Grade>> = (targets.iter().enumerate())
                .map(|(index, target)| {
                    (target.judgments.iter())
                        .filter(|(paper, _)| !unique(index).contains(paper))
                        .map(|(paper, stars)| (*paper, *stars))
                        .collect()
                })
                .collect();
            let scored = targets.iter().zip(&reduced).map(|(target, j)| (*target, j));
            let ndcg_without = mean_ndcg_against(scored, model, settings);
            let mut without = scores.clone();
            without[model] = ndcg_without;
            ModelBias {
                model: models[model].clone(),
                unique_pairs,
                unique_relevant,
                ndcg: scores[model],
                ndcg_without,
                drop: scores[model]
                    .zip(ndcg_without)
                    .map(|(with, without)| with - without),
                rank: rank_of(models, &scores, model),
                rank_without: rank_of(models, &without, model),
            }
        })
        .collect();
    rows.sort_by_key(|row| row.rank);
    let largest = (rows.iter())
        .filter_map(|row| Some((row.drop?, row)))
        .max_by(|(a, _), (b, _)| a.total_cmp(b));
    let any_rank_change = rows.iter().any(|row| row.rank != row.rank_without);
    let sentence = sentence(&rows, largest, settings.k.get());
    PoolBias {
        largest_drop: largest.map(|(drop, _)| drop),
        largest_drop_model: largest.map(|(_, row)| row.model.clone()),
        any_rank_change,
        models: rows,
        sentence,
    }
}

/// For each model (by position), the papers of `target` in its top `pool_depth` that no
/// other model has in its own.
fn unique_papers<K: Copy + Eq + Hash>(
    target: &TargetInput<K>,
    pool_depth: usize,
) -> Vec<HashSet<K>> {
    let tops: Vec<HashSet<K>> = (target.lists.iter())
        .map(|list| {
            let list = list.as_deref().unwrap_or_default();
            list.iter().take(pool_depth).copied().collect()
        })
        .collect();
    let mut pooled_by: HashMap<K, usize> = HashMap::new();
    for paper in tops.iter().flatten() {
        *pooled_by.entry(*paper).or_default() += 1;
    }
    (tops.into_iter())
        .map(|top| {
            (top.into_iter())
                .filter(|paper| pooled_by[paper] == 1)
                .collect()
        })
        .collect()
}

/// The check in words. Every model the checks see was pooled on the targets it is checked
/// over (a pruned model over those whose pool held it), so the drop is a what-if: what a
/// model added after the ratings would face.
fn sentence(rows: &[ModelBias], largest: Option<(f64, &ModelBias)>, k: usize) -> String {
    let Some((drop, _)) = largest else {
        return "Pool bias needs a fully rated target and a model with an NDCG.".to_owned();
    };
    let what_if = "Every model here was pooled, so this is a what-if: a model that was not (one \
                   added after these ratings) would be under-rated by";
    let mut sentence = if drop >= 0.005 {
        format!(
            "{what_if} up to {drop:.2} NDCG@{k}. Rate a new model's papers before trusting its \
             rank."
        )
    } else {
        format!(
            "{what_if} less than 0.01 NDCG@{k}: the pool is deep enough to judge a new model \
             fairly."
        )
    };
    for row in rows.iter().filter(|row| row.rank != row.rank_without) {
        sentence.push_str(&format!(
            " Had {} not been pooled, it would rank {} instead of {}.",
            row.model, row.rank_without, row.rank
        ));
    }
    sentence
}
