use clap::Parser;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_env("PAPERJUDGE_LOG").unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = paperjudge::cli::Cli::parse();
    if let Err(error) = paperjudge::cli::run(cli).await {
        if let paperjudge::cli::CliError::Internal { source, .. } = &error {
            tracing::error!(cause = %source, "{error}");
        }
        for line in error.to_string().lines() {
            eprintln!("paperjudge: {line}");
        }
        std::process::exit(error.exit_code());
    }
}
