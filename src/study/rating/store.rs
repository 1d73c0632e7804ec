//! Ratings and their append-only history.

use sqlx::{SqliteConnection, SqliteExecutor};

use crate::domain::{Answer, Note, PaperId, PaperKey, RaterId, RaterName};
use crate::study::db::column::Stored;

/// A rater's rating of a pair: their answer (stars, or "can't judge") and their note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rating {
    pub answer: Answer,
    pub note: Option<Note>,
}

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub previous: Option<Rating>,
    pub current: Option<Rating>,
}

impl Change {
    pub fn changed(&self) -> bool {
        self.previous != self.current
    }
}

/// A rating as the columns of `ratings` or of one side of a `rating_history` entry hold it:
/// stars (NULL for "can't judge", and for no rating), whether it is "can't judge", the note.
type Columns = (Option<i64>, bool, Option<String>);

/// The rating that `columns` hold; `None` for no rating (or a row that is not one).
fn from_columns((stars, cannot_judge, note): Columns) -> Option<Rating> {
    let answer = match stars {
        Some(stars) => Answer::stored(Some(stars))?,
        None if cannot_judge => Answer::CannotJudge,
        None => return None,
    };
    Some(Rating {
        answer,
        note: note.and_then(|note| Note::new(&note).ok().flatten()),
    })
}

/// The rating a row of `ratings` holds: its stars (NULL: "can't judge") and its note; `None`
/// for a row that is not one.
pub fn of_ratings_row(stars: Option<i64>, note: Option<String>) -> Option<Rating> {
    from_columns((stars, stars.is_none(), note))
}

/// The columns of `rating` (no rating: all NULL).
fn columns(rating: Option<&Rating>) -> Columns {
    match rating {
        None => (None, false, None),
        Some(rating) => (
            rating.answer.stars().map(|stars| i64::from(stars.get())),
            rating.answer == Answer::CannotJudge,
            rating.note.as_ref().map(|note| note.as_str().to_owned()),
        ),
    }
}

/// Sets (`Some`) or clears (`None`) `rater`'s rating of a pair (its answer and its note), whose
/// rating was `previous` (as [`current`] read it in the same transaction), and records the
/// change in the history.
///
/// A rating set to what it already is changes nothing and records nothing. A rating whose
/// answer stays (a note added, changed or removed) keeps when it was made and the guidelines
/// it was made under. A change on a target that had been fully rated before is marked as made
/// with its provenance known, whoever makes it (a rater, an import) and whatever anyone
/// viewed. Call inside a transaction begun with `BEGIN IMMEDIATE`, so that concurrent raters
/// queue on the busy timeout instead of failing on a stale read.
pub async fn set(
    conn: &mut SqliteConnection,
    pair: Pair,
    previous: Option<Rating>,
    rating: Option<Rating>,
    rated_at: &str,
    source: Source<'_>,
) -> Result<Change, sqlx::Error> {
    let change = Change {
        previous,
        current: rating,
    };
    if !change.changed() {
        return Ok(change);
    }
    let provenance_known = crate::study::db::targets::is_unblinded(&mut *conn, pair.target).await?;
    write(&mut *conn, pair, &change, rated_at).await?;
    append_history(conn, pair, &change, source, provenance_known).await?;
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairChange {
    pub paper: PaperKey,
    pub change: Change,
}

/// What an undo did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undone {
    /// The pair got back the rating it had before the session's change.
    Reverted(PairChange),
    /// Someone else (another browser session, an import) changed the pair after the
    /// session's change: their rating stays, and the session's change counts as undone.
    Superseded {
        paper: PaperKey,
        kept: Option<Rating>,
    },
}

/// One entry of a session's history as undo reads it.
#[derive(sqlx::FromRow)]
struct SessionEntry {
    paper_id: i64,
    previous_stars: Option<i64>,
    previous_cannot_judge: bool,
    previous_note: Option<String>,
    stars: Option<i64>,
    cannot_judge: bool,
    note: Option<String>,
    source: String,
}

