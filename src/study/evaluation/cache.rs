//! What a study keeps of the evaluation: the set of the study's current revision, and the
//! leaderboards computed from it for the options asked for lately.
//!
//! Every view asks the database for the revision (two index lookups) and computes nothing
//! when it has not changed since. A change (a rating, an import, a new choice of targets)
//! makes the next view load the set again; concurrent views of the same revision wait for one
//! load, and for one computation of the same options.

use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::OnceCell;

use super::{evaluate, Evaluated, EvaluationSet};
use crate::decision::Margin;
use crate::leaderboard::{Leaderboard, LeaderboardOptions, Partial};
use crate::metrics::{Judgments, Settings};
use crate::study::db;
use crate::study::db::evaluation::Revision;
use crate::study::judges::JudgeVersion;
use crate::study::{Study, StudyError};

/// Leaderboards kept for the current revision: the default view, the page under a few other
/// options, and their downloads. About a megabyte each on a study of a few thousand fully
/// rated targets.
const BOARDS_KEPT: usize = 8;

/// The evaluation a study keeps (one per [`Study`], shared by its clones: the server's
/// workers).
#[derive(Debug, Default)]
pub struct Evaluations {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The set of the latest revision asked for, loaded or being loaded.
    set: Option<SetEntry>,
    /// Leaderboards of that revision, the most recently used last.
    boards: Vec<(BoardKey, Arc<OnceCell<Arc<Leaderboard>>>)>,
}

#[derive(Debug)]
struct SetEntry {
    revision: Revision,
    /// The list depth asked for; the set holds at least this much of every list.
    depth: usize,
    set: Arc<OnceCell<Arc<EvaluationSet>>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct BoardKey {
    revision: Revision,
    settings: Settings,
    margin: Margin,
    judgments: Judgments,
    partial: Partial,
    /// With a judge: which, at which revision of its grades.
    judge: Option<JudgeVersion>,
}

impl Evaluations {
    /// The leaderboard the options ask for, on `study` as it is now.
    pub(super) async fn leaderboard(
        &self,
        study: &Study,
        options: &LeaderboardOptions,
        partial: Partial,
    ) -> Result<Evaluated, StudyError> {
        let judge = match &options.judge {
            Some(name) => Some(study.judges().version(name).await?),
            None => None,
        };
        let set = self.set(study, options.list_depth()).await?;
        let key = BoardKey {
            revision: set.revision,
            settings: options.settings(set.collection.pool_depth),
            margin: options.margin(),
            judgments: options.judgments(),
            partial,
            judge: judge.clone(),
        };
        let board = self.board_cell(key);
        let board = (board.get_or_try_init(|| async {
            let judged = match &judge {
                Some(judge) => Some(
                    (study
                        .judges()
                        .judged(judge, &set.collection.models, &set, set.depth))
                    .await?,
                ),
                None => None,
            };
            evaluate(&set, options, partial, judged).await.map(Arc::new)
        }))
        .await?
        .clone();
        Ok(Evaluated { set, board })
    }

    /// The set of the study's current revision holding at least `depth` of every list:
    /// the one kept, or a new one loaded.
    pub(super) async fn set(
        &self,
        study: &Study,
        depth: usize,
    ) -> Result<Arc<EvaluationSet>, StudyError> {
        let revision = db::evaluation::revision(study.db.connections()).await?;
        let (cell, depth) = {
            let mut state = self.state();
            match &state.set {
                Some(entry) if entry.revision == revision && entry.depth >= depth => {
                    (entry.set.clone(), entry.depth)
                }
                kept => {
                    // A deeper set of the same revision serves the shallower requests too.
                    let depth = match kept {
                        Some(entry) if entry.revision == revision => depth.max(entry.depth),
                        _ => depth,
                    };
                    let set = Arc::new(OnceCell::new());
                    state.set = Some(SetEntry {
                        revision,
                        depth,
                        set: set.clone(),
                    });
                    state.boards.retain(|(key, _)| key.revision == revision);
                    (set, depth)
                }
            }
        };
        let set = cell
            .get_or_try_init(|| async {
                EvaluationSet::load(study.path(), depth).await.map(Arc::new)
            })
            .await?
            .clone();
        if set.revision != revision {
            // The study changed between the two reads: the set is of the newer revision.
            let mut state = self.state();
            if let Some(entry) = state.set.as_mut().filter(|e| Arc::ptr_eq(&e.set, &cell)) {
                entry.revision = set.revision;
            }
        }
        Ok(set)
    }

    /// The cell of the leaderboard of `key`, kept among the most recently used.
    fn board_cell(&self, key: BoardKey) -> Arc<OnceCell<Arc<Leaderboard>>> {
        let mut state = self.state();
        let boards = &mut state.boards;
        let cell = match boards.iter().position(|(kept, _)| *kept == key) {
            Some(position) => boards.remove(position).1,
            None => Arc::new(OnceCell::new()),
        };
        boards.push((key, cell.clone()));
        if boards.len() > BOARDS_KEPT {
            boards.remove(0);
        }
        cell
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The state is replaced whole or not at all: a panic elsewhere cannot leave it torn.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
