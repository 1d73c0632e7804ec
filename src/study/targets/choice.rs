//! Choosing the targets a study rates: by id, by a seeded random sample, or all of them; and
//! dropping targets again. The command line and the web both come here.
//!
//! Until a first choice, a study rates every paper with recommendations (`all`); the first
//! explicit choice switches it to the chosen targets only (`chosen`), and `--all` switches it
//! back. A target's pool is built when it becomes a target, from the lists stored for it, and
//! is never deleted: dropping a target keeps its ratings, its history and its pool, so that a
//! target chosen again comes back with its ratings and its blind order. A paper without
//! recommendations can be chosen: its pool is built when they are imported.
//!
//! Each is one command, and one that changes the choice bumps the study's revision once, so
//! that the evaluation kept in memory is read again.

use std::collections::HashSet;
use std::fmt;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::Handle;
use crate::domain::TargetChoice;
use crate::domain::{PaperId, PaperKey};
use crate::study::db;
use crate::study::db::targets;
use crate::study::error::{Refusal, StudyError};
use crate::study::pool::BlindPoolChange;
use crate::words::plural;

/// What a choice did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chosen {
    /// Targets that became targets to rate.
    pub newly: usize,
    /// Targets that were chosen before.
    pub already: usize,
    /// Of the newly chosen, those without recommendations (no pool yet).
    pub without_recommendations: usize,
    /// The study rated every candidate before, and now rates the chosen ones.
    pub switched: bool,
    pub blind_pool: BlindPoolChange,
}

impl fmt::Display for Chosen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "chose {} {}",
            self.newly,
            plural(self.newly, "target", "targets")
        )?;
        if self.already > 0 {
            write!(f, " ({} more chosen already)", self.already)?;
        }
        if self.without_recommendations > 0 {
            write!(
                f,
                "; {} {} no recommendations yet: {} pool is built when they are imported",
                self.without_recommendations,
                plural(self.without_recommendations, "has", "have"),
                plural(self.without_recommendations, "its", "their"),
            )?;
        }
        write!(f, "; pool: {} pairs added", self.blind_pool.added)?;
        if self.blind_pool.removed > 0 {
            write!(f, ", {} removed", self.blind_pool.removed)?;
        }
        if self.switched {
            write!(
                f,
                "\nthe study no longer rates every target with recommendations, only the \
                 chosen ones (`paperjudge targets choose --all` goes back)"
            )?;
        }
        Ok(())
    }
}

impl Handle<'_> {
    /// Chooses the papers with these external ids as targets to rate; `rng` draws the
    /// display keys of the pairs entering the pool.
    pub async fn choose(
        &self,
        ids: &[PaperId],
        mut rng: impl Rng + Send + 'static,
    ) -> Result<Chosen, StudyError> {
        let ids = ids.to_vec();
        self.db
            .write_directly(move |conn| {
                let papers = resolve(conn, &ids)?;
                choose_papers(conn, &papers, &mut rng)
            })
            .await
    }

    /// Chooses `count` targets at random among the papers with recommendations that are not
    /// chosen yet: the same study and seed always give the same sample.
    pub async fn choose_sample(
        &self,
        count: usize,
        seed: u64,
        mut rng: impl Rng + Send + 'static,
    ) -> Result<Chosen, StudyError> {
        self.db
            .write_directly(move |conn| {
                // While the study rates every candidate, none is chosen yet.
                let rates_all = targets::choice(conn)? == TargetChoice::All;
                let candidates = targets::candidates(conn, !rates_all)?;
                if count > candidates.len() {
                    return Err(Refusal::SampleTooLarge {
                        asked: count,
                        available: candidates.len(),
                    }
                    .into());
                }
                let mut seeded = ChaCha8Rng::seed_from_u64(seed);
                let mut drawn =
                    rand::seq::index::sample(&mut seeded, candidates.len(), count).into_vec();
                drawn.sort_unstable();
                let papers: Vec<PaperKey> =
                    drawn.into_iter().map(|index| candidates[index]).collect();
                choose_papers(conn, &papers, &mut rng)
            })
            .await
    }

    /// Goes back to rating every paper with recommendations; the chosen set is forgotten.
    /// Answers the pool change of the targets that were not rated before.
    pub async fn choose_all(
        &self,
        mut rng: impl Rng + Send + 'static,
    ) -> Result<BlindPoolChange, StudyError> {
        self.db
            .write_directly(move |conn| {
                targets::set_choice(conn, TargetChoice::All)?;
                let depth = db::study::pool_depth_directly(conn)?;
                let mut blind_pool = BlindPoolChange::default();
                for target in targets::activate_every_candidate(conn)? {
                    db::pruning::exclude_pruned_if_unheld(conn, target)?;
                    let change = db::pool::refresh_target(conn, target, depth, &mut rng)?;
                    blind_pool.added += change.added;
                    blind_pool.removed += change.removed;
                }
                db::study::bump_revision_directly(conn)?;
                Ok(blind_pool)
            })
            .await
    }

    /// Drops the targets with these external ids: they are no longer rated (their ratings,
    /// history and pool stay). The web drops as [`DropRule::OnlyUnrated`] says.
    pub async fn drop(&self, ids: &[PaperId], rule: DropRule) -> Result<Dropped, StudyError> {
        let ids = ids.to_vec();
        self.db
            .write_directly(move |conn| drop_checked(conn, &ids, rule))
            .await
    }
}

