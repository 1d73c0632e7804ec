//! The evaluation layer: a study's lists and ratings from the database, through the metrics,
//! into a [`Leaderboard`]. `paperjudge leaderboard` and the leaderboard page both come here.

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::time::Instant;

use rayon::prelude::*;
use serde::Deserialize;
use sqlx::SqlitePool;

use crate::db;
use crate::decision;
use crate::domain::{PaperId, PoolDepth, Stars};
use crate::leaderboard::{Leaderboard, Partial, StudyTargets, TargetInput};
use crate::metrics::{self, ApDenominator, Empty, Gain, Ideal, Relevance, Settings, Unjudged};
use crate::simulation::{Replay, ReplayTarget};

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

/// Which per-target rows a comparison adds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PerTarget {
    #[default]
    None,
    /// Every evaluated target's.
    All,
    /// Only this target's (the per-target view of one target).
    Only(PaperId),
}

/// What a comparison covers beyond its metric settings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scope {
    pub per_target: PerTarget,
    pub partial: Partial,
}

impl Scope {
    /// The scope of a view a rater reaches while rating: fully rated targets, no rows per
    /// target.
    pub const BLIND: Scope = Scope {
        per_target: PerTarget::None,
        partial: Partial::Exclude,
    };
}

/// Compares every model on the targets rated now under `settings`.
///
/// Rows per target, and any partly rated target evaluated, unblind the targets concerned:
/// they tell which model listed which paper. Those targets are recorded as unblinded, so that
/// the rating history marks every later change of their ratings as made with provenance
/// known.
pub async fn leaderboard(
    pool: &SqlitePool,
    settings: Settings,
    scope: Scope,
) -> Result<Leaderboard, sqlx::Error> {
    let pool_depth = db::study::pool_depth(pool).await?;
    let depth = list_depth(&settings);
    let started = Instant::now();
    let completion = db::evaluation::completion_order(pool).await?;
    let data = db::evaluation::load(pool, depth, scope.partial == Partial::Include).await?;
    tracing::debug!(elapsed = ?started.elapsed(), "read the ratings and lists");
    let unblinded: Vec<String> = (data.rated_targets.iter())
        .filter(|(target, _, _, partly_rated)| match scope.per_target {
            PerTarget::All => true,
            PerTarget::Only(only) => only.0 == *target || *partly_rated,
            PerTarget::None => *partly_rated,
        })
        .map(|(_, external_id, _, _)| external_id.clone())
        .collect();
    let only = match scope.per_target {
        PerTarget::Only(only) => (data.rated_targets.iter())
            .find(|(target, ..)| *target == only.0)
            .map(|(_, external_id, ..)| external_id.clone()),
        PerTarget::None | PerTarget::All => None,
    };
    // Scoring and resampling keep the cores busy for a while: off the async workers, which
    // go on serving the rating pages meanwhile.
    let include_per_target = scope.per_target != PerTarget::None;
    let computing = tokio::task::spawn_blocking(move || {
        let started = Instant::now();
        let board = compute(
            data,
            completion,
            settings,
            pool_depth,
            scope.partial,
            include_per_target,
        );
        tracing::debug!(elapsed = ?started.elapsed(), "computed the leaderboard");
        board
    });
    let mut board = computing
        .await
        .unwrap_or_else(|failed| std::panic::resume_unwind(failed.into_panic()));
    if let (PerTarget::Only(_), Some(rows)) = (scope.per_target, &mut board.per_target) {
        rows.retain(|row| Some(&row.target) == only.as_ref());
    }
    db::targets::record_unblinded(pool, &unblinded).await?;
    Ok(board)
}

