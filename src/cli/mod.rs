//! The command line: each command a function of the study, in its own module.
//!
//! - `arguments`: every command's flags (clap); `error`: [`CliError`] and its exit status;
//! - a module per command: `init`, `serve`, `importing` (`import`), `exporting` (`export`),
//!   `checks`, `lists`, `backup`, `status`, `targets`, `prune`, `next`, `raters`, `judges`
//!   (`judge` and `judges`), `guidelines`, `leaderboard`, `simulate`;
//! - `render`: the text and CSV of the command line's own outputs (tables, rows); `output`:
//!   where a command writes; `passwords`: the passwords it reads.

mod arguments;
mod backup;
mod checks;
mod error;
mod exporting;
mod guidelines;
mod importing;
mod init;
mod judges;
mod leaderboard;
mod lists;
mod next;
mod output;
mod passwords;
mod prune;
mod raters;
mod render;
mod serve;
mod simulate;
mod status;
mod targets;

use crate::study::Study;

pub use arguments::{
    ChecksArgs, ChooseArgs, Cli, Command, ExportCommand, GuidelinesCommand, ImportCommand,
    LeaderboardFormat, ListFormat, ListsArgs, RatersCommand, ServeArgs, StatusFormat, Switch,
    TargetsCommand,
};
pub use error::CliError;

/// A line on standard error, as `eprintln!` writes it, [escaped](crate::terminal::escape_lines) (what it says
/// may hold a file's name or a field of a file), except that a line that cannot be written
/// (stderr closed, as `2>&1 | head` leaves it) is dropped instead of panicking: what the
/// command was asked to do is done either way, and its exit status says how it went.
#[macro_export]
macro_rules! tell {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let line = format!($($arg)*);
        let _ = writeln!(std::io::stderr(), "{}", $crate::terminal::escape_lines(&line));
    }};
}

pub async fn run(cli: Cli) -> Result<(), CliError> {
    // Replaying TREC files needs no study: no file is opened, none created.
    let command = match cli.command {
        Command::Simulate(args) if args.qrels.is_some() => return simulate::simulate_trec(args),
        command => command,
    };
    let study = Study::open(&cli.db).await.map_err(|error| {
        CliError::of_study(
            error,
            &format!("cannot open the study file {}", cli.db.display()),
        )
    })?;
    let result = match command {
        Command::Init { pool_depth } => init::init(&study, pool_depth).await,
        Command::Serve(args) => serve::serve(&study, args).await,
        Command::Import(command) => importing::run_import(&study, command).await,
        Command::Export(command) => exporting::run_export(&study, &cli.db, command).await,
        Command::Leaderboard(args) => leaderboard::leaderboard(&study, args).await,
        Command::Checks(args) => checks::checks(&study, args).await,
        Command::Lists(args) => lists::lists(&study, args).await,
        Command::Backup { file } => backup::backup(&study, &cli.db, &file).await,
        Command::Status { format } => status::status(&study, format).await,
        Command::Targets(command) => targets::targets(&study, command).await,
        Command::Next { rater, format } => next::next(&study, rater.as_deref(), format).await,
        Command::Raters(command) => raters::raters(&study, command).await,
        Command::Prune { state } => prune::prune(&study, state).await,
        Command::Simulate(args) => simulate::simulate(&study, args).await,
        Command::Judge(args) => judges::judge(&study, args).await,
        Command::Judges(args) => judges::judges(&study, args).await,
        Command::Guidelines { action } => guidelines::guidelines(&study, action).await,
    };
    // Whatever happened, the study file is left whole on its own (see `Study::close`).
    study.close().await;
    result
}
