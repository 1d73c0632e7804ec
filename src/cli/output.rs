//! Where a command writes: standard output, or `-o FILE`.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::error::CliError;

/// Writes to `-o FILE` (see [`crate::output`]: a file replaced only once complete, a FIFO or
/// device written into) or to standard output.
pub(super) fn write_output(
    path: Option<&Path>,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), CliError> {
    match path {
        None => {
            let stdout = io::stdout();
            let mut out = BufWriter::new(stdout.lock());
            write(&mut out).map_err(|error| CliError::internal("cannot write the output", error))
        }
        Some(path) => crate::output::write_file(path, write)
            .map_err(|error| CliError::Usage(format!("cannot write {}: {error}", path.display()))),
    }
}

/// Refuses to write the `what` (`export`, `backup`) to `file` when that is the study file given
/// with `--db` (`db`), by any path or link, or one of the files SQLite keeps beside it: a file
/// written there would replace the study, or be taken for its log the next time it opens.
pub(super) fn refuse_the_study(db: &Path, file: &Path, what: &str) -> Result<(), CliError> {
    let (Some(study), Some(file_is)) = (
        crate::output::destination(db),
        crate::output::destination(file),
    ) else {
        return Ok(());
    };
    let beside = |suffix: &str| {
        let mut name = study.clone().into_os_string();
        name.push(suffix);
        name
    };
    let is = if file_is == study {
        "the study itself (--db)"
    } else if file_is.as_os_str() == beside("-wal") {
        "the study's write-ahead log"
    } else if file_is.as_os_str() == beside("-shm") {
        "the study's shared memory"
    } else if file_is.as_os_str() == beside("-journal") {
        "the study's rollback journal"
    } else {
        return Ok(());
    };
    Err(CliError::Usage(format!(
        "{} is {is}; choose a new file for the {what}",
        file.display()
    )))
}

/// Prints a command's output on standard output: text (`as_text`) with every control or
/// format character escaped, line by line (a title or a name from an imported file could
/// otherwise clear the screen or retitle the terminal); data (CSV, JSON) exactly as it is.
pub(super) fn print(text: &str, as_text: bool) -> Result<(), CliError> {
    let text = match as_text {
        true => crate::terminal::escape_lines(text),
        false => std::borrow::Cow::Borrowed(text),
    };
    write_output(None, |out| out.write_all(text.as_bytes()))
}
