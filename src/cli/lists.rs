//! `paperjudge lists`: what the models' lists say, over the fully rated targets (with
//! `--include-partial`, the targets still being rated too).

use super::arguments::{LeaderboardFormat, ListsArgs};
use super::error::CliError;
use super::output::write_output;
use crate::leaderboard::Partial;
use crate::lists::ListsOptions;
use crate::study::Study;

pub(super) async fn lists(study: &Study, args: ListsArgs) -> Result<(), CliError> {
    let options = ListsOptions {
        k: args.k,
        rbo_p: args.rbo_p,
        partial: match args.include_partial {
            true => Partial::Include,
            false => Partial::Exclude,
        },
    };
    let lists = (study.lists().view(&options).await).map_err(|error| {
        CliError::of_study(error, "the lists cannot be read from the study file")
    })?;
    let text = match args.format {
        LeaderboardFormat::Table => lists.to_table(),
        LeaderboardFormat::Csv => lists.to_csv(),
        LeaderboardFormat::Json => lists.to_json(),
    };
    write_output(None, |out| out.write_all(text.as_bytes()))
}
