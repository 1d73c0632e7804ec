//! Ratings and their append-only history.

use crate::study::ExportedRating;
use sqlx::{SqliteConnection, SqliteExecutor};

use crate::domain::{PaperId, PaperKey, RaterId, RaterName, Stars};
use crate::study::db::column::Stored;

/// Where a change of a rating came from. Web changes and undos name the browser session that
/// made them (as the web layer tags it), so that undo reverts only that session's changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source<'a> {
    Web { browser: &'a str },
    Import,
    Undo { browser: &'a str },
}

impl Source<'_> {
    fn as_str(self) -> &'static str {
        match self {
            Source::Web { .. } => "web",
            Source::Import => "import",
            Source::Undo { .. } => "undo",
        }
    }

    fn browser(self) -> Option<String> {
        match self {
            Source::Web { browser } | Source::Undo { browser } => Some(browser.to_owned()),
            Source::Import => None,
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

/// Sets (`Some`) or clears (`None`) `rater`'s rating of a pair and records the change in the
/// history.
///
/// A rating set to the value it already has changes nothing and records nothing. A change on
/// a target that had been fully rated before is marked as made with its provenance known,
/// whoever makes it (a rater, an import) and whatever anyone viewed. Call inside a
/// transaction begun with `BEGIN IMMEDIATE`, so that concurrent raters queue on the busy
/// timeout instead of failing on a stale read.
pub async fn set(
    conn: &mut SqliteConnection,
    pair: Pair,
    stars: Option<Stars>,
    rated_at: &str,
    source: Source<'_>,
) -> Result<Change, sqlx::Error> {
    let change = Change {
        previous: current(&mut *conn, pair).await?,
        current: stars,
    };
    if !change.changed() {
        return Ok(change);
    }
    let provenance_known = crate::study::db::targets::is_unblinded(&mut *conn, pair.target).await?;
    write(&mut *conn, pair, stars, rated_at).await?;
    append_history(conn, pair, change, source, provenance_known).await?;
    Ok(change)
}

/// A pair as one rater rates it: the target, the paper and the rater.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    pub target: PaperKey,
    pub paper: PaperKey,
    pub rater: RaterId,
}

/// A change of one pair's rating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairChange {
    pub paper: PaperKey,
    pub change: Change,
}

/// What an undo did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undone {
    /// The pair got back the rating it had before the session's change.
    Reverted(PairChange),
    /// Someone else (another browser session, an import) changed the pair after the
    /// session's change: their rating stays, and the session's change counts as undone.
    Superseded {
        paper: PaperKey,
        kept: Option<Stars>,
    },
}

/// Reverts the last change that `rater`, in the browser session `browser`, made on `target`
/// through the web and that no undo has reverted yet: the pair gets its previous rating back, and the
/// undo is recorded with source `undo`. `None` when the session has nothing left to undo.
///
/// Undos pair with web changes like closing with opening brackets: reading the session's
/// history newest first, each undo cancels the nearest earlier web change not cancelled yet.
/// So repeated undos walk back through the session's changes, and the state survives reloads
/// and restarts. Changes of other sessions or raters are never reverted: if another session of
/// the rater (or an import) changed their rating of the pair since, its rating stays ([`Undone::Superseded`]); the undo is recorded all
/// the same, so that it cancels its web change and the next undo goes further back.
///
/// Call inside a transaction begun with `BEGIN IMMEDIATE`.
pub async fn undo_last_web_change(
    conn: &mut SqliteConnection,
    target: PaperKey,
    rater: RaterId,
    browser: &str,
    rated_at: &str,
) -> Result<Option<Undone>, sqlx::Error> {
    let newest_first: Vec<(i64, Option<i64>, Option<i64>, String)> = sqlx::query_as(
        "SELECT paper_id, previous_stars, stars, source FROM rating_history
         WHERE target_id = ? AND browser_session = ? AND rater_id = ?
           AND source IN ('web', 'undo')
         ORDER BY id DESC",
    )
    .bind(target.0)
    .bind(browser)
    .bind(rater.0)
    .fetch_all(&mut *conn)
    .await?;
    let undo = Source::Undo { browser };
    let mut open_undos = 0_usize;
    let last_web_change = newest_first.into_iter().find(|(_, _, _, source)| {
        if source == undo.as_str() {
            open_undos += 1;
            false
        } else if open_undos > 0 {
            open_undos -= 1;
            false
        } else {
            true
        }
    });
    let Some((paper, previous, set_to, _)) = last_web_change else {
        return Ok(None);
    };
    let pair = Pair {
        target,
        paper: PaperKey(paper),
        rater,
    };
    let (previous, set_to) = (stars_from_db(previous), stars_from_db(set_to));
    let now = current(&mut *conn, pair).await?;
    if now != set_to && now != previous {
        let kept = Change {
            previous: now,
            current: now,
        };
        // No rating changes, so none is made with its provenance known.
        append_history(conn, pair, kept, undo, false).await?;
        return Ok(Some(Undone::Superseded {
            paper: pair.paper,
            kept: now,
        }));
    }
    let change = Change {
        previous: now,
        current: previous,
    };
    let provenance_known = crate::study::db::targets::is_unblinded(&mut *conn, target).await?;
    write(&mut *conn, pair, change.current, rated_at).await?;
    append_history(conn, pair, change, undo, provenance_known).await?;
    Ok(Some(Undone::Reverted(PairChange {
        paper: pair.paper,
        change,
    })))
}

