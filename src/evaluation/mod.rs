//! The evaluation path: a study's ratings and lists become the numbers of the leaderboard in
//! four steps, each named for what it does.
//!
//! 1. **load**: [`EvaluationSet::load`] reads one revision of the study, as typed rows
//!    ([`db::evaluation`]), with the order its targets were completed in, into memory;
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

use std::sync::Arc;
use std::time::Instant;

use sqlx::SqlitePool;

use crate::db;
use crate::domain::PaperKey;
use crate::leaderboard::{self, Leaderboard, LeaderboardOptions, Partial};

pub use cache::Evaluations;
pub use set::EvaluationSet;

/// Which per-target rows a comparison shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PerTarget {
    #[default]
    None,
    /// Every evaluated target's.
    All,
    /// Only this target's (the per-target view of one target).
    Only(PaperKey),
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

/// A leaderboard with the set it was computed from.
#[derive(Debug, Clone)]
pub struct Evaluated {
    pub set: Arc<EvaluationSet>,
    pub board: Arc<Leaderboard>,
}

/// Compares every model on the targets rated now, as the options ask: load, score, resample.
/// What `paperjudge leaderboard` prints; the server comes to the same result through
/// [`Evaluations`].
pub async fn leaderboard(
    pool: &SqlitePool,
    options: &LeaderboardOptions,
    scope: Scope,
) -> Result<Evaluated, sqlx::Error> {
    let started = Instant::now();
    let set = Arc::new(EvaluationSet::load(pool, options.list_depth()).await?);
    tracing::debug!(elapsed = ?started.elapsed(), "loaded the evaluation set");
    let board = Arc::new(compute(&set, options, scope.partial).await);
    record_unblinded(pool, &set, &board, scope).await?;
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
    let settings = options.settings(set.collection.pool_depth);
    crate::blocking::run(move || {
        let started = Instant::now();
        let scores = leaderboard::score(&set.collection, settings, partial);
        tracing::debug!(elapsed = ?started.elapsed(), "scored");
        let board = leaderboard::resample(&set.collection, scores);
        tracing::debug!(elapsed = ?started.elapsed(), "resampled");
        board
    })
    .await
}

/// Records as unblinded the targets `scope` shows which model listed which paper of: every
/// evaluated target with rows per target, the one target of a per-target view, and any partly
/// rated target evaluated. From then on the rating history marks every change of their
/// ratings as made with provenance known.
async fn record_unblinded(
    pool: &SqlitePool,
    set: &EvaluationSet,
    board: &Leaderboard,
    scope: Scope,
) -> Result<(), sqlx::Error> {
    let shown = (board.per_target.iter())
        .map(|row| {
            (
                set.targets[row.position].0,
                &set.collection.targets[row.position],
            )
        })
        .filter(|(key, target)| match scope.per_target {
            PerTarget::All => true,
            PerTarget::Only(only) => only == *key || !target.fully_rated,
            PerTarget::None => !target.fully_rated,
        })
        .map(|(key, _)| key);
    // A target recorded once stays recorded: the set remembers which it recorded, so that
    // views shown again do not ask the database again.
    let new: Vec<PaperKey> = {
        let recorded = set
            .unblinded
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        shown.filter(|key| !recorded.contains(key)).collect()
    };
    if new.is_empty() {
        return Ok(());
    }
    db::targets::record_unblinded(pool, &new).await?;
    let mut recorded = set
        .unblinded
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    recorded.extend(new);
    Ok(())
}
