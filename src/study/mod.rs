//! The application layer: everything the app does to a study goes through one handle,
//! [`Study`], whichever face asks (the web's handlers, the command line, the tests).
//!
//! A **command** (rate, undo, choose, drop, re-check, import, set the pool depth) is one
//! durable write transaction that the layer begins and ends: in turn on the study's write
//! queue, committed (WAL, `synchronous = FULL`) before the command answers, rolled back on any
//! error. A **query** (a rating page, the target list, a search, the leaderboard and its
//! per-target view, the checks, the status, the next target, the exports) is one read. Either
//! answers a value or a [`StudyError`].
//!
//! The rules live here, each feature in its module; each feature's SQL lives in its `store`
//! module, private to the study (no face can name it, see `db`); the faces only read a request
//! and show the answer. A new command is one more method of its feature's handle
//! (`study.rating()`, `study.targets()`, ...), its work inside the database's `write`.

mod db;
mod error;
pub mod evaluation;
pub mod guidelines;
pub mod import;
pub mod judges;
pub mod lists;
pub mod papers;
pub mod pool;
pub mod pruning;
pub mod raters;
pub mod rating;
pub mod recheck;
pub mod status;
pub mod targets;

use std::path::Path;
use std::sync::Arc;

use sqlx::sqlite::SqliteConnectOptions;

use db::Database;

pub use error::{Cause, Refusal, StudyError};

/// One study file, as the app works on it: its connections and write queue, what it keeps in
/// memory, and a handle per feature ([`Study::rating`], [`Study::targets`], ...) whose methods
/// are the feature's commands and queries. Cloning it is cheap: clones share the connections,
/// the write queue and what is kept.
#[derive(Debug, Clone)]
pub struct Study {
    db: Database,
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
        Ok(Study {
            db: Database::open_with(options).await?,
            evaluations: Arc::default(),
            kept_lists: Arc::default(),
            jobs: Arc::default(),
            judge_runs: Arc::default(),
            judge_progress: Arc::default(),
        })
    }

    /// The study file.
    pub fn path(&self) -> &Path {
        self.db.path()
    }

    /// Leaves the study file whole on its own, then closes the connections (see
    /// [`db::close`]). Every command of the command line ends here, the server once it has
    /// stopped.
    pub async fn close(&self) {
        db::close(self.db.connections()).await;
    }

    /// Writes a consistent snapshot of the study to `file` (which must not exist) while others
    /// go on reading and writing (see [`db::backup`]).
    pub async fn backup(&self, file: &Path) -> Result<(), StudyError> {
        let exists = || Refusal::BackupExists(file.to_owned());
        if file.exists() {
            return Err(exists().into());
        }
        db::backup(self.db.connections(), file)
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
        Ok(db::study::form_secret(self.db.connections()).await?)
    }

    /// Rating: a rater's rating page, their ratings and undos, the ratings as exported.
    pub fn rating(&self) -> rating::Handle<'_> {
        rating::Handle::new(&self.db)
    }

    /// The study's guidelines for rating.
    pub fn guidelines(&self) -> guidelines::Handle<'_> {
        guidelines::Handle::new(&self.db)
    }

    /// The evaluation: the leaderboard, its per-target view, the checks.
    pub fn evaluation(&self) -> evaluation::Handle<'_> {
        evaluation::Handle::new(self)
    }

    /// The imports: from files, from the browser's uploads, the demo.
    pub fn import(&self) -> import::Handle<'_> {
        import::Handle::new(self)
    }

    /// The judges: their grades, runs, trials and audits.
    pub fn judges(&self) -> judges::Handle<'_> {
        judges::Handle::new(self)
    }

    /// Pruning: the models the verdict ruled out leave the pools built from then on.
    pub fn pruning(&self) -> pruning::Handle<'_> {
        pruning::Handle::new(&self.db, self.evaluation())
    }

    /// The targets: which the study rates, how far each is, the next to rate, the search.
    pub fn targets(&self) -> targets::Handle<'_> {
        targets::Handle::new(&self.db, self.pruning())
    }

    /// The blind pool: its rows as exported, its depth.
    pub fn pool(&self) -> pool::Handle<'_> {
        pool::Handle::new(&self.db)
    }

    /// The raters, their plan, and who signs in as whom.
    pub fn raters(&self) -> raters::Handle<'_> {
        raters::Handle::new(&self.db)
    }

    /// Re-checking: a rated pair of a finished target shown again, blind.
    pub fn recheck(&self) -> recheck::Handle<'_> {
        recheck::Handle::new(&self.db)
    }

    /// The counts `paperjudge status` prints, from one read of the study.
    pub async fn status(&self) -> Result<status::StudyStatus, StudyError> {
        status::read(&self.db).await
    }

    /// What the models' lists say, before a rating.
    pub fn lists(&self) -> lists::Handle<'_> {
        lists::Handle::new(&self.db, &self.kept_lists)
    }
}
