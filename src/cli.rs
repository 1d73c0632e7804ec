//! The command line: each command a function of the study, in its own module.
//!
//! - `arguments`: every command's flags (clap); `error`: [`CliError`] and its exit status;
//! - a module per command: `init`, `serve`, `importing` (`import`), `exporting` (`export`),
//!   `checks`, `lists`, `backup`, `status`, `targets`, `prune`, `next`, `raters`, `judges`
//!   (`judge` and `judges`); `leaderboard` and `simulate` here;
//! - `render`: the text and CSV of the command line's own outputs (tables, rows); `output`:
//!   where a command writes; `passwords`: the passwords it reads.

mod arguments;
mod backup;
mod checks;
mod error;
mod exporting;
mod importing;
mod init;
mod judges;
mod lists;
mod next;
mod output;
mod passwords;
mod prune;
mod raters;
mod render;
mod serve;
mod status;
mod targets;

use std::io::BufReader;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::decision::Order;
use crate::domain::PoolDepth;
use crate::import;
use crate::leaderboard::{LeaderboardOptions, Partial};
use crate::simulation::{self, with_judge, with_judge::JudgeValues};
use crate::study::Study;

pub use arguments::{
    ChecksArgs, ChooseArgs, Cli, Command, ExportCommand, ImportCommand, LeaderboardFormat,
    ListFormat, ListsArgs, RatersCommand, ServeArgs, StatusFormat, Switch, TargetsCommand,
};
pub use error::CliError;
use importing::open_input;
use output::print;

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
        Command::Init { pool_depth } => init::init(&study, pool_depth).await,
        Command::Serve(args) => serve::serve(&study, args).await,
        Command::Import(command) => importing::run_import(&study, command).await,
        Command::Export(command) => exporting::run_export(&study, command).await,
        Command::Leaderboard(args) => leaderboard(&study, args).await,
        Command::Checks(args) => checks::checks(&study, args).await,
        Command::Lists(args) => lists::lists(&study, args).await,
        Command::Backup { file } => backup::backup(&study, &cli.db, &file).await,
        Command::Status { format } => status::status(&study, format).await,
        Command::Targets(command) => targets::targets(&study, command).await,
        Command::Next { rater, format } => next::next(&study, rater.as_deref(), format).await,
        Command::Raters(command) => raters::raters(&study, command).await,
        Command::Prune { state } => prune::prune(&study, state).await,
        Command::Simulate(args) => simulate(&study, args).await,
        Command::Judge(args) => judges::judge(&study, args).await,
        Command::Judges(args) => judges::judges(&study, args).await,
    };
    // Whatever happened, the study file is left whole on its own (see `Study::close`).
    study.close().await;
    result
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
