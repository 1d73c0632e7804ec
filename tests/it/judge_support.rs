//! A stand-in for a model endpoint: an OpenAI-compatible chat-completions server on a loopback
//! port of the test process, whose replies a test scripts, and which keeps every request it
//! received (their bodies, keys, query strings and arrival times) and the most requests it had
//! in flight at once.

use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use serde_json::{json, Value};

/// What the stand-in answers to one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 with this message content.
    Content(String),
    /// An error status, with a `Retry-After` in seconds if given, and an OpenAI error body.
    Status(u16, Option<u64>, String),
    /// Waits this long, then answers the reply.
    Stall(Duration, Box<Reply>),
    /// 200 with a body that never ends: chunks of 64 KiB, one a millisecond, until the client
    /// hangs up.
    Endless,
    /// A redirect (301, 302, 307, 308) to this address.
    Redirect(u16, String),
}

impl Reply {
    pub fn stars(stars: u8) -> Reply {
        Reply::Content(format!("{{\"stars\": {stars}}}"))
    }
}

/// One request as the stand-in received it.
#[derive(Debug, Clone)]
pub struct Received {
    pub body: Value,
    pub authorization: Option<String>,
    /// The query string of the address, without `?`.
    pub query: String,
    pub at: Instant,
}

impl Received {
    /// The prompt: the one user message's content.
    pub fn prompt(&self) -> &str {
        self.body["messages"][0]["content"]
            .as_str()
            .unwrap_or_default()
    }

    /// The candidate's title as the default prompt gives it, between its delimiters.
    pub fn candidate_title(&self) -> &str {
        between(self.prompt(), "Candidate paper:\n<title>", "</title>")
    }

    /// The candidate's abstract as the default prompt gives it, between its delimiters.
    pub fn candidate_abstract(&self) -> &str {
        let candidate = between(self.prompt(), "Candidate paper:\n", "\n\n");
        between(candidate, "<abstract>", "</abstract>")
    }

    /// The target's title as the default prompt gives it, between its delimiters.
    pub fn target_title(&self) -> &str {
        between(self.prompt(), "Target paper:\n<title>", "</title>")
    }

    pub fn response_format(&self) -> &str {
        self.body["response_format"]["type"]
            .as_str()
            .unwrap_or_default()
    }
}

/// The text of `text` after the first `open` and before the next `close`.
fn between<'t>(text: &'t str, open: &str, close: &str) -> &'t str {
    let after = text
        .split_once(open)
        .unwrap_or_else(|| panic!("{open:?} in {text:?}"))
        .1;
    after.split_once(close).map_or(after, |(inside, _)| inside)
}

type Script = dyn Fn(&Received, usize) -> Reply + Send + Sync;

struct State {
    received: Mutex<Vec<Received>>,
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
    script: Mutex<Arc<Script>>,
    /// The ids `GET /models` lists.
    models: Mutex<Vec<String>>,
}

/// The stand-in, running until the test ends.
pub struct StandIn {
    /// The API base, as `--endpoint` takes it.
    pub url: String,
    state: Arc<State>,
}

