//! What the evaluation reads: the study's revision, and a snapshot of the targets being rated
//! with their ratings and the top of every list, as typed rows.
//!
//! What is read agrees with itself and with the revision it is labelled with while raters
//! keep rating: it comes from one revision of the study (see [`load`]). The reads step SQLite
//! directly, on read connections of their own ([`super::direct::open_reader`]), in threads that
//! may block: through sqlx every row is handed from its connection's thread to ours, which
//! for the quarter of a million list entries of 3,600 targets was most of a leaderboard's
//! time. Values are read as the domain's types (`PaperKey`, `ModelId`, `Stars`): anything that
//! is not what it should be (stars out of range, a NULL) fails the read.

use std::path::Path;

use sqlx::{FromRow, SqliteExecutor};

use super::direct::open_reader;
use super::targets::{self, Overview};
use crate::domain::{ModelId, PaperKey, PoolDepth, RaterId, RaterName, Stars};

/// A revision of everything the evaluation reads: the last id of the rating history (every
/// change of a rating adds a row to it) and the study's revision counter (bumped by every
/// import and every change of the targets chosen). Equal revisions mean equal evaluations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, FromRow)]
pub struct Revision {
    pub ratings: i64,
    pub study: i64,
}

const REVISION: &str =
    "SELECT (SELECT COALESCE(MAX(id), 0) FROM rating_history) AS ratings, revision AS study
     FROM study WHERE id = 1";

/// The study's revision now: two index lookups, cheap enough to ask on every page view.
pub async fn revision<'e, E: SqliteExecutor<'e>>(executor: E) -> Result<Revision, sqlx::Error> {
    sqlx::query_as(REVISION).fetch_one(executor).await
}

/// A target being rated that has at least one rating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RatedTarget {
    pub id: PaperKey,
    pub external_id: String,
    pub title: String,
    /// Every pooled pair of it is rated by every rater it needs.
    pub fully_rated: bool,
    /// The raters who rated every pooled pair of it.
    pub finished_by: Vec<RaterId>,
}

/// A target's ratings: each rated paper with its rater and stars, by paper and rater.
pub type Ratings = Vec<(PaperKey, RaterId, Stars)>;

/// The ratings of a target with at least one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetRatings {
    pub target: PaperKey,
    pub ratings: Ratings,
    /// The latest of its ratings' first ratings (a `rating_history` id). For a fully rated
    /// target, whose ratings are those of every pooled pair by every rater it needs, the
    /// moment it was completed: the order the verdict watches targets in (see
    /// [`crate::decision`]).
    pub last_first_rating: i64,
}

/// A model's list for a target: (target, model, its papers best first).
pub type List = (PaperKey, ModelId, Vec<PaperKey>);

/// One revision of the study as the evaluation reads it.
#[derive(Debug, PartialEq)]
pub struct Snapshot {
    pub revision: Revision,
    pub pool_depth: PoolDepth,
    /// The targets being rated, at a glance (counts, progress, how they are chosen).
    pub overview: Overview,
    /// Every model, by name.
    pub models: Vec<(ModelId, String)>,
    /// Every rater who ever rated or was added, the owner too, by name.
    pub raters: Vec<(RaterId, RaterName)>,
    /// Whether the study has raters beyond its owner (removed ones too).
    pub has_raters: bool,
    /// The targets being rated that have a rating, by external id.
    pub targets: Vec<RatedTarget>,
    /// Their ratings: each target with its rated papers and their stars.
    pub ratings: Vec<TargetRatings>,
    /// Their lists: (target, model, the first `depth` papers best first).
    pub lists: Vec<List>,
    /// The models whose lists their pools leave out (see [`super::pruning`]).
    pub left_out: Vec<(PaperKey, ModelId)>,
    /// Where the lists are cut: the larger of the pool depth and the depth asked for.
    pub depth: usize,
}

/// The targets whose ratings and lists the evaluation reads.
const RATED_TARGETS: &str = "SELECT target_id FROM targets WHERE active = 1 AND rated > 0";

