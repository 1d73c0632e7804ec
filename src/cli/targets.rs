//! `paperjudge targets choose|drop|list`.

use std::path::Path;

use rand::{Rng, SeedableRng};

use super::arguments::{ListFormat, TargetsCommand};
use super::error::CliError;
use super::output::print;
use super::render::{targets_csv, targets_table, ListedTarget};
use crate::domain::PaperId;
use crate::study::targets::DropRule;
use crate::study::{Refusal, Study, StudyError};

pub(super) async fn targets(study: &Study, command: TargetsCommand) -> Result<(), CliError> {
    let mut rng = rand::rngs::StdRng::from_os_rng();
    match command {
        TargetsCommand::Choose(args) => {
            if args.seed.is_some() && args.sample.is_none() {
                return Err(CliError::Usage(
                    "--seed goes with --sample N; nothing changed".to_owned(),
                ));
            }
            let said = if args.all {
                let change = study.targets().choose_all(rng).await?;
                format!(
                    "every paper with recommendations is a target again; pool: {} pairs added",
                    change.added
                )
            } else if let Some(count) = args.sample {
                if count == 0 {
                    return Err(CliError::Usage(
                        "--sample must be at least 1; nothing changed".to_owned(),
                    ));
                }
                let seed = args.seed.unwrap_or_else(|| rng.random());
                let chosen = study.targets().choose_sample(count, seed, rng).await?;
                format!("{chosen}\nsampled with --seed {seed}")
            } else {
                let (ids, lines) = match &args.file {
                    Some(file) => ids_from_file(file)?,
                    None => (
                        args.ids.iter().map(|id| PaperId::given(id)).collect(),
                        Vec::new(),
                    ),
                };
                let chosen = (study.targets().choose(&ids, rng).await).map_err(|error| {
                    match (error, &args.file) {
                        (StudyError::Refused(Refusal::UnknownIds(unknown)), Some(file)) => {
                            unknown_in_file(file, &ids, &lines, &unknown)
                        }
                        (error, _) => CliError::from(error),
                    }
                })?;
                chosen.to_string()
            };
            crate::tell!("{said}");
            let overview = study.targets().overview().await?;
            crate::tell!("the study is {}", overview.in_words());
            Ok(())
        }
        TargetsCommand::Drop { ids } => {
            let ids: Vec<PaperId> = ids.iter().map(|id| PaperId::given(id)).collect();
            let dropped = study.targets().drop(&ids, DropRule::Any).await?;
            crate::tell!("{dropped}");
            let overview = study.targets().overview().await?;
            crate::tell!("the study is {}", overview.in_words());
            Ok(())
        }
        TargetsCommand::List { format } => {
            let targets = study
                .targets()
                .list(crate::study::targets::Listing::EVERY_TARGET, None)
                .await?
                .targets;
            let text = match format {
                ListFormat::Text => targets_table(&targets),
                ListFormat::Csv => targets_csv(&targets)
                    .map_err(|error| CliError::internal("cannot write the list", error))?,
                ListFormat::Json => {
                    let rows: Vec<ListedTarget> = targets.iter().map(ListedTarget::new).collect();
                    let mut json = serde_json::to_string_pretty(&rows)
                        .map_err(|error| CliError::internal("cannot encode the list", error))?;
                    json.push('\n');
                    json
                }
            };
            print(&text, format == ListFormat::Text)
        }
    }
}

/// The ids of a file of ids, one a line, and the line of each.
pub(super) fn ids_from_file(file: &Path) -> Result<(Vec<PaperId>, Vec<u64>), CliError> {
    let text = std::fs::read(file)
        .map_err(|error| CliError::Usage(format!("cannot read {}: {error}", file.display())))?;
    let text = String::from_utf8(text).map_err(|error| {
        CliError::Usage(format!(
            "{}: not valid UTF-8 (byte {}); save the file as UTF-8",
            file.display(),
            error.utf8_error().valid_up_to() + 1
        ))
    })?;
    let mut ids = Vec::new();
    let mut lines = Vec::new();
    let mut problems = Vec::new();
    for (number, line) in (1..).zip(text.trim_start_matches('\u{feff}').lines()) {
        let id = line.trim();
        if id.is_empty() || id.starts_with('#') {
            continue;
        }
        if id.contains(char::is_whitespace) {
            problems.push(format!(
                "{}:{number}: {id:?} holds whitespace: give one paper id a line",
                file.display()
            ));
            continue;
        }
        ids.push(PaperId::given(id));
        lines.push(number);
    }
    if !problems.is_empty() {
        return Err(CliError::Usage(problems.join("\n")));
    }
    if ids.is_empty() {
        return Err(CliError::Usage(format!(
            "{}: no paper id in the file (one a line)",
            file.display()
        )));
    }
    Ok((ids, lines))
}

/// Unknown ids of a file, each with its line.
pub(super) fn unknown_in_file(
    file: &Path,
    ids: &[PaperId],
    lines: &[u64],
    unknown: &[PaperId],
) -> CliError {
    let problems: Vec<String> = (ids.iter().zip(lines))
        .filter(|(id, _)| unknown.contains(id))
        .map(|(id, line)| format!("{}:{line}: unknown paper id {id:?}", file.display()))
        .collect();
    CliError::Usage(format!("{}\nnothing was chosen", problems.join("\n")))
}
