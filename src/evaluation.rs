//! The evaluation layer: a study's lists and ratings from the database, through the metrics,
//! into a [`Leaderboard`]. `paperjudge leaderboard` and the leaderboard page both come here.

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::time::Instant;

use rayon::prelude::*;
use serde::Deserialize;
use sqlx::SqlitePool;

use crate::db;
use crate::domain::{PaperKey, PoolDepth, Stars};
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
    let started = Instant::now();
    let data = db::evaluation::load(pool, depth).await?;
    tracing::debug!(elapsed = ?started.elapsed(), "read the ratings and lists");
    // Scoring and resampling keep the cores busy for a while: off the async workers, which
    // go on serving the rating pages meanwhile.
    let computing = tokio::task::spawn_blocking(move || {
        let started = Instant::now();
        let board = compute(data, settings, pool_depth, include_per_target);
        tracing::debug!(elapsed = ?started.elapsed(), "computed the leaderboard");
        board
    });
    Ok(computing
        .await
        .unwrap_or_else(|failed| std::panic::resume_unwind(failed.into_panic())))
}

fn compute(
    data: db::evaluation::EvaluationData,
    settings: Settings,
    pool_depth: PoolDepth,
    include_per_target: bool,
) -> Leaderboard {
    let model_index: HashMap<i64, usize> = (data.models.iter().enumerate())
        .map(|(index, (key, _))| (*key, index))
        .collect();
    let lists_of: HashMap<i64, &str> = (data.lists.iter())
        .map(|(target, lists)| (*target, lists.as_str()))
        .collect();
    let targets: Vec<TargetInput<PaperKey>> = (data.rated_targets.par_iter())
        .map(|(target, external_id, ratings)| {
            let mut lists = vec![None; model_index.len()];
            for (model, papers) in parse_lists(lists_of.get(target).copied().unwrap_or_default()) {
                if let Some(&model) = model_index.get(&model) {
                    lists[model] = Some(papers);
                }
            }
            TargetInput {
                target: external_id.clone(),
                judgments: (ratings.split(','))
                    .filter_map(|code| {
                        let (paper, stars) = db::evaluation::rating_code(code.parse().ok()?);
                        Some((PaperKey(paper), Stars::new(stars)?))
                    })
                    .collect(),
                lists,
            }
        })
        .collect();
    let names: Vec<String> = data.models.into_iter().map(|(_, name)| name).collect();
    Leaderboard::compute(
        &names,
        &targets,
        data.target_count,
        settings,
        pool_depth,
        include_per_target,
    )
}

/// The lists of a target as [`db::evaluation::EvaluationData::lists`] holds them: each
/// model id with its papers in ranked order.
fn parse_lists(text: &str) -> impl Iterator<Item = (i64, Vec<PaperKey>)> + '_ {
    text.split(';').filter_map(|list| {
        let (model, papers) = list.split_once(' ')?;
        let papers = papers.split(',').map(|paper| paper.parse().map(PaperKey));
        Some((model.parse().ok()?, papers.collect::<Result<_, _>>().ok()?))
    })
}
