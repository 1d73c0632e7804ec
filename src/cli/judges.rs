//! `paperjudge judge` and `paperjudge judges`: machine judges graded through a model endpoint,
//! listed and removed.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::output::print;
use super::{CliError, StatusFormat};
use crate::domain::{JudgeModel, JudgeName};
use crate::study::judges::endpoint::EndpointUrl;
use crate::study::judges::prompt::MAX_TEMPLATE_BYTES;
use crate::study::judges::{
    CommandLine, EndpointRequest, Grading, JudgeSummary, Purpose, RunProgress, RunReport,
    RunRequest, TrialSummary, KEY_VARIABLE,
};
use crate::study::{Study, StudyError};
use crate::terminal::{cell, escape};

#[derive(Debug, Args)]
pub struct JudgeArgs {
    /// The API base of an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8081/v1: requests
    /// go to its path followed by /chat/completions, its query string kept. No user name or
    /// password in it (the key goes in PAPERJUDGE_JUDGE_KEY); no redirect is followed.
    #[arg(
        long,
        value_name = "URL",
        required_unless_present = "command",
        conflicts_with = "command"
    )]
    pub endpoint: Option<String>,
    /// The model the endpoint serves.
    #[arg(
        long,
        value_name = "NAME",
        required_unless_present = "command",
        conflicts_with = "command"
    )]
    pub model: Option<String>,
    /// A judge that is a local program, started once (without a shell; the line split into
    /// words as a shell splits them): it reads one JSON object a line on its standard input,
    /// {"id", "target_title", "target_abstract", "candidate_title", "candidate_abstract"}, and
    /// writes one a line, {"id", "stars"[, "explanation"]}, in any order.
    #[arg(long, value_name = "\"CMD ARGS\"")]
    pub command: Option<String>,
    /// The judge's name [default: the model's, or the command line]. A judge's grades all come
    /// from one model and one prompt, or one command: another needs another name.
    #[arg(long, value_name = "JUDGE")]
    pub name: Option<String>,
    /// A prompt template of your own, at most 64 KiB: a text holding {target_title} and
    /// {candidate_title} (and, if you like, {target_abstract}, {candidate_abstract} and
    /// {guidelines}: the study's guidelines with the scale of stars, as raters read them),
    /// asking for JSON {"stars": N} [default: the judge's own; for a new judge, paperjudge's,
    /// which reads the guidelines and marks the papers' texts as data].
    #[arg(long, value_name = "FILE", conflicts_with = "command")]
    pub prompt: Option<PathBuf>,
    /// Pairs outstanding at most: requests in flight (a server that batches requests, vLLM or
    /// llama-server --parallel N, wants 16 to 64), or lines sent to the command and not
    /// answered yet.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub concurrency: u64,
    /// Grade at most N pairs in this run (the first ones of the study's order).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// Seconds one request may take, from connecting to the reply's last byte, before it is
    /// tried again; seconds a command may answer nothing while lines are outstanding.
    #[arg(long, value_name = "SECONDS", default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: u64,
    /// Try the judge first: grade only the tuning set's pairs (the first fully rated targets
    /// in the study's order) and print its agreement with the raters, its speed and the time
    /// the whole study would take. A trial is no judge: its grades reach no estimate.
    #[arg(long, conflicts_with_all = ["from_trial", "stop_below_alpha", "name", "limit"])]
    pub trial: bool,
    /// The tuning set's size [default: the set as it is, or 10]: the same set for every trial
    /// until another size is asked.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=10000))]
    pub tuning_targets: Option<u64>,
    /// Make the judge --name from the trial ID (`judges trials` lists them), keeping its
    /// grades, and grade the rest of the study with what the trial graded with.
    #[arg(long, value_name = "ID", requires = "name", value_parser = clap::value_parser!(i64).range(1..))]
    pub from_trial: Option<i64>,
    /// Grade the tuning set first, and stop there when the upper end of alpha's 95% interval
    /// on it is below X: a judge that agrees too little is not run on the whole study.
    #[arg(long, value_name = "X", conflicts_with = "from_trial", value_parser = alpha_threshold)]
    pub stop_below_alpha: Option<f64>,
}

