//! One error type under the faces: why a command or a query of the study did not happen, as far
//! as the person who asked needs to know. The web answers it with a status and the command
//! line with an exit status (`web::WebError`, `cli::CliError`), each converting it in one
//! place; a cause is kept for the log and never shown.
//!
//! Both drivers' errors become one here, by SQLite's result code: a full disk, a lock held by
//! another process, a file that is no study, or anything else.

use std::fmt;
use std::path::PathBuf;

use crate::domain::{JudgeName, PaperId, PaperKey, PoolDepth, RaterName};
use crate::formats::{InvalidFiles, InvalidInput};
use crate::password::WeakPassword;
use crate::words::plural;

/// What failed underneath, for the log.
pub type Cause = Box<dyn std::error::Error + Send + Sync>;

/// Why a command or a query of the study did not happen. Nothing changed in any case.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// The request cannot be done as asked, for a reason the person can read and act on.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// Another process holds the study's write lock (an import is running): worth another try.
    #[error("{0}")]
    Busy(#[source] Cause),
    /// The disk holding the study (or SQLite's size limit) has no room for the change.
    #[error("{0}")]
    DiskFull(#[source] Cause),
    /// The study file cannot be read as a study: it is no database, or holds rows that are not
    /// what they should be.
    #[error("{0}")]
    Unreadable(#[source] Cause),
    /// Anything else: a failure of the database or of the machine.
    #[error("{0}")]
    Internal(#[source] Cause),
}

/// A request that cannot be done as asked; the message says why, for the person who asked.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// The paper is no target being rated (never one, or dropped).
    #[error("there is no target {} in this study", .0 .0)]
    NoSuchTarget(PaperKey),
    /// The paper (by the id given) is not in the target's pool, or no paper at all.
    #[error("paper {0:?} is not in the pool of this target")]
    NotInPool(PaperId),
    #[error("unknown paper {}: {}", plural(.0.len(), "id", "ids"), quoted(.0))]
    UnknownIds(Vec<PaperId>),
    #[error("not among the targets being rated: {}", quoted(.0))]
    NotChosen(Vec<PaperId>),
    #[error(
        "{} ratings; a target with ratings is dropped from the command line \
         (`paperjudge targets drop`), which keeps them",
        has(.0)
    )]
    HasRatings(Vec<PaperId>),
    #[error(
        "cannot sample {asked} targets: only {available} {} with recommendations {} not chosen",
        plural(*available, "paper", "papers"),
        plural(*available, "is", "are")
    )]
    SampleTooLarge { asked: usize, available: usize },
    /// The pair (by the ids given) is no rated pair of a finished target.
    #[error("paper {paper:?} of target {target:?} is not a rated pair of a finished target")]
    NotRechecked { target: PaperId, paper: PaperId },
    #[error(
        "the pool depth is {current} and cannot change to {requested}: the study already holds \
         recommendations (start a new study file with --db to use another depth)"
    )]
    PoolDepthFixed {
        current: PoolDepth,
        requested: PoolDepth,
    },
    /// Problems in the files of an import.
    #[error(transparent)]
    Invalid(#[from] InvalidFiles),
    #[error("choose a file to import")]
    NoFile,
    /// An import from the browser is uploading or importing.
    #[error(
        "an import is running: wait until it has finished (its page follows it), then import \
         again"
    )]
    ImportRunning,
    #[error("{} exists already; choose a new file for the backup", .0.display())]
    BackupExists(PathBuf),
    #[error("there is no rater {0:?} in this study (`paperjudge raters list` lists them)")]
    UnknownRater(RaterName),
    #[error("the rater {0:?} was removed; `paperjudge raters add` brings them back")]
    RemovedRater(RaterName),
    #[error("there is a rater {0:?} already")]
    RaterExists(RaterName),
    /// A name a person takes for a rater's (or the owner's): one that differs only in case, in
    /// how its letters are encoded, or in letters that look alike.
    #[error(
        "the rater's name {name:?} would be taken for {taken:?}: they differ only in case, in \
         how their letters are encoded, or in letters that look alike; choose another name"
    )]
    RaterNameTaken { name: RaterName, taken: RaterName },
    /// A name whose letters are of several scripts, as a Cyrillic `А` among Latin letters.
    #[error(
        "the rater's name {name:?} mixes the scripts {}: a letter of one can pass for a letter \
         of another, so the name could pass for someone else's; write it in one script",
        .scripts.join(" and ")
    )]
    MixedScripts {
        name: RaterName,
        scripts: Vec<String>,
    },
    #[error(
        "\"owner\" is the study's owner, who signs in with the password given to `serve`; \
         choose another name"
    )]
    OwnerName,
    #[error(
        "the owner's password is the one given to `serve` (--password-file or \
         PAPERJUDGE_PASSWORD): change it there and start the server again"
    )]
    OwnerPassword,
    #[error("the password for {rater:?} {weak}")]
    WeakPassword {
        rater: RaterName,
        weak: WeakPassword,
    },
    #[error("--overlap must be a share from 0 to 1, got {0}")]
    OverlapOutOfRange(f64),
    #[error(
        "--per-target must be from 1 to the raters the study has ({raters}), got {asked}; add \
         raters first (`paperjudge raters add`)"
    )]
    PerTarget { asked: u32, raters: i64 },
    /// 403 on the web: the target has every rater it needs, and this rater is not one of them.
    #[error(
        "target {} has the raters it needs and you are not one of them: `/next` opens the next \
         target that needs you",
        .0 .0
    )]
    TargetTaken(PaperKey),
    #[error(
        "qrels hold whole grades, and --judgments mean gives fractional ones: export qrels with \
         lower-median, upper-median or rater:NAME"
    )]
    FractionalQrels,
    #[error("there is no judge {0:?} in this study (`paperjudge judges list` lists them)")]
    UnknownJudge(JudgeName),
    #[error("there is no trial {0} in this study (`paperjudge judges trials` lists them)")]
    UnknownTrial(i64),
    /// `grades_with` names the model or the command, in words.
    #[error(
        "the judge {judge:?} grades with {grades_with}: its grades come from its runs \
         (`paperjudge judge`); import these under another judge's name"
    )]
    JudgeGradesThroughModel {
        judge: JudgeName,
        grades_with: String,
    },
    #[error(
        "the judge {0:?} holds imported grades: name this run's judge with --name (a judge's \
         grades all come from one source)"
    )]
    JudgeImported(JudgeName),
    /// A run under a judge's name that asks another model or prompt than its grades came from.
    #[error(
        "the judge {judge:?} grades with {differs}: a judge's grades all come from one model \
         and one prompt, so name this run's judge with --name"
    )]
    JudgeChanged { judge: JudgeName, differs: String },
    /// Another run holds the judge, in this process or another (409 on the web); `holder`
    /// says where.
    #[error(
        "the judge {judge:?} is running elsewhere ({holder}): a judge runs in one place at a \
         time; try again once that run has ended (a run whose process was killed lets go 30 s \
         after it was last heard from)"
    )]
    JudgeRunsElsewhere { judge: JudgeName, holder: String },
    /// A judge run of this process is running (409 on the web).
    #[error(
        "a judge is running: wait until it has finished (its page follows it), then start another"
    )]
    JudgeRunning,
    /// A note alone (no stars, no "can't judge") on a pair the rater has not rated.
    #[error(
        "paper {0:?} has no rating of yours yet: a note goes with a rating, so give it stars (or \
         \"can't judge\") first"
    )]
    NoteWithoutRating(PaperId),
    #[error("{0}")]
    InvalidPrompt(String),
    #[error("{0}")]
    InvalidJudgeRun(String),
}

