//! `paperjudge import`: a file of papers, recommendations, ratings or judgments, with a
//! progress bar on a terminal.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::SeedableRng;

use super::arguments::{rater_name, ImportCommand};
use super::error::CliError;
use super::judges;
use crate::formats::Format;
use crate::study::import::{self, Kind, Summary};
use crate::study::import::{ImportFile, ImportProgress};
use crate::study::Study;

pub(super) async fn run_import(study: &Study, command: ImportCommand) -> Result<(), CliError> {
    let (file, kind) = match command {
        ImportCommand::Papers { file, format } => {
            let format = match format {
                Some(format) => format,
                None => format_of(&file, &[Format::Csv, Format::Jsonl])?,
            };
            if format == Format::Trec {
                return Err(CliError::Usage(
                    "papers cannot be read from a TREC file; use CSV or JSONL".to_owned(),
                ));
            }
            (file, Kind::Papers(format))
        }
        ImportCommand::Recommendations {
            file,
            format,
            model,
        } => {
            let format = match format {
                Some(format) => format,
                None => format_of(&file, &[Format::Csv, Format::Jsonl, Format::Trec])?,
            };
            let options = import::recommendations::Options { format, model };
            (file, Kind::Recommendations(options))
        }
        ImportCommand::Ratings { file, rater } => {
            let rater = rater.as_deref().map(rater_name).transpose()?;
            (file, Kind::Ratings(import::ratings::Options { rater }))
        }
        ImportCommand::Judgments { file, judge } => {
            let judge = judges::judge_name(&judge)?;
            (file, Kind::Judgments(import::judgments::Options { judge }))
        }
    };
    let lists = matches!(kind, Kind::Recommendations(_));
    let summary = import_file(study, &file, kind).await?;
    crate::tell!("{summary}");
    if lists {
        let overview = study.targets().overview().await?;
        crate::tell!("the study is {}", overview.in_words());
    }
    Ok(())
}

pub(super) fn format_of(file: &Path, allowed: &[Format]) -> Result<Format, CliError> {
    match Format::from_extension(file) {
        Some(format) if allowed.contains(&format) => Ok(format),
        _ => Err(CliError::Usage(format!(
            "cannot tell the format of {} from its extension; pass --format",
            file.display()
        ))),
    }
}

/// Opens a file given to be read, and its length; a directory is refused by name (Linux
/// opens one, and only its first read fails).
pub(super) fn open_input(path: &Path) -> Result<(File, u64), CliError> {
    let file = File::open(path)
        .map_err(|error| CliError::Usage(format!("cannot open {}: {error}", path.display())))?;
    let metadata = file
        .metadata()
        .map_err(|error| CliError::Usage(format!("cannot read {}: {error}", path.display())))?;
    if metadata.is_dir() {
        return Err(CliError::Usage(format!(
            "cannot read {}: it is a directory, not a file",
            path.display()
        )));
    }
    Ok((file, metadata.len()))
}

/// Imports one file in one transaction, with a progress bar on a terminal.
pub(super) async fn import_file(
    study: &Study,
    path: &Path,
    kind: Kind,
) -> Result<Summary, CliError> {
    let (file, length) = open_input(path)?;
    let progress = ProgressBar::with_draw_target(Some(length), ProgressDrawTarget::stderr());
    progress.set_style(
        ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let reader = progress.wrap_read(BufReader::with_capacity(1 << 20, file));
    let file = ImportFile::new(path.display().to_string(), reader);
    let rng = rand::rngs::StdRng::from_os_rng();
    let result = (study
        .import()
        .files(kind, vec![file], rng, Bar(progress.clone())))
    .await;
    progress.finish_and_clear();
    result.map_err(|error| CliError::of_study(error, "nothing was imported"))
}

/// The progress bar of an import: bytes while the file is read.
pub(super) struct Bar(ProgressBar);

impl ImportProgress for Bar {
    /// Reading is measured in bytes; the write that follows (one transaction, a good part of a
    /// large import) has no length the bar could know in advance: it shows the time it takes.
    fn writing(&self, _: usize) {
        let progress = &self.0;
        progress.set_style(
            ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        progress.set_message("read; writing to the study in one transaction");
        progress.reset_elapsed();
        progress.enable_steady_tick(std::time::Duration::from_millis(100));
    }
}
