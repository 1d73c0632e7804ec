//! `paperjudge raters add|remove|password|list|set`.

use super::arguments::{rater_name, RatersCommand, StatusFormat};
use super::error::CliError;
use super::output::print;
use super::passwords::{rater_password, warn_if_others_can_read};
use super::render::raters_table;
use crate::study::raters::Added;
use crate::study::Study;

/// `paperjudge raters add|remove|password|list|set`.
pub(super) async fn raters(study: &Study, command: RatersCommand) -> Result<(), CliError> {
    match command {
        RatersCommand::Add {
            name,
            password_file,
        } => {
            let name = rater_name(&name)?;
            let password = rater_password(&name, password_file.as_deref())?;
            let said = match study.raters().add(&name, &password).await? {
                Added::New => format!("added the rater {name}"),
                Added::Back => format!("{name} is a rater again, with their ratings"),
            };
            if let Some(file) = &password_file {
                warn_if_others_can_read(file);
            }
            crate::tell!("{said}");
        }
        RatersCommand::Password {
            name,
            password_file,
        } => {
            let name = rater_name(&name)?;
            let password = rater_password(&name, password_file.as_deref())?;
            study.raters().set_password(&name, &password).await?;
            if let Some(file) = &password_file {
                warn_if_others_can_read(file);
            }
            crate::tell!(
                "changed the password of {name}: their sessions end at their next request"
            );
        }
        RatersCommand::Remove { name } => {
            let name = rater_name(&name)?;
            study.raters().remove(&name).await?;
            crate::tell!(
                "removed the rater {name}: they can no longer sign in; their ratings stay"
            );
        }
        RatersCommand::List { format } => {
            let raters = study.raters().list().await?;
            let text = match format {
                StatusFormat::Json => format!(
                    "{}\n",
                    serde_json::to_string_pretty(&raters)
                        .map_err(|error| CliError::internal("cannot encode the raters", error))?
                ),
                StatusFormat::Text => raters_table(&raters),
            };
            return print(&text, format == StatusFormat::Text);
        }
        RatersCommand::Set {
            per_target,
            overlap,
        } => {
            let overlap = match overlap.as_deref() {
                None => None,
                Some("default") => Some(None),
                Some(text) => Some(Some(text.parse::<f64>().map_err(|_| {
                    CliError::Usage(format!(
                        "--overlap must be a share from 0 to 1, or default; got {text:?}"
                    ))
                })?)),
            };
            if per_target.is_none() && overlap.is_none() {
                return Err(CliError::Usage(
                    "give --per-target R, --overlap SHARE or both".to_owned(),
                ));
            }
            let plan = study.raters().set_plan(per_target, overlap).await?;
            crate::tell!("{}", plan.in_words());
        }
    }
    Ok(())
}
