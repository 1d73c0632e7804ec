//! The client of an OpenAI-compatible chat-completions endpoint (`POST {base}/chat/completions`),
//! the API that llama.cpp's server, llama-cpp-python, Ollama, vLLM and hosted services speak:
//! one prompt in, the reply's message content out, asked for as JSON `{"stars": N}`.
//!
//! JSON output is asked for in one of two forms ([`JsonForm`]): OpenAI's `json_schema`, which
//! llama.cpp's server, vLLM and hosted services take, and `json_object` with a `schema`, the
//! only form llama-cpp-python's server takes (it answers the other with HTTP 500). A run tries
//! the first and falls back to the second (see `run`).

use std::fmt;
use std::time::Duration;

use serde_json::{json, Value};

use crate::domain::{JudgeModel, Stars};

/// The settings of every request, stored with the judge: temperature 0, so that the same
/// pair and prompt get the same grade from a server that allows it; a few tokens, as the
/// answer is `{"stars": N}`.
pub const TEMPERATURE: f64 = 0.0;
pub const MAX_TOKENS: u32 = 32;

/// The form in which JSON output is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonForm {
    /// `{"type": "json_schema", "json_schema": {"name", "strict", "schema"}}` (OpenAI).
    Schema,
    /// `{"type": "json_object", "schema": ...}` (llama-cpp-python).
    Object,
}

impl JsonForm {
    pub fn as_str(self) -> &'static str {
        match self {
            JsonForm::Schema => "json_schema",
            JsonForm::Object => "json_object",
        }
    }

    fn response_format(self) -> Value {
        let schema = json!({
            "type": "object",
            "properties": {"stars": {"type": "integer", "enum": [1, 2, 3, 4, 5]}},
            "required": ["stars"],
            "additionalProperties": false
        });
        match self {
            JsonForm::Schema => json!({
                "type": "json_schema",
                "json_schema": {"name": "grade", "strict": true, "schema": schema}
            }),
            JsonForm::Object => json!({"type": "json_object", "schema": schema}),
        }
    }
}

/// The requests' settings as stored with the judge (JSON).
pub fn settings_json(form: JsonForm) -> String {
    json!({
        "temperature": TEMPERATURE,
        "max_tokens": MAX_TOKENS,
        "response_format": form.as_str(),
    })
    .to_string()
}

/// The most bytes of a reply read. A grade is a few dozen bytes and a whole chat completion,
/// with its usage and timings, a few hundred: a longer reply is no grade, and one that never
/// ends would otherwise be read until memory runs out. The time a reply may take, trickling
/// included, is the run's timeout (reqwest's, from connecting to the body's last byte).
pub const MAX_REPLY_BYTES: usize = 256 * 1024;

/// The most bytes of the list of models (`GET /models`) read: a hosted service lists hundreds.
const MAX_MODELS_BYTES: usize = 1024 * 1024;

/// Models an unknown model's message names at most, each cut to [`MODEL_SHOWN_CHARACTERS`].
const MODELS_SHOWN: usize = 10;
const MODEL_SHOWN_CHARACTERS: usize = 60;

/// An endpoint's address, the API base (`http://127.0.0.1:8081/v1`): an http:// or https://
/// URL without a user name or password (the address is stored and shown; the key belongs in
/// [`super::KEY_VARIABLE`]) and without control characters. A query string is kept
/// (`...?api-version=X`: the requests' paths are built on the address's path); a trailing `/`
/// or `/chat/completions` is cut off the path, and a fragment dropped.
#[derive(Clone, PartialEq, Eq)]
pub struct EndpointUrl(reqwest::Url);

/// Why a text is no endpoint's address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidEndpoint(String);

