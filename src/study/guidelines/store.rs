//! The study's guidelines: every version the owner set, kept whole.

use sqlx::{SqliteConnection, SqliteExecutor};

use crate::domain::{Guidelines, GuidelinesVersion};
use crate::study::db::column::Stored;

/// What a change of the guidelines did: the version in force after it (`None`: the study
/// never had guidelines), and whether it made a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuidelinesChange {
    pub version: Option<GuidelinesVersion>,
    pub changed: bool,
}

/// One version of the guidelines as stored: its Markdown (`None`: the version that cleared
/// them) and when it was set (RFC 3339).
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct VersionRow {
    #[sqlx(try_from = "Stored<GuidelinesVersion>")]
    pub version: GuidelinesVersion,
    pub markdown: Option<String>,
    pub set_at: String,
}

/// The last version: the guidelines in force (cleared ones: `markdown` `None`); `None` before
/// the study had any.
pub async fn current<'e, E: SqliteExecutor<'e>>(
    executor: E,
) -> Result<Option<VersionRow>, sqlx::Error> {
    sqlx::query_as("SELECT version, markdown, set_at FROM guidelines ORDER BY version DESC LIMIT 1")
        .fetch_optional(executor)
        .await
}

/// Every version, oldest first.
pub async fn versions<'e, E: SqliteExecutor<'e>>(
    executor: E,
) -> Result<Vec<VersionRow>, sqlx::Error> {
    sqlx::query_as("SELECT version, markdown, set_at FROM guidelines ORDER BY version")
        .fetch_all(executor)
        .await
}

/// Makes `markdown` the guidelines in force (`None`: clears them), as a new version, unless
/// they are so already.
pub async fn change(
    conn: &mut SqliteConnection,
    markdown: Option<&Guidelines>,
    set_at: &str,
) -> Result<GuidelinesChange, sqlx::Error> {
    let current = current(&mut *conn).await?;
    let in_force = current.as_ref().and_then(|row| row.markdown.as_deref());
    if in_force == markdown.map(Guidelines::as_str) {
        return Ok(GuidelinesChange {
            version: current.map(|row| row.version),
            changed: false,
        });
    }
    let Stored(version) = sqlx::query_scalar::<_, Stored<GuidelinesVersion>>(
        "INSERT INTO guidelines (version, markdown, set_at)
         VALUES ((SELECT COALESCE(MAX(version), 0) + 1 FROM guidelines), ?, ?)
         RETURNING version",
    )
    .bind(markdown.map(Guidelines::as_str))
    .bind(set_at)
    .fetch_one(conn)
    .await?;
    Ok(GuidelinesChange {
        version: Some(version),
        changed: true,
    })
}
