//! Ratings and their append-only history.

use sqlx::{SqliteConnection, SqliteExecutor};

use crate::domain::{PaperKey, Stars};

/// Where a change of a rating came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Web,
    Import,
    Undo,
}

impl Source {
    fn as_str(self) -> &'static str {
        match self {
            Source::Web => "web",
            Source::Import => "import",
            Source::Undo => "undo",
        }
    }
}

/// A rating before and after a change; `None` = unrated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    pub previous: Option<Stars>,
    pub current: Option<Stars>,
}

impl Change {
    pub fn changed(&self) -> bool {
        self.previous != self.current
    }
}

fn stars_from_db(value: Option<i64>) -> Option<Stars> {
    value.and_then(Stars::new)
}

/// Sets (`Some`) or clears (`None`) the rating of a pair and records the change in the history.
///
/// A rating set to the value it already has changes nothing and records nothing. Call inside
/// a transaction begun with `BEGIN IMMEDIATE`, so that concurrent raters queue on the busy
/// timeout instead of failing on a stale read.
pub async fn set(
    conn: &mut SqliteConnection,
    target: PaperKey,
    paper: PaperKey,
    stars: Option<Stars>,
    rated_at: &str,
    source: Source,
) -> Result<Change, sqlx::Error> {
    let previous: Option<i64> =
        sqlx::query_scalar("SELECT stars FROM ratings WHERE target_id = ? AND paper_id = ?")
            .bind(target.0)
            .bind(paper.0)
            .fetch_optional(&mut *conn)
            .await?;
    let change = Change {
        previous: stars_from_db(previous),
        current: stars,
    };
    if !change.changed() {
        return Ok(change);
    }
    match stars {
        Some(stars) => {
            sqlx::query(
                "INSERT INTO ratings (target_id, paper_id, stars, rated_at) VALUES (?, ?, ?, ?)
                 ON CONFLICT (target_id, paper_id)
                 DO UPDATE SET stars = excluded.stars, rated_at = excluded.rated_at",
            )
            .bind(target.0)
            .bind(paper.0)
            .bind(i64::from(stars.get()))
            .bind(rated_at)
            .execute(&mut *conn)
            .await?;
        }
        None => {
            sqlx::query("DELETE FROM ratings WHERE target_id = ? AND paper_id = ?")
                .bind(target.0)
                .bind(paper.0)
                .execute(&mut *conn)
                .await?;
        }
    }
    sqlx::query(
        "INSERT INTO rating_history (target_id, paper_id, stars, previous_stars, source, changed_at)
         VALUES (?, ?, ?, ?, ?, ?)",
    )
    .bind(target.0)
    .bind(paper.0)
    .bind(stars.map(|s| i64::from(s.get())))
    .bind(previous)
    .bind(source.as_str())
    .bind(super::now_rfc3339())
    .execute(&mut *conn)
    .await?;
    Ok(change)
}

/// One row of the ratings export.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct RatingRow {
    pub target: String,
    pub target_title: String,
    pub paper: String,
    pub paper_title: String,
    pub stars: i64,
    pub rated_at: String,
}

/// Every rating, by target id and paper id (byte order).
pub async fn all_rows<'e, E: SqliteExecutor<'e>>(executor: E) -> Result<Vec<RatingRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT t.external_id AS target, t.title AS target_title,
                p.external_id AS paper, p.title AS paper_title,
                r.stars, r.rated_at
         FROM ratings r
         JOIN papers t ON t.id = r.target_id
         JOIN papers p ON p.id = r.paper_id
         ORDER BY t.external_id, p.external_id",
    )
    .fetch_all(executor)
    .await
}

/// One entry of the rating history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryEntry {
    pub stars: Option<Stars>,
    pub previous: Option<Stars>,
    pub source: String,
    pub changed_at: String,
}

/// The history of one pair, oldest first.
pub async fn history<'e, E: SqliteExecutor<'e>>(
    executor: E,
    target: PaperKey,
    paper: PaperKey,
) -> Result<Vec<HistoryEntry>, sqlx::Error> {
    let rows: Vec<(Option<i64>, Option<i64>, String, String)> = sqlx::query_as(
        "SELECT stars, previous_stars, source, changed_at FROM rating_history
         WHERE target_id = ? AND paper_id = ? ORDER BY id",
    )
    .bind(target.0)
    .bind(paper.0)
    .fetch_all(executor)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(stars, previous, source, changed_at)| HistoryEntry {
            stars: stars_from_db(stars),
            previous: stars_from_db(previous),
            source,
            changed_at,
        })
        .collect())
}
