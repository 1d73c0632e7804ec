//! The verdict beside the resampling: the anytime-valid decision of [`crate::decision`] over
//! the fully rated targets in the order they were completed, from the NDCG the scoring step
//! already has (nothing is scored again).

use super::{Collection, Scores};
use crate::decision::{Decision, Margin, Monitor, Order, TargetsAhead};

/// The verdict's sequences after the targets they watched, kept for the next verdict of the
/// same options: a target completed since is observed alone, on top of them.
#[derive(Debug, Clone)]
pub struct Watched {
    /// Each watched target's NDCG per model, in the order they were completed (see
    /// [`verdict`] for the values).
    ndcg: Vec<Vec<Option<f64>>>,
    monitor: Monitor,
}

/// The verdict of `collection` from its `scores`, models within `margin` of the leader counting
/// as equivalent; `None` with fewer than two models or without the order the targets were
/// completed in.
pub fn verdict<K>(collection: &Collection<K>, scores: &Scores, margin: Margin) -> Option<Decision> {
    verdict_again(collection, scores, margin, None).0
}

/// [`verdict`], and what its next one can start from. The sequences of `earlier` (of the same
/// models and margin) are taken up where they stopped when the targets they watched are the
/// first ones completed now, with the same values to the bit: the sequences are sums over the
/// targets in completion order, which a target completed later only adds to. Otherwise they
/// start anew. Either way the verdict is the one [`verdict`] gives.
pub fn verdict_again<K>(
    collection: &Collection<K>,
    scores: &Scores,
    margin: Margin,
    earlier: Option<&Watched>,
) -> (Option<Decision>, Option<Watched>) {
    let Some(completion) = collection.completion.as_ref() else {
        return (None, None);
    };
    if collection.models.len() < 2 {
        return (None, None);
    }
    let started = std::time::Instant::now();
    // `scores.evaluated` holds positions in ascending order: a fully rated target is among
    // them under either choice of partly rated targets. An undefined NDCG counts 0; a model
    // the target's pool left out has none (its pairs skip the target).
    let ndcg: Vec<Vec<Option<f64>>> = (completion.order.iter())
        .filter(|&&position| collection.targets[position].fully_rated)
        .filter_map(|&position| {
            let index = scores.evaluated.binary_search(&position).ok()?;
            let target = &collection.targets[position];
            Some(
                (0..collection.models.len())
                    .map(|model| {
                        target
                            .pooled(model)
                            .then(|| scores.ndcg(model, index).unwrap_or(0.0))
                    })
                    .collect(),
            )
        })
        .collect();
    let bits = |rows: &[Vec<Option<f64>>]| -> Vec<Vec<Option<u64>>> {
        (rows.iter())
            .map(|row| row.iter().map(|value| value.map(f64::to_bits)).collect())
            .collect()
    };
    let taken_up = earlier.filter(|earlier| {
        earlier.ndcg.len() <= ndcg.len() && bits(&earlier.ndcg) == bits(&ndcg[..earlier.ndcg.len()])
    });
    let (mut monitor, seen) = match taken_up {
        Some(earlier) => (earlier.monitor.clone(), earlier.ndcg.len()),
        None => (
            Monitor::new(collection.models.clone(), Order::Random, margin),
            0,
        ),
    };
    for target in &ndcg[seen..] {
        if let Err(error) = monitor.observe(target, None) {
            // Every NDCG lies in [0, 1] and every target has a value per model: unreachable,
            // yet a page without a verdict beats a page that fails.
            tracing::warn!(%error, "no verdict");
            return (None, None);
        }
    }
    let ahead = TargetsAhead {
        left: completion.population.saturating_sub(ndcg.len()),
        choosable: completion.choosable,
    };
    let decision = monitor.decision(ahead);
    tracing::debug!(
        elapsed = ?started.elapsed(), targets = ndcg.len(), observed = ndcg.len() - seen,
        "the verdict"
    );
    (Some(decision), Some(Watched { ndcg, monitor }))
}
