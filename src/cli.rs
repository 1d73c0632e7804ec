//! The command line: argument parsing, and each command as a function of the study.

mod judges;

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, ToSocketAddrs};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::{Rng, SeedableRng};

use crate::decision::Order;
use crate::domain::{ByteSize, PaperId, PoolDepth, RaterName};
use crate::export;
use crate::import::{self, Format, InvalidFiles, InvalidInput, Kind, Summary};
use crate::leaderboard::{LeaderboardOptions, Partial};
use crate::lists::{ListsOptions, Persistence};
use crate::metrics::{Judgments, Relevance};
use crate::simulation::{self, with_judge, with_judge::JudgeValues};
use crate::study::{
    Added, DropRule, ImportFile, ImportProgress, Rater, Refusal, Study, StudyError, TargetChoice,
    TargetSummary,
};
use crate::web::{self, HostName, Password};

#[derive(Debug, Parser)]
#[command(
    name = "paperjudge",
    version,
    about = "Rate the papers your recommendation models suggest, blind, and find out which model recommends best."
)]
pub struct Cli {
    /// The study's SQLite file, created and migrated on first use.
    #[arg(
        long,
        env = "PAPERJUDGE_DB",
        default_value = "paperjudge.db",
        global = true
    )]
    pub db: PathBuf,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create the study (pool depth is fixed once recommendations exist).
    Init {
        /// How many top-ranked papers of every model enter a target's pool.
        #[arg(long, default_value_t = 8)]
        pool_depth: i64,
    },
    /// Serve the web app.
    Serve(ServeArgs),
    /// Import papers, recommendations or ratings (all or nothing).
    #[command(subcommand)]
    Import(ImportCommand),
    /// Export ratings, TREC qrels or the blind pool.
    #[command(subcommand)]
    Export(ExportCommand),
    /// Compare the models (every metric and option is defined in docs/metrics.md).
    Leaderboard(LeaderboardArgs),
    /// Can the verdict be trusted? Pool bias, the rater's consistency, variant sensitivity,
    /// time and drift (over fully rated targets, under the leaderboard's options).
    Checks(ChecksArgs),
    /// What the models' lists say before any rating: how much every two models' top k
    /// overlap, what each brings to the pool, how widely each recommends (reads no rating).
    Lists(ListsArgs),
    /// Write a consistent copy of the study to FILE, even while the server is running.
    Backup { file: PathBuf },
    /// Counts of papers, models, targets, pooled and rated pairs.
    Status {
        #[arg(long, value_enum, default_value_t = StatusFormat::Text)]
        format: StatusFormat,
    },
    /// Choose the targets to rate, drop them, or list them with their progress.
    #[command(subcommand)]
    Targets(TargetsCommand),
    /// Pruning: once the verdict rules a model out, pools built from then on leave its list
    /// out (targets with a rating keep theirs; ratings are never removed). Without an argument,
    /// prints whether the study prunes and which models are pruned.
    Prune {
        #[arg(value_enum)]
        state: Option<Switch>,
    },
    /// The target to rate next (the one `/next` opens), which the rater then takes; nothing
    /// when no target needs them.
    Next {
        /// The rater [default: the owner].
        #[arg(long, value_name = "NAME")]
        rater: Option<String>,
        #[arg(long, value_enum, default_value_t = StatusFormat::Text)]
        format: StatusFormat,
    },
    /// The study's raters, who rate it blind to each other; without any, the study has one
    /// rater, its owner.
    #[command(subcommand)]
    Raters(RatersCommand),
    /// Replay the study's fully rated targets (or a qrels file and runs) as if rated one by
    /// one, many times under each order: the ratings a decision needs, and how often it was
    /// wrong.
    Simulate(SimulateArgs),
    /// A machine judge grades every pooled pair of the study's targets it has not graded,
    /// through an OpenAI-compatible chat-completions endpoint (llama.cpp's server, Ollama,
    /// vLLM, a hosted service). Its grades are kept apart from the ratings: they never count as
    /// ratings and never reach a rating page. A bearer key is read from PAPERJUDGE_JUDGE_KEY.
    Judge(judges::JudgeArgs),
    /// The study's machine judges: list them (the default), or remove one with its grades.
    Judges(judges::JudgesArgs),
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The metric settings of the NDCG replayed, and the verdict's margin.
    #[command(flatten)]
    pub options: LeaderboardOptions,
    /// Simulated studies per setting, each with its own seed.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub seeds: u64,
    /// The first seed; the studies use this one and those after it.
    #[arg(long, default_value_t = 0)]
    pub first_seed: u64,
    /// The orders to simulate (repeatable) [default: random]. `adaptive` leans each draw to
    /// targets where the models still open list differently, and needs --resample.
    #[arg(long, value_enum)]
    pub order: Vec<Order>,
    /// Draw targets with replacement from the fully rated ones (a library whose truth is
    /// this study's means) instead of replaying the study's own targets in a random order.
    #[arg(long)]
    pub resample: bool,
    /// Targets per simulated study [default: as many as the study has fully rated].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub targets: Option<u64>,
    /// Also simulate with pruning (targets pooled after a model is out leave it out), and
    /// report the ratings it saved on the same draws.
    #[arg(long)]
    pub prune: bool,
    #[arg(long, value_enum, default_value_t = StatusFormat::Text)]
    pub format: StatusFormat,
    /// Replay this TREC qrels file (`target 0 paper grade`, grades 0..4 as 1..5 stars, as
    /// `export qrels` writes them) with the runs of --run instead of the study; a target
    /// counts as fully rated when the top 8 of every run are judged.
    #[arg(long, value_name = "FILE", requires = "runs")]
    pub qrels: Option<PathBuf>,
    /// The TREC run files to replay with --qrels; the model is the run tag.
    #[arg(long = "run", value_name = "FILE", num_args = 1.., requires = "qrels")]
    pub runs: Vec<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum RatersCommand {
    /// Add a rater, who signs in to `serve` with NAME and a password (read from the terminal,
    /// or the first line of --password-file); a rater removed before comes back.
    Add {
        name: String,
        #[arg(long, value_name = "FILE")]
        password_file: Option<PathBuf>,
    },
    /// Remove a rater: they can no longer sign in; their ratings stay, and the targets they
    /// took and did not finish go to others.
    Remove { name: String },
    /// Give a rater a new password (read from the terminal, or the first line of
    /// --password-file); their sessions end at their next request.
    Password {
        name: String,
        #[arg(long, value_name = "FILE")]
        password_file: Option<PathBuf>,
    },
    /// The raters with their progress, and how many rate each target.
    List {
        #[arg(long, value_enum, default_value_t = StatusFormat::Text)]
        format: StatusFormat,
    },
    /// How many raters rate each target, and the share of targets (drawn once, fixed by the
    /// study) that one more rates, for their agreement.
    Set {
        /// Raters per target [default: 1].
        #[arg(long, value_name = "R")]
        per_target: Option<u32>,
        /// The share of targets one more rater rates, from 0 to 1, or `default` (0.1 with two
        /// raters or more and one per target, else 0).
        #[arg(long, value_name = "SHARE")]
        overlap: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum TargetsCommand {
    /// Choose targets to rate. Until a first choice every paper with recommendations is a
    /// target; from the first choice on, only the chosen ones are.
    Choose(ChooseArgs),
    /// Stop rating these targets; their ratings, history and blind order are kept.
    Drop {
        #[arg(required = true, value_name = "ID")]
        ids: Vec<String>,
    },
    /// The targets being rated, with their progress.
    List {
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
    },
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("which").required(true).args(["ids", "file", "sample", "all"])))]
pub struct ChooseArgs {
    /// Paper ids.
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,
    /// A file of paper ids, one a line (blank lines and lines starting with # are skipped).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["ids", "sample", "all"])]
    pub file: Option<PathBuf>,
    /// N targets drawn at random from the papers with recommendations not chosen yet.
    #[arg(long, value_name = "N", conflicts_with_all = ["ids", "all"])]
    pub sample: Option<usize>,
    /// The seed of --sample: the same study and seed give the same targets [default: random,
    /// and printed].
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Rate every paper with recommendations again (the chosen set is forgotten; ratings are
    /// kept).
    #[arg(long, conflicts_with_all = ["ids"])]
    pub all: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Text,
    Csv,
    Json,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Any address but loopback (127.0.0.1, ::1) needs a password.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: String,
    /// Load the bundled demo study when the database has no papers.
    #[arg(long)]
    pub demo: bool,
    /// Ask every visitor for the password on the first line of FILE (or set
    /// PAPERJUDGE_PASSWORD instead).
    #[arg(long, value_name = "FILE")]
    pub password_file: Option<PathBuf>,
    /// A TLS proxy serves the app over HTTPS: mark the cookies Secure, and take the client's
    /// address (for slowing down password guessing) from the right-most entry of the proxy's
    /// X-Forwarded-For (or from Forwarded), believed only on connections from the proxy.
    #[arg(long)]
    pub behind_tls: bool,
    /// The proxy's address, when it is not on this machine (repeat for several); without
    /// it, only loopback connections count as the proxy's.
    #[arg(long, value_name = "ADDRESS", requires = "behind_tls")]
    pub trusted_proxy: Vec<IpAddr>,
    /// Also answer requests for NAME, on any port (repeat for several): the name or address
    /// other machines reach this one by, or the name the TLS proxy serves. Needs a password
    /// or --behind-tls. Any other name but localhost, 127.0.0.1 and [::1] on the port served
    /// gets 421, so that no other site can reach the study through DNS rebinding.
    #[arg(long = "host", value_name = "NAME")]
    pub hosts: Vec<HostName>,
    /// The largest upload of the import page (/import): 500M, 2G (K, M, G, T count 1024
    /// each); larger ones are refused with 413.
    #[arg(long, value_name = "SIZE", default_value = "1G")]
    pub max_upload: ByteSize,
}

/// The environment variable that may hold the password (kept off the command line, where
/// every user of the machine could read it).
const PASSWORD_VARIABLE: &str = "PAPERJUDGE_PASSWORD";

#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// Add or update papers (CSV: id,title[,abstract,authors,year,url]; or JSONL).
    Papers {
        file: PathBuf,
        /// csv or jsonl (default: from the extension).
        #[arg(long, value_enum)]
        format: Option<Format>,
    },
    /// A model's ranked lists; a (model, target) list in the file replaces the stored one.
    Recommendations {
        file: PathBuf,
        #[arg(long, value_enum)]
        format: Option<Format>,
        /// The model of every row (instead of the model column or TREC run tag).
        #[arg(long)]
        model: Option<String>,
    },
    /// Ratings CSV (target,paper,stars[,rated_at][,rater]); an exported file re-imports as is.
    Ratings {
        file: PathBuf,
        /// Whose ratings a file without a rater column holds [default: the owner's].
        #[arg(long, value_name = "NAME")]
        rater: Option<String>,
    },
    /// A machine judge's grades, CSV (target,paper,stars[,explanation]): kept apart from the
    /// ratings; an exported file re-imports as is.
    Judgments {
        file: PathBuf,
        /// The judge whose grades the file holds (added if the study has none of that name).
        #[arg(long, value_name = "NAME")]
        judge: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum ExportCommand {
    /// Ratings CSV: target,target_title,paper,paper_title,stars,rated_at,rater.
    Ratings {
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// TREC qrels: target 0 paper rel.
    Qrels {
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[arg(long, default_value = "stars-minus-one")]
        relevance: Relevance,
        /// One judgment per pair from its raters' stars, as the leaderboard's: lower-median,
        /// upper-median or rater:NAME (qrels hold whole grades: not mean).
        #[arg(long, default_value = "lower-median", value_parser = |text: &str| text.parse::<Judgments>())]
        judgments: Judgments,
    },
    /// The blind pool: target,paper,position,stars (no model information).
    Pool {
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Machine judges' grades: target,paper,judge,stars,explanation,judged_at.
    Judgments {
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Only this judge's grades [default: every judge's].
        #[arg(long, value_name = "NAME")]
        judge: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct LeaderboardArgs {
    #[command(flatten)]
    pub options: LeaderboardOptions,
    #[arg(long, value_enum, default_value_t = LeaderboardFormat::Table)]
    pub format: LeaderboardFormat,
    /// Add every evaluated target's NDCG and Judged@k per model.
    #[arg(long)]
    pub per_target: bool,
    /// Also evaluate targets with some but not all pooled pairs rated. Their numbers move
    /// with every rating and so tell which models listed the paper just rated: for analysis,
    /// never while rating.
    #[arg(long)]
    pub include_partial: bool,
}

#[derive(Debug, Args)]
pub struct ChecksArgs {
    #[command(flatten)]
    pub options: LeaderboardOptions,
    #[arg(long, value_enum, default_value_t = StatusFormat::Text)]
    pub format: StatusFormat,
    /// Also evaluate targets with some but not all pooled pairs rated (for analysis, never
    /// while rating).
    #[arg(long)]
    pub include_partial: bool,
}

#[derive(Debug, Args)]
pub struct ListsArgs {
    /// Compare and count each list's top N [default: the pool depth]
    #[arg(long, value_name = "N", value_parser = crate::lists::parse_k)]
    pub k: Option<NonZeroUsize>,
    /// The persistence of rank-biased overlap, strictly between 0 and 1 [default: 0.9]
    #[arg(long, value_name = "P", value_parser = |text: &str| text.parse::<Persistence>())]
    pub rbo_p: Option<Persistence>,
    #[arg(long, value_enum, default_value_t = LeaderboardFormat::Table)]
    pub format: LeaderboardFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LeaderboardFormat {
    Table,
    Csv,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatusFormat {
    Text,
    Json,
}

/// A setting turned on or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    On,
    Off,
}

/// Why a command failed, and so its exit status.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad usage or a file that cannot be used: exit status 2.
    #[error("{0}")]
    Usage(String),
    /// Problems in input files: exit status 2.
    #[error("{0}")]
    Invalid(#[from] InvalidFiles),
    /// A command that could not do what it was asked, for a reason it says (a judge's endpoint
    /// down): exit status 1.
    #[error("{0}")]
    Failed(String),
    /// Anything else: exit status 1. The cause is logged, not printed as is.
    #[error("{context}")]
    Internal {
        context: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl CliError {
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Usage(_) | CliError::Invalid(_) => 2,
            CliError::Failed(_) | CliError::Internal { .. } => 1,
        }
    }

    fn internal(context: &str, source: impl std::error::Error + Send + Sync + 'static) -> CliError {
        CliError::Internal {
            context: context.to_owned(),
            source: Box::new(source),
        }
    }
}

/// A study's error as the command line says it: a refusal is bad input (exit status 2), with
/// its reason (a refused choice of targets adds that nothing changed); anything else is
/// internal (exit status 1), said as `context`.
impl CliError {
    fn of_study(error: StudyError, context: &str) -> CliError {
        match error {
            StudyError::Refused(Refusal::Invalid(invalid)) => CliError::Invalid(invalid),
            StudyError::Refused(refusal) if refusal.of_choice() => {
                CliError::Usage(format!("{refusal}; nothing changed"))
            }
            StudyError::Refused(refusal) => CliError::Usage(refusal.to_string()),
            error => CliError::internal(context, error),
        }
    }
}

impl From<InvalidInput> for CliError {
    fn from(invalid: InvalidInput) -> CliError {
        CliError::Invalid(invalid.into())
    }
}

impl From<StudyError> for CliError {
    fn from(error: StudyError) -> CliError {
        CliError::of_study(error, "the study database failed")
    }
}

pub async fn run(cli: Cli) -> Result<(), CliError> {
    // Replaying TREC files needs no study: no file is opened, none created.
    let command = match cli.command {
        Command::Simulate(args) if args.qrels.is_some() => return simulate_trec(args),
        command => command,
    };
    let study = Study::open(&cli.db).await.map_err(|error| {
        CliError::of_study(
            error,
            &format!("cannot open the study file {}", cli.db.display()),
        )
    })?;
    let result = match command {
        Command::Init { pool_depth } => init(&study, pool_depth).await,
        Command::Serve(args) => serve(&study, args).await,
        Command::Import(command) => run_import(&study, command).await,
        Command::Export(command) => run_export(&study, command).await,
        Command::Leaderboard(args) => leaderboard(&study, args).await,
        Command::Checks(args) => checks(&study, args).await,
        Command::Lists(args) => lists(&study, args).await,
        Command::Backup { file } => backup(&study, &cli.db, &file).await,
        Command::Status { format } => status(&study, format).await,
        Command::Targets(command) => targets(&study, command).await,
        Command::Next { rater, format } => next(&study, rater.as_deref(), format).await,
        Command::Raters(command) => raters(&study, command).await,
        Command::Prune { state } => prune(&study, state).await,
        Command::Simulate(args) => simulate(&study, args).await,
        Command::Judge(args) => judges::judge(&study, args).await,
        Command::Judges(args) => judges::judges(&study, args).await,
    };
    // Whatever happened, the study file is left whole on its own (see `Study::close`).
    study.close().await;
    result
}

async fn init(study: &Study, pool_depth: i64) -> Result<(), CliError> {
    let depth = PoolDepth::new(pool_depth).ok_or_else(|| {
        CliError::Usage(format!(
            "--pool-depth must be from 1 to {}, got {pool_depth}",
            PoolDepth::MAX
        ))
    })?;
    study.set_pool_depth(depth).await?;
    crate::tell!("study ready: pool depth {depth}");
    Ok(())
}

async fn serve(study: &Study, args: ServeArgs) -> Result<(), CliError> {
    let password = password(
        args.password_file.as_deref(),
        std::env::var_os(PASSWORD_VARIABLE),
    )?;
    let addr = &args.addr;
    let addresses: Vec<SocketAddr> = addr
        .to_socket_addrs()
        .map_err(|error| CliError::Usage(format!("cannot listen on {addr}: {error}")))?
        .collect();
    let public = addresses.iter().find(|address| !address.ip().is_loopback());
    // Raters sign in with passwords of their own: they protect the study as the owner's does.
    let signs_in = password.is_some() || study.has_active_raters().await?;
    match (public, signs_in) {
        (Some(public), false) => {
            return Err(CliError::Usage(format!(
                "refusing to serve on {public} without a password: other machines can reach \
                 that address. Set {PASSWORD_VARIABLE} or pass --password-file FILE, add \
                 raters (`paperjudge raters add`), or serve on 127.0.0.1 (the default)"
            )))
        }
        (Some(_), true) if !args.behind_tls => tracing::warn!(
            "the password and the session cookie cross the network unencrypted: serve \
             paperjudge behind a TLS proxy and pass --behind-tls"
        ),
        _ => {}
    }
    match (args.hosts.first(), public) {
        (Some(host), _) if !signs_in && !args.behind_tls => {
            return Err(CliError::Usage(format!(
                "--host {host} needs a password (or raters) or --behind-tls: without either, paperjudge \
                 answers only loopback names (localhost, 127.0.0.1, [::1]), so that no other \
                 site can reach the study through DNS rebinding"
            )))
        }
        (None, _) if public.is_some() || args.behind_tls => tracing::warn!(
            "no --host given: only localhost, 127.0.0.1 and [::1] are answered, and a browser \
             that reaches paperjudge by another name (from another machine, or through the \
             TLS proxy) gets 421 until that name is given with --host NAME"
        ),
        _ => {}
    }
    let swept = study.sweep_upload_leftovers().await?;
    if swept > 0 {
        tracing::info!("removed {swept} temporary files of uploads that no server runs any more");
    }
    if args.demo {
        if let Some(summary) = study.load_demo_if_empty().await? {
            tracing::info!("loaded the demo study: {summary}");
        }
    }
    let listener = TcpListener::bind(&addresses[..])
        .map_err(|error| CliError::Usage(format!("cannot listen on {addr}: {error}")))?;
    let address = listener
        .local_addr()
        .map_err(|error| CliError::internal("cannot read the listening address", error))?;
    crate::tell!("paperjudge is serving the study on http://{address}/");
    let settings = web::Access {
        beyond_loopback: public.is_some(),
        password,
        behind_tls: args.behind_tls,
        trusted_proxies: args.trusted_proxy,
        hosts: args.hosts,
        max_upload: args.max_upload,
        upload_idle: None,
    };
    let _file_size_limit = survive_file_size_limit()?;
    // Runs until SIGTERM (after the requests in flight are answered) or SIGINT.
    web::run(listener, study.clone(), settings)
        .map_err(|error| CliError::internal("cannot start the web server", error))?
        .await
        .map_err(|error| CliError::internal("the web server failed", error))?;
    tracing::info!("the server has stopped");
    Ok(())
}

/// Handles SIGXFSZ for as long as the answer is kept. A write past the size a file may have
/// (`ulimit -f`) sends it, and by default it kills the process, the server in the middle of an
/// upload with the upload's temporary file left behind; handled, the write fails (EFBIG), which
/// an upload answers as a full disk (507), removing its file.
#[cfg(unix)]
fn survive_file_size_limit() -> Result<tokio::signal::unix::Signal, CliError> {
    use tokio::signal::unix::{signal, SignalKind};
    signal(SignalKind::from_raw(libc::SIGXFSZ))
        .map_err(|error| CliError::internal("cannot handle SIGXFSZ", error))
}

#[cfg(not(unix))]
fn survive_file_size_limit() -> Result<(), CliError> {
    Ok(())
}

/// The password from `--password-file` (its first line) or from the environment, not both.
fn password(file: Option<&Path>, variable: Option<OsString>) -> Result<Option<Password>, CliError> {
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
fn first_line_of(file: &Path, what: &str) -> Result<String, CliError> {
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
fn warn_if_others_can_read(file: &Path) {
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
fn warn_if_others_can_read(_: &Path) {}

async fn run_import(study: &Study, command: ImportCommand) -> Result<(), CliError> {
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
        let overview = study.overview().await?;
        crate::tell!("the study is {}", overview.in_words());
    }
    Ok(())
}

fn format_of(file: &Path, allowed: &[Format]) -> Result<Format, CliError> {
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
fn open_input(path: &Path) -> Result<(File, u64), CliError> {
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
async fn import_file(study: &Study, path: &Path, kind: Kind) -> Result<Summary, CliError> {
    let (file, length) = open_input(path)?;
    let progress = ProgressBar::with_draw_target(Some(length), ProgressDrawTarget::stderr());
    progress.set_style(
        ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let reader = progress.wrap_read(BufReader::with_capacity(1 << 20, file));
    let file = ImportFile::new(path.display().to_string(), reader);
    let rng = rand::rngs::StdRng::from_os_rng();
    let result = (study.import(kind, vec![file], rng, Bar(progress.clone()))).await;
    progress.finish_and_clear();
    Ok(result?)
}

/// The progress bar of an import: bytes while the file is read.
struct Bar(ProgressBar);

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

async fn run_export(study: &Study, command: ExportCommand) -> Result<(), CliError> {
    match command {
        ExportCommand::Ratings { output } => {
            let rows = study.ratings(None).await?;
            write_output(output.as_deref(), |out| {
                export::ratings_csv(&rows, out).map_err(io::Error::other)
            })
        }
        ExportCommand::Qrels {
            output,
            relevance,
            judgments,
        } => {
            let judged = study.judged_pairs(&judgments).await?;
            write_output(output.as_deref(), |out| {
                export::qrels(&judged, relevance, out)
            })
        }
        ExportCommand::Pool { output } => {
            let rows = study.blind_pool().await?;
            write_output(output.as_deref(), |out| {
                export::pool_csv(&rows, out).map_err(io::Error::other)
            })
        }
        ExportCommand::Judgments { output, judge } => {
            let judge = judge.as_deref().map(judges::judge_name).transpose()?;
            let rows = study.judgment_rows(judge.as_ref()).await?;
            write_output(output.as_deref(), |out| {
                export::judgments_csv(&rows, out).map_err(io::Error::other)
            })?;
            let unfinished = rows.iter().filter(|row| !row.target_finished).count();
            if unfinished > 0 {
                crate::tell!(
                    "note: {unfinished} of these {} grades are of targets not fully rated: read \
                     before rating them, a machine's grade anchors the rating",
                    rows.len()
                );
            }
            Ok(())
        }
    }
}

/// Writes to `-o FILE` (see [`crate::output`]: a file replaced only once complete, a FIFO or
/// device written into) or to standard output.
fn write_output(
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
fn print(text: &str, as_text: bool) -> Result<(), CliError> {
    let text = match as_text {
        true => crate::terminal::escape_lines(text),
        false => std::borrow::Cow::Borrowed(text),
    };
    write_output(None, |out| out.write_all(text.as_bytes()))
}

async fn leaderboard(study: &Study, args: LeaderboardArgs) -> Result<(), CliError> {
    let partial = if args.include_partial {
        Partial::Include
    } else {
        Partial::Exclude
    };
    let evaluated = (study.leaderboard(&args.options, partial).await).map_err(|error| {
        CliError::of_study(
            error,
            "the leaderboard cannot be computed from the study file",
        )
    })?;
    let board = &evaluated.board;
    let text = match args.format {
        LeaderboardFormat::Table => board.to_table(),
        LeaderboardFormat::Csv if args.per_target => board.per_target_csv(),
        LeaderboardFormat::Csv => board.to_csv(),
        LeaderboardFormat::Json => board.to_json(args.per_target),
    };
    print(&text, args.format == LeaderboardFormat::Table)
}

async fn checks(study: &Study, args: ChecksArgs) -> Result<(), CliError> {
    let partial = if args.include_partial {
        Partial::Include
    } else {
        Partial::Exclude
    };
    let checks = study.checks(&args.options, partial).await?;
    let text = match args.format {
        StatusFormat::Text => checks.to_text(),
        StatusFormat::Json => checks.to_json(),
    };
    print(&text, args.format == StatusFormat::Text)
}

async fn lists(study: &Study, args: ListsArgs) -> Result<(), CliError> {
    let options = ListsOptions {
        k: args.k,
        rbo_p: args.rbo_p,
    };
    let lists = (study.lists(&options).await).map_err(|error| {
        CliError::of_study(error, "the lists cannot be read from the study file")
    })?;
    let text = match args.format {
        LeaderboardFormat::Table => lists.to_table(),
        LeaderboardFormat::Csv => lists.to_csv(),
        LeaderboardFormat::Json => lists.to_json(),
    };
    write_output(None, |out| out.write_all(text.as_bytes()))
}

async fn backup(study: &Study, db: &Path, file: &Path) -> Result<(), CliError> {
    let is_the_study = match (db.canonicalize(), file.canonicalize()) {
        (Ok(db), Ok(file)) => db == file,
        _ => false,
    };
    if is_the_study {
        return Err(CliError::Usage(format!(
            "{} is the study itself (--db); choose a new file for the backup",
            file.display()
        )));
    }
    study.backup(file).await.map_err(|error| {
        CliError::of_study(
            error,
            &format!("cannot write the backup {}", file.display()),
        )
    })?;
    crate::tell!("backup written to {}", file.display());
    Ok(())
}

async fn status(study: &Study, format: StatusFormat) -> Result<(), CliError> {
    let status = study.status().await?;
    let text = match format {
        StatusFormat::Json => format!(
            "{}\n",
            serde_json::to_string(&status)
                .map_err(|error| CliError::internal("cannot encode the status", error))?
        ),
        StatusFormat::Text => {
            format!(
            "papers           {}\nmodels           {}\ntargets          {} ({} fully rated, {} \
             partly rated; {})\nrecommendations  {}\npooled pairs     {}\nrated pairs      {}\n\
             pool depth       {}\nrating changes with provenance known  {}\npruning          \
             {}\n",
            status.papers,
            status.models,
            status.targets,
            status.targets_finished,
            status.targets_partly_rated,
            match status.target_choice {
                TargetChoice::All => "all with recommendations".to_owned(),
                TargetChoice::Chosen => format!(
                    "chosen of {} with recommendations",
                    status.candidate_targets
                ),
            },
            status.recommendations,
            status.pooled_pairs,
            status.rated_pairs,
            status.pool_depth,
            status.judgments_with_provenance_known,
            match (status.pruning, &status.pruned_models[..]) {
                (false, _) => "off".to_owned(),
                (true, []) => "on (no model ruled out yet)".to_owned(),
                (true, pruned) => format!("on (left out of new pools: {})", pruned.join(", ")),
            },
        ) + &raters_status(&status.raters)
        }
    };
    print(&text, format == StatusFormat::Text)
}

async fn targets(study: &Study, command: TargetsCommand) -> Result<(), CliError> {
    let mut rng = rand::rngs::StdRng::from_os_rng();
    match command {
        TargetsCommand::Choose(args) => {
            if args.seed.is_some() && args.sample.is_none() {
                return Err(CliError::Usage(
                    "--seed goes with --sample N; nothing changed".to_owned(),
                ));
            }
            let said = if args.all {
                let change = study.choose_all(rng).await?;
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
                let chosen = study.choose_sample(count, seed, rng).await?;
                format!("{chosen}\nsampled with --seed {seed}")
            } else {
                let (ids, lines) = match &args.file {
                    Some(file) => ids_from_file(file)?,
                    None => (
                        args.ids.iter().map(|id| PaperId::given(id)).collect(),
                        Vec::new(),
                    ),
                };
                let chosen =
                    (study.choose(&ids, rng).await).map_err(|error| match (error, &args.file) {
                        (StudyError::Refused(Refusal::UnknownIds(unknown)), Some(file)) => {
                            unknown_in_file(file, &ids, &lines, &unknown)
                        }
                        (error, _) => CliError::from(error),
                    })?;
                chosen.to_string()
            };
            crate::tell!("{said}");
            let overview = study.overview().await?;
            crate::tell!("the study is {}", overview.in_words());
            Ok(())
        }
        TargetsCommand::Drop { ids } => {
            let ids: Vec<PaperId> = ids.iter().map(|id| PaperId::given(id)).collect();
            let dropped = study.drop_targets(&ids, DropRule::Any).await?;
            crate::tell!("{dropped}");
            let overview = study.overview().await?;
            crate::tell!("the study is {}", overview.in_words());
            Ok(())
        }
        TargetsCommand::List { format } => {
            let targets = study
                .targets(crate::study::Listing::EVERY_TARGET, None)
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
fn ids_from_file(file: &Path) -> Result<(Vec<PaperId>, Vec<u64>), CliError> {
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
fn unknown_in_file(file: &Path, ids: &[PaperId], lines: &[u64], unknown: &[PaperId]) -> CliError {
    let problems: Vec<String> = (ids.iter().zip(lines))
        .filter(|(id, _)| unknown.contains(id))
        .map(|(id, line)| format!("{}:{line}: unknown paper id {id:?}", file.display()))
        .collect();
    CliError::Usage(format!("{}\nnothing was chosen", problems.join("\n")))
}

/// A target as `targets list --format json` writes it.
#[derive(Debug, serde::Serialize)]
struct ListedTarget<'a> {
    target: &'a str,
    title: &'a str,
    rated: i64,
    pooled: i64,
    finished: bool,
}

impl ListedTarget<'_> {
    fn new(target: &TargetSummary) -> ListedTarget<'_> {
        ListedTarget {
            target: target.external_id.as_str(),
            title: &target.title,
            rated: target.rated,
            pooled: target.total,
            finished: target.finished,
        }
    }
}

fn targets_table(targets: &[TargetSummary]) -> String {
    let width = (targets.iter())
        .map(|target| target.external_id.as_str().chars().count())
        .max()
        .unwrap_or(0)
        .max("target".len());
    let mut text = format!("{:<width$}  rated/pooled  title\n", "target");
    for target in targets {
        let progress = format!("{}/{}", target.rated, target.total);
        text.push_str(&format!(
            "{:<width$}  {progress:>12}  {}\n",
            target.external_id, target.title
        ));
    }
    text
}

fn targets_csv(targets: &[TargetSummary]) -> Result<String, csv::Error> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    writer.write_record(["target", "title", "rated", "pooled", "finished"])?;
    for target in targets {
        writer.write_record([
            target.external_id.as_str(),
            target.title.as_str(),
            &target.rated.to_string(),
            &target.total.to_string(),
            &target.finished.to_string(),
        ])?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|error| csv::Error::from(error.into_error()))?;
    Ok(String::from_utf8(bytes).unwrap_or_default())
}

/// `paperjudge prune [on|off]`: sets pruning, then says how it stands.
async fn prune(study: &Study, state: Option<Switch>) -> Result<(), CliError> {
    if let Some(state) = state {
        let change = study.set_pruning(state == Switch::On).await?;
        if change.added + change.removed > 0 {
            crate::tell!(
                "pools of targets without a rating: {} pairs added, {} removed",
                change.added,
                change.removed
            );
        }
    }
    let mut said = study.pruning().await?.to_string();
    said.push('\n');
    print(&said, true)
}

/// `paperjudge next [--rater NAME]`: the id of the target `/next` opens for the rater (who
/// takes it), nothing when no target needs them. While pruning is on, the models the verdict
/// rules out are pruned first, so that the pool of the target it names leaves them out (see
/// `Study::next_target`).
async fn next(study: &Study, rater: Option<&str>, format: StatusFormat) -> Result<(), CliError> {
    let rater = match rater {
        None => Rater::owner(),
        Some(name) => study.rater_named(&rater_name(name)?).await?,
    };
    let next = (study.next_target(&rater).await?).map(|next| (next.target, next.progress));
    let text = match (format, next) {
        (StatusFormat::Text, None) => String::new(),
        (StatusFormat::Text, Some((paper, _))) => format!("{}\n", paper.external_id),
        (StatusFormat::Json, None) => "{\"target\":null}\n".to_owned(),
        (StatusFormat::Json, Some((paper, progress))) => format!(
            "{}\n",
            serde_json::json!({
                "target": paper.external_id,
                "title": paper.title,
                "rated": progress.rated,
                "pooled": progress.total,
                "path": format!("/targets/{}", paper.id),
            })
        ),
    };
    print(&text, format == StatusFormat::Text)
}

/// `paperjudge simulate`: the replays of the study's fully rated targets, as a table or JSON.
async fn simulate(study: &Study, args: SimulateArgs) -> Result<(), CliError> {
    let unreadable = |error| CliError::of_study(error, "the study file cannot be read");
    let depth = args.options.list_depth();
    let (set, judged) = match &args.options.judge {
        Some(name) => {
            let (set, judged) = study
                .judged_targets(name, depth)
                .await
                .map_err(unreadable)?;
            (set, Some(judged))
        }
        None => (study.evaluation_set(depth).await.map_err(unreadable)?, None),
    };
    let settings = args.options.settings(set.collection.pool_depth);
    let collection = (set.collection(&args.options.judgments()))
        .map_err(|refusal| CliError::Usage(refusal.to_string()))?;
    let replay = simulation::Replay::of(&collection, settings, args.options.margin())
        .map_err(|unusable| CliError::Usage(unusable.to_string()))?;
    let judge = judged.map(|judged| JudgeValues::of(&collection, &judged, settings));
    report_simulation(&replay, args, judge.as_ref())
}

/// `paperjudge simulate --qrels FILE --run FILE...`: the replays of the targets the runs list
/// and the qrels judge fully, at the default pool depth.
fn simulate_trec(args: SimulateArgs) -> Result<(), CliError> {
    if args.options.judge.is_some() {
        return Err(CliError::Usage(
            "--judge reads a judge's grades from the study; it does not apply to --qrels and \
             --run"
                .to_owned(),
        ));
    }
    let open =
        |path: &Path| open_input(path).map(|(file, _)| BufReader::with_capacity(1 << 20, file));
    let qrels_path = args.qrels.as_deref().unwrap_or(Path::new(""));
    let qrels = import::trec::read_qrels(open(qrels_path)?, &qrels_path.display().to_string())?;
    let mut runs = import::trec::Runs::default();
    for path in &args.runs {
        runs.read(open(path)?, &path.display().to_string())?;
    }
    let collection = runs.collection(&qrels, PoolDepth::DEFAULT);
    let settings = args.options.settings(PoolDepth::DEFAULT);
    let replay = simulation::Replay::of(&collection, settings, args.options.margin())
        .map_err(|unusable| CliError::Usage(unusable.to_string()))?;
    report_simulation(&replay, args, None)
}

/// The simulated studies of `replay` that `args` ask for, written as a table or JSON: for
/// each order, without pruning and (with --prune) with it; with a judge, the same draws
/// watched with it and without.
fn report_simulation(
    replay: &simulation::Replay,
    args: SimulateArgs,
    judge: Option<&JudgeValues>,
) -> Result<(), CliError> {
    let orders = if args.order.is_empty() {
        vec![Order::Random]
    } else {
        args.order
    };
    let last = args.first_seed.checked_add(args.seeds).ok_or_else(|| {
        CliError::Usage("--first-seed plus --seeds must stay below 2^64".to_owned())
    })?;
    let targets = args.targets.map_or(replay.targets(), |n| {
        usize::try_from(n).unwrap_or(usize::MAX)
    });
    let plans: Vec<simulation::Plan> = (orders.iter())
        .flat_map(|&order| {
            let prunes: &[bool] = if args.prune { &[false, true] } else { &[false] };
            prunes.iter().map(move |&prune| simulation::Plan {
                order,
                prune,
                resample: args.resample,
                targets,
            })
        })
        .collect();
    for plan in &plans {
        replay
            .check(*plan)
            .map_err(|unusable| CliError::Usage(unusable.to_string()))?;
    }
    let with_judge = match judge {
        Some(judge) => {
            if args.prune || plans.iter().any(|plan| plan.order != Order::Random) {
                let refused = simulation::ReplayError::JudgeRandomOrderOnly;
                return Err(CliError::Usage(refused.to_string()));
            }
            let summary = replay
                .simulate_with_judge(plans[0], judge, args.first_seed..last)
                .map_err(|unusable| CliError::Usage(unusable.to_string()))?;
            Some(summary)
        }
        None => None,
    };
    let summaries: Vec<simulation::Summary> = (plans.iter())
        .map(|&plan| replay.simulate(plan, args.first_seed..last))
        .collect();
    let text = match args.format {
        StatusFormat::Text => {
            let mut text = simulation::table(replay, targets, &summaries);
            if let Some(summary) = &with_judge {
                for line in with_judge::in_words(summary).lines() {
                    text.push_str(&crate::terminal::escape(line));
                    text.push('\n');
                }
            }
            text
        }
        StatusFormat::Json => {
            let mut json = serde_json::json!({
                "targets": replay.targets(),
                "ratings": replay.ratings(),
                "leader": replay.leader(),
                "seeds": args.seeds,
                "first_seed": args.first_seed,
                "targets_per_study": targets,
                "orders": summaries,
            });
            if let Some(summary) = &with_judge {
                json["judge"] = serde_json::json!(summary);
                json["human_targets_median"] = summary.human_targets_median.into();
                json["human_targets_median_without_judge"] =
                    summary.human_targets_median_without_judge.into();
                json["ratings_saved_median"] = summary.ratings_saved_median.into();
            }
            format!("{json}\n")
        }
    };
    print(&text, args.format == StatusFormat::Text)
}

/// The raters' lines of `status`: each rater's ratings and targets; nothing without raters.
fn raters_status(raters: &[crate::study::RaterRow]) -> String {
    let lines: String = (raters.iter())
        .map(|rater| {
            let line = format!(
                "rater {}  {} ratings, {} targets finished, {} in progress{}",
                rater.name,
                rater.ratings,
                rater.targets_finished,
                rater.targets_in_progress,
                if rater.active { "" } else { " (removed)" }
            );
            format!("{}\n", crate::terminal::escape(&line))
        })
        .collect();
    lines
}

/// A rater's name given on the command line.
fn rater_name(text: &str) -> Result<RaterName, CliError> {
    RaterName::new(text).map_err(|invalid| CliError::Usage(invalid.to_string()))
}

/// `paperjudge raters add|remove|password|list|set`.
async fn raters(study: &Study, command: RatersCommand) -> Result<(), CliError> {
    match command {
        RatersCommand::Add {
            name,
            password_file,
        } => {
            let name = rater_name(&name)?;
            let password = rater_password(&name, password_file.as_deref())?;
            let said = match study.add_rater(&name, &password).await? {
                Added::New => format!("added the rater {name}"),
                Added::Back => format!("{name} is a rater again, with their ratings"),
            };
            if let Some(file) = &password_file {
                warn_if_others_can_read(file);
            }
            crate::tell!("{said}");
        }
        RatersCommand::Password {
            name,
            password_file,
        } => {
            let name = rater_name(&name)?;
            let password = rater_password(&name, password_file.as_deref())?;
            study.set_rater_password(&name, &password).await?;
            if let Some(file) = &password_file {
                warn_if_others_can_read(file);
            }
            crate::tell!(
                "changed the password of {name}: their sessions end at their next request"
            );
        }
        RatersCommand::Remove { name } => {
            let name = rater_name(&name)?;
            study.remove_rater(&name).await?;
            crate::tell!(
                "removed the rater {name}: they can no longer sign in; their ratings stay"
            );
        }
        RatersCommand::List { format } => {
            let raters = study.raters().await?;
            let text = match format {
                StatusFormat::Json => format!(
                    "{}\n",
                    serde_json::to_string_pretty(&raters)
                        .map_err(|error| CliError::internal("cannot encode the raters", error))?
                ),
                StatusFormat::Text => raters_table(&raters),
            };
            return print(&text, format == StatusFormat::Text);
        }
        RatersCommand::Set {
            per_target,
            overlap,
        } => {
            let overlap = match overlap.as_deref() {
                None => None,
                Some("default") => Some(None),
                Some(text) => Some(Some(text.parse::<f64>().map_err(|_| {
                    CliError::Usage(format!(
                        "--overlap must be a share from 0 to 1, or default; got {text:?}"
                    ))
                })?)),
            };
            if per_target.is_none() && overlap.is_none() {
                return Err(CliError::Usage(
                    "give --per-target R, --overlap SHARE or both".to_owned(),
                ));
            }
            let plan = study.set_rating_plan(per_target, overlap).await?;
            crate::tell!("{}", plan_in_words(&plan));
        }
    }
    Ok(())
}

/// The plan in words: "each target rated by 1 rater, and 10% of them by one more".
fn plan_in_words(plan: &crate::study::Plan) -> String {
    let per_target = match plan.per_target {
        1 => "each target rated by 1 rater".to_owned(),
        count => format!("each target rated by {count} raters"),
    };
    let overlap = match plan.overlap {
        share if share > 0.0 => format!(
            ", and {}% of them by one more{}",
            share * 100.0,
            if plan.overlap_by_default {
                " (the default with two raters or more)"
            } else {
                ""
            }
        ),
        _ => String::new(),
    };
    let capped = if plan.per_target > plan.raters.max(1) {
        format!(
            "; the study has {} raters, so no target needs more",
            plan.raters.max(1)
        )
    } else {
        String::new()
    };
    format!("{per_target}{overlap}{capped}")
}

fn raters_table(raters: &crate::study::Raters) -> String {
    let mut text = format!("{}\n", plan_in_words(&raters.plan));
    if raters.raters.is_empty() {
        text.push_str("no raters: the owner rates alone (`paperjudge raters add NAME`)\n");
        return text;
    }
    let width = (raters.raters.iter())
        .map(|rater| rater.name.as_str().chars().count())
        .max()
        .unwrap_or(0)
        .max("rater".len());
    text.push_str(&format!(
        "{:<width$}  ratings  targets finished  in progress\n",
        "rater"
    ));
    for rater in &raters.raters {
        let line = format!(
            "{:<width$}  {:>7}  {:>16}  {:>11}{}",
            rater.name.as_str(),
            rater.ratings,
            rater.targets_finished,
            rater.targets_in_progress,
            if rater.active { "" } else { "  (removed)" },
        );
        text.push_str(&crate::terminal::escape(&line));
        text.push('\n');
    }
    text
}

/// A rater's password: the first line of `file`, or typed on the terminal.
fn rater_password(name: &RaterName, file: Option<&Path>) -> Result<String, CliError> {
    match file {
        Some(file) => first_line_of(file, "password file"),
        None => read_password(name),
    }
}

/// A rater's password typed on the terminal, twice; refused without a terminal (a script gives
/// --password-file).
fn read_password(name: &RaterName) -> Result<String, CliError> {
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
