//! The evaluation path: a study's ratings and lists become the numbers of the leaderboard in
//! four steps, each named for what it does.
//!
//! 1. **load**: [`EvaluationSet::load`] reads one revision of the study, as typed rows
//!    ([`db::evaluation`](crate::db::evaluation)), with the order its targets were completed in, into memory;
//! 2. **score**: [`leaderboard::score`] scores every model on every evaluated target;
//! 3. **resample**: [`leaderboard::resample`] compares the models: means, bootstrap intervals,
//!    sign-flip tests against the leader, and the anytime-valid verdict
//!    ([`leaderboard::verdict`]) from the same scores;
//! 4. **render**: [`Leaderboard::to_json`], [`Leaderboard::to_csv`], [`Leaderboard::to_table`]
//!    and the web's pages.
//!
//! `paperjudge leaderboard` runs them once ([`leaderboard`]). The server keeps the set of the
//! current revision and the leaderboards of recent options ([`Evaluations`]), so that a page
//! view does the work only after something changed.

mod cache;
mod set;

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Instant;

use sqlx::SqlitePool;

use crate::decision::Margin;
use crate::domain::{PoolDepth, Stars};
use crate::leaderboard::{self, Leaderboard, Partial};
use crate::metrics::{ApDenominator, Empty, Gain, Ideal, Relevance, Settings, Unjudged};

pub use cache::Evaluations;
pub use set::EvaluationSet;

/// The leaderboard options as a person gives them (command-line flags or query parameters,
/// named as in docs/metrics.md); each one left out takes its default.
#[derive(Debug, Clone, Default, PartialEq, clap::Args)]
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
    pub threshold: Option<Stars>,
    /// relevant, hits or min-k-relevant [default: relevant].
    #[arg(long)]
    pub ap_denominator: Option<ApDenominator>,
    /// The verdict counts a model whose difference from the leader lies within ±this (in
    /// NDCG, at the verdict's confidence) as equivalent to it [default: none].
    #[arg(long)]
    pub margin: Option<Margin>,
}

/// The `threshold` option: a number of stars, or the message that says what it must be.
pub fn parse_threshold(text: &str) -> Result<Stars, String> {
    text.parse::<Stars>()
        .map_err(|_| format!("threshold must be a number of stars from 1 to 5 (got {text:?})"))
}

impl LeaderboardOptions {
    /// The settings these options ask for in a study of this pool depth (k defaults to it).
    pub fn settings(&self, pool_depth: PoolDepth) -> Settings {
        let defaults = Settings::for_pool_depth(pool_depth);
        Settings {
            k: self.k.unwrap_or(defaults.k),
            gain: self.gain.unwrap_or(defaults.gain),
            relevance: self.relevance.unwrap_or(defaults.relevance),
            ideal: self.ideal.unwrap_or(defaults.ideal),
            unjudged: self.unjudged.unwrap_or(defaults.unjudged),
            empty: self.empty.unwrap_or(defaults.empty),
            threshold: self.threshold.unwrap_or(defaults.threshold),
            ap_denominator: self.ap_denominator.unwrap_or(defaults.ap_denominator),
            margin: self.margin.unwrap_or(defaults.margin),
        }
    }

    /// How much of each list these options read: the top k (the pool depth when k is left
    /// out, which the loader reads anyway), or whole lists when unjudged papers are skipped
    /// before the cutoff.
    pub fn list_depth(&self) -> usize {
        match self.unjudged.unwrap_or_default() {
            Unjudged::Zero => self.k.map_or(0, NonZeroUsize::get),
            Unjudged::Skip => usize::MAX,
        }
    }
}

/// A leaderboard with the set it was computed from.
#[derive(Debug, Clone)]
pub struct Evaluated {
    pub set: Arc<EvaluationSet>,
    pub board: Arc<Leaderboard>,
}

/// Compares every model on the targets rated now (with `partial`, also those partly rated),
/// as the options ask: load, score, resample. What `paperjudge leaderboard` prints; the server
/// comes to the same result through [`Evaluations`]. Nothing is written: a view records
/// nothing (see [`crate::db::ratings::set`] for when a change is made with its provenance
/// known).
pub async fn leaderboard(
    pool: &SqlitePool,
    options: &LeaderboardOptions,
    partial: Partial,
) -> Result<Evaluated, sqlx::Error> {
    let started = Instant::now();
    let set = Arc::new(EvaluationSet::load(pool, options.list_depth()).await?);
    tracing::debug!(elapsed = ?started.elapsed(), "loaded the evaluation set");
    let board = Arc::new(compute(&set, options, partial).await);
    Ok(Evaluated { set, board })
}

/// Scores and resamples in a blocking thread: the work keeps the cores busy for a while, and
/// the async workers go on serving the rating pages meanwhile.
async fn compute(
    set: &Arc<EvaluationSet>,
    options: &LeaderboardOptions,
    partial: Partial,
) -> Leaderboard {
    let set = set.clone();
    let settings = options.settings(set.study.pool_depth);
    crate::blocking::run(move || {
        let started = Instant::now();
        let scores = leaderboard::score(&set.study, settings, partial);
        tracing::debug!(elapsed = ?started.elapsed(), "scored");
        let board = leaderboard::resample(&set.study, scores);
        tracing::debug!(elapsed = ?started.elapsed(), "resampled");
        board
    })
    .await
}
