//! The application layer: everything the app does to a study goes through one handle,
//! [`Study`], whichever face asks (the web's handlers, the command line, the tests).
//!
//! A **command** (rate, undo, choose, drop, re-check, import, set the pool depth) is one
//! durable write transaction that the layer begins and ends: in turn on the [`WriteQueue`],
//! committed (WAL, `synchronous = FULL`) before the command answers, rolled back on any error.
//! A **query** (a rating page, the target list, a search, the leaderboard and its per-target
//! view, the checks, the status, the next target, the exports) is one read. Either answers a
//! value or a [`StudyError`].
//!
//! The rules live here, each command in its module; the SQL lives below, in `db`, a module
//! private to the study (no face can name it), and so do the importers ([`import`]); the
//! faces only read a request and show the answer. A new command is one more method of
//! [`Study`] in its module, its work inside [`Study::write`].

mod db;
mod error;
pub mod evaluation;
mod guidelines;
pub mod import;
pub mod judges;
mod lists;
mod papers;
mod pool;
mod pruning;
mod raters;
mod rating;
mod recheck;
mod status;
mod targets;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rusqlite::TransactionBehavior;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{SqliteConnection, SqlitePool};

use crate::blocking;
use db::{WriteQueue, Writer};

// Values of the domain the study's views carry, named where the views are.
pub use crate::domain::{Progress, TargetChoice};
pub use error::{Cause, Refusal, StudyError};
pub use evaluation::{Evaluated, EvaluationSet, ModelOnTarget, TargetView};
pub use guidelines::{CurrentGuidelines, GuidelinesChange};
pub use import::{
    ImportFile, ImportProgress, JobFailure, JobId, JobReport, JobState, Outcome, Upload, JOBS_KEPT,
};
pub use papers::{Among, Hit, ListedPaper, Paper, PooledPaper, Search, MARK_END, MARK_START};
pub use pool::{BlindPoolChange, ExportedPoolEntry};
pub use pruning::Pruning;
pub use raters::{Added, Credential, Rater, RaterProgress, Raters, RatingPlan};
pub use rating::{Edit, ExportedRating, RaterNote, Rating, RatingPage, Undo};
pub use recheck::{Recheck, RecheckProgress};
pub use status::StudyStatus;
pub use targets::{
    Chosen, DropRule, Dropped, Listing, NextTarget, Overview, RaterOverview, TargetList,
    TargetSummary,
};

/// One study file, as the app works on it. Cloning it is cheap: clones share the connections,
/// the write queue and the evaluation kept in memory.
#[derive(Debug, Clone)]
pub struct Study {
    /// The study file's connections: every query's read and every command's write but an
    /// import of papers or lists, which opens a connection of its own (see [`import`]).
    connections: SqlitePool,
    path: Arc<Path>,
    write_queue: WriteQueue,
    /// What is kept of the evaluation between queries: the set of the study's current
    /// revision and its recent leaderboards.
    evaluations: Arc<evaluation::Evaluations>,
    /// The lists views of the study's current revision.
    kept_lists: Arc<lists::KeptLists>,
    /// The imports from the browser, the running one and the last ones.
    jobs: Arc<import::ImportJobs>,
    /// The judge run of this process, and those from the browser.
    judge_runs: Arc<judges::JudgeRuns>,
    /// The judges' progress as last read (the owner's dashboard shows it on every visit).
    judge_progress: Arc<judges::KeptProgress>,
}

impl Study {
    /// Opens the study file at `path`, creating it if missing, and brings its schema up to
    /// date.
    pub async fn open(path: &Path) -> Result<Study, StudyError> {
        Study::open_with(db::connect_options(path)).await
    }

    /// How every connection to the study file at `path` is set up (WAL, durable commits,
    /// foreign keys, the busy timeout): for [`Study::open_with`] with settings of its own, and
    /// for another program's connections to the same file.
    pub fn connect_options(path: &Path) -> SqliteConnectOptions {
        db::connect_options(path)
    }

    /// Opens the study with connections set up as `options` say (the tests' full disk).
    pub async fn open_with(options: SqliteConnectOptions) -> Result<Study, StudyError> {
        let path: PathBuf = options.get_filename().to_owned();
        let connections = db::open_with(options).await?;
        Ok(Study {
            connections,
            path: path.into(),
            write_queue: WriteQueue::default(),
            evaluations: Arc::default(),
            kept_lists: Arc::default(),
            jobs: Arc::default(),
            judge_runs: Arc::default(),
            judge_progress: Arc::default(),
        })
    }

