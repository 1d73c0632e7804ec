//! What the evaluation reads: the study's revision, and a snapshot of the targets being rated
//! with their ratings and the top of every list, as typed rows.
//!
//! What is read agrees with itself and with the revision it is labelled with while raters keep
//! rating: it comes from one revision of the study (see [`load`]). The reads step SQLite directly,
//! on a read connection of their own ([`open_reader`]), in a thread that may block: through sqlx
//! every row is handed from its connection's thread to ours, which for the quarter of a million
//! list entries of 3,600 targets was most of a leaderboard's time. Values are read as the domain's
//! types (`PaperKey`, `ModelId`, `Stars`): anything that is not what it should be (stars out of
//! range, a NULL) fails the read.

use std::path::Path;

use sqlx::{FromRow, SqliteExecutor, SqlitePool};

use crate::domain::{
    Answer, GuidelinesVersion, ModelId, PaperId, PaperKey, PoolDepth, RaterAnswer, RaterId,
    RaterName,
};
use crate::study::db;
use crate::study::db::column::{self, Stored};
use crate::study::db::direct::open_reader;
use crate::study::db::targets;
use crate::study::papers::ListedPaper;
use crate::study::targets::Overview;

/// A revision of everything the evaluation reads: the last id of the rating history (every
/// change of a rating adds a row to it), the study's revision counter (bumped by every import
/// and every change of the targets chosen) and its finished revision (moved by every change of
/// which targets are fully rated, which the rating plan and the raters make without a rating)
/// and the last rater added (the evaluation names every rater: a rater added changes which
/// judgments a board says it used, with or without a target changing).
/// Equal revisions mean equal evaluations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, FromRow)]
pub struct Revision {
    pub ratings: i64,
    pub study: i64,
    pub finished: i64,
    pub raters: i64,
}

const REVISION: &str =
    "SELECT (SELECT COALESCE(MAX(id), 0) FROM rating_history) AS ratings, revision AS study,
            finished_revision AS finished, (SELECT COALESCE(MAX(id), 0) FROM raters) AS raters
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

/// A target's ratings: each rated paper with its rater, their stars or "can't judge" and the
/// guidelines' version, by paper and rater.
pub type Ratings = Vec<RaterAnswer>;

/// The ratings of a target with at least one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetRatings {
    pub target: PaperKey,
    pub ratings: Ratings,
    /// The latest of its ratings' first ratings (a `rating_history` id; "can't judge" too).
    /// For a fully rated target, whose ratings are those of every pooled pair by every rater
    /// it needs, the moment it was completed: the order the verdict watches targets in (see
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
    /// The models whose lists their pools leave out (see [`crate::study::db::pruning`]).
    pub left_out: Vec<(PaperKey, ModelId)>,
    /// Where the lists are cut: the larger of the pool depth and the depth asked for.
    pub depth: usize,
}

/// The targets whose ratings and lists the evaluation reads, as a condition on `targets`.
macro_rules! rated {
    () => {
        "active = 1 AND rated > 0"
    };
}

/// The targets whose ratings and lists the evaluation reads.
const RATED_TARGETS: &str = concat!("SELECT target_id FROM targets WHERE ", rated!());

/// Reads the snapshot the evaluation of the targets being rated needs, with every list cut at
/// `depth` or the pool depth, whichever is larger (`usize::MAX`: whole lists), in one read
/// transaction on a connection of its own.
///
/// One thread reads it all: reads on several connections at once were slower, not faster
/// (the quarter study: 23 ms on three, 18 ms on one), as the SQLite library built here
/// shares one page cache and its memory accounting between connections, behind global
/// locks that the threads then wait on.
pub async fn load(path: &Path, depth: usize) -> rusqlite::Result<Snapshot> {
    let path = path.to_owned();
    crate::blocking::run(move || {
        let (revision, (head, ratings, lists)) = at_revision(&path, |tx| {
            let head = read_head(tx)?;
            let ratings = read_ratings(tx, &head.keys())?;
            Ok((head, ratings, read_lists(tx, depth)?))
        })?;
        Ok(head.into_snapshot(revision, ratings, lists))
    })
    .await
}