impl EndpointUrl {
    /// An address as given; the message says what is wrong with it.
    pub fn parse(text: &str) -> Result<EndpointUrl, InvalidEndpoint> {
        let invalid = |why: String| Err(InvalidEndpoint(why));
        let example = "give the API base, such as http://127.0.0.1:8081/v1";
        if let Some(problem) = crate::domain::invisible_character(text) {
            return invalid(format!("--endpoint {text:?} {problem}"));
        }
        let mut url = match reqwest::Url::parse(text.trim()) {
            Ok(url) => url,
            Err(error) => {
                return invalid(format!(
                    "--endpoint {text:?} is no URL ({error}); {example}"
                ))
            }
        };
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return invalid(format!(
                "--endpoint {text:?} is no http:// or https:// address; {example}"
            ));
        }
        if !url.username().is_empty() || url.password().is_some() {
            // Not repeated: the text holds the secret.
            return invalid(format!(
                "--endpoint holds a user name or password: paperjudge stores and shows the \
                 endpoint, so give the key in the environment variable {} instead",
                super::KEY_VARIABLE
            ));
        }
        url.set_fragment(None);
        let path = url.path().trim_end_matches('/');
        let path = path
            .strip_suffix("/chat/completions")
            .unwrap_or(path)
            .to_owned();
        url.set_path(&path);
        Ok(EndpointUrl(url))
    }

    /// The address as stored with the judge and shown.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The address of `path` under the API base (`chat/completions`), the query string kept.
    fn at(&self, path: &[&str]) -> reqwest::Url {
        let mut url = self.0.clone();
        url.path_segments_mut()
            .expect("an http:// or https:// address has a path")
            .pop_if_empty()
            .extend(path);
        url
    }
}

impl fmt::Display for EndpointUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for EndpointUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// A chat-completions endpoint and the model asked there.
pub struct Endpoint {
    url: EndpointUrl,
    model: JudgeModel,
    key: Option<String>,
    client: reqwest::Client,
}

/// The key is never printed.
impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("url", &self.url)
            .field("model", &self.model)
            .field("key", &self.key.as_ref().map(|_| "(set)"))
            .finish()
    }
}

/// Why a call got no reply content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// No answer within the timeout.
    TimedOut,
    /// No connection (refused, no route, an unknown host).
    Unreachable(String),
    /// An HTTP error status, with the endpoint's own message.
    Status {
        status: u16,
        retry_after: Option<Duration>,
        message: String,
    },
    /// A redirect, which is never followed (it could send the request, and the key, anywhere).
    Redirected { status: u16, location: String },
    /// A reply longer than [`MAX_REPLY_BYTES`].
    TooLong,
    /// An answer that is no chat completion.
    NotACompletion(String),
}

impl CallError {
    /// Worth another try after a while: a timeout, no connection, 408, 429 or a 5xx.
    pub fn is_transient(&self) -> bool {
        match self {
            CallError::TimedOut | CallError::Unreachable(_) => true,
            CallError::Status { status, .. } => matches!(status, 408 | 429 | 500..=599),
            CallError::Redirected { .. } | CallError::TooLong | CallError::NotACompletion(_) => {
                false
            }
        }
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::TimedOut => write!(f, "no answer within the timeout"),
            CallError::Unreachable(why) => write!(f, "cannot connect: {why}"),
            CallError::Status {
                status, message, ..
            } => write!(f, "HTTP {status}: {message}"),
            CallError::Redirected { status, location } => {
                write!(f, "HTTP {status}, a redirect to {location}")
            }
            CallError::TooLong => write!(
                f,
                "the reply is longer than {} KiB (a grade takes a few dozen bytes): cut off",
                MAX_REPLY_BYTES / 1024
            ),
            CallError::NotACompletion(why) => write!(f, "the answer is no chat completion: {why}"),
        }
    }
}

