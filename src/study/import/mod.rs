//! Importers: papers, recommendations, ratings and a machine judge's grades (judgments), each
//! read whole from a file and checked ([`Bulk::read`], [`ratings::stage`], [`judgments::stage`])
//! before anything is written, then written in one
//! transaction by the study's import command (`Study::import`), so that a file (or the files of
//! one import) is imported whole or not at all.
//!
//! Every importer reads its file through the one reader of records
//! ([`crate::formats::records`]); a file is
//! read before it is written, and the first (or only) file of an import before the study's
//! write lock is taken, so that raters are kept waiting only while it writes. Papers and lists
//! are written directly on a connection of the import's own ([`Bulk::write`]); ratings as the
//! raters' are ([`ratings::Staged::write`]); a judge's grades apart from both, by the study.
//! The SQL that writes the models' lists is [`store`]; an import from the browser is a job of
//! its own ([`upload`]: the files received, then imported as the command line would).

mod command;
pub mod judgments;
pub mod papers;
pub mod ratings;
pub mod recommendations;
pub(in crate::study) mod store;
mod upload;

use std::fmt;
use std::io::Read;
use std::ops::AddAssign;

use rand::Rng;

use crate::formats::{Format, InvalidInput, RowsRead};
use crate::study::db::papers::PaperIndex;
use crate::study::db::raters::KnownRater;

pub use command::{ImportFile, ImportProgress};

/// The imports (`study.import()`): files of papers, lists, ratings or judgments, from the
/// command line or uploaded from the browser as jobs.
#[derive(Debug, Clone, Copy)]
pub struct Handle<'s> {
    /// The study: an upload holds a clone of it until its import ends.
    study: &'s crate::study::Study,
}

impl<'s> Handle<'s> {
    pub(in crate::study) fn new(study: &'s crate::study::Study) -> Handle<'s> {
        Handle { study }
    }
}
pub(in crate::study) use upload::ImportJobs;
pub use upload::{JobFailure, JobId, JobReport, JobState, Outcome, Upload, JOBS_KEPT};

/// What a file holds, and how to read it.
#[derive(Debug, Clone)]
pub enum Kind {
    Papers(Format),
    Recommendations(recommendations::Options),
    Ratings(ratings::Options),
    /// A machine judge's grades, never ratings.
    Judgments(judgments::Options),
}

impl Kind {
    /// What the file holds, in a word: `papers`, `recommendations`, `ratings` or `judgments`.
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Papers(_) => "papers",
            Kind::Recommendations(_) => "recommendations",
            Kind::Ratings(_) => "ratings",
            Kind::Judgments(_) => "judgments",
        }
    }
}

/// A file of papers or of lists, and how to read it.
#[derive(Debug, Clone)]
pub enum BulkKind {
    Papers(Format),
    Recommendations(recommendations::Options),
}

impl BulkKind {
    /// Whether the file's rows name papers of the study, resolved against its paper index.
    pub fn resolves_ids(&self) -> bool {
        matches!(self, BulkKind::Recommendations(_))
    }
}

/// A file of papers or lists, read and checked, written directly on the import's own
/// connection.
pub enum Bulk {
    Papers(papers::Staged),
    Recommendations(recommendations::Staged),
}

impl Bulk {
    /// Reads and checks a whole file: nothing is written. `papers` is the study's paper index
    /// when the kind [resolves ids](BulkKind::resolves_ids) (any index otherwise); `source`
    /// names the file in problems; every row read is counted in `rows`.
    pub fn read<R: Read>(
        kind: &BulkKind,
        reader: R,
        papers: PaperIndex,
        source: &str,
        rows: &RowsRead,
    ) -> Result<Bulk, InvalidInput> {
        Ok(match kind {
            BulkKind::Papers(format) => Bulk::Papers(papers::stage(reader, *format, source, rows)?),
            BulkKind::Recommendations(options) => Bulk::Recommendations(recommendations::stage(
                reader, options, papers, source, rows,
            )?),
        })
    }

    /// Writes what was read inside the caller's transaction on the import's connection;
    /// `rng` draws the display keys of the pairs entering the pool.
    pub fn write(
        self,
        conn: &rusqlite::Connection,
        rng: &mut impl Rng,
    ) -> rusqlite::Result<Summary> {
        match self {
            Bulk::Papers(staged) => staged.write(conn),
            Bulk::Recommendations(staged) => staged.write(conn, rng),
        }
    }
}

/// What an import did, printed as one line at its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    /// What `added`, `updated` and `unchanged` count: papers, lists or ratings.
    pub items: &'static str,
    /// Data rows read from the file.
    pub read: u64,
    pub added: u64,
    pub updated: u64,
    pub unchanged: u64,
    /// Rows left out on purpose (a model recommending the target itself).
    pub dropped: u64,
    pub pool_added: u64,
    pub pool_removed: u64,
}

impl Summary {
    /// Whether the import changed the study: an item or a pair of the pool added, updated or
    /// removed. A file with a header and no rows, or with the rows stored already, does not.
    pub fn changed(&self) -> bool {
        self.added + self.updated + self.pool_added + self.pool_removed > 0
    }

    pub fn new(items: &'static str) -> Summary {
        Summary {
            items,
            read: 0,
            added: 0,
            updated: 0,
            unchanged: 0,
            dropped: 0,
            pool_added: 0,
            pool_removed: 0,
        }
    }
}

/// The files of one import, summed up: what each file's line would say, added.
impl AddAssign for Summary {
    fn add_assign(&mut self, file: Summary) {
        self.read += file.read;
        self.added += file.added;
        self.updated += file.updated;
        self.unchanged += file.unchanged;
        self.dropped += file.dropped;
        self.pool_added += file.pool_added;
        self.pool_removed += file.pool_removed;
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "read {} rows; {}: {} added, {} updated, {} unchanged; {} rows dropped",
            self.read, self.items, self.added, self.updated, self.unchanged, self.dropped
        )?;
        if self.pool_added > 0 || self.pool_removed > 0 {
            write!(
                f,
                "; pool: {} pairs added, {} removed",
                self.pool_added, self.pool_removed
            )?;
        }
        if !self.changed() {
            write!(f, "; nothing changed")?;
        }
        Ok(())
    }
}
