//! The study's guidelines for rating: Markdown the owner writes (`paperjudge guidelines`,
//! `/guidelines`), shown on every rating page above the built-in scale.
//!
//! The rules: every change is a new version, kept whole (a clear too, as a version without
//! text), so that each rating keeps the version it was made under (`ratings.guidelines`) and
//! the checks can tell how the ratings moved when the guidelines changed. Setting the
//! guidelines in force again changes nothing. A machine judge's prompt can read the version
//! in force the same way ([`store::current`]) and keep its number with each grade.

pub(in crate::study) mod store;

use sqlx::SqliteConnection;

use crate::checks::GuidelinesVersionInfo;
use crate::domain::{Guidelines, GuidelinesVersion};
use crate::study::db::{self, Database};
use crate::study::error::StudyError;

/// The guidelines in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurrentGuidelines {
    pub version: GuidelinesVersion,
    pub markdown: Guidelines,
    /// When they were set (RFC 3339).
    pub set_at: String,
}

pub use store::GuidelinesChange;

/// The guidelines' commands and queries (`study.guidelines()`).
#[derive(Debug, Clone, Copy)]
pub struct Handle<'s> {
    db: &'s Database,
}

impl<'s> Handle<'s> {
    pub(in crate::study) fn new(db: &'s Database) -> Handle<'s> {
        Handle { db }
    }

    /// The guidelines in force; `None` when the study has none (never set, or cleared).
    pub async fn current(&self) -> Result<Option<CurrentGuidelines>, StudyError> {
        self.db.read(async |conn| in_force(conn).await).await
    }

    /// Makes `markdown` the study's guidelines, as a new version unless they are so already.
    pub async fn set(&self, markdown: &Guidelines) -> Result<GuidelinesChange, StudyError> {
        self.db
            .write(async |conn| {
                Ok(db::guidelines::change(conn, Some(markdown), &db::now_rfc3339()).await?)
            })
            .await
    }

    /// Clears the study's guidelines (a new version without text), unless it has none.
    pub async fn clear(&self) -> Result<GuidelinesChange, StudyError> {
        self.db
            .write(async |conn| Ok(db::guidelines::change(conn, None, &db::now_rfc3339()).await?))
            .await
    }
}

/// The guidelines in force, read on `conn`; `None` when the study has none.
pub(in crate::study) async fn in_force(
    conn: &mut SqliteConnection,
) -> Result<Option<CurrentGuidelines>, StudyError> {
    let Some(row) = db::guidelines::current(conn).await? else {
        return Ok(None);
    };
    let Some(markdown) = row.markdown else {
        return Ok(None);
    };
    let markdown = Guidelines::new(&markdown).map_err(StudyError::unreadable)?;
    Ok(Some(CurrentGuidelines {
        version: row.version,
        markdown,
        set_at: row.set_at,
    }))
}

/// Every version of the guidelines, oldest first, read on `conn`.
pub(in crate::study) async fn versions(
    conn: &mut SqliteConnection,
) -> Result<Vec<GuidelinesVersionInfo>, StudyError> {
    Ok((db::guidelines::versions(conn).await?.into_iter())
        .map(|row| GuidelinesVersionInfo {
            version: row.version,
            set_at: row.set_at,
            cleared: row.markdown.is_none(),
        })
        .collect())
}
