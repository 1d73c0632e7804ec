//! `paperjudge checks`: can the verdict be trusted.

use super::arguments::{ChecksArgs, StatusFormat};
use super::error::CliError;
use super::output::print;
use crate::leaderboard::Partial;
use crate::study::Study;

pub(super) async fn checks(study: &Study, args: ChecksArgs) -> Result<(), CliError> {
    let partial = if args.include_partial {
        Partial::Include
    } else {
        Partial::Exclude
    };
    let checks = study.evaluation().checks(&args.options, partial).await?;
    let text = match args.format {
        StatusFormat::Text => checks.to_text(),
        StatusFormat::Json => checks.to_json(),
    };
    print(&text, args.format == StatusFormat::Text)
}
