//! Models ranked by mean NDCG@k, as the leaderboard ranks them: the mean over the evaluated
//! targets of `metrics::evaluate_target`, highest first, a model without a value last, and by
//! name among equals.

use std::collections::HashMap;
use std::hash::Hash;

use crate::domain::Grade;
use crate::leaderboard::TargetInput;
use crate::metrics::{self, kendall_tau_b, Settings};

/// The mean NDCG@k of the model at position `model` over `targets`, as the leaderboard has it.
pub fn mean_ndcg<K: Copy + Eq + Hash>(
    targets: &[&TargetInput<K>],
    model: usize,
    settings: &Settings,
) -> Option<f64> {
    let scored = targets.iter().map(|target| (*target, &target.judgments));
    mean_ndcg_against(scored, model, settings)
}

/// The mean NDCG@k of the model at position `model` over targets each scored against the
/// judgments paired with it. A target without judgments is not evaluated, as on the
/// leaderboard.
pub fn mean_ndcg_against<'a, K: Copy + Eq + Hash + 'a>(
    scored: impl Iterator<Item = (&'a TargetInput<K>, &'a HashMap<K, Grade>)>,
    model: usize,
    settings: &Settings,
) -> Option<f64> {
    let values = scored.map(|(target, judgments)| {
        let list = target.lists[model].as_deref().unwrap_or_default();
        metrics::evaluate_target(list, judgments, settings).ndcg
    });
    metrics::mean(values).value
}

/// Model positions in leaderboard order of `scores` (by position in `models`).
pub fn order(models: &[String], scores: &[Option<f64>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..models.len()).collect();
    order.sort_by(|&a, &b| {
        let by_ndcg = match (scores[a], scores[b]) {
            (Some(x), Some(y)) => y.total_cmp(&x),
            (x, y) => y.is_some().cmp(&x.is_some()),
        };
        by_ndcg.then_with(|| models[a].cmp(&models[b]))
    });
    order
}

/// The 1-based rank of the model at position `model` under `scores`.
pub fn rank_of(models: &[String], scores: &[Option<f64>], model: usize) -> usize {
    1 + (order(models, scores).iter())
        .position(|&m| m == model)
        .expect("every model has a rank")
}

/// Kendall's tau-b between two score vectors, an undefined score below every value.
pub fn tau(first: &[Option<f64>], second: &[Option<f64>]) -> Option<f64> {
    let values = |scores: &[Option<f64>]| -> Vec<f64> {
        (scores.iter())
            .map(|score| score.unwrap_or(f64::NEG_INFINITY))
            .collect()
    };
    kendall_tau_b(&values(first), &values(second))
}

/// The model that leads under `scores` (by position in `models`); `None` without a defined
/// score.
pub fn leader(models: &[String], scores: &[Option<f64>]) -> Option<String> {
    let first = *order(models, scores).first()?;
    scores[first].map(|_| models[first].clone())
}
