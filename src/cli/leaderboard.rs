//! `paperjudge leaderboard`: the model comparison as a table, CSV or JSON.

use super::arguments::{LeaderboardArgs, LeaderboardFormat};
use super::output::print;
use super::CliError;
use crate::leaderboard::Partial;
use crate::study::Study;

/// `paperjudge leaderboard`.
pub(super) async fn leaderboard(study: &Study, args: LeaderboardArgs) -> Result<(), CliError> {
    let partial = if args.include_partial {
        Partial::Include
    } else {
        Partial::Exclude
    };
    let evaluated =
        (study.evaluation().leaderboard(&args.options, partial).await).map_err(|error| {
            CliError::of_study(
                error,
                "the leaderboard cannot be computed from the study file",
            )
        })?;
    let board = &evaluated.board;
    let text = match args.format {
        LeaderboardFormat::Table => board.to_table(),
        LeaderboardFormat::Csv if args.per_target => board.per_target_csv(),
        LeaderboardFormat::Csv => board.to_csv(),
        LeaderboardFormat::Json => board.to_json(args.per_target),
    };
    print(&text, args.format == LeaderboardFormat::Table)
}
