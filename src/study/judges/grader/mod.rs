//! How a judge grades: the seam between a run (which pairs, each grade stored as it arrives,
//! the judge's lease: `super::run`) and what answers. A grader is handed the pairs with both
//! papers' texts, as the run reads them, and tells what each answered, in any order, through
//! [`Heard`]; the run stores the grades and counts the rest.
//!
//! - [`endpoint`]: an OpenAI-compatible chat-completions endpoint, one request a pair with the
//!   judge's [prompt](super::prompt), `concurrency` in flight, tried again when it fails for a
//!   moment.
//! - [`command`]: a local command started once, one JSON line a pair on its standard input and
//!   one a grade on its output, `concurrency` lines outstanding.
//!
//! What identifies a judge's grades is the grader's: the model with the prompt (and the
//! guidelines it read) for an endpoint, the command line for a command. A run under a judge's
//! name asks what its grades came from, or is refused ([`Grader::check_same`]).

pub mod command;
pub(super) mod endpoint;

use crate::study::judges::Handle;
use tokio::sync::mpsc;

use super::endpoint::parse_stars;
use super::store::{self, JudgeRecord, PaperText};
use crate::domain::{GuidelinesVersion, PaperId, PaperKey, Stars};
use crate::study::error::{Refusal, StudyError};
use crate::study::Study;
use command::CommandGrader;
use endpoint::EndpointGrader;

/// Pairs whose texts are read at a time, in one read of the study.
const TEXTS_AT_A_TIME: usize = 64;

/// A pair of a run: its keys and its papers' ids.
#[derive(Debug, Clone)]
pub(super) struct Pair {
    pub keys: (PaperKey, PaperKey),
    pub target: PaperId,
    pub paper: PaperId,
}

/// A pair with both papers' texts, as a grader is handed it.
pub(super) struct PairTexts {
    pub pair: Pair,
    pub target: PaperText,
    pub candidate: PaperText,
}

/// A pair, and how it went.
pub(super) struct Answered {
    pub pair: Pair,
    pub outcome: Outcome,
}

/// How one pair went.
#[derive(Debug)]
pub(super) enum Outcome {
    Graded {
        stars: Stars,
        explanation: Option<String>,
    },
    /// A reply that is no grade, as it came.
    NotAGrade(String),
    /// No reply, after every try: why.
    Failed(String),
}

impl Outcome {
    /// What a reply's `content` says: its grade, with `explanation`, or that it is none.
    fn of_reply(content: &str, explanation: Option<String>) -> Outcome {
        match parse_stars(content) {
            Ok(stars) => Outcome::Graded { stars, explanation },
            Err(why) => Outcome::NotAGrade(format!("{why}: {content:?}")),
        }
    }
}

/// Why a run cannot go on: said in one sentence.
#[derive(Debug)]
pub(super) struct Stop(pub String);

/// What a grader tells the run.
pub(super) enum Heard {
    Answered(Answered),
    /// How the grader asks, as stored with the judge (JSON): the endpoint's settings, once the
    /// first request found the form of JSON output it takes.
    Settings(String),
    /// Nothing more can be asked (the pair in hand is not counted).
    Stopped(Stop),
    /// The study could not be read.
    Failed(StudyError),
}

/// A judge's way of grading, ready to ask.
pub(super) enum Grader {
    Endpoint(EndpointGrader),
    Command(Box<CommandGrader>),
}

/// What a judge's grades come from: what a new judge is stored as, and what a run under an
/// existing judge's name must ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Identity {
    Endpoint {
        model: String,
        /// Where it is asked now: the endpoint may move (a server restarted on another port),
        /// and stays the same judge.
        endpoint: String,
        prompt: String,
        prompt_sha256: String,
        /// The guidelines' version its prompt was filled with.
        guidelines: Option<GuidelinesVersion>,
    },
    Command {
        command: String,
    },
}

impl Identity {
    /// The guidelines' version its grades are made under.
    pub fn guidelines(&self) -> Option<GuidelinesVersion> {
        match self {
            Identity::Endpoint { guidelines, .. } => *guidelines,
            Identity::Command { .. } => None,
        }
    }

    /// What a new judge of it is stored as, with the requests' `settings`.
    pub fn source<'a>(&'a self, settings: Option<&'a str>) -> store::Source<'a> {
        match self {
            Identity::Endpoint {
                model,
                endpoint,
                prompt,
                prompt_sha256,
                guidelines,
            } => store::Source::Endpoint {
                model,
                endpoint,
                prompt,
                prompt_sha256,
                guidelines: *guidelines,
                settings: settings.unwrap_or_default(),
            },
            Identity::Command { command } => store::Source::Command { command },
        }
    }

    /// Refused unless the judge `judge`'s grades came from what this asks: one model and one
    /// prompt under one version of the guidelines, or one command line.
    pub fn check_same(&self, judge: &JudgeRecord) -> Result<(), Refusal> {
        let differs = match (self, &judge.model, &judge.command) {
            (_, None, None) => return Err(Refusal::JudgeImported(judge.name.clone())),
            (
                Identity::Endpoint {
                    model: asked,
                    prompt_sha256,
                    guidelines,
                    ..
                },
                Some(model),
                _,
            ) => endpoint_differs(judge, model, asked, prompt_sha256, *guidelines),
            (Identity::Endpoint { model, .. }, None, Some(command)) => Some(format!(
                "the command {command:?}, and this run asks the model {model:?}"
            )),
            (Identity::Command { command }, Some(model), _) => Some(format!(
                "the model {model:?}, and this run asks the command {command:?}"
            )),
            (Identity::Command { command: asked }, None, Some(command)) => (command != asked)
                .then(|| format!("the command {command:?}, and this run asks {asked:?}")),
        };
        match differs {
            Some(differs) => Err(Refusal::JudgeChanged {
                judge: judge.name.clone(),
                differs,
            }),
            None => Ok(()),
        }
    }
}

