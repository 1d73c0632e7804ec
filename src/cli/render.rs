//! The text and CSV renderers of the command line's own outputs (the leaderboard, the checks
//! and the lists render themselves): tables for a terminal, CSV and JSON rows.

use crate::domain::TargetChoice;
use crate::study::status::StudyStatus;
use crate::study::targets::TargetSummary;
use crate::terminal::cell;

/// A target as `targets list --format json` writes it.
#[derive(Debug, serde::Serialize)]
pub(super) struct ListedTarget<'a> {
    target: &'a str,
    title: &'a str,
    rated: i64,
    pooled: i64,
    finished: bool,
}

impl ListedTarget<'_> {
    pub(super) fn new(target: &TargetSummary) -> ListedTarget<'_> {
        ListedTarget {
            target: target.external_id.as_str(),
            title: &target.title,
            rated: target.rated,
            pooled: target.total,
            finished: target.finished,
        }
    }
}

pub(super) fn targets_table(targets: &[TargetSummary]) -> String {
    let ids: Vec<_> = (targets.iter())
        .map(|target| cell(target.external_id.as_str()))
        .collect();
    let width = (ids.iter())
        .map(|id| id.chars().count())
        .max()
        .unwrap_or(0)
        .max("target".len());
    let mut text = format!("{:<width$}  rated/pooled  title\n", "target");
    for (target, id) in targets.iter().zip(&ids) {
        let progress = format!("{}/{}", target.rated, target.total);
        text.push_str(&format!(
            "{id:<width$}  {progress:>12}  {}\n",
            cell(&target.title)
        ));
    }
    text
}

pub(super) fn targets_csv(targets: &[TargetSummary]) -> Result<String, csv::Error> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    writer.write_record(["target", "title", "rated", "pooled", "finished"])?;
    for target in targets {
        writer.write_record([
            target.external_id.as_str(),
            target.title.as_str(),
            &target.rated.to_string(),
            &target.total.to_string(),
            &target.finished.to_string(),
        ])?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|error| csv::Error::from(error.into_error()))?;
    Ok(String::from_utf8(bytes).unwrap_or_default())
}

/// The raters' lines of `status`: each rater's ratings and targets; nothing without raters.
pub(super) fn raters_status(raters: &[crate::study::raters::RaterProgress]) -> String {
    let lines: String = (raters.iter())
        .map(|rater| {
            let line = format!(
                "rater {}  {} ratings, {} targets finished, {} in progress{}",
                rater.name,
                rater.ratings,
                rater.targets_finished,
                rater.targets_in_progress,
                if rater.active { "" } else { " (removed)" }
            );
            format!("{}\n", crate::terminal::escape(&line))
        })
        .collect();
    lines
}

pub(super) fn raters_table(raters: &crate::study::raters::Raters) -> String {
    let mut text = format!("{}\n", raters.plan.in_words());
    if raters.raters.is_empty() {
        text.push_str("no raters: the owner rates alone (`paperjudge raters add NAME`)\n");
        return text;
    }
    // A rater's name is short (`RaterName::MAX_CHARACTERS`): no cell to cut.
    let width = (raters.raters.iter())
        .map(|rater| rater.name.as_str().chars().count())
        .max()
        .unwrap_or(0)
        .max("rater".len());
    text.push_str(&format!(
        "{:<width$}  ratings  targets finished  in progress\n",
        "rater"
    ));
    for rater in &raters.raters {
        let line = format!(
            "{:<width$}  {:>7}  {:>16}  {:>11}{}",
            rater.name.as_str(),
            rater.ratings,
            rater.targets_finished,
            rater.targets_in_progress,
            if rater.active { "" } else { "  (removed)" },
        );
        text.push_str(&crate::terminal::escape(&line));
        text.push('\n');
    }
    text
}

/// `status` as text: the study's counts, then each rater's line.
pub(super) fn status_text(status: &StudyStatus) -> String {
    format!(
        "papers           {}\nmodels           {}\ntargets          {} ({} fully rated, {} \
     partly rated; {})\nrecommendations  {}\npooled pairs     {}\nrated pairs      {}\n\
     pool depth       {}\nrating changes with provenance known  {}\npruning          \
     {}\n",
        status.papers,
        status.models,
        status.targets,
        status.targets_finished,
        status.targets_partly_rated,
        match status.target_choice {
            TargetChoice::All => "all with recommendations".to_owned(),
            TargetChoice::Chosen => format!(
                "chosen of {} with recommendations",
                status.candidate_targets
            ),
        },
        status.recommendations,
        status.pooled_pairs,
        status.rated_pairs,
        status.pool_depth,
        status.judgments_with_provenance_known,
        match (status.pruning, &status.pruned_models[..]) {
            (false, _) => "off".to_owned(),
            (true, []) => "on (no model ruled out yet)".to_owned(),
            (true, pruned) => format!("on (left out of new pools: {})", pruned.join(", ")),
        },
    ) + &raters_status(&status.raters)
}
