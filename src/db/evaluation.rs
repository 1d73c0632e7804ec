//! What the evaluation reads: the study's revision, and a snapshot of the targets being rated
//! with their ratings and the top of every list, as typed rows.
//!
//! What is read agrees with itself and with the revision it is labelled with while raters
//! keep rating: it comes from one revision of the study (see [`load`]). Rows, not bytes, are what a query costs through the driver (each one is handed
//! from its thread to ours): the ratings and the lists of a target come as one row, their
//! values as JSON arrays that sqlx and serde decode into typed values here. Anything that is
//! not what it should be (an entry that is no paper id, stars out of range) fails the read.

use std::future::Future;
use std::pin::Pin;

use sqlx::types::Json;
use sqlx::{FromRow, SqliteConnection, SqliteExecutor, SqlitePool};

use super::targets::{self, Overview};
use crate::domain::{ModelId, PaperId, PoolDepth, Stars};

/// A revision of everything the evaluation reads: the last id of the rating history (every
/// change of a rating adds a row to it) and the study's revision counter (bumped by every
/// import and every change of the targets chosen). Equal revisions mean equal evaluations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, FromRow)]
pub struct Revision {
    pub ratings: i64,
    pub study: i64,
}

/// The study's revision now: two index lookups, cheap enough to ask on every page view.
pub async fn revision<'e, E: SqliteExecutor<'e>>(executor: E) -> Result<Revision, sqlx::Error> {
    sqlx::query_as(
        "SELECT (SELECT COALESCE(MAX(id), 0) FROM rating_history) AS ratings, revision AS study
         FROM study WHERE id = 1",
    )
    .fetch_one(executor)
    .await
}

/// A target being rated that has at least one rating.
#[derive(Debug, Clone, PartialEq, Eq, FromRow)]
pub struct RatedTarget {
    pub id: PaperId,
    pub external_id: String,
    pub title: String,
    /// Every pooled pair of it is rated.
    pub fully_rated: bool,
}

/// A target's ratings: each rated paper with its stars.
pub type Judgments = Vec<(PaperId, Stars)>;

/// A model's list for a target: (target, model, its papers best first).
pub type List = (PaperId, ModelId, Vec<PaperId>);

/// One revision of the study as the evaluation reads it.
#[derive(Debug, PartialEq)]
pub struct Snapshot {
    pub revision: Revision,
    pub pool_depth: PoolDepth,
    /// The targets being rated, at a glance (counts, progress, how they are chosen).
    pub overview: Overview,
    /// Every model, by name.
    pub models: Vec<(ModelId, String)>,
    /// The targets being rated that have a rating, by external id.
    pub targets: Vec<RatedTarget>,
    /// Their ratings: each target with its rated papers and their stars.
    pub ratings: Vec<(PaperId, Judgments)>,
    /// Their lists: (target, model, the first `depth` papers best first).
    pub lists: Vec<List>,
    /// Where the lists are cut: the larger of the pool depth and the depth asked for.
    pub depth: usize,
}

/// The targets whose ratings and lists the evaluation reads.
const RATED_TARGETS: &str = "SELECT target_id FROM targets WHERE active = 1 AND rated > 0";

/// Reads the snapshot the evaluation of the targets being rated needs, with every list cut at
/// `depth` or the pool depth, whichever is larger (`usize::MAX`: whole lists).
///
/// Four reads run at once, each in a read transaction of its own on a connection of its own
/// (SQLite runs every connection on a thread, so they share the cores): the counts and
/// targets, the ratings, and each half of the lists. They saw the same study when they saw
/// the same revision; when a change came between them, everything is read again in one
/// transaction.
pub async fn load(pool: &SqlitePool, depth: usize) -> Result<Snapshot, sqlx::Error> {
    let ((revision, head), (of_ratings, ratings), (of_even, even), (of_odd, odd)) = tokio::try_join!(
        at_revision(pool, |conn| Box::pin(read_head(conn))),
        at_revision(pool, |conn| Box::pin(read_ratings(conn))),
        at_revision(pool, lists_of(Some(Half::Even), depth)),
        at_revision(pool, lists_of(Some(Half::Odd), depth)),
    )?;
    if [of_ratings, of_even, of_odd] == [revision; 3] {
        let (depth, mut lists) = even;
        lists.extend(odd.1);
        // By target and model, as one read gives them.
        lists.sort_unstable_by_key(|&(target, model, _)| (target, model));
        return Ok(head.into_snapshot(revision, ratings, (depth, lists)));
    }
    load_in_one_transaction(pool, depth).await
}

/// What [`load`] reads, read in one transaction: slower, and never mixes two revisions.
pub async fn load_in_one_transaction(
    pool: &SqlitePool,
    depth: usize,
) -> Result<Snapshot, sqlx::Error> {
    let (revision, (head, ratings, lists)) = at_revision(pool, |conn| {
        Box::pin(async move {
            let head = read_head(&mut *conn).await?;
            let ratings = read_ratings(&mut *conn).await?;
            Ok((head, ratings, read_lists(conn, depth, None).await?))
        })
    })
    .await?;
    Ok(head.into_snapshot(revision, ratings, lists))
}

type Read<'c, T> = Pin<Box<dyn Future<Output = Result<T, sqlx::Error>> + Send + 'c>>;