/// How the judge `judge`, which grades with `model`, differs from a run that asks the model
/// `asked` with a prompt of SHA-256 `sha` filled with the guidelines' version `guidelines`.
fn endpoint_differs(
    judge: &JudgeRecord,
    model: &str,
    asked: &str,
    sha: &str,
    guidelines: Option<GuidelinesVersion>,
) -> Option<String> {
    let version = |version: Option<GuidelinesVersion>| {
        version.map_or_else(|| "none".to_owned(), |version| format!("version {version}"))
    };
    if model != asked {
        Some(format!("the model {model:?}, and this run asks {asked:?}"))
    } else if judge.prompt_sha256.as_deref() != Some(sha) {
        Some(format!(
            "a prompt of SHA-256 {}…, and this run's is {}…",
            (judge.prompt_sha256.as_deref().unwrap_or("").get(..12)).unwrap_or(""),
            sha.get(..12).unwrap_or(sha)
        ))
    } else if judge.guidelines() != guidelines {
        Some(format!(
            "the study's guidelines of then ({}), and the guidelines in force are {} (a judge \
             reads them through its prompt's {{guidelines}})",
            version(judge.guidelines()),
            version(guidelines)
        ))
    } else {
        None
    }
}

impl Grader {
    /// What its grades come from.
    pub fn identity(&self) -> Identity {
        match self {
            Grader::Endpoint(endpoint) => Identity::Endpoint {
                model: endpoint.endpoint.model().as_str().to_owned(),
                endpoint: endpoint.endpoint.url().as_str().to_owned(),
                prompt: endpoint.prompt.prompt.template().to_owned(),
                prompt_sha256: endpoint.prompt.prompt.sha256(),
                guidelines: endpoint.prompt.guidelines,
            },
            Grader::Command(command) => Identity::Command {
                command: command.line().as_str().to_owned(),
            },
        }
    }

    /// Asks for every pair of `keys` (their texts read from `study` a few dozen at a time),
    /// `concurrency` outstanding at most, and tells `heard` what each answered; past the
    /// `gate`'s first pairs, only once it opens (never, if it is dropped).
    pub async fn ask_all(
        self,
        study: Study,
        keys: Vec<(PaperKey, PaperKey)>,
        concurrency: usize,
        heard: mpsc::UnboundedSender<Heard>,
        gate: Option<Gate>,
    ) {
        let (ready, pairs) = mpsc::channel::<PairTexts>(concurrency);
        let failed = heard.clone();
        let read = async move {
            match gate {
                None => read_texts(&study, &keys, &ready, &failed).await,
                Some(Gate { after, open }) => {
                    let (first, rest) = keys.split_at(after.min(keys.len()));
                    read_texts(&study, first, &ready, &failed).await;
                    if open.await.is_ok() {
                        read_texts(&study, rest, &ready, &failed).await;
                    }
                }
            }
        };
        let ask = async move {
            match self {
                Grader::Endpoint(endpoint) => endpoint.ask_all(pairs, concurrency, heard).await,
                Grader::Command(command) => command.ask_all(pairs, concurrency, heard).await,
            }
        };
        futures_util::future::join(read, ask).await;
    }
}

/// Where a grader waits before it asks for more: after its first `after` pairs, until `open`
/// says so.
pub(super) struct Gate {
    pub after: usize,
    pub open: tokio::sync::oneshot::Receiver<()>,
}

/// Reads the texts of the pairs `keys`, [`TEXTS_AT_A_TIME`] in one read of the study, each read
/// done before the grader waits on anything, and hands them to `ready` in order.
async fn read_texts(
    study: &Study,
    keys: &[(PaperKey, PaperKey)],
    ready: &mpsc::Sender<PairTexts>,
    heard: &mpsc::UnboundedSender<Heard>,
) {
    for chunk in keys.chunks(TEXTS_AT_A_TIME) {
        match study.judges().pair_texts(chunk).await {
            Ok(pairs) => {
                for pair in pairs {
                    if ready.send(pair).await.is_err() {
                        return;
                    }
                }
            }
            Err(error) => {
                let _ = heard.send(Heard::Failed(error));
                return;
            }
        }
    }
}

impl Handle<'_> {
    /// The pairs with the keys `keys`, with both papers' texts, in one read of the study.
    async fn pair_texts(
        &self,
        keys: &[(PaperKey, PaperKey)],
    ) -> Result<Vec<PairTexts>, StudyError> {
        let papers: Vec<PaperKey> = (keys.iter())
            .flat_map(|&(target, paper)| [target, paper])
            .collect();
        let texts = self
            .study
            .db
            .read(async |conn| Ok(store::paper_texts(&mut *conn, &papers).await?))
            .await?;
        let text_of = |key: PaperKey| {
            (texts.iter())
                .find(|text| text.id == key)
                .cloned()
                .ok_or_else(|| StudyError::unreadable("a pooled pair names no paper"))
        };
        (keys.iter())
            .map(|&(target_key, paper_key)| {
                let (target, candidate) = (text_of(target_key)?, text_of(paper_key)?);
                Ok(PairTexts {
                    pair: Pair {
                        keys: (target_key, paper_key),
                        target: target.external_id.clone(),
                        paper: candidate.external_id.clone(),
                    },
                    target,
                    candidate,
                })
            })
            .collect()
    }
}
