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

use crate::domain::Stars;

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

/// A chat-completions endpoint and the model asked there.
pub struct Endpoint {
    /// The API base without a trailing `/`: `http://127.0.0.1:8081/v1`.
    base: String,
    model: String,
    key: Option<String>,
    client: reqwest::Client,
}

/// The key is never printed.
impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("base", &self.base)
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
    /// An answer that is no chat completion.
    NotACompletion(String),
}

impl CallError {
    /// Worth another try after a while: a timeout, no connection, 408, 429 or a 5xx.
    pub fn is_transient(&self) -> bool {
        match self {
            CallError::TimedOut | CallError::Unreachable(_) => true,
            CallError::Status { status, .. } => matches!(status, 408 | 429 | 500..=599),
            CallError::NotACompletion(_) => false,
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
            CallError::NotACompletion(why) => write!(f, "the answer is no chat completion: {why}"),
        }
    }
}

impl Endpoint {
    /// The endpoint at the API base `base` (`http://127.0.0.1:8081/v1`; a URL ending in
    /// `/chat/completions` is taken as its base), asking `model`, with the bearer `key` if
    /// any, each call given `timeout`. The message says what is wrong with the address.
    pub fn new(
        base: &str,
        model: &str,
        key: Option<String>,
        timeout: Duration,
    ) -> Result<Endpoint, String> {
        let trimmed = base.trim().trim_end_matches('/');
        let trimmed = trimmed.strip_suffix("/chat/completions").unwrap_or(trimmed);
        let url = reqwest::Url::parse(trimmed).map_err(|error| {
            format!("--endpoint {base:?} is no URL ({error}); give the API base, such as http://127.0.0.1:8081/v1")
        })?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return Err(format!(
                "--endpoint {base:?} is no http:// or https:// address; give the API base, such \
                 as http://127.0.0.1:8081/v1"
            ));
        }
        if model.trim().is_empty() {
            return Err("--model is empty: name the model the endpoint serves".to_owned());
        }
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .build()
            .map_err(|error| format!("cannot set up the HTTP client: {error}"))?;
        Ok(Endpoint {
            base: trimmed.to_owned(),
            model: model.to_owned(),
            key: key.filter(|key| !key.is_empty()),
            client,
        })
    }

    /// The API base, as stored with the judge.
    pub fn base(&self) -> &str {
        &self.base
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    fn completions_url(&self) -> String {
        format!("{}/chat/completions", self.base)
    }

    /// Asks the model to grade `prompt`, with JSON output asked for in `form`: the reply's
    /// message content.
    pub async fn complete(&self, prompt: &str, form: JsonForm) -> Result<String, CallError> {
        let body = json!({
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": TEMPERATURE,
            "max_tokens": MAX_TOKENS,
            "response_format": form.response_format(),
        });
        let mut request = self.client.post(self.completions_url()).json(&body);
        if let Some(key) = &self.key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(sent)?;
        let status = response.status();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let text = response.text().await.map_err(sent)?;
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

    /// The models the endpoint serves (`GET {base}/models`), for a message about an unknown
    /// model; `None` when it does not say.
    pub async fn models(&self) -> Option<Vec<String>> {
        let mut request = self.client.get(format!("{}/models", self.base));
        if let Some(key) = &self.key {
            request = request.bearer_auth(key);
        }
        let listed: Value = request.send().await.ok()?.json().await.ok()?;
        let models = listed.get("data")?.as_array()?;
        Some(
            models
                .iter()
                .filter_map(|model| Some(model.get("id")?.as_str()?.to_owned()))
                .collect(),
        )
    }
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
    fn the_base_is_the_api_base_and_a_full_completions_url_is_cut_to_it() {
        let timeout = Duration::from_secs(1);
        let endpoint = |base: &str| Endpoint::new(base, "m", None, timeout).map(|e| e.base);
        assert_eq!(
            endpoint("http://127.0.0.1:8081/v1/"),
            Ok("http://127.0.0.1:8081/v1".into())
        );
        assert_eq!(
            endpoint("http://127.0.0.1:8081/v1/chat/completions"),
            Ok("http://127.0.0.1:8081/v1".into())
        );
        assert!(endpoint("127.0.0.1:8081")
            .unwrap_err()
            .contains("give the API base"));
        assert!(endpoint("ftp://host/v1").is_err());
        let keyed = Endpoint::new("http://h/v1", "m", Some("sk-secret".into()), timeout).unwrap();
        assert!(!format!("{keyed:?}").contains("sk-secret"));
    }
}
