//! A judge that grades through an OpenAI-compatible chat-completions endpoint (the client is
//! [`super::super::endpoint`]): one request a pair with the judge's prompt, `concurrency` in
//! flight. The first pair is asked alone, and finds the form of JSON output the endpoint takes;
//! a request that fails for a moment (a timeout, no connection, 429, a 5xx) is tried again
//! after a while (the endpoint's `Retry-After`, if it gives one), [`ATTEMPTS`] times in all;
//! one that cannot succeed (the key refused, an unknown model, a redirect, the endpoint gone)
//! stops the run with one sentence that says why.

use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use rand::Rng;
use tokio::sync::mpsc;

use super::super::endpoint::{settings_json, CallError, Endpoint, JsonForm};
use super::super::prompt::{self, FilledPrompt};
use super::{Answered, Heard, Outcome, PairTexts, Stop};

/// Tries of one request, the first included.
pub const ATTEMPTS: u32 = 5;

/// The first wait before a request is tried again; each next one twice as long, at most
/// [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// The longest `Retry-After` heeded.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// An endpoint and the prompt it is asked with.
pub(in crate::study::judges) struct EndpointGrader {
    pub endpoint: Arc<Endpoint>,
    pub prompt: Arc<FilledPrompt>,
}

impl EndpointGrader {
    /// The prompt of a pair.
    fn prompt_of(&self, pair: &PairTexts) -> String {
        self.prompt.render(prompt::PairTexts {
            target_title: &pair.target.title,
            target_abstract: &pair.target.abstract_text,
            candidate_title: &pair.candidate.title,
            candidate_abstract: &pair.candidate.abstract_text,
        })
    }

    /// Asks for every pair of `pairs`: the first alone (which finds the form of JSON output
    /// the endpoint takes), then the rest, `concurrency` requests in flight at most.
    pub async fn ask_all(
        self,
        mut pairs: mpsc::Receiver<PairTexts>,
        concurrency: usize,
        heard: mpsc::UnboundedSender<Heard>,
    ) {
        let Some(first) = pairs.recv().await else {
            return;
        };
        let endpoint = &self.endpoint;
        let (took, first_outcome) = probe(endpoint, &self.prompt_of(&first)).await;
        let form = match took {
            Ok(form) => form,
            Err(stop) => {
                let _ = heard.send(Heard::Stopped(stop));
                return;
            }
        };
        let _ = heard.send(Heard::Settings(settings_json(form)));
        let _ = heard.send(Heard::Answered(Answered {
            pair: first.pair,
            outcome: first_outcome,
        }));
        let pairs = stream::unfold(pairs, |mut pairs| async move {
            pairs.recv().await.map(|pair| (pair, pairs))
        });
        let mut replies = std::pin::pin!((pairs)
            .map(|pair| {
                let prompt = self.prompt_of(&pair);
                async move {
                    let first = endpoint.complete(&prompt, form).await;
                    let reply = tried_again(endpoint, &prompt, form, 1, first).await;
                    (pair.pair, reply)
                }
            })
            .buffer_unordered(concurrency));
        while let Some((pair, reply)) = replies.next().await {
            if let Err(error) = &reply {
                if let Some(stop) = fatal(error, endpoint).await {
                    let _ = heard.send(Heard::Stopped(stop));
                    return;
                }
            }
            let answered = Answered {
                pair,
                outcome: outcome(reply),
            };
            if heard.send(Heard::Answered(answered)).is_err() {
                return;
            }
        }
    }
}

/// The failure of a request that no later request escapes: the key refused, the model or the
/// address unknown, a redirect, the endpoint gone. `None` for a failure of this pair alone.
async fn fatal(error: &CallError, endpoint: &Endpoint) -> Option<Stop> {
    let url = endpoint.url();
    let why = match error {
        CallError::Status {
            status: status @ (401 | 403),
            message,
            ..
        } => format!(
            "the endpoint {url} refused the key (HTTP {status}: {message}): set \
             PAPERJUDGE_JUDGE_KEY to a key it accepts"
        ),
        CallError::Status { status: 404, .. } => {
            let served = match endpoint.models_served().await {
                Some(models) => format!("; it serves {models}"),
                None => String::new(),
            };
            format!(
                "the endpoint {url} does not know the model {:?} or the address ({error}){served}",
                endpoint.model()
            )
        }
        CallError::Redirected { .. } => format!(
            "the endpoint {url} answered {error}: paperjudge follows no redirect; give the \
             address it leads to as the endpoint, if you trust it"
        ),
        CallError::Unreachable(why) => format!(
            "cannot reach the endpoint {url} ({why}) after {ATTEMPTS} tries: is the server \
             running?"
        ),
        _ => return None,
    };
    Some(Stop(why))
}

