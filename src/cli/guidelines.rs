//! `paperjudge guidelines [show|set FILE|clear]`.

use std::io::Read;
use std::path::Path;

use super::arguments::GuidelinesCommand;
use super::error::CliError;
use super::output::print;
use crate::domain::Guidelines;
use crate::study::Study;

/// The most of a guidelines file read: 20,000 characters of four bytes each, and room for a
/// byte order mark and `\r\n` line breaks.
const MOST_BYTES: u64 = 128 * 1024;

pub(super) async fn guidelines(
    study: &Study,
    action: Option<GuidelinesCommand>,
) -> Result<(), CliError> {
    match action.unwrap_or(GuidelinesCommand::Show) {
        GuidelinesCommand::Show => {
            match study.guidelines().current().await? {
                // Data, printed exactly: `guidelines show > FILE` then `guidelines set FILE` sets
                // the same text (it holds no control character but line breaks and tabs).
                Some(guidelines) => print(&format!("{}\n", guidelines.markdown.as_str()), false),
                None => {
                    crate::tell!("the study has no guidelines: the rating pages show the built-in scale alone");
                    Ok(())
                }
            }
        }
        GuidelinesCommand::Set { file } => {
            let guidelines = read(&file)?;
            let change = study.guidelines().set(&guidelines).await?;
            match (change.changed, change.version) {
                (true, Some(version)) => {
                    crate::tell!("guidelines set (version {version}): every rating page shows them")
                }
                _ => crate::tell!(
                    "the guidelines are these already (version {}): nothing changed",
                    change.version.map_or(0, |version| version.0)
                ),
            }
            Ok(())
        }
        GuidelinesCommand::Clear => {
            let change = study.guidelines().clear().await?;
            match (change.changed, change.version) {
                (true, Some(version)) => crate::tell!(
                    "guidelines cleared (version {version}): the rating pages show the built-in \
                     scale alone"
                ),
                _ => crate::tell!("the study has no guidelines to clear: nothing changed"),
            }
            Ok(())
        }
    }
}

/// The guidelines in `file`; a file that cannot be read, is not UTF-8 or is no guidelines is
/// bad input (exit status 2), said with the file's name.
fn read(file: &Path) -> Result<Guidelines, CliError> {
    let refused = |why: String| CliError::Usage(format!("{}: {why}", file.display()));
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .and_then(|opened| opened.take(MOST_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|error| refused(format!("cannot read it: {error}")))?;
    if bytes.len() as u64 > MOST_BYTES {
        return Err(refused(format!(
            "larger than {} KiB; the guidelines may be at most 20,000 characters",
            MOST_BYTES / 1024
        )));
    }
    let text = String::from_utf8(bytes).map_err(|error| {
        refused(format!(
            "not UTF-8 text (byte {} is not)",
            error.utf8_error().valid_up_to() + 1
        ))
    })?;
    Guidelines::new(&text).map_err(|invalid| refused(invalid.to_string()))
}
