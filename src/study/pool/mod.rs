//! The blind pool: its depth (a setting of the study, [`depth`]), what a change of it did, and
//! its rows as exported (no model, rank or score).

mod depth;
/// The feature's SQL: reached by the study only (as `db::pool` too).
pub(in crate::study) mod store;

use crate::domain::PaperId;
use crate::study::db::{self, Database};
use crate::study::error::StudyError;

/// What refreshing a target's pool changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlindPoolChange {
    pub added: u64,
    pub removed: u64,
}

/// One row of the blind pool export: `position` is the 1-based order shown to the rater.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportedPoolEntry {
    pub target: PaperId,
    pub paper: PaperId,
    pub position: i64,
    pub stars: Option<i64>,
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
        Ok(db::pool::all_rows(self.db.connections()).await?)
    }
}
