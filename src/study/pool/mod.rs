//! The blind pool: its depth (a setting of the study, [`depth`]), what a change of it did, and
//! its rows as exported (no model, rank or score).

mod depth;
/// The feature's SQL: reached by the study only (as `db::pool` too).
pub(in crate::study) mod store;

use crate::domain::PaperId;
use crate::study::db::{self, Database};
use crate::study::error::StudyError;

pub use store::BlindPoolChange;

/// One row of the blind pool export: `position` is the 1-based order shown to the rater.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedPoolEntry {
    pub target: PaperId,
    pub paper: PaperId,
    pub position: i64,
    pub stars: Option<i64>,
}

impl From<store::ExportedPoolEntryRow> for ExportedPoolEntry {
    fn from(row: store::ExportedPoolEntryRow) -> ExportedPoolEntry {
        ExportedPoolEntry {
            target: row.target,
            paper: row.paper,
            position: row.position,
            stars: row.stars,
        }
    }
}

/// The blind pool's command and query (`study.pool()`).
#[derive(Debug, Clone, Copy)]
pub struct Handle<'s> {
    db: &'s Database,
}

impl<'s> Handle<'s> {
    pub(in crate::study) fn new(db: &'s Database) -> Handle<'s> {
        Handle { db }
    }

    /// The blind pool of every target being rated, by target id and display position.
    pub async fn entries(&self) -> Result<Vec<ExportedPoolEntry>, StudyError> {
        let rows = db::pool::all_rows(self.db.connections()).await?;
        Ok(rows.into_iter().map(ExportedPoolEntry::from).collect())
    }
}
