//! Pruning: once the verdict rules a model out, the pools built from then on leave its list
//! out, so that its papers stop costing ratings (docs/metrics.md, "The verdict"). Ratings are
//! never removed, and a target held (with a rating, or taken by a rater) keeps its pool.
//!
//! The verdict that prunes is the default one: the leaderboard's default settings over the
//! fully rated targets, as the dashboard shows it. A model it rules out is pruned the next
//! time the rater asks for a target to rate (`study.targets().next()`: `/next`, `paperjudge
//! next`), before the target is chosen, so that the target's pool is built without it.

/// The feature's SQL: reached by the study only (as `db::pruning` too).
pub(in crate::study) mod store;

use std::fmt;

use rand::SeedableRng;

use crate::leaderboard::{LeaderboardOptions, Partial};
use crate::study::db::{self, Database};
use crate::study::error::StudyError;
use crate::study::evaluation;
use crate::study::pool::BlindPoolChange;

/// Whether the study prunes, and the models pruned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruning {
    pub on: bool,
    /// By name.
    pub pruned: Vec<String>,
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

/// Pruning's commands and queries (`study.pruning()`).
#[derive(Debug, Clone, Copy)]
pub struct Handle<'s> {
    db: &'s Database,
    /// The verdict that prunes.
    evaluation: evaluation::Handle<'s>,
}

impl<'s> Handle<'s> {
    pub(in crate::study) fn new(
        db: &'s Database,
        evaluation: evaluation::Handle<'s>,
    ) -> Handle<'s> {
        Handle { db, evaluation }
    }

    /// Whether the study prunes, and the models pruned.
    pub async fn state(&self) -> Result<Pruning, StudyError> {
        self.db
            .read(async |conn| {
                Ok(Pruning {
                    on: db::pruning::is_on(&mut *conn).await?,
                    pruned: (db::pruning::pruned(&mut *conn).await?)
                        .into_iter()
                        .map(|(_, name)| name)
                        .collect(),
                })
            })
            .await
    }

    /// Turns pruning on or off. Off gives every target nobody holds (no rating, no rater
    /// took it) its full pool back;
    /// on prunes nothing yet (the next target asked for does). Answers the pool change.
    pub async fn set(&self, on: bool) -> Result<BlindPoolChange, StudyError> {
        let mut rng = rand::rngs::StdRng::from_os_rng();
        self.db
            .write_directly(move |conn| {
                db::pruning::set(conn, on)?;
                let depth = db::study::pool_depth_directly(conn)?;
                let change = db::pruning::rebuild_unheld_pools(conn, depth, &mut rng)?;
                db::study::bump_revision_directly(conn)?;
                Ok(change)
            })
            .await
    }

    /// While pruning is on: prunes the models the default verdict rules out that are not
    /// pruned yet, and rebuilds the pools of the targets nobody holds. Answers their
    /// names.
    pub(in crate::study) async fn prune_ruled_out(&self) -> Result<Vec<String>, StudyError> {
        let state = self.state().await?;
        if !state.on {
            return Ok(Vec::new());
        }
        let evaluated = (self
            .evaluation
            .leaderboard(&LeaderboardOptions::default(), Partial::Exclude))
        .await?;
        let Some(decision) = &evaluated.board.decision else {
            return Ok(Vec::new());
        };
        let out: Vec<String> = (decision.out.iter())
            .filter(|model| !state.pruned.contains(model))
            .cloned()
            .collect();
        if out.is_empty() {
            return Ok(out);
        }
        let mut rng = rand::rngs::StdRng::from_os_rng();
        let pruned = out.clone();
        self.db
            .write_directly(move |conn| {
                // Pruning may have been turned off meanwhile.
                if db::pruning::is_on_directly(conn)? {
                    db::pruning::add_pruned(conn, &pruned)?;
                    let depth = db::study::pool_depth_directly(conn)?;
                    db::pruning::rebuild_unheld_pools(conn, depth, &mut rng)?;
                    db::study::bump_revision_directly(conn)?;
                }
                Ok(())
            })
            .await?;
        tracing::info!(models = ?out, "pruned");
        Ok(out)
    }
}