impl Refusal {
    /// A refusal of a change that is not the rater's to make (403 on the web).
    pub fn is_forbidden(&self) -> bool {
        matches!(self, Refusal::TargetTaken(_))
    }

    /// A refusal of a choice of targets (choose, sample, drop).
    pub fn of_choice(&self) -> bool {
        matches!(
            self,
            Refusal::UnknownIds(_)
                | Refusal::NotChosen(_)
                | Refusal::HasRatings(_)
                | Refusal::SampleTooLarge { .. }
        )
    }
}

fn quoted(ids: &[PaperId]) -> String {
    let quoted: Vec<String> = ids.iter().map(|id| format!("{id:?}")).collect();
    quoted.join(", ")
}

fn has(ids: &[PaperId]) -> String {
    format!("{} {}", quoted(ids), plural(ids.len(), "has", "have"))
}

/// SQLite's primary result codes that mean something to the person who asked.
const SQLITE_CORRUPT: i32 = 11;
const SQLITE_BUSY: i32 = 5;
const SQLITE_LOCKED: i32 = 6;
const SQLITE_FULL: i32 = 13;
const SQLITE_NOTADB: i32 = 26;
/// The extended code of a shared-memory file (`-shm`, made as a WAL study opens) that cannot
/// grow: on a disk without a free byte, opening the study fails so rather than as full.
const SQLITE_IOERR_SHMSIZE: i32 = 10 | (19 << 8);