fn choose_papers(
    conn: &rusqlite::Connection,
    papers: &[PaperKey],
    rng: &mut impl Rng,
) -> Result<Chosen, StudyError> {
    let mut chosen = Chosen::default();
    if targets::choice(conn)? == TargetChoice::All {
        targets::deactivate_all(conn)?;
        targets::set_choice(conn, TargetChoice::Chosen)?;
        chosen.switched = true;
    }
    let depth = db::study::pool_depth_directly(conn)?;
    for &paper in papers {
        let state = targets::state(conn, paper)?;
        if state.is_some_and(|state| state.active) {
            chosen.already += 1;
            continue;
        }
        chosen.newly += 1;
        if !state.is_some_and(|state| state.listed) {
            chosen.without_recommendations += 1;
        }
        targets::activate(conn, paper, rng)?;
        db::pruning::exclude_pruned_if_unheld(conn, paper)?;
        // Pairs already pooled keep their display keys: a target chosen again keeps its order.
        let change = db::pool::refresh_target(conn, paper, depth, rng)?;
        chosen.blind_pool.added += change.added;
        chosen.blind_pool.removed += change.removed;
    }
    db::study::bump_revision_directly(conn)?;
    Ok(chosen)
}

/// What dropping did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dropped {
    pub targets: usize,
    /// Of them, those with ratings (kept).
    pub with_ratings: usize,
    /// The study rated every candidate before, and now rates the others as chosen targets.
    pub switched: bool,
}

impl fmt::Display for Dropped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "dropped {} {}",
            self.targets,
            plural(self.targets, "target", "targets")
        )?;
        if self.with_ratings > 0 {
            write!(
                f,
                "; the ratings of {} {} kept, and come back if {} chosen again",
                self.with_ratings,
                plural(self.with_ratings, "target are", "targets are"),
                plural(self.with_ratings, "it is", "they are"),
            )?;
        }
        if self.switched {
            write!(
                f,
                "\nthe study no longer rates every target with recommendations: every other \
                 one is now a chosen target"
            )?;
        }
        Ok(())
    }
}

/// Which targets a drop may drop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropRule {
    /// Any target being rated; its ratings are kept.
    Any,
    /// Only targets without ratings, so that a click cannot put rated work out of sight.
    OnlyUnrated,
}

fn drop_checked(
    conn: &rusqlite::Connection,
    ids: &[PaperId],
    rule: DropRule,
) -> Result<Dropped, StudyError> {
    let papers = resolve(conn, ids)?;
    let mut not_chosen = Vec::new();
    let mut rated = Vec::new();
    let mut dropped = Dropped::default();
    for (id, &paper) in ids_of(ids).into_iter().zip(&papers) {
        match targets::state(conn, paper)? {
            Some(state) if state.active => {
                if state.rated > 0 {
                    rated.push(id);
                }
            }
            _ => not_chosen.push(id),
        }
    }
    if !not_chosen.is_empty() {
        return Err(Refusal::NotChosen(not_chosen).into());
    }
    if rule == DropRule::OnlyUnrated && !rated.is_empty() {
        return Err(Refusal::HasRatings(rated).into());
    }
    // While the study rates every candidate, dropping one makes the others chosen targets.
    if targets::choice(conn)? == TargetChoice::All {
        targets::set_choice(conn, TargetChoice::Chosen)?;
        dropped.switched = true;
    }
    for &target in &papers {
        targets::deactivate(conn, target)?;
    }
    dropped.targets = papers.len();
    dropped.with_ratings = rated.len();
    db::study::bump_revision_directly(conn)?;
    Ok(dropped)
}

/// The ids once each, in the order given, without the white space around them.
fn ids_of(ids: &[PaperId]) -> Vec<PaperId> {
    let mut seen = HashSet::new();
    (ids.iter())
        .map(|id| id.as_str().trim())
        .filter(|id| seen.insert(*id))
        .map(PaperId::given)
        .collect()
}

/// The papers with these external ids (once each, in the order given); an error naming every
/// id that is no paper.
fn resolve(conn: &rusqlite::Connection, ids: &[PaperId]) -> Result<Vec<PaperKey>, StudyError> {
    let mut papers = Vec::new();
    let mut unknown = Vec::new();
    for id in ids_of(ids) {
        match db::papers::id_of_directly(conn, &id)? {
            Some(paper) => papers.push(paper),
            None => unknown.push(id),
        }
    }
    if unknown.is_empty() {
        Ok(papers)
    } else {
        Err(Refusal::UnknownIds(unknown).into())
    }
}