/// The first pair: asked in OpenAI's form of JSON output, and in llama-cpp-python's if the
/// endpoint refuses that one (llama-cpp-python answers it with 500), [`ATTEMPTS`] tries in
/// all: the form the endpoint took, or why the run cannot go on, and the pair's outcome.
async fn probe(endpoint: &Endpoint, prompt: &str) -> (Result<JsonForm, Stop>, Outcome) {
    let (form, reply) = match endpoint.complete(prompt, JsonForm::Schema).await {
        Err(
            refused @ CallError::Status {
                status: 400 | 415 | 422 | 500 | 501,
                ..
            },
        ) => {
            let first = endpoint.complete(prompt, JsonForm::Object).await;
            let reply = tried_again(endpoint, prompt, JsonForm::Object, 2, first).await;
            if let Err(error) = &reply {
                let why = format!(
                    "the endpoint {} answered JSON output asked as json_schema with {refused} \
                     and as json_object with {error}; stopped",
                    endpoint.url()
                );
                return (Err(Stop(why)), outcome(reply));
            }
            (JsonForm::Object, reply)
        }
        // Nothing listens there: no use trying again and again before saying so.
        Err(CallError::Unreachable(why)) => {
            let why = format!(
                "cannot reach the endpoint {} ({why}): is the server running, and is this its \
                 address?",
                endpoint.url()
            );
            return (Err(Stop(why)), Outcome::Failed(String::new()));
        }
        first => (
            JsonForm::Schema,
            tried_again(endpoint, prompt, JsonForm::Schema, 1, first).await,
        ),
    };
    let took = match &reply {
        Ok(_) => Ok(form),
        Err(error) => Err(fatal(error, endpoint).await.unwrap_or_else(|| {
            Stop(format!(
                "the first request to the endpoint {} failed ({error}); stopped",
                endpoint.url()
            ))
        })),
    };
    (took, outcome(reply))
}

/// `reply`, the answer to try `attempt`, or the answer to the tries after it while it fails
/// for a moment, each after the wait [`backoff`] says: [`ATTEMPTS`] tries in all.
async fn tried_again(
    endpoint: &Endpoint,
    prompt: &str,
    form: JsonForm,
    mut attempt: u32,
    mut reply: Result<String, CallError>,
) -> Result<String, CallError> {
    loop {
        match reply {
            Err(error) if error.is_transient() && attempt < ATTEMPTS => {
                tokio::time::sleep(backoff(attempt, &error)).await;
                attempt += 1;
                reply = endpoint.complete(prompt, form).await;
            }
            reply => return reply,
        }
    }
}

fn outcome(reply: Result<String, CallError>) -> Outcome {
    match reply {
        Ok(content) => Outcome::of_reply(&content, None),
        Err(error) => Outcome::Failed(error.to_string()),
    }
}

/// The wait before try `attempt + 1`: the endpoint's `Retry-After` if it gave one (at most
/// [`MAX_RETRY_AFTER`]), else [`FIRST_BACKOFF`] doubled with each try (at most
/// [`MAX_BACKOFF`]), give or take a quarter so that requests failed together are not tried
/// again together.
fn backoff(attempt: u32, error: &CallError) -> Duration {
    if let CallError::Status {
        retry_after: Some(after),
        ..
    } = error
    {
        return (*after).min(MAX_RETRY_AFTER);
    }
    let doubled = FIRST_BACKOFF.saturating_mul(1 << (attempt - 1).min(16));
    doubled
        .min(MAX_BACKOFF)
        .mul_f64(rand::rng().random_range(0.75..1.25))
}
