//! The study checks (docs/metrics.md, "Study checks"): can the leaderboard's verdict be
//! trusted? Four answers, each a number and a sentence: pool bias (would a model that was not
//! pooled be judged fairly), the rater's consistency with their own earlier ratings, how much
//! the ranking depends on the metric's variant, and the time the judgments took; beside them,
//! how often the raters could not judge a pair, and how the ratings moved with the study's
//! guidelines.
//!
//! Pure, like the metrics: [`Checks::of`] a study's targets in memory (the evaluation set of
//! the leaderboard) and of its rating history. The study reads them (`Study::checks`), for
//! `paperjudge checks` and `/checks` alike.

mod answers;
pub mod judges;
mod pool_bias;
pub mod ranking;
mod raters;
mod sensitivity;
pub(crate) mod text;
mod timing;

use std::sync::Arc;

use serde::Serialize;

use crate::domain::{PaperKey, PoolDepth, Stars};
use crate::leaderboard::{Collection, Partial, TargetInput};
use crate::metrics::{self, Judgments, Settings};
use crate::words::plural;

pub use answers::{
    AnswersInput, CannotJudgeReport, GuidelinesReport, GuidelinesVersionInfo, ModelCannotJudge,
    RaterCannotJudge, VersionReport,
};
pub use pool_bias::{ModelBias, PoolBias};
pub use raters::{RaterKappa, RaterRanking, RaterReport, RatersInput, RatersReport};
pub use sensitivity::{Placed, Sensitivity, Variant};
pub use timing::{
    Bin, Day, Drift, PositionAgreement, RatingsPerSitting, SecondsPerJudgment, TimedJudgment,
    TimedRecheck, Timing, LONG_SITTING, SITTING_GAP_SECONDS,
};

/// The share of the rated pairs that the dashboard suggests re-checking.
pub const RECHECK_SHARE: f64 = 0.05;

/// Finished targets from which the dashboard suggests re-checking.
pub const RECHECK_FROM_FINISHED_TARGETS: i64 = 3;

/// Every check of a study.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checks {
    pub settings: SettingsJson,
    /// Targets scored by pool bias and sensitivity.
    pub targets_evaluated: usize,
    /// The models pruned from some of those targets' pools: each is scored only over the
    /// targets whose pool held its list.
    pub pruned: Vec<PrunedModel>,
    pub pool_bias: PoolBias,
    pub consistency: ConsistencyReport,
    pub sensitivity: Sensitivity,
    pub timing: Timing,
    /// Agreement among the raters, in a study with raters; `null` with one rater, the owner.
    pub raters: Option<RatersReport>,
    /// How often the raters marked a pair "can't judge", by rater and by model.
    pub cannot_judge: CannotJudgeReport,
    /// The ratings under each version of the study's guidelines.
    pub guidelines: GuidelinesReport,
    /// Each machine judge against the raters (see [`judges`]), by name; empty without judges.
    pub judges: Vec<judges::JudgeAudit>,
}

/// A model that some evaluated targets' pools left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PrunedModel {
    pub model: String,
    /// Evaluated targets whose pool held its list: what the checks score it over.
    pub targets: usize,
    /// Evaluated targets whose pool left it out.
    pub left_out_of: usize,
}

/// The settings the checks were computed with, as the leaderboard's JSON states them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SettingsJson {
    #[serde(flatten)]
    pub metrics: Settings,
    pub pool_depth: u32,
    pub partial: Partial,
    /// With raters only: how one judgment per pair came from their stars.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judgments: Option<Judgments>,
}

/// The rater's consistency over the re-checked pairs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConsistencyReport {
    /// Pairs re-checked.
    pub pairs: u64,
    pub exact_agreement: Option<f64>,
    pub within_one_star: Option<f64>,
    /// Cohen's kappa with quadratic weights.
    pub kappa: Option<f64>,
    /// 95% percentile-bootstrap interval of `kappa` over the pairs.
    pub kappa_ci95: Option<[f64; 2]>,
    /// `confusion[then − 1][now − 1]`: stars first given in rows, stars on the re-check in
    /// columns.
    pub confusion: [[u64; 5]; 5],
    /// Rated pairs of finished targets, which re-checks draw from.
    pub rated_pairs: i64,
    /// About 5% of them: how many re-checks the dashboard suggests.
    pub suggested: i64,
    pub sentence: String,
}

/// What the checks need of a study beyond the evaluation input.
#[derive(Debug, Clone, Default)]
pub struct History {
    /// Ratings set in the browser: who, seconds since 1970 and stars, in the order made.
    pub judgments: Vec<TimedJudgment>,
    pub rechecks: Vec<TimedRecheck>,
    /// Rated pairs of finished targets.
    pub rated_pairs: i64,
}

/// Lists are read whole: the variants that skip unjudged papers condense them before the
/// cutoff.
pub const LIST_DEPTH: usize = usize::MAX;

