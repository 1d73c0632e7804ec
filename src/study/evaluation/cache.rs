//! What a study keeps of the evaluation: the set of the study's current revision, and the
//! leaderboards computed from it for the options asked for lately.
//!
//! Every view asks the database for the revision (two index lookups) and computes nothing
//! when it has not changed since. A change (a rating, an import, a new choice of targets)
//! makes the next view load the set again; concurrent views of the same revision wait for one
//! load, and for one computation of the same options.
//!
//! After ratings only (no import, choice of targets, pool depth or pruning: the revision
//! counter unchanged), the next view does not read everything again: the set is made from the
//! one kept and the targets that changed ([`EvaluationSet::updated`]), and each leaderboard
//! from the one kept of the same options ([`crate::leaderboard::score_again`],
//! [`crate::leaderboard::resample_again`]: only the changed targets are scored, and what did not
//! change is kept), with the same numbers to the bit as a full evaluation.

use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::OnceCell;

use super::{evaluate, Evaluated, EvaluationSet};
use crate::decision::Margin;
use crate::domain::PoolDepth;
use crate::leaderboard::{Kept, Leaderboard, LeaderboardOptions, Partial};
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
    /// Leaderboards of that revision and of the one before, the most recently used last.
    boards: Vec<(BoardKey, Arc<OnceCell<Board>>)>,
}

/// A leaderboard kept, with what the next one of the same options can take up (without a
/// judge).
#[derive(Debug)]
struct Board {
    board: Arc<Leaderboard>,
    kept: Option<Arc<Kept>>,
}

#[derive(Debug)]
struct SetEntry {
    revision: Revision,
    /// The list depth asked for; the set holds at least this much of every list.
    depth: usize,
    set: Arc<OnceCell<Arc<EvaluationSet>>>,
    /// The set of the revision before, loaded, which this one is made from when only ratings
    /// changed; let go once this one is.
    before: Option<Arc<EvaluationSet>>,
}

/// Everything a leaderboard depends on: equal keys, equal leaderboards. Its `Debug` text is
/// also the key of an output kept in the study file (see [`super::kept`]), so every field
/// added here keys that too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct BoardKey {
    pub(super) revision: Revision,
    settings: Settings,
    margin: Margin,
    judgments: Judgments,
    partial: Partial,
    /// With a judge: which, at which revision of its grades.
    judge: Option<JudgeVersion>,
}

impl BoardKey {
    /// The key of the leaderboard `options` and `partial` ask for, at `revision` of a study
    /// whose pool depth is `pool_depth`, with `judge`'s grades at the version read.
    pub(super) fn of(
        revision: Revision,
        pool_depth: PoolDepth,
        options: &LeaderboardOptions,
        partial: Partial,
        judge: Option<JudgeVersion>,
    ) -> BoardKey {
        BoardKey {
            revision,
            settings: options.settings(pool_depth),
            margin: options.margin(),
            judgments: options.judgments(),
            partial,
            judge,
        }
    }
}

/// The version of the grades of the judge `options` name, if any (refused for a name the study
/// has no judge of): part of a leaderboard's key.
pub(super) async fn judge_version(
    study: &Study,
    options: &LeaderboardOptions,
) -> Result<Option<JudgeVersion>, StudyError> {
    match &options.judge {
        Some(name) => Ok(Some(study.judges().version(name).await?)),
        None => Ok(None),
    }
}

impl Evaluations {
    /// The leaderboard the options ask for, on `study` as it is now, with its key (of the
    /// revision its set was read at).
    pub(super) async fn leaderboard(
        &self,
        study: &Study,
        options: &LeaderboardOptions,
        partial: Partial,
    ) -> Result<(Evaluated, BoardKey), StudyError> {
        let judge = judge_version(study, options).await?;
        let set = self.set(study, options.list_depth()).await?;
        let key = BoardKey::of(
            set.revision,
            set.collection.pool_depth,
            options,
            partial,
            judge.clone(),
        );
        let earlier = (set.earlier.as_ref())
            .filter(|_| judge.is_none())
            .and_then(|earlier| {
                self.kept_board(&BoardKey {
                    revision: earlier.revision,
                    ..key.clone()
                })
            });
        let board = self.board_cell(key.clone());
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
            let (board, kept) = evaluate(&set, options, partial, judged, earlier).await?;
            Ok::<_, StudyError>(Board {
                board: Arc::new(board),
                kept,
            })
        }))
        .await?
        .board
        .clone();
        Ok((Evaluated { set, board }, key))
    }

    /// The set of the study's current revision holding at least `depth` of every list:
    /// the one kept, or a new one loaded.
    pub(super) async fn set(
        &self,
        study: &Study,
        depth: usize,
    ) -> Result<Arc<EvaluationSet>, StudyError> {
        let revision = db::evaluation::revision(study.db.connections()).await?;
        let (cell, depth, before) = {
            let mut state = self.state();
            match &state.set {
                Some(entry) if entry.revision == revision && entry.depth >= depth => {
                    (entry.set.clone(), entry.depth, entry.before.clone())
                }
                kept => {
                    // A deeper set of the same revision serves the shallower requests too.
                    let depth = match kept {
                        Some(entry) if entry.revision == revision => depth.max(entry.depth),
                        _ => depth,
                    };
                    // The set of the revision before, loaded, and its boards, for the new
                    // ones to be made from.
                    let before = (kept.as_ref())
                        .filter(|entry| entry.revision != revision)
                        .and_then(|entry| entry.set.get().cloned());
                    let set = Arc::new(OnceCell::new());
                    state.set = Some(SetEntry {
                        revision,
                        depth,
                        set: set.clone(),
                        before: before.clone(),
                    });
                    let before_revision = before.as_ref().map(|set| set.revision);
                    state.boards.retain(|(key, _)| {
                        key.revision == revision || Some(key.revision) == before_revision
                    });
                    (set, depth, before)
                }
            }
        };
        let set = cell
            .get_or_try_init(|| async {
                let started = std::time::Instant::now();
                let updated = match before.filter(|before| before.depth >= depth) {
                    Some(before) => before.updated(study.path()).await?,
                    None => None,
                };
                let again = updated.is_some();
                let set = match updated {
                    Some(set) => Arc::new(set),
                    None => Arc::new(EvaluationSet::load(study.path(), depth).await?),
                };
                tracing::debug!(elapsed = ?started.elapsed(), again, "read");
                Ok::<_, StudyError>(set)
            })
            .await?
            .clone();
        let mut state = self.state();
        if let Some(entry) = state.set.as_mut().filter(|e| Arc::ptr_eq(&e.set, &cell)) {
            // The study changed between the two reads: the set is of the newer revision.
            entry.revision = set.revision;
            // It holds the pool depth of every list at least: shallower requests take it.
            entry.depth = entry.depth.max(set.depth);
            entry.before = None;
        }
        Ok(set)
    }

    /// What the leaderboard of `key` keeps for the next one, when it is kept and computed.
    fn kept_board(&self, key: &BoardKey) -> Option<Arc<Kept>> {
        let state = self.state();
        let (_, cell) = state.boards.iter().find(|(kept, _)| kept == key)?;
        cell.get()?.kept.clone()
    }

    /// The cell of the leaderboard of `key`, kept among the most recently used.
    fn board_cell(&self, key: BoardKey) -> Arc<OnceCell<Board>> {
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
