//! The passwords the command line reads: the owner's for `serve` (a file or the environment)
//! and a rater's for `raters add|password` (a file or the terminal).

use std::ffi::OsString;
use std::io::{self};
use std::path::Path;

use super::error::CliError;
use crate::domain::RaterName;
use crate::web::Password;

/// The environment variable that may hold the password (kept off the command line, where
/// every user of the machine could read it).
pub(super) const PASSWORD_VARIABLE: &str = "PAPERJUDGE_PASSWORD";

/// The password from `--password-file` (its first line) or from the environment, not both.
pub(super) fn password(
    file: Option<&Path>,
    variable: Option<OsString>,
) -> Result<Option<Password>, CliError> {
    let (text, source) = match (file, variable) {
        (None, None) => return Ok(None),
        (Some(_), Some(_)) => {
            return Err(CliError::Usage(format!(
                "give the password one way: {PASSWORD_VARIABLE} or --password-file, not both"
            )))
        }
        (None, Some(value)) => {
            let text = value
                .into_string()
                .map_err(|_| CliError::Usage(format!("{PASSWORD_VARIABLE} is not valid UTF-8")))?;
            (text, PASSWORD_VARIABLE.to_owned())
        }
        (Some(file), None) => (
            first_line_of(file, "password file")?,
            format!("the password file {}", file.display()),
        ),
    };
    let password = Password::new(&text)
        .map_err(|weak| CliError::Usage(format!("the password in {source} {weak}")))?;
    if let Some(file) = file {
        warn_if_others_can_read(file);
    }
    Ok(Some(password))
}

/// The first line of `file` (a password file).
pub(super) fn first_line_of(file: &Path, what: &str) -> Result<String, CliError> {
    let text = std::fs::read_to_string(file).map_err(|error| {
        CliError::Usage(format!(
            "cannot read the {what} {}: {error}",
            file.display()
        ))
    })?;
    Ok(text.lines().next().unwrap_or_default().to_owned())
}

/// Warns when the password file can be read by other users of this machine.
#[cfg(unix)]
pub(super) fn warn_if_others_can_read(file: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(metadata) = std::fs::metadata(file) else {
        return;
    };
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        tracing::warn!(
            "the password file {} can be read by other users of this machine (mode {mode:03o}): \
             run chmod 600 on it",
            crate::terminal::escape(&file.display().to_string())
        );
    }
}

#[cfg(not(unix))]
pub(super) fn warn_if_others_can_read(_: &Path) {}

/// A rater's password: the first line of `file`, or typed on the terminal.
pub(super) fn rater_password(name: &RaterName, file: Option<&Path>) -> Result<String, CliError> {
    match file {
        Some(file) => first_line_of(file, "password file"),
        None => read_password(name),
    }
}

/// A rater's password typed on the terminal, twice; refused without a terminal (a script gives
/// --password-file).
pub(super) fn read_password(name: &RaterName) -> Result<String, CliError> {
    use std::io::IsTerminal;
    if !io::stdin().is_terminal() {
        return Err(CliError::Usage(format!(
            "give {name}'s password with --password-file FILE (its first line), or run this on \
             a terminal to type it"
        )));
    }
    // Typed without echo, as `passwd` and `ssh` take one: a password shown on the screen stays
    // in the terminal's scrollback and in any recording of the session.
    let ask = |prompt: &str| -> Result<String, CliError> {
        rpassword::prompt_password(prompt)
            .map_err(|error| CliError::Usage(format!("cannot read the password: {error}")))
    };
    let first = ask(&format!("password for {name}: "))?;
    let again = ask("the same again: ")?;
    if first != again {
        return Err(CliError::Usage(
            "the two passwords differ; nothing changed".to_owned(),
        ));
    }
    Ok(first)
}
