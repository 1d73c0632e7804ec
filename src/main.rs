#![forbid(unsafe_code)]

use std::io::IsTerminal;

use clap::Parser;
use tracing_subscriber::EnvFilter;

fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            // sqlx reports every statement over a second as a warning; a long export or import
            // is expected to take that long, so those reports are left to PAPERJUDGE_LOG.
            EnvFilter::try_from_env("PAPERJUDGE_LOG")
                .unwrap_or_else(|_| EnvFilter::new("info,sqlx::query=error")),
        )
        .with_writer(std::io::stderr)
        // Colours on a terminal only: a log file or a service's journal gets plain text.
        .with_ansi(std::io::stderr().is_terminal())
        // A log that cannot be written (stderr closed, as by `2>&1 | head`) is dropped: by
        // default the subscriber would report it with eprintln!, which panics there, in
        // whichever thread logged, and a panic in a database connection's thread hangs the
        // command.
        .log_internal_errors(false)
        .init();
    let cli = paperjudge::cli::Cli::parse();
    let runtime = match runtime_for(&cli.command) {
        Ok(runtime) => runtime,
        Err(error) => {
            paperjudge::tell!("paperjudge: cannot start: {error}");
            std::process::exit(1);
        }
    };
    if let Err(error) = runtime.block_on(paperjudge::cli::run(cli)) {
        if let paperjudge::cli::CliError::Internal { source, .. } = &error {
            tracing::error!(cause = %source, "{error}");
        }
        // Each line of the message (an import's problems) is one line on stderr, escaped.
        for line in error.to_string().lines() {
            paperjudge::tell!("paperjudge: {line}");
        }
        std::process::exit(error.exit_code());
    }
}

/// The server, and a judge's run (its requests, its lease and the writes of its grades at
/// once), get a worker thread per core; every other command awaits one thing at a time, its
/// work on blocking threads (or rayon's), and on one runtime thread starts sooner and wakes
/// fewer threads (the quarter study's leaderboard: 1.5 ms less, BENCHMARKS.md).
fn runtime_for(command: &paperjudge::cli::Command) -> std::io::Result<tokio::runtime::Runtime> {
    use paperjudge::cli::Command;
    let mut builder = match command {
        Command::Serve(_) | Command::Judge(_) => tokio::runtime::Builder::new_multi_thread(),
        _ => tokio::runtime::Builder::new_current_thread(),
    };
    builder.enable_all().build()
}