/// Reverts the last change that `rater`, in the browser session `browser`, made on `target`
/// through the web and that no undo has reverted yet: the pair gets its previous rating back
/// (its answer and its note), and the undo is recorded with source `undo`. `None` when the
/// session has nothing left to undo.
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
    let newest_first: Vec<SessionEntry> = sqlx::query_as(
        "SELECT paper_id, previous_stars, previous_cannot_judge, previous_note,
                stars, cannot_judge, note, source
         FROM rating_history
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
    let last_web_change = newest_first.into_iter().find(|entry| {
        if entry.source == undo.as_str() {
            open_undos += 1;
            false
        } else if open_undos > 0 {
            open_undos -= 1;
            false
        } else {
            true
        }
    });
    let Some(entry) = last_web_change else {
        return Ok(None);
    };
    let pair = Pair {
        target,
        paper: PaperKey(entry.paper_id),
        rater,
    };
    let previous = from_columns((
        entry.previous_stars,
        entry.previous_cannot_judge,
        entry.previous_note,
    ));
    let set_to = from_columns((entry.stars, entry.cannot_judge, entry.note));
    let now = current(&mut *conn, pair).await?;
    if now != set_to && now != previous {
        let kept = Change {
            previous: now.clone(),
            current: now.clone(),
        };
        // No rating changes, so none is made with its provenance known.
        append_history(conn, pair, &kept, undo, false).await?;
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
    write(&mut *conn, pair, &change, rated_at).await?;
    append_history(conn, pair, &change, undo, provenance_known).await?;
    Ok(Some(Undone::Reverted(PairChange {
        paper: pair.paper,
        change,
    })))
}

/// The rater's current rating of a pair.
pub async fn current(
    conn: &mut SqliteConnection,
    pair: Pair,
) -> Result<Option<Rating>, sqlx::Error> {
    let row: Option<(Option<i64>, Option<String>)> = sqlx::query_as(
        "SELECT stars, note FROM ratings WHERE target_id = ? AND paper_id = ? AND rater_id = ?",
    )
    .bind(pair.target.0)
    .bind(pair.paper.0)
    .bind(pair.rater.0)
    .fetch_optional(conn)
    .await?;
    Ok(row.and_then(|(stars, note)| of_ratings_row(stars, note)))
}

/// Stores `change.current` (its rating, or none: the row deleted) without history, made at
/// `rated_at` under the guidelines in force. A rating whose answer stays keeps its time and
/// guidelines' version: only its note is written.
async fn write(
    conn: &mut SqliteConnection,
    pair: Pair,
    change: &Change,
    rated_at: &str,
) -> Result<(), sqlx::Error> {
    let answer_stays = match (&change.previous, &change.current) {
        (Some(previous), Some(current)) => previous.answer == current.answer,
        _ => false,
    };
    let (stars, _, note) = columns(change.current.as_ref());
    if change.current.is_none() {
        sqlx::query("DELETE FROM ratings WHERE target_id = ? AND paper_id = ? AND rater_id = ?")
            .bind(pair.target.0)
            .bind(pair.paper.0)
            .bind(pair.rater.0)
            .execute(conn)
            .await?;
    } else if answer_stays {
        sqlx::query(
            "UPDATE ratings SET note = ? WHERE target_id = ? AND paper_id = ? AND rater_id = ?",
        )
        .bind(note)
        .bind(pair.target.0)
        .bind(pair.paper.0)
        .bind(pair.rater.0)
        .execute(conn)
        .await?;
    } else {
        sqlx::query(
            "INSERT INTO ratings (target_id, paper_id, rater_id, stars, rated_at, note, guidelines)
             VALUES (?, ?, ?, ?, ?, ?, (SELECT MAX(version) FROM guidelines))
             ON CONFLICT (target_id, paper_id, rater_id)
             DO UPDATE SET stars = excluded.stars, rated_at = excluded.rated_at,
                           note = excluded.note, guidelines = excluded.guidelines",
        )
        .bind(pair.target.0)
        .bind(pair.paper.0)
        .bind(pair.rater.0)
        .bind(stars)
        .bind(rated_at)
        .bind(note)
        .execute(conn)
        .await?;
    }
    Ok(())
}

/// Records a change; `provenance_known` when the target was unblinded before it (see
/// [`crate::study::db::targets::is_unblinded`]): its numbers were out, and they tell which models listed
/// the paper. The change that completes a target is made before they are.
async fn append_history(
    conn: &mut SqliteConnection,
    pair: Pair,
    change: &Change,
    source: Source<'_>,
    provenance_known: bool,
) -> Result<(), sqlx::Error> {
    let (stars, cannot_judge, note) = columns(change.current.as_ref());
    let (previous_stars, previous_cannot_judge, previous_note) = columns(change.previous.as_ref());
    sqlx::query(
        "INSERT INTO rating_history
            (target_id, paper_id, stars, previous_stars, cannot_judge, previous_cannot_judge,
             note, previous_note, source, changed_at, browser_session, provenance_known,
             rater_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(pair.target.0)
    .bind(pair.paper.0)
    .bind(stars)
    .bind(previous_stars)
    .bind(cannot_judge)
    .bind(previous_cannot_judge)
    .bind(note)
    .bind(previous_note)
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
) -> Result<Vec<ExportedRatingRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT t.external_id AS target, t.title AS target_title,
                p.external_id AS paper, p.title AS paper_title,
                r.stars, r.rated_at, w.name AS rater, r.note
         FROM ratings r
         JOIN papers t ON t.id = r.target_id
         JOIN papers p ON p.id = r.paper_id
         JOIN raters w ON w.id = r.rater_id
         WHERE ?1 IS NULL OR r.rater_id = ?1
         ORDER BY t.external_id, p.external_id, w.name",
    )
    .bind(rater.map(|rater| rater.0))
    .fetch_all(executor)
    .await
}

/// A rating as exported, its answer and note as stored.
#[derive(Debug, sqlx::FromRow)]
pub struct ExportedRatingRow {
    #[sqlx(try_from = "Stored<PaperId>")]
    pub target: PaperId,
    pub target_title: String,
    #[sqlx(try_from = "Stored<PaperId>")]
    pub paper: PaperId,
    pub paper_title: String,
    pub stars: Option<i64>,
    pub rated_at: String,
    #[sqlx(try_from = "Stored<RaterName>")]
    pub rater: RaterName,
    pub note: Option<String>,
}

/// The raters' notes on `target`'s pairs (only on `paper`'s, when given), by paper id and
/// rater's name.
pub async fn notes<'e, E: SqliteExecutor<'e>>(
    executor: E,
    target: PaperKey,
    paper: Option<PaperKey>,
) -> Result<Vec<RaterNoteRow>, sqlx::Error> {
    sqlx::query_as(
        "SELECT p.external_id AS paper, p.title AS paper_title, w.name AS rater, r.stars, r.note
         FROM ratings r
         JOIN papers p ON p.id = r.paper_id
         JOIN raters w ON w.id = r.rater_id
         WHERE r.target_id = ?1 AND (?2 IS NULL OR r.paper_id = ?2) AND r.note IS NOT NULL
         ORDER BY p.external_id, w.name",
    )
    .bind(target.0)
    .bind(paper.map(|paper| paper.0))
    .fetch_all(executor)
    .await
}

/// A rater's note on a pair, with their answer as stored.
#[derive(Debug, sqlx::FromRow)]
pub struct RaterNoteRow {
    #[sqlx(try_from = "Stored<PaperId>")]
    pub paper: PaperId,
    pub paper_title: String,
    #[sqlx(try_from = "Stored<RaterName>")]
    pub rater: RaterName,
    pub stars: Option<i64>,
    pub note: String,
}
