//! `paperjudge backup FILE`: a consistent copy of the study.

use std::path::Path;

use super::error::CliError;
use crate::study::Study;

pub(super) async fn backup(study: &Study, db: &Path, file: &Path) -> Result<(), CliError> {
    let is_the_study = match (db.canonicalize(), file.canonicalize()) {
        (Ok(db), Ok(file)) => db == file,
        _ => false,
    };
    if is_the_study {
        return Err(CliError::Usage(format!(
            "{} is the study itself (--db); choose a new file for the backup",
            file.display()
        )));
    }
    study.backup(file).await.map_err(|error| {
        CliError::of_study(
            error,
            &format!("cannot write the backup {}", file.display()),
        )
    })?;
    crate::tell!("backup written to {}", file.display());
    Ok(())
}
