//! The command line's arguments: every command's flags, as clap reads them (the `judge` and
//! `judges` commands' own in `judges.rs`).

use std::net::IpAddr;
use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use super::error::CliError;
use super::judges;
use crate::decision::Order;
use crate::domain::{ByteSize, RaterName};
use crate::formats::Format;
use crate::leaderboard::LeaderboardOptions;
use crate::lists::Persistence;
use crate::metrics::{Judgments, Relevance};
use crate::web::HostName;

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
    /// What the models' lists say: how much every two models' top k overlap, what each brings
    /// to the pool, how widely each recommends, over the fully rated targets (reads no rating).
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
    /// The study's guidelines for rating (Markdown), which every rating page shows under "How
    /// to rate" above the built-in scale: print them (the default), set them from a file, or
    /// clear them. Every change is a new version, which each rating made under it keeps.
    Guidelines {
        #[command(subcommand)]
        action: Option<GuidelinesCommand>,
    },
}

#[derive(Debug, Subcommand)]
pub enum GuidelinesCommand {
    /// Print the guidelines' Markdown (nothing when the study has none).
    Show,
    /// Set the guidelines to the Markdown of FILE (UTF-8, up to 20,000 characters).
    Set { file: PathBuf },
    /// Clear the guidelines: the rating pages show the built-in scale alone.
    Clear,
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
        /// The model of every row (instead of the model column or TREC run tag); a TREC run
        /// without the run tag (5 fields) needs it.
        #[arg(long)]
        model: Option<String>,
    },
    /// Ratings CSV (target,paper,stars[,rated_at][,rater][,note]; stars 1..5 or cannot-judge); an
    /// exported file re-imports as is.
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

/// Which targets `export qrels` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum QrelsTargets {
    All,
    Finished,
}

#[derive(Debug, Subcommand)]
pub enum ExportCommand {
    /// Ratings CSV: target,target_title,paper,paper_title,stars,rated_at,rater,note (stars 1..5,
    /// or cannot-judge).
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
        /// Which targets' pairs: every rated pair (all), or the fully rated targets only
        /// (finished), the leaderboard's, on which trec_eval gives its NDCG.
        #[arg(long, value_enum, default_value = "all")]
        targets: QrelsTargets,
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

impl ExportCommand {
    /// The file given with `-o`, if any.
    pub fn output(&self) -> Option<&std::path::Path> {
        match self {
            ExportCommand::Ratings { output }
            | ExportCommand::Qrels { output, .. }
            | ExportCommand::Pool { output }
            | ExportCommand::Judgments { output, .. } => output.as_deref(),
        }
    }
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
    /// Also the targets still being rated, not only the fully rated ones: their lists tell
    /// which models list the papers still to rate, so for planning, never before rating them
    #[arg(long)]
    pub include_partial: bool,
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

/// A rater's name given on the command line.
pub(super) fn rater_name(text: &str) -> Result<RaterName, CliError> {
    RaterName::new(text).map_err(|invalid| CliError::Usage(invalid.to_string()))
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
    /// Compute the leaderboard afresh instead of printing the output kept from an earlier
    /// call on the same study revision, and keep the new one. Needed only if the kept output
    /// is in doubt (a study file changed by hand, outside paperjudge).
    #[arg(long)]
    pub recompute: bool,
}