impl Checks {
    /// The checks of the targets of `collection` that `partial` evaluates, and of `history`,
    /// under `settings`; with `raters` (a study with raters, its judgments), their agreement;
    /// of `answers`, the shares of "can't judge" and the ratings by version of the guidelines.
    pub fn of(
        collection: &Collection<PaperKey>,
        history: &History,
        settings: Settings,
        partial: Partial,
        raters: Option<(Judgments, RatersInput)>,
        answers: &AnswersInput<'_>,
    ) -> Checks {
        let pool_depth: PoolDepth = collection.pool_depth;
        let depth = usize::try_from(pool_depth.get()).unwrap_or(usize::MAX);
        let targets: Vec<&TargetInput<PaperKey>> = (collection.targets.iter().map(Arc::as_ref))
            .filter(|target| partial.evaluates(target))
            .collect();
        let pairs: Vec<(Stars, Stars)> = (history.rechecks.iter())
            .map(|recheck| (recheck.then, recheck.now))
            .collect();
        Checks {
            settings: SettingsJson {
                metrics: settings,
                pool_depth: pool_depth.get(),
                partial,
                judgments: raters.as_ref().map(|(judgments, _)| judgments.clone()),
            },
            targets_evaluated: targets.len(),
            pruned: (collection.models.iter().enumerate())
                .filter_map(|(model, name)| {
                    let left_out_of = targets.iter().filter(|t| !t.pooled(model)).count();
                    (left_out_of > 0).then(|| PrunedModel {
                        model: name.clone(),
                        targets: targets.len() - left_out_of,
                        left_out_of,
                    })
                })
                .collect(),
            pool_bias: pool_bias::pool_bias(&collection.models, &targets, &settings, depth),
            consistency: consistency(&pairs, history.rated_pairs),
            sensitivity: sensitivity::sensitivity(&collection.models, &targets, &settings, depth),
            timing: timing::timing(&history.judgments, &history.rechecks),
            raters: raters.map(|(_, input)| raters::agreement(&input, &settings)),
            cannot_judge: answers::cannot_judge(answers, settings.k.get()),
            guidelines: answers::by_guidelines(answers, &settings),
            judges: Vec::new(),
        }
    }
}

/// How many re-checks to suggest for `rated_pairs`: about 5%, at least one when any is rated.
pub fn suggested_rechecks(rated_pairs: i64) -> i64 {
    (rated_pairs as f64 * RECHECK_SHARE).ceil() as i64
}

fn consistency(pairs: &[(Stars, Stars)], rated_pairs: i64) -> ConsistencyReport {
    let statistics = metrics::consistency(pairs);
    let suggested = suggested_rechecks(rated_pairs);
    let count = statistics.confusion.pairs();
    let sentence = match statistics.kappa {
        _ if count == 0 => format!(
            "No pair re-checked yet: re-check about {suggested} of the {rated_pairs} rated pairs \
             (5%) to measure how consistent the ratings are."
        ),
        None => format!(
            "κ is undefined over {count} re-checked {}: every rating then and now has the same \
             stars; re-check more pairs.",
            plural(count, "pair", "pairs")
        ),
        Some(kappa) => format!(
            "κ = {kappa:.2} over {count} re-checked {}: {}.",
            plural(count, "pair", "pairs"),
            strength(kappa)
        ),
    };
    ConsistencyReport {
        pairs: count,
        exact_agreement: statistics.exact_agreement,
        within_one_star: statistics.within_one_star,
        kappa: statistics.kappa,
        kappa_ci95: statistics.kappa_ci95,
        confusion: statistics.confusion.counts,
        rated_pairs,
        suggested,
        sentence,
    }
}

/// Landis and Koch's (1977) words for a kappa.
fn strength(kappa: f64) -> &'static str {
    match kappa {
        k if k < 0.0 => "poor, worse than chance",
        k if k <= 0.20 => "slight",
        k if k <= 0.40 => "fair",
        k if k <= 0.60 => "moderate",
        k if k <= 0.80 => "substantial",
        _ => "almost perfect",
    }
}

impl Checks {
    /// Pretty-printed JSON, ending in a newline; undefined values are `null`.
    pub fn to_json(&self) -> String {
        let mut json = serde_json::to_string_pretty(self).expect("the checks serialize");
        json.push('\n');
        json
    }

    /// The checks for a terminal.
    pub fn to_text(&self) -> String {
        text::render(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kappa_is_put_in_words() {
        assert_eq!(strength(0.71), "substantial");
        assert_eq!(strength(0.81), "almost perfect");
        assert_eq!(strength(0.2), "slight");
        assert_eq!(strength(-0.1), "poor, worse than chance");
    }

    #[test]
    fn about_five_percent_is_suggested() {
        assert_eq!(suggested_rechecks(0), 0);
        assert_eq!(suggested_rechecks(1), 1);
        assert_eq!(suggested_rechecks(400), 20);
        assert_eq!(suggested_rechecks(401), 21);
    }
}