    /// The study file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Leaves the study file whole on its own, then closes the connections (see
    /// [`db::close`]). Every command of the command line ends here, the server once it has
    /// stopped.
    pub async fn close(&self) {
        db::close(&self.connections).await;
    }

    /// Runs the work of a command in one write transaction of its own, in turn on the write
    /// queue: committed durably when `work` succeeds, rolled back when it fails. A command
    /// waits at most [`db::LOCK_WAIT`] for another process's write (an import).
    async fn write<T>(
        &self,
        work: impl AsyncFnOnce(&mut SqliteConnection) -> Result<T, StudyError>,
    ) -> Result<T, StudyError> {
        self.write_as(Writer::Command, work).await
    }

    /// [`Study::write`], on a connection set up for `writer`.
    async fn write_as<T>(
        &self,
        writer: Writer,
        work: impl AsyncFnOnce(&mut SqliteConnection) -> Result<T, StudyError>,
    ) -> Result<T, StudyError> {
        let turn = self.write_queue.turn(writer).await?;
        let mut tx = turn.begin(&self.connections).await?;
        let done = work(&mut tx).await;
        tx.finish(done).await
    }

    /// Opens a connection of its own to the study for a command that builds pools, set up for
    /// `writer` (see [`db::direct::open_writer`]).
    async fn open_directly(&self, writer: Writer) -> Result<rusqlite::Connection, StudyError> {
        let path = self.path.to_path_buf();
        Ok(blocking::run(move || db::direct::open_writer(&path, writer)).await?)
    }

    /// Runs the work of a command that builds pools (choosing targets, pruning) in an
    /// immediate transaction on a connection of its own stepped directly, as
    /// [`Study::write_directly_as`] says.
    async fn write_directly<T: Send + 'static>(
        &self,
        work: impl FnOnce(&rusqlite::Transaction) -> Result<T, StudyError> + Send + 'static,
    ) -> Result<T, StudyError> {
        let conn = self.open_directly(Writer::Command).await?;
        self.write_directly_as(Writer::Command, conn, work).await
    }

    /// Runs the work of `writer` in an immediate transaction of its own on `conn`, a
    /// connection of its own stepped directly (opened for `writer`), in this process's turn of
    /// the write queue, on a thread that may block: committed durably when `work` succeeds,
    /// rolled back when it fails. The connection is closed at the end.
    async fn write_directly_as<T: Send + 'static>(
        &self,
        writer: Writer,
        mut conn: rusqlite::Connection,
        work: impl FnOnce(&rusqlite::Transaction) -> Result<T, StudyError> + Send + 'static,
    ) -> Result<T, StudyError> {
        let _turn = self.write_queue.turn(writer).await?;
        blocking::run(move || {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let done = work(&tx)?;
            tx.commit()?;
            Ok(done)
        })
        .await
    }

    /// Runs the reads of a query in one read transaction, so that they see one state of the
    /// study.
    async fn read<T>(
        &self,
        work: impl AsyncFnOnce(&mut SqliteConnection) -> Result<T, StudyError>,
    ) -> Result<T, StudyError> {
        let mut tx = self.connections.begin().await?;
        let read = work(&mut tx).await?;
        tx.commit().await?;
        Ok(read)
    }

    /// Writes a consistent snapshot of the study to `file` (which must not exist) while others
    /// go on reading and writing (see [`db::backup`]).
    pub async fn backup(&self, file: &Path) -> Result<(), StudyError> {
        let exists = || Refusal::BackupExists(file.to_owned());
        if file.exists() {
            return Err(exists().into());
        }
        db::backup(&self.connections, file)
            .await
            .map_err(|error| match error {
                sqlx::Error::Io(io) if io.kind() == std::io::ErrorKind::AlreadyExists => {
                    exists().into()
                }
                error => StudyError::from(error),
            })
    }

    /// The study's secret for signing the forms' tokens (made when the study was created).
    pub async fn form_secret(&self) -> Result<Vec<u8>, StudyError> {
        Ok(db::study::form_secret(&self.connections).await?)
    }
}