/// Runs `read` in a read transaction of its own, and answers the revision it saw with it.
async fn at_revision<T>(
    pool: &SqlitePool,
    read: impl for<'c> FnOnce(&'c mut SqliteConnection) -> Read<'c, T>,
) -> Result<(Revision, T), sqlx::Error> {
    let mut tx = pool.begin().await?;
    let revision = revision(&mut *tx).await?;
    let value = read(&mut tx).await?;
    tx.commit().await?;
    Ok((revision, value))
}

/// Everything of a [`Snapshot`] but the ratings and the lists.
struct Head {
    pool_depth: PoolDepth,
    overview: Overview,
    models: Vec<(ModelId, String)>,
    targets: Vec<RatedTarget>,
}

impl Head {
    fn into_snapshot(
        self,
        revision: Revision,
        ratings: Vec<(PaperId, Judgments)>,
        (depth, lists): (usize, Vec<List>),
    ) -> Snapshot {
        Snapshot {
            revision,
            pool_depth: self.pool_depth,
            overview: self.overview,
            models: self.models,
            targets: self.targets,
            ratings,
            lists,
            depth,
        }
    }
}

async fn read_head(conn: &mut SqliteConnection) -> Result<Head, sqlx::Error> {
    let pool_depth = super::study::pool_depth(&mut *conn).await?;
    let overview = targets::overview(&mut *conn).await?;
    let models = sqlx::query_as("SELECT id, name FROM models ORDER BY name")
        .fetch_all(&mut *conn)
        .await?;
    let targets = sqlx::query_as(
        "SELECT s.target_id AS id, p.external_id, p.title, s.rated = s.pooled AS fully_rated
         FROM targets s JOIN papers p ON p.id = s.target_id
         WHERE s.active = 1 AND s.rated > 0
         ORDER BY p.external_id",
    )
    .fetch_all(&mut *conn)
    .await?;
    Ok(Head {
        pool_depth,
        overview,
        models,
        targets,
    })
}

/// The ratings of the targets evaluated, one row per target: its papers and their stars as two
/// JSON arrays, in the same order (every aggregate of a group sees its rows in one order).
async fn read_ratings(
    conn: &mut SqliteConnection,
) -> Result<Vec<(PaperId, Judgments)>, sqlx::Error> {
    type Row = (PaperId, Json<Vec<PaperId>>, Json<Vec<Stars>>);
    let rows: Vec<Row> = sqlx::query_as(&format!(
        "SELECT target_id, json_group_array(paper_id), json_group_array(stars)
         FROM ratings WHERE target_id IN ({RATED_TARGETS})
         GROUP BY target_id"
    ))
    .fetch_all(conn)
    .await?;
    (rows.into_iter())
        .map(|(target, Json(papers), Json(stars))| {
            if papers.len() != stars.len() {
                return Err(misaligned("ratings", target));
            }
            Ok((target, papers.into_iter().zip(stars).collect()))
        })
        .collect()
}

/// The read of the lists of `half` of the targets (all with `None`).
fn lists_of(
    half: Option<Half>,
    depth: usize,
) -> impl for<'c> FnOnce(&'c mut SqliteConnection) -> Read<'c, (usize, Vec<List>)> {
    move |conn| Box::pin(read_lists(conn, depth, half))
}

/// Half of the targets, by the parity of their keys.
#[derive(Debug, Clone, Copy)]
enum Half {
    Even = 0,
    Odd = 1,
}

/// The lists of the targets evaluated (or of `half` of them), cut at `depth` or the pool
/// depth, whichever is larger, with that depth. One row per target: model, position and paper
/// of every entry as three JSON arrays in the same order, put in ranked order here (an ORDER BY
/// inside the aggregate would make SQLite sort every entry).
async fn read_lists(
    conn: &mut SqliteConnection,
    depth: usize,
    half: Option<Half>,
) -> Result<(usize, Vec<List>), sqlx::Error> {
    let depth = depth.max(super::study::pool_depth(&mut *conn).await?.get() as usize);
    type Row = (
        PaperId,
        Json<Vec<ModelId>>,
        Json<Vec<i64>>,
        Json<Vec<PaperId>>,
    );
    // Naming every model lets SQLite seek straight to the top of each list.
    let rows: Vec<Row> = sqlx::query_as(&format!(
        "SELECT target_id, json_group_array(model_id), json_group_array(position),
                json_group_array(paper_id)
         FROM recommendations
         WHERE target_id IN ({RATED_TARGETS} AND (?1 IS NULL OR target_id % 2 = ?1))
           AND model_id IN (SELECT id FROM models) AND position <= ?2
         GROUP BY target_id"
    ))
    .bind(half.map(|half| half as i64))
    .bind(i64::try_from(depth).unwrap_or(i64::MAX))
    .fetch_all(conn)
    .await?;
    let mut lists = Vec::new();
    for (target, Json(models), Json(positions), Json(papers)) in rows {
        if models.len() != positions.len() || models.len() != papers.len() {
            return Err(misaligned("lists", target));
        }
        let mut entries: Vec<(ModelId, i64, PaperId)> = (models.into_iter())
            .zip(positions)
            .zip(papers)
            .map(|((model, position), paper)| (model, position, paper))
            .collect();
        entries.sort_unstable_by_key(|&(model, position, _)| (model, position));
        for list in entries.chunk_by(|a, b| a.0 == b.0) {
            let papers = list.iter().map(|&(_, _, paper)| paper).collect();
            lists.push((target, list[0].0, papers));
        }
    }
    Ok((depth, lists))
}

fn misaligned(what: &str, target: PaperId) -> sqlx::Error {
    sqlx::Error::Decode(format!("the {what} of target {} do not line up", target.0).into())
}
