//! `paperjudge leaderboard`: the model comparison as a table, CSV or JSON.

use super::arguments::{LeaderboardArgs, LeaderboardFormat};
use super::output::print;
use super::CliError;
use crate::leaderboard::{Leaderboard, Partial};
use crate::study::Study;

/// `paperjudge leaderboard`: the output kept from an earlier call on the same study revision
/// (see `study::evaluation::kept`), or computed and kept.
pub(super) async fn leaderboard(study: &Study, args: LeaderboardArgs) -> Result<(), CliError> {
    let partial = if args.include_partial {
        Partial::Include
    } else {
        Partial::Exclude
    };
    let (format, per_target) = (args.format, args.per_target);
    let render = |board: &Leaderboard| match format {
        LeaderboardFormat::Table => board.to_table(),
        LeaderboardFormat::Csv if per_target => board.per_target_csv(),
        LeaderboardFormat::Csv => board.to_csv(),
        LeaderboardFormat::Json => board.to_json(per_target),
    };
    // The output's name in the key it is kept under.
    let output = format!("{format:?} per_target={per_target}");
    let evaluation = study.evaluation();
    let text =
        (evaluation.leaderboard_output(&args.options, partial, &output, args.recompute, render))
            .await
            .map_err(|error| {
                CliError::of_study(
                    error,
                    "the leaderboard cannot be computed from the study file",
                )
            })?;
    print(&text, format == LeaderboardFormat::Table)
}