/// An alpha threshold: a number from -1 to 1.
fn alpha_threshold(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|x| (-1.0..=1.0).contains(x))
        .ok_or_else(|| format!("must be a number from -1 to 1, got {text:?}"))
}

#[derive(Debug, Args)]
pub struct JudgesArgs {
    #[command(subcommand)]
    pub command: Option<JudgesCommand>,
    #[arg(long, value_enum, default_value_t = StatusFormat::Text, global = true)]
    pub format: StatusFormat,
}

#[derive(Debug, Subcommand)]
pub enum JudgesCommand {
    /// Every judge with the pairs and targets it graded (the default).
    List,
    /// Remove a judge and all its grades (no rating changes).
    Remove { name: String },
    /// Every trial (`judge ... --trial`), the best first: its agreement with the raters on
    /// the tuning set and its speed.
    Trials,
}

/// A judge's name as given on the command line.
pub fn judge_name(text: &str) -> Result<JudgeName, CliError> {
    JudgeName::new(text).map_err(|invalid| CliError::Usage(invalid.to_string()))
}

pub async fn judge(study: &Study, args: JudgeArgs) -> Result<(), CliError> {
    let usage = |message: String| CliError::Usage(message);
    let grading = match (&args.command, &args.endpoint, &args.model) {
        (Some(command), _, _) => Grading::Command(CommandLine::parse(command).map_err(usage)?),
        (None, Some(endpoint), Some(model)) => Grading::Endpoint(EndpointRequest {
            endpoint: EndpointUrl::parse(endpoint).map_err(|invalid| usage(invalid.to_string()))?,
            model: JudgeModel::new(model).map_err(|invalid| usage(invalid.to_string()))?,
            prompt: args.prompt.as_deref().map(read_prompt).transpose()?,
            key: std::env::var(KEY_VARIABLE).ok(),
        }),
        // clap asks for both, or for the command.
        (None, _, _) => {
            return Err(usage(
                "give --endpoint URL and --model NAME, or --command \"CMD ARGS\"".to_owned(),
            ))
        }
    };
    let purpose = match (args.trial, args.from_trial, args.stop_below_alpha) {
        (true, _, _) => Purpose::Trial,
        (false, Some(trial), _) => Purpose::FromTrial(trial),
        (false, None, Some(threshold)) => Purpose::JudgeUnlessBelow(threshold),
        (false, None, None) => Purpose::Judge,
    };
    if args.tuning_targets.is_some() && matches!(purpose, Purpose::Judge | Purpose::FromTrial(_)) {
        return Err(usage(
            "--tuning-targets sets the tuning set of --trial or --stop-below-alpha: give one of \
             them"
                .to_owned(),
        ));
    }
    let request = RunRequest {
        grading,
        name: args.name.as_deref().map(judge_name).transpose()?,
        concurrency: usize::try_from(args.concurrency).unwrap_or(1),
        limit: args.limit,
        timeout: Duration::from_secs(args.timeout),
        purpose,
        tuning_targets: args
            .tuning_targets
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
    };
    if purpose == Purpose::Trial {
        return trial(study, request).await;
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    let report = study
        .evaluation()
        .run_judge(request, Bar(bar.clone()))
        .await;
    bar.finish_and_clear();
    let report = report.map_err(run_error)?;
    if report.pairs == 0 {
        crate::tell!(
            "judge {}: every pooled pair of the study's targets is graded already; nothing was \
             asked",
            report.judge
        );
        return Ok(());
    }
    crate::tell!("{}", report.summary());
    tell_examples(&report);
    match report.stopped {
        Some(why) => Err(CliError::Failed(why)),
        None => Ok(()),
    }
}

/// `judge ... --trial`: the trial's run, then what it found.
async fn trial(study: &Study, request: RunRequest) -> Result<(), CliError> {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    let report = study
        .evaluation()
        .run_trial(request, Bar(bar.clone()))
        .await;
    bar.finish_and_clear();
    let report = report.map_err(run_error)?;
    crate::tell!("{}", report.run.summary());
    tell_examples(&report.run);
    if let Some(found) = &report.found {
        for line in found.in_words() {
            crate::tell!("{line}");
        }
    }
    match &report.run.stopped {
        Some(why) => Err(CliError::Failed(why.clone())),
        None => Ok(()),
    }
}

/// A run that could not begin, in the command line's words.
fn run_error(error: StudyError) -> CliError {
    match error {
        StudyError::DiskFull(_) => CliError::Failed(
            "the disk holding the study is full, so the run could not begin (nothing was \
             asked): free some space, then run the judge again"
                .to_owned(),
        ),
        StudyError::Busy(_) => CliError::Failed(
            "another process holds the study (an import, most likely), so the run could not \
             begin (nothing was asked): run the judge again once it has finished"
                .to_owned(),
        ),
        error => CliError::of_study(error, "the run could not read or write the study file"),
    }
}

/// The template in the file `file`, read up to the longest a prompt may be and a byte more
/// (`/dev/zero` is no prompt).
fn read_prompt(file: &Path) -> Result<String, CliError> {
    let unreadable = |error: std::io::Error| {
        CliError::Usage(format!(
            "cannot read the prompt {}: {error}",
            file.display()
        ))
    };
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .and_then(|opened| {
            opened
                .take(MAX_TEMPLATE_BYTES as u64 + 1)
                .read_to_end(&mut bytes)
        })
        .map_err(unreadable)?;
    if bytes.len() > MAX_TEMPLATE_BYTES {
        return Err(CliError::Usage(format!(
            "the prompt {} holds more than the {MAX_TEMPLATE_BYTES} bytes (64 KiB) a prompt may",
            file.display()
        )));
    }
    String::from_utf8(bytes)
        .map_err(|_| CliError::Usage(format!("the prompt {} is not UTF-8 text", file.display())))
}

/// The replies that were no grade and the failed requests, a few of each.
fn tell_examples(report: &RunReport) {
    let examples = [
        ("no grade", &report.not_grade_examples),
        ("failed", &report.failed_examples),
    ];
    for (what, examples) in examples {
        for example in examples {
            crate::tell!(
                "  {what}: {} → {}: {}",
                example.target,
                example.paper,
                example.what
            );
        }
    }
}

/// The progress bar of a run: pairs done of the run's, their rate and the time left.
struct Bar(ProgressBar);

impl RunProgress for Bar {
    fn started(&self, judge: &JudgeName, pairs: u64) {
        self.0.set_length(pairs);
        self.0.set_style(
            ProgressStyle::with_template(
                "{prefix} {bar:40} {pos}/{len} pairs {per_sec} eta {eta} {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        self.0.set_prefix(escape(judge.as_str()).into_owned());
    }

    fn done(&self, stored: bool) {
        self.0.inc(1);
        if !stored {
            let missed = self.0.message();
            let missed: u64 = missed
                .split(' ')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            self.0.set_message(format!("{} not stored", missed + 1));
        }
    }
}

pub async fn judges(study: &Study, args: JudgesArgs) -> Result<(), CliError> {
    match args.command.unwrap_or(JudgesCommand::List) {
        JudgesCommand::List => {
            let judges = study.judges().list().await?;
            let (text, as_text) = match args.format {
                StatusFormat::Json => {
                    let mut json = serde_json::to_string_pretty(&judges).map_err(|error| {
                        CliError::Failed(format!("cannot encode the judges: {error}"))
                    })?;
                    json.push('\n');
                    (json, false)
                }
                StatusFormat::Text => (judges_table(&judges), true),
            };
            print(&text, as_text)
        }
        JudgesCommand::Trials => {
            let trials = study.evaluation().trials().await?;
            let (text, as_text) = match args.format {
                StatusFormat::Json => {
                    let mut json = serde_json::to_string_pretty(&trials).map_err(|error| {
                        CliError::Failed(format!("cannot encode the trials: {error}"))
                    })?;
                    json.push('\n');
                    (json, false)
                }
                StatusFormat::Text => (trials_table(&trials), true),
            };
            print(&text, as_text)
        }
        JudgesCommand::Remove { name } => {
            let name = judge_name(&name)?;
            study.judges().remove(&name).await?;
            crate::tell!(
                "removed the judge {} and its grades (no rating changed)",
                name
            );
            Ok(())
        }
    }
}

fn trials_table(trials: &[TrialSummary]) -> String {
    if trials.is_empty() {
        return "no trial yet: `paperjudge judge --endpoint URL --model NAME --trial` tries a \
                judge on the tuning set\n"
            .to_owned();
    }
    let number = |value: Option<f64>| crate::words::terminal::number(value);
    let rows: Vec<Vec<String>> = (trials.iter())
        .map(|trial| {
            vec![
                trial.id.to_string(),
                match (&trial.model, &trial.command) {
                    (Some(model), _) => cell(model).into_owned(),
                    (None, Some(command)) => format!("(command) {}", cell(command)),
                    (None, None) => String::new(),
                },
                trial.pairs.to_string(),
                number(trial.alpha_ordinal),
                number(trial.kappa_quadratic),
                number(trial.spearman),
                trial
                    .seconds_per_pair
                    .map_or_else(|| "-".to_owned(), |seconds| format!("{seconds:.2}")),
                (trial.prompt_sha256.as_deref())
                    .map_or_else(String::new, |sha| sha.chars().take(12).collect()),
                trial.created_at.clone(),
            ]
        })
        .collect();
    table(
        &[
            "trial",
            "model",
            "pairs",
            "alpha",
            "kappa",
            "rho",
            "s/pair",
            "prompt sha256",
            "when",
        ],
        &rows,
    )
}

/// Rows under a header, each column as wide as its widest cell.
fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = (0..header.len())
        .map(|column| {
            (rows.iter().map(|row| row[column].chars().count()))
                .chain([header[column].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[&str]| -> String {
        let padded: Vec<String> = (cells.iter().zip(&widths))
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        format!("{}\n", padded.join("  ").trim_end())
    };
    let mut text = line(header);
    for row in rows {
        text.push_str(&line(&row.iter().map(String::as_str).collect::<Vec<_>>()));
    }
    text
}

fn judges_table(judges: &[JudgeSummary]) -> String {
    if judges.is_empty() {
        return "no judge yet: `paperjudge judge --endpoint URL --model NAME` grades the pooled \
                pairs, `paperjudge import judgments FILE --judge NAME` imports grades\n"
            .to_owned();
    }
    let rows: Vec<[String; 5]> = (judges.iter())
        .map(|judge| {
            [
                cell(judge.name.as_str()).into_owned(),
                match (&judge.model, &judge.command) {
                    (Some(model), _) => cell(model).into_owned(),
                    (None, Some(command)) => format!("(command) {}", cell(command)),
                    (None, None) => "(imported)".to_owned(),
                },
                judge.pairs_judged.to_string(),
                judge.targets_judged.to_string(),
                judge
                    .prompt_sha256
                    .as_deref()
                    .map_or_else(String::new, |sha| sha.chars().take(12).collect()),
            ]
        })
        .collect();
    let rows: Vec<Vec<String>> = rows.into_iter().map(Vec::from).collect();
    table(
        &[
            "judge",
            "model",
            "pairs judged",
            "targets judged",
            "prompt sha256",
        ],
        &rows,
    )
}