/// Runs `read` in a read transaction of its own, on a connection of its own to the study at
/// `path`, and answers the revision it saw with it.
pub(in crate::study) fn at_revision<T>(
    path: &Path,
    read: impl FnOnce(&rusqlite::Transaction) -> rusqlite::Result<T>,
) -> rusqlite::Result<(Revision, T)> {
    let mut conn = open_reader(path)?;
    let tx = conn.transaction()?;
    let revision = tx.query_row(REVISION, [], |row| {
        Ok(Revision {
            ratings: row.get(0)?,
            study: row.get(1)?,
            finished: row.get(2)?,
            raters: row.get(3)?,
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
    /// The keys of its targets, in order.
    fn keys(&self) -> Vec<PaperKey> {
        let mut keys: Vec<PaperKey> = self.targets.iter().map(|target| target.id).collect();
        keys.sort_unstable();
        keys
    }

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
    let mut head = read_study(tx)?;
    let mut finished: Vec<(PaperKey, RaterId)> = (tx.prepare(&format!(
        concat!(
            "SELECT a.target_id, a.rater_id FROM assignments a JOIN targets t USING (target_id)
             WHERE a.target_id IN ({RATED_TARGETS}) AND ",
            db::rater_done!()
        ),
        RATED_TARGETS = RATED_TARGETS
    ))?)
    .query_map([], |row| Ok((column::get(row, 0)?, column::get(row, 1)?)))?
    .collect::<rusqlite::Result<_>>()?;
    finished.sort_unstable();
    head.targets = (tx.prepare(
        "SELECT s.target_id, p.external_id, p.title, s.fully_rated
         FROM targets s JOIN papers p ON p.id = s.target_id
         WHERE s.active = 1 AND s.rated > 0
         ORDER BY p.external_id",
    )?)
    .query_map([], |row| {
        let id: PaperKey = column::get(row, 0)?;
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
    head.left_out = (tx.prepare(&format!(
        "SELECT target_id, model_id FROM pool_exclusions WHERE target_id IN ({RATED_TARGETS})
         ORDER BY target_id, model_id"
    ))?)
    .query_map([], |row| Ok((column::get(row, 0)?, column::get(row, 1)?)))?
    .collect::<rusqlite::Result<_>>()?;
    Ok(head)
}

/// The head without its targets: what every read of the evaluation reads whole.
fn read_study(tx: &rusqlite::Transaction) -> rusqlite::Result<Head> {
    let overview = tx.query_row(targets::OVERVIEW, [], |row| {
        Ok(targets::overview_of((
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
        .query_map([], |row| Ok((column::get(row, 0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let raters = (tx.prepare("SELECT id, name FROM raters ORDER BY name")?)
        .query_map([], |row| Ok((column::get(row, 0)?, column::get(row, 1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(Head {
        pool_depth: crate::study::db::study::pool_depth_directly(tx)?,
        overview,
        models,
        raters,
        targets: Vec::new(),
        left_out: Vec::new(),
    })
}

/// The ratings of the targets evaluated, `targets` (their keys in order): each target's rated
/// papers with their raters and answers (stars NULL: "can't judge"), and when its last rating
/// was first made (every rating has its first in the history: see the migrations
/// `first_ratings` and `raters`).
///
/// The rows come by target, paper and rater (the table's key, so SQLite sorts nothing) and
/// are grouped as they come: nothing holds all of them at once but the targets' own ratings
/// (collecting study L's 100,000 rows and sorting them freed about 10 MB at once on every
/// evaluation, which the allocator kept). The whole table is stepped and the ratings of other
/// targets (dropped ones) passed over: a seek per target evaluated cost more (the quarter
/// study, 1,250 targets: 6.2 ms against 4.4), as long as most ratings are of targets being
/// rated.
fn read_ratings(
    tx: &rusqlite::Transaction,
    targets: &[PaperKey],
) -> rusqlite::Result<Vec<TargetRatings>> {
    let mut statement = tx.prepare(
        "SELECT target_id, paper_id, rater_id, stars, first_rated, guidelines
         FROM ratings ORDER BY target_id, paper_id, rater_id",
    )?;
    let mut read = Vec::new();
    // The rows and `targets` in the same order: walked side by side.
    let mut next = 0;
    let evaluated = |target: PaperKey| {
        next += targets[next..].partition_point(|key| *key < target);
        targets.get(next) == Some(&target)
    };
    ratings_of(statement.query([])?, evaluated, &mut read)?;
    Ok(read)
}

/// The ratings of `rows` (target, paper, rater, stars, first rating, guidelines' version, by
/// target, paper and rater) of the targets `evaluated` keeps, grouped by target onto
/// `targets`.
fn ratings_of(
    mut rows: rusqlite::Rows<'_>,
    mut evaluated: impl FnMut(PaperKey) -> bool,
    targets: &mut Vec<TargetRatings>,
) -> rusqlite::Result<()> {
    // The ratings of the target being read, copied into a vector of their size at its end.
    let mut current: Ratings = Vec::new();
    // The targets before are others', their ratings given them already.
    let first = targets.len();
    while let Some(row) = rows.next()? {
        let target: PaperKey = column::get(row, 0)?;
        if !evaluated(target) {
            continue;
        }
        let (paper, rater, first_rated): (PaperKey, RaterId, i64) =
            (column::get(row, 1)?, column::get(row, 2)?, row.get(4)?);
        let stars: Option<i64> = row.get(3)?;
        let answer = Answer::stored(stars).ok_or_else(|| {
            let out_of_range = crate::domain::StarsOutOfRange(stars.unwrap_or_default());
            rusqlite::Error::FromSqlConversionFailure(
                3,
                rusqlite::types::Type::Integer,
                Box::new(out_of_range),
            )
        })?;
        if targets.last().is_none_or(|open| open.target != target) {
            close_target(&mut targets[first..], &mut current);
            targets.push(TargetRatings {
                target,
                ratings: Vec::new(),
                last_first_rating: first_rated,
            });
        }
        let open = targets.last_mut().expect("a target was pushed");
        open.last_first_rating = open.last_first_rating.max(first_rated);
        current.push(RaterAnswer {
            paper,
            rater,
            answer,
            guidelines: row
                .get::<_, Option<Stored<GuidelinesVersion>>>(5)?
                .map(|Stored(v)| v),
        });
    }
    close_target(&mut targets[first..], &mut current);
    Ok(())
}

/// Gives the last target read the ratings read for it.
fn close_target(targets: &mut [TargetRatings], current: &mut Ratings) {
    if let Some(open) = targets.last_mut() {
        open.ratings = current.as_slice().to_vec();
    }
    current.clear();
}

/// The lists of the targets evaluated, cut at `depth` or the pool depth, whichever is larger,
/// with that depth; by target and model.
///
/// Each list is one row of `packed_lists` (see [`db::packed`]), which reads about ten times
/// faster than its rows of `recommendations` (study L's 3,600 rated targets: 28,800 packed
/// rows instead of 288,000 entries).
fn read_lists(tx: &rusqlite::Transaction, depth: usize) -> rusqlite::Result<(usize, Vec<List>)> {
    let depth = depth.max(crate::study::db::study::pool_depth_directly(tx)?.get() as usize);
    // Naming every model lets SQLite seek straight to each list (the table's key is model and
    // target).
    let mut statement = tx.prepare(&format!(
        "SELECT target_id, model_id, papers
         FROM packed_lists
         WHERE target_id IN ({RATED_TARGETS}) AND model_id IN (SELECT id FROM models)
         ORDER BY model_id, target_id"
    ))?;
    let rows = statement.query([])?;
    let mut lists = Vec::new();
    lists_of(rows, depth, &mut lists)?;
    lists.sort_unstable_by_key(|&(target, model, _)| (target, model));
    Ok((depth, lists))
}

/// The lists of `rows` (target, model, packed list), each cut at `depth`, onto `lists`. An
/// empty list is no list, as a list without rows in `recommendations` is none.
fn lists_of(
    mut rows: rusqlite::Rows<'_>,
    depth: usize,
    lists: &mut Vec<List>,
) -> rusqlite::Result<()> {
    while let Some(row) = rows.next()? {
        let (target, model): (PaperKey, ModelId) = (column::get(row, 0)?, column::get(row, 1)?);
        let papers: Vec<PaperKey> = db::packed::papers(row, 2, target)?.take(depth).collect();
        if !papers.is_empty() {
            lists.push((target, model, papers));
        }
    }
    Ok(())
}

/// What changed since an earlier revision of the same revision counter: ratings only (every
/// rating, correction, clear, undo, note and "can't judge" adds a row to the rating history),
/// and which targets are fully rated (the rating plan, the raters and a rater taking a target
/// change that without a rating). Lists, targets chosen, pools and the pool depth change only
/// with the revision counter.
#[derive(Debug, PartialEq)]
pub struct Changes {
    /// The whole head (counts, models, raters); of the targets, those read again only: their
    /// rows, ratings, lists and the models their pools leave out.
    pub snapshot: Snapshot,
    /// Every target being rated that has a rating now, by key.
    pub rated: Vec<PaperKey>,
}

/// The most targets read again one by one; past them, everything is read again.
const MOST_CHANGED: usize = 256;

/// Reads what changed in the study at `path` since revision `since` (see [`Changes`]), lists
/// cut at `depth`, in one read transaction: the targets whose ratings changed since, those
/// that have a rating now and had none (not in `known`, the targets of the earlier read, by
/// key, with whether each was fully rated), and those whose being fully rated changed.
/// `None` when the revision counter moved, or more than [`MOST_CHANGED`] targets changed:
/// then [`load`] reads it all.
pub async fn load_changes(
    path: &Path,
    depth: usize,
    since: Revision,
    known: std::collections::HashMap<PaperKey, bool>,
) -> rusqlite::Result<Option<Changes>> {
    let path = path.to_owned();
    crate::blocking::run(move || {
        let (revision, changes) = at_revision(&path, |tx| read_changes(tx, depth, since, &known))?;
        Ok(changes
            .filter(|_| revision.study == since.study)
            .map(|(mut changes, depth)| {
                changes.snapshot.revision = revision;
                changes.snapshot.depth = depth;
                changes
            }))
    })
    .await
}

fn read_changes(
    tx: &rusqlite::Transaction,
    depth: usize,
    since: Revision,
    known: &std::collections::HashMap<PaperKey, bool>,
) -> rusqlite::Result<Option<(Changes, usize)>> {
    let study: i64 = tx.query_row("SELECT revision FROM study WHERE id = 1", [], |row| {
        row.get(0)
    })?;
    if study != since.study {
        return Ok(None);
    }
    // Not DISTINCT (deduplicated below): SQLite would scan the whole history's index by
    // target for it (3-4 ms on study L) instead of seeking the ids after `since`.
    let mut changed: Vec<PaperKey> = (tx
        .prepare("SELECT target_id FROM rating_history WHERE id > ?1")?)
    .query_map([since.ratings], |row| column::get(row, 0))?
    .collect::<rusqlite::Result<_>>()?;
    let rated: Vec<(PaperKey, bool)> = (tx.prepare(concat!(
        "SELECT target_id, fully_rated FROM targets WHERE ",
        rated!(),
        " ORDER BY target_id"
    ))?)
    .query_map([], |row| Ok((column::get(row, 0)?, row.get(1)?)))?
    .collect::<rusqlite::Result<_>>()?;
    changed.extend(
        (rated.iter())
            .filter(|(target, fully_rated)| known.get(target) != Some(fully_rated))
            .map(|(target, _)| *target),
    );
    changed.sort_unstable();
    changed.dedup();
    // Of those, the targets the evaluation reads: being rated, with a rating.
    changed.retain(|target| rated.binary_search_by_key(target, |(key, _)| *key).is_ok());
    if changed.len() > MOST_CHANGED {
        return Ok(None);
    }
    let mut head = read_study(tx)?;
    let depth = depth.max(head.pool_depth.get() as usize);
    let (mut ratings, mut lists) = (Vec::new(), Vec::new());
    for &target in &changed {
        let finished_by = (tx.prepare_cached(concat!(
            "SELECT a.rater_id FROM assignments a JOIN targets t USING (target_id)
             WHERE a.target_id = ?1 AND ",
            db::rater_done!(),
            " ORDER BY a.rater_id"
        ))?)
        .query_map([target.0], |row| column::get(row, 0))?
        .collect::<rusqlite::Result<_>>()?;
        head.targets.push(
            tx.prepare_cached(
                "SELECT p.external_id, p.title, s.fully_rated
             FROM targets s JOIN papers p ON p.id = s.target_id WHERE s.target_id = ?1",
            )?
            .query_row([target.0], |row| {
                Ok(RatedTarget {
                    id: target,
                    external_id: row.get(0)?,
                    title: row.get(1)?,
                    fully_rated: row.get(2)?,
                    finished_by,
                })
            })?,
        );
        let mut statement = tx.prepare_cached(
            "SELECT target_id, paper_id, rater_id, stars, first_rated, guidelines
             FROM ratings WHERE target_id = ?1 ORDER BY paper_id, rater_id",
        )?;
        ratings_of(statement.query([target.0])?, |_| true, &mut ratings)?;
        let mut statement = tx.prepare_cached(
            "SELECT target_id, model_id, papers FROM packed_lists
             WHERE target_id = ?1 AND model_id IN (SELECT id FROM models)
             ORDER BY model_id",
        )?;
        lists_of(statement.query([target.0])?, depth, &mut lists)?;
        let left_out: Vec<(PaperKey, ModelId)> = (tx.prepare_cached(
            "SELECT target_id, model_id FROM pool_exclusions WHERE target_id = ?1
             ORDER BY model_id",
        )?)
        .query_map([target.0], |row| {
            Ok((column::get(row, 0)?, column::get(row, 1)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
        head.left_out.extend(left_out);
    }
    let rated = rated.into_iter().map(|(target, _)| target).collect();
    // The revision and depth are set by the caller, from the transaction's.
    let snapshot = head.into_snapshot(since, ratings, (depth, lists));
    Ok(Some((Changes { snapshot, rated }, depth)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::GuidelinesVersion;

    /// A study of the tables these reads touch, its rows in the order the real tables keep
    /// them (`in_order`) or in another (ratings by rater first, lists by target): 3 targets of
    /// which 2 are rated, 2 models, 2 raters.
    fn study(in_order: bool) -> rusqlite::Connection {
        let (ratings_key, lists_key) = if in_order {
            ("target_id, paper_id, rater_id", "model_id, target_id")
        } else {
            ("rater_id, paper_id, target_id", "target_id, model_id")
        };
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch(&format!(
            "CREATE TABLE study (id INTEGER PRIMARY KEY, pool_depth INTEGER);
             INSERT INTO study VALUES (1, 2);
             CREATE TABLE models (id INTEGER PRIMARY KEY);
             INSERT INTO models VALUES (1), (2);
             CREATE TABLE targets (target_id INTEGER PRIMARY KEY, active, rated);
             INSERT INTO targets VALUES (10, 1, 3), (11, 1, 1), (12, 1, 0);
             CREATE TABLE ratings (target_id, paper_id, rater_id, stars, first_rated, guidelines,
                                   PRIMARY KEY ({ratings_key})) WITHOUT ROWID;
             INSERT INTO ratings VALUES (10, 22, 1, 3, 5, NULL), (10, 21, 2, 1, 7, 1),
                                        (10, 21, 1, 2, 6, 2), (10, 23, 2, NULL, 8, 2),
                                        (11, 20, 2, 5, 4, NULL), (12, 20, 1, 4, 9, NULL);
             CREATE TABLE packed_lists (model_id, target_id, papers,
                                        PRIMARY KEY ({lists_key})) WITHOUT ROWID;
             INSERT INTO packed_lists VALUES
                 (1, 10, x'04000000170000001500000016'), (2, 10, x'040000001500000014'),
                 (2, 11, x'040000001600000015'), (1, 11, x'0400000014'),
                 (1, 12, x'0400000015');"
        ))
        .unwrap();
        conn
    }

    /// Grouped by target (ratings) and by target and model (lists), in order, whatever order
    /// the tables keep their rows in.
    #[test]
    fn rows_are_grouped_in_order_however_the_tables_keep_them() {
        let rated = |ratings: &[(i64, i64, Option<i64>, Option<i64>)]| -> Ratings {
            (ratings.iter())
                .map(|&(paper, rater, stars, guidelines)| RaterAnswer {
                    paper: PaperKey(paper),
                    rater: RaterId(rater),
                    answer: Answer::stored(stars).unwrap(),
                    guidelines: guidelines.map(GuidelinesVersion),
                })
                .collect()
        };
        // Paper 23 of target 10: rater 2 cannot judge it; that answer is the target's last.
        let expected_ratings = vec![
            TargetRatings {
                target: PaperKey(10),
                ratings: rated(&[
                    (21, 1, Some(2), Some(2)),
                    (21, 2, Some(1), Some(1)),
                    (22, 1, Some(3), None),
                    (23, 2, None, Some(2)),
                ]),
                last_first_rating: 8,
            },
            TargetRatings {
                target: PaperKey(11),
                ratings: rated(&[(20, 2, Some(5), None)]),
                last_first_rating: 4,
            },
        ];
        let list = |target, model, papers: &[i64]| -> List {
            (
                PaperKey(target),
                ModelId(model),
                papers.iter().map(|&paper| PaperKey(paper)).collect(),
            )
        };
        for in_order in [true, false] {
            let mut conn = study(in_order);
            let tx = conn.transaction().unwrap();
            let evaluated: Vec<PaperKey> = (tx.prepare(&format!("{RATED_TARGETS} ORDER BY 1")))
                .unwrap()
                .query_map([], |row| column::get(row, 0))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            assert_eq!(evaluated, [PaperKey(10), PaperKey(11)]);
            // Target 12's rating is left out: it has no rating of a pooled pair.
            let ratings = read_ratings(&tx, &evaluated).unwrap();
            assert_eq!(ratings, expected_ratings, "{in_order}");
            for depth in [0, 3] {
                let lists = read_lists(&tx, depth).unwrap();
                let depth = depth.max(2);
                let expected = vec![
                    list(10, 1, if depth == 2 { &[23, 21] } else { &[23, 21, 22] }),
                    list(10, 2, &[21, 20]),
                    list(11, 1, &[20]),
                    list(11, 2, &[22, 21]),
                ];
                assert_eq!(lists, (depth, expected), "{in_order} {depth}");
            }
        }
    }
}

#[cfg(test)]
mod loaded {
    use super::*;
    use crate::domain::PaperId;
    use crate::study::db::{papers, small_study};

    #[tokio::test]
    async fn the_snapshot_holds_the_targets_with_a_rating_their_ratings_and_lists() {
        let dir = tempfile::tempdir().expect("a directory");
        let study = small_study(dir.path()).await;
        let path = &dir.path().join("study.db");
        let key = |id: &'static str| {
            let connections = study.db.connections().clone();
            async move {
                (papers::id_of(&connections, &PaperId::given(id)).await)
                    .expect("read")
                    .expect("a paper")
            }
        };
        let (t1, t2) = (key("T1").await, key("T2").await);

        for depth in [0, 2, usize::MAX] {
            let snapshot = load(path, depth).await.expect("loaded");
            assert_eq!(snapshot.depth, depth.max(8), "at least the pool depth");
        }
        let snapshot = load(path, 0).await.expect("loaded");
        let targets: Vec<(&str, bool)> = (snapshot.targets.iter())
            .map(|target| (target.external_id.as_str(), target.fully_rated))
            .collect();
        assert_eq!(targets, [("T1", true), ("T2", false)]);
        let t2_ratings = (snapshot.ratings.iter())
            .find(|rated| rated.target == t2)
            .map(|rated| rated.ratings.clone());
        let p1 = key("P1").await;
        assert_eq!(
            t2_ratings,
            Some(vec![RaterAnswer {
                paper: p1,
                rater: RaterId::OWNER,
                answer: Answer::Stars(crate::domain::Stars::new(4).expect("stars")),
                guidelines: None,
            }])
        );
        // Lists in ranked order, whatever order the file and SQLite gave them in.
        let a = (snapshot.models.iter())
            .find(|(_, name)| name == "a")
            .map(|(id, _)| *id)
            .expect("model a");
        let a_t1 = (snapshot.lists.iter())
            .find(|(target, model, _)| (*target, *model) == (t1, a))
            .map(|(_, _, papers)| papers.clone());
        assert_eq!(a_t1, Some(vec![p1, key("P2").await]));
        assert_eq!(snapshot.lists.len(), 4, "two models' lists of T1 and of T2");
    }
}

// --- The unblinded read ---

// The one read of the models' lists of a single target, for the per-target view of the
// leaderboard, which shows each paper with its judgment.
//
// Seeing which model ranked which paper, and how a paper was rated, unblinds the target. Once
// it is fully rated that can no longer bias a rating of it, so the read refuses any target
// before then.

/// Every model's top `k` for `target`, by model name and position; `None` unless the target
/// is fully rated.
pub async fn top_lists(
    connections: &SqlitePool,
    target: PaperKey,
    k: usize,
) -> Result<Option<Vec<ListedPaper>>, sqlx::Error> {
    // One read transaction: the lists are read from the same snapshot the check saw.
    let mut tx = connections.begin().await?;
    if !targets::is_fully_rated(&mut *tx, target).await? {
        return Ok(None);
    }
    let papers: Vec<ListedPaperRow> = sqlx::query_as(
        "SELECT m.name AS model, r.position, p.id AS key, p.external_id AS paper, p.title
         FROM recommendations r
         JOIN models m ON m.id = r.model_id
         JOIN papers p ON p.id = r.paper_id
         WHERE r.model_id IN (SELECT id FROM models) AND r.target_id = ? AND r.position <= ?
         ORDER BY m.name, r.position",
    )
    .bind(target.0)
    .bind(i64::try_from(k).unwrap_or(i64::MAX))
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Some(papers.into_iter().map(ListedPaper::from).collect()))
}

#[derive(Debug, FromRow)]
struct ListedPaperRow {
    model: String,
    position: i64,
    #[sqlx(try_from = "Stored<PaperKey>")]
    key: PaperKey,
    #[sqlx(try_from = "Stored<PaperId>")]
    paper: PaperId,
    title: String,
}

/// A listed paper as read, before the evaluation fills in its judgment.
impl From<ListedPaperRow> for ListedPaper {
    fn from(row: ListedPaperRow) -> ListedPaper {
        ListedPaper {
            model: row.model,
            position: row.position,
            key: row.key,
            paper: row.paper,
            title: row.title,
            judgment: None,
            cannot_judge: false,
        }
    }
}

#[cfg(test)]
mod unblinded {
    use super::*;
    use crate::domain::PaperId;
    use crate::study::db::{papers, small_study};

    /// The per-target view's lists are refused by the data layer too, whoever asks, until the
    /// target is fully rated.
    #[tokio::test]
    async fn the_lists_of_a_target_not_fully_rated_are_not_read() {
        let dir = tempfile::tempdir().expect("a directory");
        let study = small_study(dir.path()).await;
        let connections = study.db.connections();
        let key = async |id: &str| {
            (papers::id_of(connections, &PaperId::given(id)).await)
                .expect("read")
                .expect("a paper")
        };
        let (t1, t2) = (key("T1").await, key("T2").await);
        assert_eq!(top_lists(connections, t2, 8).await.expect("read"), None);
        let t1_lists = top_lists(connections, t1, 8).await.expect("read");
        assert_eq!(t1_lists.map(|lists| lists.len()), Some(3));
    }
}