impl Endpoint {
    /// The endpoint at `url`, asking `model`, with the bearer `key` if any, each call given
    /// `timeout` from connecting to the reply's last byte; no redirect is followed. The message
    /// says why the client cannot be set up.
    pub fn new(
        url: EndpointUrl,
        model: JudgeModel,
        key: Option<String>,
        timeout: Duration,
    ) -> Result<Endpoint, String> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|error| format!("cannot set up the HTTP client: {error}"))?;
        Ok(Endpoint {
            url,
            model,
            key: key.filter(|key| !key.is_empty()),
            client,
        })
    }

    /// The API base, as stored with the judge.
    pub fn url(&self) -> &EndpointUrl {
        &self.url
    }

    pub fn model(&self) -> &JudgeModel {
        &self.model
    }

    /// Asks the model to grade `prompt`, with JSON output asked for in `form`: the reply's
    /// message content.
    pub async fn complete(&self, prompt: &str, form: JsonForm) -> Result<String, CallError> {
        let body = json!({
            "model": self.model.as_str(),
            "messages": [{"role": "user", "content": prompt}],
            "temperature": TEMPERATURE,
            "max_tokens": MAX_TOKENS,
            "response_format": form.response_format(),
        });
        let mut request = (self.client)
            .post(self.url.at(&["chat", "completions"]))
            .json(&body);
        if let Some(key) = &self.key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(sent)?;
        let status = response.status();
        if status.is_redirection() {
            let location = (response.headers().get(reqwest::header::LOCATION))
                .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
                .unwrap_or_else(|| "no address".to_owned());
            return Err(CallError::Redirected {
                status: status.as_u16(),
                location: shortened(&crate::terminal::escape(&location), 200),
            });
        }
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let body = read_at_most(response, MAX_REPLY_BYTES).await?;
        let text = String::from_utf8_lossy(&body);
        if !status.is_success() {
            return Err(CallError::Status {
                status: status.as_u16(),
                retry_after,
                message: error_message(&text),
            });
        }
        let completion: Value = serde_json::from_str(&text)
            .map_err(|error| CallError::NotACompletion(format!("not JSON ({error})")))?;
        match completion.pointer("/choices/0/message/content") {
            Some(Value::String(content)) => Ok(content.clone()),
            Some(Value::Null) | None => Err(CallError::NotACompletion(
                "no choices[0].message.content".to_owned(),
            )),
            Some(other) => Err(CallError::NotACompletion(format!(
                "choices[0].message.content is {other}, not text"
            ))),
        }
    }

    /// The models the endpoint serves (`GET {base}/models`), a few and each shortened, for a
    /// message about an unknown model: `"a, b and 3 more"`; `None` when it does not say.
    pub async fn models_served(&self) -> Option<String> {
        let mut request = self.client.get(self.url.at(&["models"]));
        if let Some(key) = &self.key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.ok()?;
        if !response.status().is_success() {
            return None;
        }
        let body = read_at_most(response, MAX_MODELS_BYTES).await.ok()?;
        let listed: Value = serde_json::from_slice(&body).ok()?;
        let models: Vec<&str> = (listed.get("data")?.as_array()?.iter())
            .filter_map(|model| model.get("id")?.as_str())
            .collect();
        let shown: Vec<String> = (models.iter().take(MODELS_SHOWN))
            .map(|model| shortened(&crate::terminal::escape(model), MODEL_SHOWN_CHARACTERS))
            .collect();
        let mut served = shown.join(", ");
        match models.len().saturating_sub(MODELS_SHOWN) {
            0 if models.is_empty() => return None,
            0 => {}
            more => served.push_str(&format!(" and {more} more")),
        }
        Some(served)
    }
}

