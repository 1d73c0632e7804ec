//! Rating: a rater's rating page ([`page`]), a change of a rating (a set, a clear, an undo),
//! and the ratings as exported (the ratings CSV, the qrels). Imports write ratings their own
//! way, a whole file in one transaction.
//!
//! The rules: only a paper in the blind pool of a target being rated can be rated. The pool a
//! rater was shown never shrinks under them (pruning leaves a target they took alone, see
//! `db::pruning`), and a paper outside it is refused alike whoever lists it, and never joins
//! the pool: an answer that differed would tell the rater which model lists the paper. A rater
//! rates a target they took or one that still needs a rater (taking it), the owner any; each
//! rater changes and undoes only their own ratings; and each change is one command, committed
//! durably before it answers, so that "saved" means saved. Every change is recorded in the
//! rating history with the rater and the browser session that made it, which is what undo
//! goes by.

/// The feature's SQL: reached by the study only (as `db::rating` too).
mod page;
pub(in crate::study) mod store;

pub use page::RatingPage;

use sqlx::SqliteConnection;

use crate::domain::{Answer, Note, PaperId, PaperKey, Progress, RaterId, RaterName, Stars};
use crate::metrics::Judgments;
use crate::study::db::rating::{Pair, Source, Undone};
use crate::study::db::{self, Database};
use crate::study::error::{Refusal, StudyError};
use crate::study::raters::Rater;

/// Rating's commands and queries (`study.rating()`): a rating page, a change of a rating and
/// its undo, the ratings as exported and as qrels.
#[derive(Debug, Clone, Copy)]
pub struct Handle<'s> {
    db: &'s Database,
}

impl<'s> Handle<'s> {
    pub(in crate::study) fn new(db: &'s Database) -> Handle<'s> {
        Handle { db }
    }
}

pub use store::Rating;

/// What a change of a rating asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// Sets the answer, and the note when `note` says (`Some(None)` removes it; `None` keeps
    /// the note the pair has).
    Answer {
        answer: Answer,
        note: Option<Option<Note>>,
    },
    /// Sets the note (`None` removes it) of a pair the rater has rated.
    Note(Option<Note>),
    /// Clears the rating, its note with it.
    Clear,
}

/// What an undo did: the paper whose rating went back, and to which rating. `undone` is false
/// with a `paper` when another browser of the rater (or an import) changed that rating after
/// this browser's change: that rating stays, and `rating` is it. Neither, when there was
/// nothing to undo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undo {
    pub undone: bool,
    pub paper: Option<PaperId>,
    pub rating: Option<Rating>,
    pub progress: Progress,
}

/// A rater's note on a pair of a target, for the owner: the paper, the rater, their answer
/// and their note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaterNote {
    pub paper: PaperId,
    pub paper_title: String,
    pub rater: RaterName,
    pub answer: Answer,
    pub note: Note,
}

impl RaterNote {
    /// The note of a row; `None` for one that is no note (never written so).
    fn of_row(row: db::rating::RaterNoteRow) -> Option<RaterNote> {
        Some(RaterNote {
            paper: row.paper,
            paper_title: row.paper_title,
            rater: row.rater,
            answer: Answer::stored(row.stars)?,
            note: Note::new(&row.note).ok().flatten()?,
        })
    }
}

/// The raters' notes on `target`'s pairs (only on `paper`'s, when given), by paper id and
/// rater's name: for the owner's views of a fully rated target (the per-target view, a
/// judge's disagreements).
pub(in crate::study) async fn notes<'e, E: sqlx::SqliteExecutor<'e>>(
    executor: E,
    target: PaperKey,
    paper: Option<PaperKey>,
) -> Result<Vec<RaterNote>, sqlx::Error> {
    let rows = db::rating::notes(executor, target, paper).await?;
    Ok(rows.into_iter().filter_map(RaterNote::of_row).collect())
}