/// Reads the snapshot the evaluation of the targets being rated needs, with every list cut at
/// `depth` or the pool depth, whichever is larger (`usize::MAX`: whole lists).
///
/// Three reads run at once, each in a read transaction of its own on a connection of its
/// own: the counts, targets and ratings, and each half of the lists. They saw the same study
/// when they saw the same revision; when a change came between them, everything is read again
/// in one transaction.
pub async fn load(path: &Path, depth: usize) -> rusqlite::Result<Snapshot> {
    let path = path.to_owned();
    crate::blocking::run(move || {
        let (head, even, odd) = std::thread::scope(|scope| {
            let even =
                scope.spawn(|| at_revision(&path, |tx| read_lists(tx, depth, Some(Half::Even))));
            let odd =
                scope.spawn(|| at_revision(&path, |tx| read_lists(tx, depth, Some(Half::Odd))));
            let head = at_revision(&path, |tx| Ok((read_head(tx)?, read_ratings(tx)?)));
            (head, joined(even), joined(odd))
        });
        let ((revision, (head, ratings)), (of_even, (depth, mut lists)), (of_odd, (_, odd))) =
            (head?, even?, odd?);
        if [of_even, of_odd] == [revision; 2] {
            lists.extend(odd);
            // By target and model, as one read gives them.
            lists.sort_unstable_by_key(|&(target, model, _)| (target, model));
            return Ok(head.into_snapshot(revision, ratings, (depth, lists)));
        }
        read_in_one_transaction(&path, depth)
    })
    .await
}

/// What [`load`] reads, read in one transaction: slower, and never mixes two revisions.
pub async fn load_in_one_transaction(path: &Path, depth: usize) -> rusqlite::Result<Snapshot> {
    let path = path.to_owned();
    crate::blocking::run(move || read_in_one_transaction(&path, depth)).await
}

fn read_in_one_transaction(path: &Path, depth: usize) -> rusqlite::Result<Snapshot> {
    let (revision, (head, ratings, lists)) = at_revision(path, |tx| {
        Ok((
            read_head(tx)?,
            read_ratings(tx)?,
            read_lists(tx, depth, None)?,
        ))
    })?;
    Ok(head.into_snapshot(revision, ratings, lists))
}

