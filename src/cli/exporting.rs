//! `paperjudge export`: ratings, qrels, the blind pool or judgments, to a file or stdout.

use std::io::{self};
use std::path::Path;

use super::arguments::{ExportCommand, QrelsTargets};
use super::error::CliError;
use super::judges;
use super::output::{refuse_the_study, write_output};
use crate::export;
use crate::study::Study;

pub(super) async fn run_export(
    study: &Study,
    db: &Path,
    command: ExportCommand,
) -> Result<(), CliError> {
    if let Some(output) = command.output() {
        refuse_the_study(db, output, "export")?;
    }
    match command {
        ExportCommand::Ratings { output } => {
            let rows = study.rating().ratings(None).await?;
            write_output(output.as_deref(), |out| {
                export::ratings_csv(&rows, out).map_err(io::Error::other)
            })
        }
        ExportCommand::Qrels {
            output,
            relevance,
            judgments,
            targets,
        } => {
            let judged = match targets {
                QrelsTargets::All => study.rating().judged_pairs(&judgments).await?,
                QrelsTargets::Finished => {
                    study
                        .rating()
                        .judged_pairs_of_finished_targets(&judgments)
                        .await?
                }
            };
            write_output(output.as_deref(), |out| {
                export::qrels(&judged, relevance, out)
            })
        }
        ExportCommand::Pool { output } => {
            let rows = study.pool().entries().await?;
            write_output(output.as_deref(), |out| {
                export::pool_csv(&rows, out).map_err(io::Error::other)
            })
        }
        ExportCommand::Judgments { output, judge } => {
            let judge = judge.as_deref().map(judges::judge_name).transpose()?;
            let rows = study.judges().grades(judge.as_ref()).await?;
            write_output(output.as_deref(), |out| {
                export::judgments_csv(&rows, out).map_err(io::Error::other)
            })?;
            let unfinished = rows.iter().filter(|row| !row.target_finished).count();
            if unfinished > 0 {
                crate::tell!(
                    "note: {unfinished} of these {} grades are of targets not fully rated: read \
                     before rating them, a machine's grade anchors the rating",
                    rows.len()
                );
            }
            Ok(())
        }
    }
}
