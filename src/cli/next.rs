//! `paperjudge next`: the target to rate next.

use super::arguments::{rater_name, StatusFormat};
use super::error::CliError;
use super::output::print;
use crate::study::raters::Rater;
use crate::study::Study;

/// `paperjudge next [--rater NAME]`: the id of the target `/next` opens for the rater (who
/// takes it), nothing when no target needs them. While pruning is on, the models the verdict
/// rules out are pruned first, so that the pool of the target it names leaves them out (see
/// `study.targets().next`).
pub(super) async fn next(
    study: &Study,
    rater: Option<&str>,
    format: StatusFormat,
) -> Result<(), CliError> {
    let rater = match rater {
        None => Rater::owner(),
        Some(name) => study.raters().named(&rater_name(name)?).await?,
    };
    let next = (study.targets().next(&rater).await?).map(|next| (next.target, next.progress));
    let text = match (format, next) {
        (StatusFormat::Text, None) => String::new(),
        (StatusFormat::Text, Some((paper, _))) => format!("{}\n", paper.external_id),
        (StatusFormat::Json, None) => "{\"target\":null}\n".to_owned(),
        (StatusFormat::Json, Some((paper, progress))) => format!(
            "{}\n",
            serde_json::json!({
                "target": paper.external_id,
                "title": paper.title,
                "rated": progress.rated,
                "pooled": progress.total,
                "path": format!("/targets/{}", paper.id),
            })
        ),
    };
    print(&text, format == StatusFormat::Text)
}
