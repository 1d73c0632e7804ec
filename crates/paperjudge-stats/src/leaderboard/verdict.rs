//! The verdict beside the resampling: the anytime-valid decision of [`crate::decision`] over
//! the fully rated targets in the order they were completed, from the NDCG the scoring step
//! already has (nothing is scored again).

use super::{Collection, Scores};
use crate::decision::{self, Decision, Margin, TargetsAhead};

/// The verdict of `collection` from its `scores`, models within `margin` of the leader counting
/// as equivalent; `None` with fewer than two models or without the order the targets were
/// completed in.
pub fn verdict<K>(collection: &Collection<K>, scores: &Scores, margin: Margin) -> Option<Decision> {
    let completion = collection.completion.as_ref()?;
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
    let ahead = TargetsAhead {
        left: completion.population.saturating_sub(ndcg.len()),
        choosable: completion.choosable,
    };
    let decision = decision::decide(collection.models.clone(), &ndcg, margin, ahead)
        .unwrap_or_else(|error| {
            // Every NDCG lies in [0, 1] and every target has a value per model: unreachable,
            // yet a page without a verdict beats a page that fails.
            tracing::warn!(%error, "no verdict");
            None
        });
    tracing::debug!(elapsed = ?started.elapsed(), targets = ndcg.len(), "the verdict");
    decision
}