impl Handle<'_> {
    /// Changes `rater`'s rating of `paper` for `target` as `edit` asks, as the browser session
    /// tagged `browser` asks; answers the rating after it and the rater's progress of the
    /// target. Refused when the target has the raters it needs and `rater` is not one of them,
    /// and for a note alone on a pair the rater has not rated.
    pub async fn rate(
        &self,
        target: PaperKey,
        paper: &PaperId,
        edit: Edit,
        browser: &str,
        rater: &Rater,
    ) -> Result<(Option<Rating>, Progress), StudyError> {
        self.db
            .write(async |conn| {
                progress(conn, target, rater.id).await?;
                let not_in_pool = || Refusal::NotInPool(paper.to_owned());
                let key = db::papers::id_of(&mut *conn, paper)
                    .await?
                    .ok_or_else(not_in_pool)?;
                if !db::raters::may_rate(&mut *conn, target, rater.id).await? {
                    return Err(Refusal::TargetTaken(target).into());
                }
                if !db::pool::contains(&mut *conn, target, key).await? {
                    return Err(not_in_pool().into());
                }
                let pair = Pair {
                    target,
                    paper: key,
                    rater: rater.id,
                };
                let current = db::rating::current(&mut *conn, pair).await?;
                let kept_note = || current.as_ref().and_then(|rating| rating.note.clone());
                let rating = match edit {
                    Edit::Clear => None,
                    Edit::Answer { answer, note } => Some(Rating {
                        answer,
                        note: note.unwrap_or_else(kept_note),
                    }),
                    Edit::Note(note) => {
                        let rated = (current.as_ref())
                            .ok_or_else(|| Refusal::NoteWithoutRating(paper.clone()))?;
                        Some(Rating {
                            answer: rated.answer,
                            note,
                        })
                    }
                };
                let now = db::now_rfc3339();
                let source = Source::Web { browser };
                let change = db::rating::set(conn, pair, current, rating, &now, source).await?;
                Ok((change.current, progress(conn, target, rater.id).await?))
            })
            .await
    }

    /// Reverts the last change `rater` made on `target` in the browser session tagged
    /// `browser` (of the answer, of the note, or both); see
    /// [`db::rating::undo_last_web_change`] for how undos walk back through the history.
    /// Refused as [`Handle::rate`] is when `rater` may not rate the target (they have no change
    /// there to undo, and would learn the size of its pool).
    pub async fn undo(
        &self,
        target: PaperKey,
        browser: &str,
        rater: &Rater,
    ) -> Result<Undo, StudyError> {
        self.db
            .write(async |conn| {
                progress(conn, target, rater.id).await?;
                if !db::raters::may_rate(&mut *conn, target, rater.id).await? {
                    return Err(Refusal::TargetTaken(target).into());
                }
                let now = db::now_rfc3339();
                let undone =
                    db::rating::undo_last_web_change(conn, target, rater.id, browser, &now).await?;
                let (undone, paper, rating) = match undone {
                    None => (false, None, None),
                    Some(Undone::Reverted(reverted)) => {
                        (true, Some(reverted.paper), reverted.change.current)
                    }
                    Some(Undone::Superseded { paper, kept }) => (false, Some(paper), kept),
                };
                let paper = match paper {
                    Some(paper) => (crate::study::papers::get(&mut *conn, paper).await?)
                        .map(|paper| paper.external_id),
                    None => None,
                };
                Ok(Undo {
                    undone,
                    paper,
                    rating,
                    progress: progress(conn, target, rater.id).await?,
                })
            })
            .await
    }
}

/// The rater's progress of the target; refused when the paper is no target being rated.
async fn progress(
    conn: &mut SqliteConnection,
    target: PaperKey,
    rater: RaterId,
) -> Result<Progress, StudyError> {
    db::targets::rater_progress(conn, target, rater)
        .await?
        .ok_or_else(|| Refusal::NoSuchTarget(target).into())
}

/// One row of the ratings export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedRating {
    pub target: PaperId,
    pub target_title: String,
    pub paper: PaperId,
    pub paper_title: String,
    pub answer: Answer,
    pub rated_at: String,
    pub rater: RaterName,
    pub note: Option<Note>,
}

