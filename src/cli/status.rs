//! `paperjudge status`: the study's counts.

use super::arguments::StatusFormat;
use super::error::CliError;
use super::output::print;
use super::render::status_text;
use crate::study::Study;

pub(super) async fn status(study: &Study, format: StatusFormat) -> Result<(), CliError> {
    let status = study.status().await?;
    let text = match format {
        StatusFormat::Json => format!(
            "{}\n",
            serde_json::to_string(&status)
                .map_err(|error| CliError::internal("cannot encode the status", error))?
        ),
        StatusFormat::Text => status_text(&status),
    };
    print(&text, format == StatusFormat::Text)
}
