//! Pruning, for any front end: once the verdict rules a model out, the pools built from then
//! on leave its list out, so that its papers stop costing ratings (docs/metrics.md, "The
//! verdict"). Ratings are never removed, and a target with a rating keeps its pool.
//!
//! The verdict that prunes is the default one: the leaderboard's default settings over the
//! fully rated targets, as the dashboard shows it. A model it rules out is pruned the next
//! time the rater asks for a target to rate (`/next`, `paperjudge next`), before the target is
//! chosen, so that the target's pool is built without it.

use std::fmt;
use std::future::Future;

use rand::{Rng, SeedableRng};
use sqlx::{SqliteConnection, SqlitePool};

use crate::db::blind_pool::BlindPoolChange;
use crate::db::{self, WriteQueue};
use crate::decision::Decision;

/// Whether the study prunes, and the models pruned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruning {
    pub on: bool,
    /// By name.
    pub pruned: Vec<String>,
}

impl Pruning {
    pub async fn of(pool: &SqlitePool) -> Result<Pruning, sqlx::Error> {
        let mut conn = pool.acquire().await?;
        Ok(Pruning {
            on: db::pruning::is_on(&mut *conn).await?,
            pruned: (db::pruning::pruned(&mut *conn).await?)
                .into_iter()
                .map(|(_, name)| name)
                .collect(),
        })
    }
}

impl fmt::Display for Pruning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.on, &self.pruned[..]) {
            (false, _) => write!(f, "pruning is off: every target pools every model"),
            (true, []) => write!(
                f,
                "pruning is on; no model is ruled out yet, so every target pools every model"
            ),
            (true, pruned) => write!(
                f,
                "pruning is on; pools built from now on leave out {}",
                pruned.join(", ")
            ),
        }
    }
}

/// Turns pruning on or off inside the caller's transaction. Off gives every target without a
/// rating its full pool back; on prunes nothing yet (the next [`prune_ruled_out`] does).
/// Answers the pool change.
pub async fn set(
    conn: &mut SqliteConnection,
    on: bool,
    rng: &mut impl Rng,
) -> Result<BlindPoolChange, sqlx::Error> {
    db::pruning::set(conn, on).await?;
    let depth = db::study::pool_depth(&mut *conn).await?.get();
    let change = db::pruning::rebuild_unrated_pools(conn, depth, rng).await?;
    db::study::bump_revision(conn).await?;
    Ok(change)
}

/// While pruning is on: prunes the models the verdict rules out that are not pruned yet, in
/// one write transaction of `write_queue`, and answers their names. `verdict` computes the
/// default verdict; it is asked only while pruning is on.
pub async fn prune_ruled_out<Verdict>(
    pool: &SqlitePool,
    write_queue: &WriteQueue,
    verdict: impl FnOnce() -> Verdict,
) -> Result<Vec<String>, sqlx::Error>
where
    Verdict: Future<Output = Result<Option<Decision>, sqlx::Error>>,
{
    let state = Pruning::of(pool).await?;
    if !state.on {
        return Ok(Vec::new());
    }
    let Some(decision) = verdict().await? else {
        return Ok(Vec::new());
    };
    let out: Vec<String> = (decision.out.into_iter())
        .filter(|model| !state.pruned.contains(model))
        .collect();
    if !out.is_empty() {
        let mut rng = rand::rngs::StdRng::from_os_rng();
        let mut tx = write_queue.begin(pool).await?;
        prune(&mut tx, &out, &mut rng).await?;
        tx.commit().await?;
        tracing::info!(models = ?out, "pruned");
    }
    Ok(out)
}

/// Prunes the models named `out` (ruled out by the verdict) inside the caller's transaction,
/// if pruning is still on, and rebuilds the pools of the targets without a rating. Answers the
/// pool change.
pub async fn prune(
    conn: &mut SqliteConnection,
    out: &[String],
    rng: &mut impl Rng,
) -> Result<BlindPoolChange, sqlx::Error> {
    if out.is_empty() || !db::pruning::is_on(&mut *conn).await? {
        return Ok(BlindPoolChange::default());
    }
    db::pruning::add_pruned(conn, out).await?;
    let depth = db::study::pool_depth(&mut *conn).await?.get();
    let change = db::pruning::rebuild_unrated_pools(conn, depth, rng).await?;
    db::study::bump_revision(conn).await?;
    Ok(change)
}