impl Handle<'_> {
    /// Every rating (`rater` `None`), or one rater's, by target id, paper id and rater: the
    /// ratings CSV.
    pub async fn ratings(&self, rater: Option<RaterId>) -> Result<Vec<ExportedRating>, StudyError> {
        let rows = db::rating::all_rows(self.db.connections(), rater).await?;
        Ok(exported(rows)?)
    }

    /// [`Handle::judged_pairs`] of the fully rated targets only (with `rater:NAME`, those that
    /// rater rated whole too): the targets the leaderboard evaluates unless asked to include
    /// the partly rated ones, so that trec_eval on these qrels gives its numbers.
    pub async fn judged_pairs_of_finished_targets(
        &self,
        judgments: &Judgments,
    ) -> Result<Vec<(PaperId, PaperId, Stars)>, StudyError> {
        let pairs = self.judged_pairs(judgments).await?;
        let rater = match judgments {
            Judgments::Rater(name) => Some(name),
            _ => None,
        };
        let finished: std::collections::HashSet<PaperId> =
            (db::targets::finished_ids(self.db.connections(), rater).await?)
                .into_iter()
                .collect();
        Ok((pairs.into_iter())
            .filter(|(target, ..)| finished.contains(target))
            .collect())
    }

    /// One judgment per judged pair, as `judgments` asks (`rater:NAME`: that rater's ratings
    /// alone), in whole stars, by target id and paper id: the qrels. A pair is judged by the
    /// raters who gave it stars: one every rater asked marked "can't judge" is left out.
    /// Refused for the mean, whose judgments are fractional, and for a rater the study has not.
    pub async fn judged_pairs(
        &self,
        judgments: &Judgments,
    ) -> Result<Vec<(PaperId, PaperId, Stars)>, StudyError> {
        if !judgments.is_whole() {
            return Err(Refusal::FractionalQrels.into());
        }
        let rows = exported(db::rating::all_rows(self.db.connections(), None).await?)?;
        if let Judgments::Rater(name) = judgments {
            if !rows.iter().any(|row| row.rater == *name) {
                let known = db::raters::find(self.db.connections(), name).await?;
                known.ok_or_else(|| Refusal::UnknownRater(name.clone()))?;
            }
        }
        let picked: Vec<&ExportedRating> = (rows.iter())
            .filter(|row| match judgments {
                Judgments::Rater(name) => row.rater == *name,
                _ => true,
            })
            .collect();
        let mut stars = Vec::new();
        Ok(
            (picked.chunk_by(|a, b| (&a.target, &a.paper) == (&b.target, &b.paper)))
                .filter_map(|of_pair| {
                    stars.clear();
                    stars.extend(of_pair.iter().filter_map(|row| row.answer.stars()));
                    let grade = judgments.of(&mut stars)?.as_stars()?;
                    Some((of_pair[0].target.clone(), of_pair[0].paper.clone(), grade))
                })
                .collect(),
        )
    }
}

/// The ratings as exported from their rows; a row that is no rating fails the read.
fn exported(rows: Vec<db::rating::ExportedRatingRow>) -> Result<Vec<ExportedRating>, sqlx::Error> {
    rows.into_iter().map(ExportedRating::try_from).collect()
}

impl TryFrom<db::rating::ExportedRatingRow> for ExportedRating {
    type Error = sqlx::Error;

    fn try_from(row: db::rating::ExportedRatingRow) -> Result<ExportedRating, sqlx::Error> {
        let unreadable = |what: String| sqlx::Error::Decode(what.into());
        let answer = Answer::stored(row.stars)
            .ok_or_else(|| unreadable(format!("stars out of range: {:?}", row.stars)))?;
        let note = match row.note {
            Some(note) => Note::new(&note).map_err(|invalid| unreadable(invalid.to_string()))?,
            None => None,
        };
        Ok(ExportedRating {
            target: row.target,
            target_title: row.target_title,
            paper: row.paper,
            paper_title: row.paper_title,
            answer,
            rated_at: row.rated_at,
            rater: row.rater,
            note,
        })
    }
}