fn compute(
    data: db::evaluation::EvaluationData,
    (population, completed): (usize, Vec<i64>),
    settings: Settings,
    pool_depth: PoolDepth,
    partial: Partial,
    include_per_target: bool,
) -> Leaderboard {
    let targets = target_inputs(&data);
    let names: Vec<String> = data.models.into_iter().map(|(_, name)| name).collect();
    let study = StudyTargets {
        total: data.target_count,
        partly_rated: data.partly_rated,
        partial,
    };
    let mut board = Leaderboard::compute(
        &names,
        &targets,
        study,
        settings,
        pool_depth,
        include_per_target,
    );
    // The verdict takes the fully rated targets in the order they were completed (those
    // completed since the targets were read wait for the next look).
    let position: HashMap<i64, usize> = (data.rated_targets.iter().enumerate())
        .filter(|(_, (.., partly_rated))| !partly_rated)
        .map(|(index, (target, ..))| (*target, index))
        .collect();
    let ndcg: Vec<Vec<Option<f64>>> = (completed.iter())
        .filter_map(|target| position.get(target))
        .map(|&index| ndcg_of(&targets[index], &settings))
        .collect();
    let population = NonZeroUsize::new(population.max(ndcg.len()));
    board.decision = decision::decide(names, &ndcg, population).unwrap_or_else(|error| {
        tracing::warn!(%error, "no decision");
        None
    });
    board
}

/// How much of each list the metrics read: the top k, unless unjudged papers are skipped
/// before the cutoff.
fn list_depth(settings: &Settings) -> usize {
    match settings.unjudged {
        Unjudged::Zero => settings.k.get(),
        Unjudged::Skip => usize::MAX,
    }
}

/// Each model's NDCG on `target`.
fn ndcg_of(target: &TargetInput<PaperId>, settings: &Settings) -> Vec<Option<f64>> {
    (target.lists.iter())
        .map(|list| {
            let list = list.as_deref().unwrap_or_default();
            metrics::evaluate_target(list, &target.judgments, settings).ndcg
        })
        .collect()
}

/// The targets of `data` with their judgments and each model's list, in its order.
fn target_inputs(data: &db::evaluation::EvaluationData) -> Vec<TargetInput<PaperId>> {
    let model_index: HashMap<i64, usize> = (data.models.iter().enumerate())
        .map(|(index, (key, _))| (*key, index))
        .collect();
    let lists_of: HashMap<i64, &str> = (data.lists.iter())
        .map(|(target, lists)| (*target, lists.as_str()))
        .collect();
    (data.rated_targets.par_iter())
        .map(|(target, external_id, ratings, _)| {
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
                        Some((PaperId(paper), Stars::new(stars)?))
                    })
                    .collect(),
                lists,
            }
        })
        .collect()
}

/// The study's fully rated targets as `paperjudge simulate` replays them: each model's NDCG
/// under `settings`, its top k, and the pooled pairs each took to rate.
pub async fn replay(pool: &SqlitePool, settings: Settings) -> Result<Replay, ReplayError> {
    let depth = list_depth(&settings);
    let data = db::evaluation::load(pool, depth, false).await?;
    let targets = target_inputs(&data);
    let k = settings.k.get();
    let replayed: Vec<ReplayTarget> = (targets.iter())
        .map(|target| ReplayTarget {
            ndcg: ndcg_of(target, &settings),
            // Fully rated: every pooled pair has its judgment.
            ratings: target.judgments.len(),
            lists: (target.lists.iter())
                .map(|list| {
                    (list.iter().flatten().take(k))
                        .map(|paper| paper.0)
                        .collect()
                })
                .collect(),
        })
        .collect();
    let names: Vec<String> = data.models.into_iter().map(|(_, name)| name).collect();
    if names.len() < 2 {
        return Err(ReplayError::Models(names.len()));
    }
    if replayed.is_empty() {
        return Err(ReplayError::NoTargets);
    }
    Ok(Replay::new(names, replayed, k)?)
}

/// Why a study cannot be replayed.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("a replay compares at least two models; the study has {0}")]
    Models(usize),
    #[error("the study has no fully rated target to replay")]
    NoTargets,
    #[error(transparent)]
    Values(#[from] decision::DecisionError),
    #[error("the study database failed")]
    Database(#[from] sqlx::Error),
}

/// The lists of a target as [`db::evaluation::EvaluationData::lists`] holds them: each
/// model id with its papers in ranked order.
fn parse_lists(text: &str) -> impl Iterator<Item = (i64, Vec<PaperId>)> + '_ {
    text.split(';').filter_map(|list| {
        let (model, papers) = list.split_once(' ')?;
        let papers = papers.split(',').map(|paper| paper.parse().map(PaperId));
        Some((model.parse().ok()?, papers.collect::<Result<_, _>>().ok()?))
    })
}