/// The rater's current rating of a pair.
async fn current(conn: &mut SqliteConnection, pair: Pair) -> Result<Option<Stars>, sqlx::Error> {
    let stars: Option<i64> = sqlx::query_scalar(
        "SELECT stars FROM ratings WHERE target_id = ? AND paper_id = ? AND rater_id = ?",
    )
    .bind(pair.target.0)
    .bind(pair.paper.0)
    .bind(pair.rater.0)
    .fetch_optional(conn)
    .await?;
    Ok(stars_from_db(stars))
}

/// Stores (`Some`) or deletes (`None`) the rater's rating of a pair, without history.
async fn write(
    conn: &mut SqliteConnection,
    pair: Pair,
    stars: Option<Stars>,
    rated_at: &str,
) -> Result<(), sqlx::Error> {
    match stars {
        Some(stars) => {
            sqlx::query(
                "INSERT INTO ratings (target_id, paper_id, rater_id, stars, rated_at)
                 VALUES (?, ?, ?, ?, ?)
                 ON CONFLICT (target_id, paper_id, rater_id)
                 DO UPDATE SET stars = excluded.stars, rated_at = excluded.rated_at",
            )
            .bind(pair.target.0)
            .bind(pair.paper.0)
            .bind(pair.rater.0)
            .bind(i64::from(stars.get()))
            .bind(rated_at)
            .execute(conn)
            .await?;
        }
        None => {
            sqlx::query(
                "DELETE FROM ratings WHERE target_id = ? AND paper_id = ? AND rater_id = ?",
            )
            .bind(pair.target.0)
            .bind(pair.paper.0)
            .bind(pair.rater.0)
            .execute(conn)
            .await?;
        }
    }
    Ok(())
}

/// Records a change; `provenance_known` when the target was unblinded before it (see
/// [`crate::study::db::targets::is_unblinded`]): its numbers were out, and they tell which models listed
/// the paper. The change that completes a target is made before they are.
async fn append_history(
    conn: &mut SqliteConnection,
    pair: Pair,
    change: Change,
    source: Source<'_>,
    provenance_known: bool,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO rating_history
            (target_id, paper_id, stars, previous_stars, source, changed_at, browser_session,
             provenance_known, rater_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(pair.target.0)
    .bind(pair.paper.0)
    .bind(change.current.map(|s| i64::from(s.get())))
    .bind(change.previous.map(|s| i64::from(s.get())))
    .bind(source.as_str())
    .bind(crate::study::db::now_rfc3339())
    .bind(source.browser())
    .bind(provenance_known)
    .bind(pair.rater.0)
    .execute(conn)
    .await?;
    Ok(())
}

/// Every rating, or only `rater`'s, by target id, paper id (byte order) and rater's name.
pub async fn all_rows<'e, E: SqliteExecutor<'e>>(
    executor: E,
    rater: Option<RaterId>,
) -> Result<Vec<ExportedRating>, sqlx::Error> {
    let rows: Vec<ExportedRatingRow> = sqlx::query_as(
        "SELECT t.external_id AS target, t.title AS target_title,
                p.external_id AS paper, p.title AS paper_title,
                r.stars, r.rated_at, w.name AS rater
         FROM ratings r
         JOIN papers t ON t.id = r.target_id
         JOIN papers p ON p.id = r.paper_id
         JOIN raters w ON w.id = r.rater_id
         WHERE ?1 IS NULL OR r.rater_id = ?1
         ORDER BY t.external_id, p.external_id, w.name",
    )
    .bind(rater.map(|rater| rater.0))
    .fetch_all(executor)
    .await?;
    Ok(rows.into_iter().map(ExportedRating::from).collect())
}

#[derive(Debug, sqlx::FromRow)]
struct ExportedRatingRow {
    #[sqlx(try_from = "Stored<PaperId>")]
    target: PaperId,
    target_title: String,
    #[sqlx(try_from = "Stored<PaperId>")]
    paper: PaperId,
    paper_title: String,
    #[sqlx(try_from = "Stored<Stars>")]
    stars: Stars,
    rated_at: String,
    #[sqlx(try_from = "Stored<RaterName>")]
    rater: RaterName,
}

impl From<ExportedRatingRow> for ExportedRating {
    fn from(row: ExportedRatingRow) -> ExportedRating {
        ExportedRating {
            target: row.target,
            target_title: row.target_title,
            paper: row.paper,
            paper_title: row.paper_title,
            stars: row.stars,
            rated_at: row.rated_at,
            rater: row.rater,
        }
    }
}
