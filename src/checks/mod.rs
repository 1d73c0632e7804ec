//! The study checks (docs/metrics.md, "Study checks"): can the leaderboard's verdict be
//! trusted? Four answers, each a number and a sentence: pool bias (would a model that was not
//! pooled be judged fairly), the rater's consistency with their own earlier ratings, how much
//! the ranking depends on the metric's variant, and the time the judgments took.
//!
//! [`run`] reads the study (the evaluation set of the leaderboard and the rating history);
//! [`compute`] and the modules below it are pure, like the metrics. `paperjudge checks` and
//! `/checks` both come here.

mod pool_bias;
mod ranking;
pub mod recheck;
mod sensitivity;
mod text;
mod timing;

use serde::Serialize;
use sqlx::SqlitePool;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use crate::db;
use crate::domain::{PaperKey, PoolDepth, Stars};
use crate::evaluation::EvaluationSet;
use crate::leaderboard::{Collection, LeaderboardOptions, Partial, TargetInput};
use crate::metrics::{self, Settings};

pub use pool_bias::{ModelBias, PoolBias};
pub use sensitivity::{Placed, Sensitivity, Variant};
pub use timing::{
    Bin, Day, Drift, PositionAgreement, RatingsPerSitting, SecondsPerJudgment, TimedRecheck,
    Timing, LONG_SITTING, SITTING_GAP_SECONDS,
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
    pub pool_bias: PoolBias,
    pub consistency: ConsistencyReport,
    pub sensitivity: Sensitivity,
    pub timing: Timing,
}

/// The settings the checks were computed with, as the leaderboard's JSON states them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SettingsJson {
    #[serde(flatten)]
    pub metrics: Settings,
    pub pool_depth: u32,
    pub partial: Partial,
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
    /// Ratings set in the browser: seconds since 1970 and stars, in the order made.
    pub judgments: Vec<(i64, Stars)>,
    pub rechecks: Vec<TimedRecheck>,
    /// Rated pairs of finished targets.
    pub rated_pairs: i64,
}

/// Lists are read whole: the variants that skip unjudged papers condense them before the
/// cutoff.
pub const LIST_DEPTH: usize = usize::MAX;

/// The checks of a study under `options` (the leaderboard's), over fully rated targets or,
/// with `partial`, every target with a rating: what `paperjudge checks` prints.
pub async fn run(
    pool: &SqlitePool,
    options: &LeaderboardOptions,
    partial: Partial,
) -> Result<Checks, sqlx::Error> {
    let set = EvaluationSet::load(pool, LIST_DEPTH).await?;
    of_set(pool, &set, options, partial).await
}

/// The checks of the evaluation set `set` (read with [`LIST_DEPTH`]) and the study's history.
/// Partly rated targets evaluated (with `partial`) are recorded as unblinded, as the
/// leaderboard records them.
pub async fn of_set(
    pool: &SqlitePool,
    set: &EvaluationSet,
    options: &LeaderboardOptions,
    partial: Partial,
) -> Result<Checks, sqlx::Error> {
    let unblinded: Vec<PaperKey> = (set.collection.targets.iter().zip(&set.targets))
        .filter(|(target, _)| partial.evaluates(target) && !target.fully_rated)
        .map(|(_, (key, _))| *key)
        .collect();
    db::targets::record_unblinded(pool, &unblinded).await?;
    let settings = options.settings(set.collection.pool_depth);
    let judgments = db::checks::judgments(pool).await?;
    let rechecks = db::checks::rechecks(pool).await?;
    let progress = db::checks::recheck_progress(pool).await?;
    let history = History {
        judgments: (judgments.iter())
            .filter_map(|judgment| {
                Some((seconds(&judgment.changed_at)?, Stars::new(judgment.stars)?))
            })
            .collect(),
        rechecks: (rechecks.iter())
            .filter_map(|recheck| {
                Some(TimedRecheck {
                    then: Stars::new(recheck.stars_then)?,
                    now: Stars::new(recheck.stars)?,
                    rated_at: seconds(&recheck.rated_at),
                })
            })
            .collect(),
        rated_pairs: progress.rated_in_finished,
    };
    // The kappa interval's resamples keep the cores busy for a moment: off the async workers,
    // with the targets in a thread of their own.
    let collection = Collection {
        models: set.collection.models.clone(),
        targets: (set.collection.targets.iter())
            .filter(|target| partial.evaluates(target))
            .cloned()
            .collect(),
        total: set.collection.total,
        pool_depth: set.collection.pool_depth,
        // The checks read no verdict, and the filtered targets no longer match the order.
        completion: None,
    };
    Ok(crate::blocking::run(move || compute(&collection, &history, settings, partial)).await)
}

/// Seconds since 1970 of an RFC 3339 time.
fn seconds(text: &str) -> Option<i64> {
    OffsetDateTime::parse(text, &Rfc3339)
        .ok()
        .map(OffsetDateTime::unix_timestamp)
}

/// The checks of the targets of `study` that `partial` evaluates, and of `history`, under
/// `settings`.
pub fn compute(
    collection: &Collection<PaperKey>,
    history: &History,
    settings: Settings,
    partial: Partial,
) -> Checks {
    let pool_depth: PoolDepth = collection.pool_depth;
    let depth = usize::try_from(pool_depth.get()).unwrap_or(usize::MAX);
    let targets: Vec<&TargetInput<PaperKey>> = (collection.targets.iter())
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
        },
        targets_evaluated: targets.len(),
        pool_bias: pool_bias::pool_bias(&collection.models, &targets, &settings, depth),
        consistency: consistency(&pairs, history.rated_pairs),
        sensitivity: sensitivity::sensitivity(&collection.models, &targets, &settings, depth),
        timing: timing::timing(&history.judgments, &history.rechecks),
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
            if count == 1 { "pair" } else { "pairs" }
        ),
        Some(kappa) => format!(
            "κ = {kappa:.2} over {count} re-checked {}: {}.",
            if count == 1 { "pair" } else { "pairs" },
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