fn joined<T>(thread: std::thread::ScopedJoinHandle<'_, T>) -> T {
    thread
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Runs `read` in a read transaction of its own, on a connection of its own to the study at
/// `path`, and answers the revision it saw with it.
fn at_revision<T>(
    path: &Path,
    read: impl FnOnce(&rusqlite::Transaction) -> rusqlite::Result<T>,
) -> rusqlite::Result<(Revision, T)> {
    let mut conn = open_reader(path)?;
    let tx = conn.transaction()?;
    let revision = tx.query_row(REVISION, [], |row| {
        Ok(Revision {
            ratings: row.get(0)?,
            study: row.get(1)?,
        })
    })?;
    let value = read(&tx)?;
    tx.commit()?;
    Ok((revision, value))
}

/// Everything of a [`Snapshot`] but the ratings and the lists.
struct Head {
    pool_depth: PoolDepth,
    overview: Overview,
    models: Vec<(ModelId, String)>,
    raters: Vec<(RaterId, RaterName)>,
    targets: Vec<RatedTarget>,
    left_out: Vec<(PaperKey, ModelId)>,
}

impl Head {
    fn into_snapshot(
        self,
        revision: Revision,
        ratings: Vec<TargetRatings>,
        (depth, lists): (usize, Vec<List>),
    ) -> Snapshot {
        Snapshot {
            revision,
            pool_depth: self.pool_depth,
            overview: self.overview,
            models: self.models,
            has_raters: self.raters.iter().any(|(id, _)| *id != RaterId::OWNER),
            raters: self.raters,
            targets: self.targets,
            ratings,
            lists,
            left_out: self.left_out,
            depth,
        }
    }
}

fn read_head(tx: &rusqlite::Transaction) -> rusqlite::Result<Head> {
    let overview = tx.query_row(targets::OVERVIEW, [], |row| {
        Ok(Overview::from_row((
            row.get(0)?,
            row.get(1)?,
            row.get(2)?,
            row.get(3)?,
            row.get(4)?,
            row.get(5)?,
            row.get(6)?,
            row.get(7)?,
        )))
    })?;
    let models = (tx.prepare("SELECT id, name FROM models ORDER BY name")?)
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let raters = (tx.prepare("SELECT id, name FROM raters ORDER BY name")?)
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut finished: Vec<(PaperKey, RaterId)> = (tx.prepare(&format!(
        "SELECT a.target_id, a.rater_id FROM assignments a JOIN targets t USING (target_id)
         WHERE a.target_id IN ({RATED_TARGETS}) AND t.pooled > 0 AND a.rated = t.pooled"
    ))?)
    .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
    .collect::<rusqlite::Result<_>>()?;
    finished.sort_unstable();
    let targets = (tx.prepare(
        "SELECT s.target_id, p.external_id, p.title, s.fully_rated
         FROM targets s JOIN papers p ON p.id = s.target_id
         WHERE s.active = 1 AND s.rated > 0
         ORDER BY p.external_id",
    )?)
    .query_map([], |row| {
        let id: PaperKey = row.get(0)?;
        let start = finished.partition_point(|(target, _)| *target < id);
        let finished_by = (finished[start..].iter())
            .take_while(|(target, _)| *target == id)
            .map(|(_, rater)| *rater)
            .collect();
        Ok(RatedTarget {
            id,
            external_id: row.get(1)?,
            title: row.get(2)?,
            fully_rated: row.get(3)?,
            finished_by,
        })
    })?
    .collect::<rusqlite::Result<_>>()?;
    let left_out = (tx.prepare(&format!(
        "SELECT target_id, model_id FROM pool_exclusions WHERE target_id IN ({RATED_TARGETS})
         ORDER BY target_id, model_id"
    ))?)
    .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
    .collect::<rusqlite::Result<_>>()?;
    Ok(Head {
        pool_depth: super::study::pool_depth_directly(tx)?,
        overview,
        models,
        raters,
        targets,
        left_out,
    })
}

/// The ratings of the targets evaluated: each target's rated papers with their raters and
/// stars, and when its last rating was first made (every rating has its first in the
/// history: see the migrations `first_ratings` and `raters`).
fn read_ratings(tx: &rusqlite::Transaction) -> rusqlite::Result<Vec<TargetRatings>> {
    let mut statement = tx.prepare(&format!(
        "SELECT target_id, paper_id, rater_id, stars, first_rated
         FROM ratings WHERE target_id IN ({RATED_TARGETS})"
    ))?;
    let mut rows: Vec<(PaperKey, PaperKey, RaterId, Stars, i64)> =
        (statement.query_map([], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
            ))
        })?)
        .collect::<rusqlite::Result<_>>()?;
    // They come in the table's order, by target, paper and rater; a stable sort only checks it.
    rows.sort_by_key(|&(target, paper, rater, _, _)| (target, paper, rater));
    Ok((rows.chunk_by(|a, b| a.0 == b.0))
        .map(|rows| TargetRatings {
            target: rows[0].0,
            ratings: rows
                .iter()
                .map(|&(_, paper, rater, stars, _)| (paper, rater, stars))
                .collect(),
            last_first_rating: rows.iter().map(|row| row.4).max().unwrap_or_default(),
        })
        .collect())
}

/// Half of the targets, by the parity of their keys.
#[derive(Debug, Clone, Copy)]
enum Half {
    Even = 0,
    Odd = 1,
}

/// The lists of the targets evaluated (or of `half` of them), cut at `depth` or the pool
/// depth, whichever is larger, with that depth; by target and model.
fn read_lists(
    tx: &rusqlite::Transaction,
    depth: usize,
    half: Option<Half>,
) -> rusqlite::Result<(usize, Vec<List>)> {
    let depth = depth.max(super::study::pool_depth_directly(tx)?.get() as usize);
    // Naming every model lets SQLite seek straight to the top of each list.
    let mut statement = tx.prepare(&format!(
        "SELECT target_id, model_id, position, paper_id
         FROM recommendations
         WHERE target_id IN ({RATED_TARGETS} AND (?1 IS NULL OR target_id % 2 = ?1))
           AND model_id IN (SELECT id FROM models) AND position <= ?2"
    ))?;
    let half = half.map(|half| half as i64);
    let limit = i64::try_from(depth).unwrap_or(i64::MAX);
    let mut entries: Vec<(PaperKey, ModelId, i64, PaperKey)> = (statement
        .query_map(rusqlite::params![half, limit], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?)
    .collect::<rusqlite::Result<_>>()?;
    // They come model by model (the table's order); a stable sort merges those runs.
    entries.sort_by_key(|&(target, model, position, _)| (target, model, position));
    let lists = (entries.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)))
        .map(|list| {
            (
                list[0].0,
                list[0].1,
                list.iter().map(|entry| entry.3).collect(),
            )
        })
        .collect();
    Ok((depth, lists))
}