/// The body of `response`, refused once longer than `most` bytes.
async fn read_at_most(mut response: reqwest::Response, most: usize) -> Result<Vec<u8>, CallError> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(sent)? {
        if body.len() + chunk.len() > most {
            return Err(CallError::TooLong);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// A request that got no answer.
fn sent(error: reqwest::Error) -> CallError {
    if error.is_timeout() {
        CallError::TimedOut
    } else {
        // Refused, reset, an unknown host: the connection is what failed.
        CallError::Unreachable(root_cause(&error))
    }
}

/// The innermost cause of an error, where the reason lives ("Connection refused").
fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}

/// The endpoint's own words for an error: OpenAI's `error.message`, Ollama's `error`, or the
/// start of the body.
fn error_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let from_json = parsed.as_ref().and_then(|value| {
        (value.pointer("/error/message"))
            .or_else(|| value.get("error"))
            .or_else(|| value.get("detail"))
            .or_else(|| value.get("message"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    let message = from_json.unwrap_or_else(|| body.trim().to_owned());
    let message = crate::terminal::escape(&message).into_owned();
    if message.is_empty() {
        "(no message)".to_owned()
    } else {
        shortened(&message, 200)
    }
}

/// `text` cut to at most `characters` characters, with `…` where it was cut.
pub fn shortened(text: &str, characters: usize) -> String {
    match text.char_indices().nth(characters) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// The grade in a reply's content: JSON `{"stars": N}` with N a whole number from 1 to 5
/// (`4.0` counts as 4), alone or inside a Markdown code block or other text; the message says
/// why a reply is none.
pub fn parse_stars(content: &str) -> Result<Stars, String> {
    let trimmed = content.trim();
    let object: Value = match serde_json::from_str(trimmed) {
        Ok(value) => value,
        Err(_) => {
            // Small models wrap JSON in a code block or a sentence: the first object in it.
            let inner = trimmed
                .find('{')
                .zip(trimmed.rfind('}'))
                .filter(|(open, close)| open < close)
                .map(|(open, close)| &trimmed[open..=close]);
            match inner.and_then(|inner| serde_json::from_str(inner).ok()) {
                Some(value) => value,
                None => return Err("not JSON".to_owned()),
            }
        }
    };
    let Some(stars) = object.get("stars") else {
        return Err("no \"stars\" in the JSON".to_owned());
    };
    let whole = match stars {
        Value::Number(number) => number.as_i64().or_else(|| {
            number
                .as_f64()
                .filter(|f| f.fract() == 0.0)
                .map(|f| f as i64)
        }),
        _ => None,
    };
    match whole.and_then(Stars::new) {
        Some(stars) => Ok(stars),
        None => Err(format!(
            "\"stars\" is {stars}, not a whole number from 1 to 5"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grades_are_read_from_json_alone_or_wrapped_and_nothing_else() {
        let stars = |text: &str| parse_stars(text).map(Stars::get);
        assert_eq!(stars("{\"stars\": 4}"), Ok(4));
        assert_eq!(stars(" {\"stars\":2.0} "), Ok(2));
        assert_eq!(stars("```json\n{\"stars\": 5}\n```"), Ok(5));
        assert_eq!(stars("Sure! {\"stars\": 1} is my grade."), Ok(1));
        assert_eq!(
            stars("{\"stars\": 7}"),
            Err("\"stars\" is 7, not a whole number from 1 to 5".into())
        );
        assert_eq!(
            stars("{\"stars\": 3.5}").unwrap_err(),
            "\"stars\" is 3.5, not a whole number from 1 to 5"
        );
        assert_eq!(
            stars("{\"stars\": \"4\"}").unwrap_err(),
            "\"stars\" is \"4\", not a whole number from 1 to 5"
        );
        assert_eq!(
            stars("{\"grade\": 4}").unwrap_err(),
            "no \"stars\" in the JSON"
        );
        assert_eq!(stars("I would say four.").unwrap_err(), "not JSON");
    }

    #[test]
    fn the_endpoints_message_is_read_from_its_error_body() {
        assert_eq!(
            error_message(r#"{"error": {"message": "model 'x' not found", "type": "invalid"}}"#),
            "model 'x' not found"
        );
        assert_eq!(
            error_message(r#"{"error": "model \"x\" not found"}"#),
            "model \"x\" not found"
        );
        assert_eq!(
            error_message("Internal Server Error"),
            "Internal Server Error"
        );
        assert_eq!(error_message(""), "(no message)");
    }

    #[test]
    fn the_address_is_the_api_base_its_query_kept_and_credentials_refused() {
        let base = |text: &str| EndpointUrl::parse(text).map(|url| url.as_str().to_owned());
        assert_eq!(
            base("http://127.0.0.1:8081/v1/"),
            Ok("http://127.0.0.1:8081/v1".into())
        );
        assert_eq!(
            base("http://127.0.0.1:8081/v1/chat/completions"),
            Ok("http://127.0.0.1:8081/v1".into())
        );
        assert_eq!(
            base(" https://h.example/openai/v1/?api-version=2024-06-01#x"),
            Ok("https://h.example/openai/v1?api-version=2024-06-01".into())
        );
        let url = EndpointUrl::parse("https://h.example/v1?api-version=X").unwrap();
        assert_eq!(
            url.at(&["chat", "completions"]).as_str(),
            "https://h.example/v1/chat/completions?api-version=X"
        );
        assert_eq!(
            EndpointUrl::parse("http://h.example")
                .unwrap()
                .at(&["models"])
                .as_str(),
            "http://h.example/models"
        );
        assert!(base("127.0.0.1:8081")
            .unwrap_err()
            .to_string()
            .contains("give the API base"));
        assert!(base("ftp://host/v1").is_err());
        let keyed = base("http://user:sk-secret@h/v1").unwrap_err().to_string();
        assert!(keyed.contains("PAPERJUDGE_JUDGE_KEY"), "{keyed}");
        assert!(!keyed.contains("sk-secret"), "{keyed}");
        assert!(base("http://:sk-secret@h/v1").is_err());
        assert!(base("http://h/v\n1")
            .unwrap_err()
            .to_string()
            .contains("U+000A"));
        let endpoint = Endpoint::new(
            EndpointUrl::parse("http://h/v1").unwrap(),
            JudgeModel::new("m").unwrap(),
            Some("sk-secret".into()),
            Duration::from_secs(1),
        )
        .unwrap();
        assert!(!format!("{endpoint:?}").contains("sk-secret"));
    }
}
