//! `paperjudge backup FILE`: a consistent copy of the study.

use std::path::Path;

use super::error::CliError;
use super::output::refuse_the_study;
use crate::study::Study;

pub(super) async fn backup(study: &Study, db: &Path, file: &Path) -> Result<(), CliError> {
    refuse_the_study(db, file, "backup")?;
    study.backup(file).await.map_err(|error| {
        CliError::of_study(
            error,
            &format!("cannot write the backup {}", file.display()),
        )
    })?;
    crate::tell!("backup written to {}", file.display());
    Ok(())
}
