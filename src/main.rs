#![forbid(unsafe_code)]

use std::io::IsTerminal;

use clap::Parser;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() {
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
    if let Err(error) = paperjudge::cli::run(cli).await {
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
