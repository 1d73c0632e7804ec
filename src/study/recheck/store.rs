//! What the study checks read and write beyond the evaluation: the rater's judgments in the
//! rating history with their times, and the re-checks (`rechecks`), which live apart from the
//! ratings and never change one.

use sqlx::{SqliteConnection, SqliteExecutor};

use crate::domain::{PaperKey, RaterId, Stars};
use crate::study::db::column::Stored;

/// How far the re-checking is: pairs re-checked, and the pairs rated in finished targets (a
/// re-check draws from them); of one rater, or of all (a pair rated by several counted once).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecheckProgress {
    pub rechecked: i64,
    pub rated_in_finished: i64,
    pub finished_targets: i64,
}

/// A rating a rater set or changed in the browser, with its time (RFC 3339), oldest first.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Judgment {
    #[sqlx(try_from = "Stored<RaterId>")]
    pub rater_id: RaterId,
    pub changed_at: String,
    pub stars: i64,
}

/// Every rating set or changed in the browser, in the order they were made. Imports are left
/// out: their history holds the time of the import, not of the judgments; clears, undos,
/// "can't judge" and changes of a note alone are no judgments.
pub async fn judgments<'e, E: SqliteExecutor<'e>>(
    executor: E,
) -> Result<Vec<Judgment>, sqlx::Error> {
    sqlx::query_as(
        "SELECT rater_id, changed_at, stars FROM rating_history
         WHERE source = 'web' AND stars IS NOT NULL AND stars IS NOT previous_stars
         ORDER BY id",
    )
    .fetch_all(executor)
    .await
}

/// A stored re-check.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Recheck {
    #[sqlx(try_from = "Stored<RaterId>")]
    pub rater_id: RaterId,
    pub stars_then: i64,
    pub stars: i64,
    /// When the rating re-checked was made.
    pub rated_at: String,
}

/// Every re-check of a pair of a target being rated, in the order they were made.
pub async fn rechecks<'e, E: SqliteExecutor<'e>>(executor: E) -> Result<Vec<Recheck>, sqlx::Error> {
    sqlx::query_as(
        "SELECT c.rater_id, c.stars_then, c.stars, c.rated_at FROM rechecks c
         JOIN targets t ON t.target_id = c.target_id AND t.active = 1
         ORDER BY c.rechecked_at, c.target_id, c.paper_id",
    )
    .fetch_all(executor)
    .await
}

/// `rater` `None`: every rater's re-checks and ratings.
pub async fn recheck_progress<'e, E: SqliteExecutor<'e>>(
    executor: E,
    rater: Option<RaterId>,
) -> Result<RecheckProgress, sqlx::Error> {
    let (rechecked, rated_in_finished, finished_targets): (i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM rechecks c
                 JOIN targets t ON t.target_id = c.target_id AND t.active = 1
                 WHERE ?1 IS NULL OR c.rater_id = ?1),
                -- Pairs rated: kept per target, and per rater on their assignments (counting
                -- the ratings themselves read every one of them on every dashboard).
                CASE WHEN ?1 IS NULL
                     THEN (SELECT COALESCE(SUM(t.rated), 0) FROM targets t
                           WHERE t.active = 1 AND t.fully_rated = 1)
                     ELSE (SELECT COALESCE(SUM(a.rated), 0) FROM assignments a
                           JOIN targets t ON t.target_id = a.target_id
                           WHERE a.rater_id = ?1 AND t.active = 1 AND t.fully_rated = 1) END,
                (SELECT COUNT(*) FROM targets t
                 WHERE t.active = 1 AND t.fully_rated = 1
                   AND (?1 IS NULL OR EXISTS (SELECT 1 FROM assignments a
                                              WHERE a.target_id = t.target_id
                                                AND a.rater_id = ?1)))",
    )
    .bind(rater.map(|rater| rater.0))
    .fetch_one(executor)
    .await?;
    Ok(RecheckProgress {
        rechecked,
        rated_in_finished,
        finished_targets,
    })
}

/// A pair of a finished target that `rater` gave stars and has not re-checked yet, drawn at
/// random; `None` when there is none.
pub async fn recheck_candidate(
    conn: &mut SqliteConnection,
    rater: RaterId,
) -> Result<Option<(PaperKey, PaperKey)>, sqlx::Error> {
    let pair: Option<(i64, i64)> = sqlx::query_as(
        "SELECT r.target_id, r.paper_id FROM ratings r
         JOIN targets t ON t.target_id = r.target_id
         WHERE r.rater_id = ?1 AND r.stars IS NOT NULL AND t.active = 1 AND t.fully_rated
           AND NOT EXISTS (SELECT 1 FROM rechecks c
                           WHERE c.target_id = r.target_id AND c.paper_id = r.paper_id
                             AND c.rater_id = ?1)
         ORDER BY random() LIMIT 1",
    )
    .bind(rater.0)
    .fetch_optional(conn)
    .await?;
    Ok(pair.map(|(target, paper)| (PaperKey(target), PaperKey(paper))))
}

/// `rater`'s rating of a pair of a finished target, as a re-check compares with it: its stars
/// and when it was made. `None` when they did not give the pair stars or its target is not
/// finished.
pub async fn rating_to_recheck(
    conn: &mut SqliteConnection,
    target: PaperKey,
    paper: PaperKey,
    rater: RaterId,
) -> Result<Option<(Stars, String)>, sqlx::Error> {
    let rating: Option<(i64, String)> = sqlx::query_as(
        "SELECT r.stars, r.rated_at FROM ratings r
         JOIN targets t ON t.target_id = r.target_id
         WHERE r.target_id = ? AND r.paper_id = ? AND r.rater_id = ? AND r.stars IS NOT NULL
           AND t.active = 1 AND t.fully_rated",
    )
    .bind(target.0)
    .bind(paper.0)
    .bind(rater.0)
    .fetch_optional(conn)
    .await?;
    Ok(rating.and_then(|(stars, rated_at)| Some((Stars::new(stars)?, rated_at))))
}

/// A re-check to store.
#[derive(Debug, Clone, Copy)]
pub struct NewRecheck<'a> {
    pub target: PaperKey,
    pub paper: PaperKey,
    pub stars_then: Stars,
    pub rated_at: &'a str,
    pub stars: Stars,
    pub rechecked_at: &'a str,
    pub browser: &'a str,
    pub rater: RaterId,
}

/// Stores a re-check; a pair the rater re-checked before keeps its first answer. Answers
/// whether this one was stored.
pub async fn record_recheck(
    conn: &mut SqliteConnection,
    recheck: NewRecheck<'_>,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(
        "INSERT INTO rechecks
            (target_id, paper_id, stars_then, rated_at, stars, rechecked_at, browser_session,
             rater_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (target_id, paper_id, rater_id) DO NOTHING",
    )
    .bind(recheck.target.0)
    .bind(recheck.paper.0)
    .bind(i64::from(recheck.stars_then.get()))
    .bind(recheck.rated_at)
    .bind(i64::from(recheck.stars.get()))
    .bind(recheck.rechecked_at)
    .bind(recheck.browser)
    .bind(recheck.rater.0)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}