impl StudyError {
    /// A failure of SQLite with the (extended) result code `code`, whichever driver met it.
    fn of_sqlite(code: Option<i32>, cause: Cause) -> StudyError {
        if code == Some(SQLITE_IOERR_SHMSIZE) {
            return StudyError::DiskFull(cause);
        }
        // The primary result code is the low byte of the extended one.
        match code.map(|code| code & 0xff) {
            Some(SQLITE_FULL) => StudyError::DiskFull(cause),
            Some(SQLITE_BUSY | SQLITE_LOCKED) => StudyError::Busy(cause),
            Some(SQLITE_CORRUPT | SQLITE_NOTADB) => StudyError::Unreadable(cause),
            _ => StudyError::Internal(cause),
        }
    }

    /// A study file whose rows are not what they should be: `what` says how.
    pub fn unreadable(what: impl fmt::Display) -> StudyError {
        StudyError::Unreadable(format!("the evaluation cannot read the study: {what}").into())
    }
}

impl From<sqlx::Error> for StudyError {
    fn from(error: sqlx::Error) -> StudyError {
        let code = (error.as_database_error())
            .and_then(|error| error.code())
            .and_then(|code| code.parse::<i32>().ok());
        match error {
            sqlx::Error::Decode(_) | sqlx::Error::ColumnDecode { .. } => {
                StudyError::Unreadable(Box::new(error))
            }
            error => StudyError::of_sqlite(code, Box::new(error)),
        }
    }
}

impl From<rusqlite::Error> for StudyError {
    fn from(error: rusqlite::Error) -> StudyError {
        match &error {
            rusqlite::Error::SqliteFailure(failure, _) => {
                StudyError::of_sqlite(Some(failure.extended_code), Box::new(error))
            }
            rusqlite::Error::FromSqlConversionFailure(..)
            | rusqlite::Error::InvalidColumnType(..)
            | rusqlite::Error::IntegralValueOutOfRange(..) => {
                StudyError::Unreadable(Box::new(error))
            }
            _ => StudyError::Internal(Box::new(error)),
        }
    }
}

impl From<InvalidInput> for StudyError {
    fn from(invalid: InvalidInput) -> StudyError {
        StudyError::Refused(Refusal::Invalid(invalid.into()))
    }
}

impl From<std::io::Error> for StudyError {
    /// A full disk (or quota, or file size limit) as such, anything else as internal.
    fn from(error: std::io::Error) -> StudyError {
        use std::io::ErrorKind;
        match error.kind() {
            ErrorKind::StorageFull | ErrorKind::QuotaExceeded | ErrorKind::FileTooLarge => {
                StudyError::DiskFull(Box::new(error))
            }
            _ => StudyError::Internal(Box::new(error)),
        }
    }
}
