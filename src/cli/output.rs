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
