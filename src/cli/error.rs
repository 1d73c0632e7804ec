//! Why a command failed ([`CliError`]), and so its message and exit status.

use crate::formats::{InvalidFiles, InvalidInput};
use crate::study::{Refusal, StudyError};

/// Why a command failed, and so its exit status.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad usage or a file that cannot be used: exit status 2.
    #[error("{0}")]
    Usage(String),
    /// Problems in input files: exit status 2.
    #[error("{0}")]
    Invalid(#[from] InvalidFiles),
    /// A command that could not do what it was asked, for a reason it says (a judge's endpoint
    /// down): exit status 1.
    #[error("{0}")]
    Failed(String),
    /// Anything else: exit status 1. The cause is logged, not printed as is.
    #[error("{context}")]
    Internal {
        context: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl CliError {
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Usage(_) | CliError::Invalid(_) => 2,
            CliError::Failed(_) | CliError::Internal { .. } => 1,
        }
    }

    pub(super) fn internal(
        context: &str,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> CliError {
        CliError::Internal {
            context: context.to_owned(),
            source: Box::new(source),
        }
    }
}

/// A study's error as the command line says it: a refusal is bad input (exit status 2), with
/// its reason (a refused choice of targets adds that nothing changed); another process holding
/// the study's write lock is a failure worth another try (exit status 1); anything else is
/// internal (exit status 1), said as `context`, with the cause when a person can act on it (a
/// full disk).
impl CliError {
    pub(super) fn of_study(error: StudyError, context: &str) -> CliError {
        match error {
            StudyError::Refused(Refusal::Invalid(invalid)) => CliError::Invalid(invalid),
            StudyError::Refused(refusal) if refusal.of_choice() => {
                CliError::Usage(format!("{refusal}; nothing changed"))
            }
            StudyError::Refused(refusal) => CliError::Usage(refusal.to_string()),
            StudyError::Busy(_) => CliError::Failed(format!("{context}: {ANOTHER_WRITER}")),
            error @ StudyError::DiskFull(_) => CliError::internal(
                &format!(
                    "{context}: the disk holding the study is full; free some space on it, then \
                     try again"
                ),
                error,
            ),
            error => CliError::internal(context, error),
        }
    }
}

impl From<InvalidInput> for CliError {
    fn from(invalid: InvalidInput) -> CliError {
        CliError::Invalid(invalid.into())
    }
}

impl From<StudyError> for CliError {
    fn from(error: StudyError) -> CliError {
        match error {
            // Nothing failed: the study was busy.
            StudyError::Busy(_) => CliError::Failed(ANOTHER_WRITER.to_owned()),
            error => CliError::of_study(error, "the study database failed"),
        }
    }
}

/// Why a command found the study busy (SQLite cannot say which process holds its lock), and
/// what to do.
const ANOTHER_WRITER: &str = "another process is writing to the study (an import, a judge's \
     run or a server saving a rating), so nothing changed; try again once it has finished";