impl StandIn {
    /// A stand-in answering each request as `script` says, given the request and its number
    /// (from 0, over the stand-in's life).
    pub fn start(script: impl Fn(&Received, usize) -> Reply + Send + Sync + 'static) -> StandIn {
        let state = Arc::new(State {
            received: Mutex::new(Vec::new()),
            in_flight: AtomicUsize::new(0),
            most_in_flight: AtomicUsize::new(0),
            script: Mutex::new(Arc::new(script)),
            models: Mutex::new(vec!["stand-in-judge".to_owned()]),
        });
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let url = format!("http://{}/v1", listener.local_addr().expect("an address"));
        let data = web::Data::new(state.clone());
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .route("/v1/chat/completions", web::post().to(complete))
                .route("/v1/models", web::get().to(models))
        })
        .workers(2)
        .listen(listener)
        .expect("the stand-in listens")
        .run();
        tokio::spawn(server);
        StandIn { url, state }
    }

    /// A stand-in that grades every pair by its candidate's title (see [`stars_of_title`]).
    pub fn grading() -> StandIn {
        StandIn::start(|request, _| Reply::stars(stars_of_title(request.candidate_title())))
    }

    /// A stand-in that behaves like a prompt-sensitive model: asked with a prompt that says
    /// [`BY_THE_NUMBER`], it grades every pair by its candidate's title (see
    /// [`stars_of_title`]); asked with any other, it grades each the other way round (6 minus
    /// that). Two prompts, two agreements with raters who rate by the title.
    pub fn prompt_sensitive() -> StandIn {
        StandIn::start(|request, _| {
            let stars = stars_of_title(request.candidate_title());
            match request.prompt().contains(BY_THE_NUMBER) {
                true => Reply::stars(stars),
                false => Reply::stars(6 - stars),
            }
        })
    }

    /// Every request received so far.
    pub fn received(&self) -> Vec<Received> {
        self.state.received.lock().unwrap().clone()
    }

    pub fn requests(&self) -> usize {
        self.state.received.lock().unwrap().len()
    }

    pub fn most_in_flight(&self) -> usize {
        self.state.most_in_flight.load(Ordering::SeqCst)
    }

    /// Lists these models from now on.
    pub fn serve_models(&self, models: Vec<String>) {
        *self.state.models.lock().unwrap() = models;
    }

    /// Answers from now on as `script` says.
    pub fn answer(&self, script: impl Fn(&Received, usize) -> Reply + Send + Sync + 'static) {
        *self.state.script.lock().unwrap() = Arc::new(script);
    }
}

/// What a prompt says for [`StandIn::prompt_sensitive`] to grade well.
pub const BY_THE_NUMBER: &str = "Grade by the number in the candidate's title.";

/// The stars the grading stand-in gives a candidate, by the number in its title ("Paper
/// three": 3 % 5 + 1 = 4); 1 for any other title.
pub fn stars_of_title(title: &str) -> u8 {
    let words = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    let number = (words.iter())
        .position(|word| title.ends_with(&format!(" {word}")))
        .unwrap_or(0);
    (number % 5) as u8 + 1
}

async fn complete(
    request: HttpRequest,
    body: web::Json<Value>,
    state: web::Data<Arc<State>>,
) -> HttpResponse {
    let received = Received {
        body: body.into_inner(),
        authorization: (request.headers().get("authorization"))
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned),
        query: request.query_string().to_owned(),
        at: Instant::now(),
    };
    let number = {
        let mut all = state.received.lock().unwrap();
        all.push(received.clone());
        all.len() - 1
    };
    let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    state.most_in_flight.fetch_max(now, Ordering::SeqCst);
    // Counted out however the request ends, a client that gave up on it included.
    let _in_flight = InFlight(&state.in_flight);
    let script = state.script.lock().unwrap().clone();
    let mut reply = script(&received, number);
    while let Reply::Stall(wait, then) = reply {
        tokio::time::sleep(wait).await;
        reply = *then;
    }
    match reply {
        Reply::Content(content) => HttpResponse::Ok().json(json!({
            "id": format!("chatcmpl-{number}"),
            "object": "chat.completion",
            "model": received.body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}],
        })),
        Reply::Status(status, retry_after, message) => {
            let mut answer = HttpResponse::build(
                actix_web::http::StatusCode::from_u16(status).expect("a status"),
            );
            if let Some(seconds) = retry_after {
                answer.insert_header(("Retry-After", seconds.to_string()));
            }
            answer.json(json!({"error": {"message": message, "type": "test"}}))
        }
        Reply::Endless => {
            let chunk = web::Bytes::from(vec![b' '; 64 * 1024]);
            let chunks = futures_util::stream::unfold((), move |()| {
                let chunk = chunk.clone();
                async move {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    Some((Ok::<_, actix_web::Error>(chunk), ()))
                }
            });
            HttpResponse::Ok()
                .content_type("application/json")
                .streaming(chunks)
        }
        Reply::Redirect(status, location) => {
            HttpResponse::build(actix_web::http::StatusCode::from_u16(status).expect("a status"))
                .insert_header(("Location", location))
                .finish()
        }
        Reply::Stall(..) => unreachable!("stalls are waited out above"),
    }
}

/// A request in flight, counted out when dropped.
struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn models(state: web::Data<Arc<State>>) -> HttpResponse {
    let models = state.models.lock().unwrap().clone();
    let data: Vec<Value> = (models.iter()).map(|id| json!({"id": id})).collect();
    HttpResponse::Ok().json(json!({"object": "list", "data": data}))
}
