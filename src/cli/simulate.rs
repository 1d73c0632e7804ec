//! `paperjudge simulate`: a fully rated study (or TREC qrels and runs) replayed target by
//! target, with pruning and with a judge beside the plain replay when asked.

use std::io::BufReader;
use std::path::Path;

use super::arguments::{SimulateArgs, StatusFormat};
use super::importing::open_input;
use super::output::print;
use super::CliError;
use crate::decision::Order;
use crate::domain::PoolDepth;
use crate::formats::trec;
use crate::simulation::{self, with_judge, with_judge::JudgeValues};
use crate::study::Study;

/// `paperjudge simulate`: the replays of the study's fully rated targets, as a table or JSON.
pub(super) async fn simulate(study: &Study, args: SimulateArgs) -> Result<(), CliError> {
    let unreadable = |error| CliError::of_study(error, "the study file cannot be read");
    let depth = args.options.list_depth();
    let (set, judged) = match &args.options.judge {
        Some(name) => {
            let (set, judged) = study
                .evaluation()
                .judged_targets(name, depth)
                .await
                .map_err(unreadable)?;
            (set, Some(judged))
        }
        None => (
            study
                .evaluation()
                .current_set(depth)
                .await
                .map_err(unreadable)?,
            None,
        ),
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
pub(super) fn simulate_trec(args: SimulateArgs) -> Result<(), CliError> {
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
    let qrels = trec::read_qrels(open(qrels_path)?, &qrels_path.display().to_string())?;
    let mut runs = trec::Runs::default();
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
            }
            format!("{json}\n")
        }
    };
    print(&text, args.format == StatusFormat::Text)
}
