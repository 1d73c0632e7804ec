//! The evaluation layer: a study's lists and ratings from the database, through the metrics,
//! into a [`Leaderboard`]. `paperjudge leaderboard` and the leaderboard page both come here.

use std::collections::HashMap;
use std::num::NonZeroUsize;

use serde::Deserialize;
use sqlx::SqlitePool;

use crate::db;
use crate::domain::{PaperKey, Stars};
use crate::leaderboard::{Leaderboard, TargetInput};
use crate::metrics::{ApDenominator, Empty, Gain, Ideal, Relevance, Settings, Unjudged};

/// The leaderboard options as a person gives them (command-line flags or query parameters,
/// named as in metrics.md); each one left out takes its default.
#[derive(Debug, Clone, Default, PartialEq, clap::Args, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaderboardOptions {
    /// Cutoff of every metric [default: the pool depth].
    #[arg(long)]
    pub k: Option<NonZeroUsize>,
    /// linear (gain = rel) or exponential (2^rel - 1) [default: linear].
    #[arg(long)]
    pub gain: Option<Gain>,
    /// stars-minus-one or stars [default: stars-minus-one].
    #[arg(long)]
    pub relevance: Option<Relevance>,
    /// judged (all judged papers of the target) or list (the list's own top k) [default: judged].
    #[arg(long)]
    pub ideal: Option<Ideal>,
    /// zero (unrated papers count 0) or skip (removed before the cutoff) [default: zero].
    #[arg(long)]
    pub unjudged: Option<Unjudged>,
    /// skip or zero: targets where a metric is undefined [default: skip].
    #[arg(long)]
    pub empty: Option<Empty>,
    /// Least stars that count as relevant for P, R, F1, AP, RR [default: 4].
    #[arg(long, value_parser = parse_threshold)]
    #[serde(default, deserialize_with = "deserialize_threshold")]
    pub threshold: Option<Stars>,
    /// relevant, hits or min-k-relevant [default: relevant].
    #[arg(long)]
    #[serde(alias = "ap-denominator")]
    pub ap_denominator: Option<ApDenominator>,
}

/// The `threshold` option: a number of stars, or the message that says what it must be.
pub fn parse_threshold(text: &str) -> Result<Stars, String> {
    text.parse::<Stars>()
        .map_err(|_| format!("threshold must be a number of stars from 1 to 5 (got {text:?})"))
}

fn deserialize_threshold<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Stars>, D::Error> {
    let text = String::deserialize(deserializer)?;
    parse_threshold(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

/// The settings the options ask for in this study (k defaults to its pool depth).
pub async fn settings(
    pool: &SqlitePool,
    options: &LeaderboardOptions,
) -> Result<Settings, sqlx::Error> {
    let defaults = Settings::for_pool_depth(db::study::pool_depth(pool).await?);
    Ok(Settings {
        k: options.k.unwrap_or(defaults.k),
        gain: options.gain.unwrap_or(defaults.gain),
        relevance: options.relevance.unwrap_or(defaults.relevance),
        ideal: options.ideal.unwrap_or(defaults.ideal),
        unjudged: options.unjudged.unwrap_or(defaults.unjudged),
        empty: options.empty.unwrap_or(defaults.empty),
        threshold: options.threshold.unwrap_or(defaults.threshold),
        ap_denominator: options.ap_denominator.unwrap_or(defaults.ap_denominator),
    })
}

/// Compares every model of the study under `settings`.
pub async fn leaderboard(
    pool: &SqlitePool,
    settings: Settings,
    include_per_target: bool,
) -> Result<Leaderboard, sqlx::Error> {
    let pool_depth = db::study::pool_depth(pool).await?;
    // Only the top k of a list counts, unless unjudged papers are skipped before the cutoff.
    let depth = match settings.unjudged {
        Unjudged::Zero => settings.k.get(),
        Unjudged::Skip => usize::MAX,
    };
    let data = db::evaluation::load(pool, depth).await?;
    let model_index: HashMap<i64, usize> = (data.models.iter().enumerate())
        .map(|(index, (key, _))| (*key, index))
        .collect();
    let target_index: HashMap<i64, usize> = (data.rated_targets.iter().enumerate())
        .map(|(index, (key, _, _))| (*key, index))
        .collect();
    let mut targets: Vec<TargetInput<PaperKey>> = (data.rated_targets.iter())
        .map(|(_, external_id, ratings)| TargetInput {
            target: external_id.clone(),
            judgments: parse_pairs(ratings)
                .filter_map(|(paper, stars)| Some((PaperKey(paper), Stars::new(stars)?)))
                .collect(),
            lists: vec![None; data.models.len()],
        })
        .collect();
    for (target, model, entries) in &data.lists {
        if let (Some(&t), Some(&m)) = (target_index.get(target), model_index.get(model)) {
            let mut entries: Vec<(i64, i64)> = parse_pairs(entries).collect();
            entries.sort_unstable();
            let papers = entries.into_iter().map(|(_, paper)| PaperKey(paper));
            targets[t].lists[m] = Some(papers.collect());
        }
    }
    let names: Vec<String> = data.models.into_iter().map(|(_, name)| name).collect();
    Ok(Leaderboard::compute(
        &names,
        &targets,
        data.target_count,
        settings,
        pool_depth,
        include_per_target,
    ))
}

/// The `a:b` pairs of integers of a `GROUP_CONCAT`, as the database wrote them.
fn parse_pairs(text: &str) -> impl Iterator<Item = (i64, i64)> + '_ {
    text.split(',').filter_map(|pair| {
        let (a, b) = pair.split_once(':')?;
        Some((a.parse().ok()?, b.parse().ok()?))
    })
}
