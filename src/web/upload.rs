//! `POST /import`: an upload, read as it arrives (`multipart/form-data`, never whole in
//! memory) into the study's [`Upload`], which keeps the files beside the study and then imports
//! them in the background as one job.
//!
//! The form's fields, in the order a page of paperjudge sends them: `csrf_token` first, so that
//! the token is checked before a byte of a file is kept (a body that does not begin with the
//! right token is refused with 403); then `kind` (`papers`, `recommendations`, `ratings`,
//! `judgments`), optional `format` (`csv`, `jsonl`, `trec`; from the files' extensions when
//! empty), `model` (names the model of every row, as `--model`) and `judge` (whose grades a
//! judgments file holds, as `--judge`), and one or more `file`. The body may
//! hold at most `serve --max-upload` bytes: a larger `Content-Length` is refused before a byte
//! is read, and a body without one when it grows past the limit (413). A second upload while
//! an import runs gets 409 before its body is read.
//!
//! The answer: for the import page's script (`Accept: application/json`), at once
//! `{"job": id, "url": "/import/{id}"}`, and the page follows the job there; for a plain form,
//! a 303 to the job's page once the import has ended, so that it shows the result.

use std::cell::Cell;
use std::io;
use std::rc::Rc;
use std::time::Duration;

use actix_multipart::{Field, Multipart, MultipartError};
use actix_web::error::PayloadError;
use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{web, HttpRequest, HttpResponse};
use futures_util::{Stream, StreamExt, TryStreamExt};
use serde::Serialize;

use super::answer::{accepts_json, see_other};
use super::auth::Owner;
use super::{csrf, WebError};
use crate::domain::{ByteSize, JudgeName};
use crate::formats::Format;
use crate::study::import::{self, Kind};
use crate::study::import::{JobId, Upload};
use crate::study::Study;

/// What an upload may be: at most `size` bytes (`serve --max-upload`), and never silent for
/// longer than `idle`.
#[derive(Debug, Clone, Copy)]
pub struct UploadLimit {
    pub size: ByteSize,
    pub idle: Duration,
}

/// How long an upload may send nothing before it is ended (408) and the study's one import is
/// free for another: a connection silent that long is a dead one, however slow the network.
pub const UPLOAD_IDLE: Duration = Duration::from_secs(60);

/// The most files one upload holds: each is a temporary file kept open until its import ends,
/// and a process may open about a thousand files (`ulimit -n`).
pub const MAX_FILES: usize = 200;

/// What the reader of the form (actix-multipart) holds of a part's headers, its buffer: a part
/// whose headers are larger is refused.
const PART_HEADERS: ByteSize = ByteSize::kib(64);

/// The most bytes a text field of the form may hold (a token is 64).
const TEXT_FIELD_BYTES: usize = 1024;

#[derive(Debug, Serialize)]
struct Started {
    job: String,
    url: String,
}

/// The address of a job's page.
pub fn job_path(job: &JobId) -> String {
    format!("/import/{job}")
}

/// `POST /import`: the owner's alone in a study with raters (a rater gets 403 before anything
/// of the upload is read).
pub async fn upload(
    request: HttpRequest,
    _: Owner,
    payload: web::Payload,
    study: web::Data<Study>,
    limit: web::Data<UploadLimit>,
) -> Result<HttpResponse, WebError> {
    let UploadLimit { size: limit, idle } = *limit.into_inner();
    if declared_length(&request).is_some_and(|length| length > limit.bytes()) {
        return Err(WebError::UploadTooLarge { limit });
    }
    let upload = study.import().begin_upload().map_err(WebError::of_change)?;
    let mut received = 0u64;
    // The form's reader says Overflow both for a body past the limit and for a part's headers
    // past what it holds: this tells them apart.
    let past_limit = Rc::new(Cell::new(false));
    let body = until_silent(payload, idle).map({
        let past_limit = Rc::clone(&past_limit);
        move |chunk| {
            let chunk = chunk?;
            received += chunk.len() as u64;
            if received > limit.bytes() {
                past_limit.set(true);
                return Err(PayloadError::Overflow);
            }
            Ok(chunk)
        }
    });
    let mut form = Multipart::new(request.headers(), body);
    let (upload, kind) = receive(&request, &mut form, upload)
        .await
        .map_err(|error| error.read_against(limit, past_limit.get(), idle))?;
    let job = (upload.start(kind).await).map_err(WebError::of_change)?;
    let url = job_path(&job);
    if accepts_json(&request) {
        let started = Started {
            job: job.to_string(),
            url,
        };
        return Ok(HttpResponse::Ok().json(started));
    }
    study.import().job_ended(&job).await;
    Ok(see_other(&url))
}

/// Why an upload was refused while it was read.
enum Refused {
    /// The body could not be read as a form (or grew past the limit).
    Body(MultipartError),
    Web(WebError),
}

impl From<MultipartError> for Refused {
    fn from(error: MultipartError) -> Refused {
        Refused::Body(error)
    }
}

impl<E: Into<WebError>> From<E> for Refused {
    fn from(error: E) -> Refused {
        Refused::Web(WebError::of_change(error))
    }
}

impl Refused {
    /// The refusal as answered: a body over `limit` (`past_limit`) as such, a part's headers
    /// too large for the form's reader as such, a body silent for `idle` as such.
    fn read_against(self, limit: ByteSize, past_limit: bool, idle: Duration) -> WebError {
        let error = match self {
            Refused::Web(error) => return error,
            Refused::Body(error) => error,
        };
        match error {
            MultipartError::Payload(PayloadError::Io(error))
                if error.kind() == io::ErrorKind::TimedOut =>
            {
                WebError::Stalled(format!(
                    "the upload sent nothing for {} seconds, so it was ended and nothing was \
                     imported; upload the files again",
                    idle.as_secs()
                ))
            }
            MultipartError::Payload(PayloadError::Overflow) if past_limit => {
                WebError::UploadTooLarge { limit }
            }
            MultipartError::Payload(PayloadError::Overflow) => WebError::BadRequest(format!(
                "a part of the form has headers larger than the {} the server reads (or the \
                 form does not start with a part), so nothing was imported",
                PART_HEADERS
            )),
            MultipartError::Payload(PayloadError::Incomplete(_)) | MultipartError::Incomplete => {
                WebError::BadRequest(
                    "the upload did not arrive whole (the connection closed before its end), so \
                     nothing was imported"
                        .to_owned(),
                )
            }
            MultipartError::ContentTypeMissing
            | MultipartError::ContentTypeParse
            | MultipartError::ContentTypeIncompatible
            | MultipartError::BoundaryMissing => WebError::BadRequest(
                "send the upload as a form of type multipart/form-data".to_owned(),
            ),
            error => WebError::BadRequest(format!(
                "the upload cannot be read as a form ({error}), so nothing was imported"
            )),
        }
    }
}

/// The form's text fields besides the token.
#[derive(Default)]
struct TextFields {
    kind: Option<String>,
    format: Option<String>,
    model: Option<String>,
    judge: Option<String>,
}

/// Reads the form: the token first, then the other fields, each file into `upload`. Answers
/// the upload and the kind of its files.
async fn receive(
    request: &HttpRequest,
    form: &mut Multipart,
    mut upload: Upload,
) -> Result<(Upload, Kind), Refused> {
    let mut first = form.try_next().await?.ok_or(WebError::Forbidden)?;
    if first.name() != Some("csrf_token") {
        return Err(WebError::Forbidden.into());
    }
    let token = text(&mut first, "csrf_token").await?;
    // A field must be gone before the form reads the next.
    drop(first);
    csrf::verify(request, Some(&token))?;
    let mut fields = TextFields::default();
    let mut names = Vec::new();
    while let Some(mut field) = form.try_next().await? {
        let name = field.name().unwrap_or_default().to_owned();
        let value = match name.as_str() {
            "kind" => &mut fields.kind,
            "format" => &mut fields.format,
            "model" => &mut fields.model,
            "judge" => &mut fields.judge,
            "file" => {
                let file_name = (field.content_disposition())
                    .and_then(|disposition| disposition.get_filename())
                    .unwrap_or_default()
                    .to_owned();
                let mut chunks = field.peekable();
                // A file input left empty sends a part without a name or a byte.
                if file_name.is_empty() && std::pin::Pin::new(&mut chunks).peek().await.is_none() {
                    continue;
                }
                if names.len() == MAX_FILES {
                    return Err(WebError::BadRequest(format!(
                        "an upload holds at most {MAX_FILES} files, so nothing was imported; \
                         import them in several uploads, or from the command line"
                    ))
                    .into());
                }
                upload.add_file(&file_name).await?;
                while let Some(chunk) = chunks.try_next().await? {
                    upload.write(&chunk).await?;
                }
                names.push(file_name);
                continue;
            }
            other => {
                return Err(WebError::BadRequest(format!(
                    "the form has a field {other:?}; it takes csrf_token, kind, format, model, \
                     judge and file"
                ))
                .into())
            }
        };
        *value = Some(text(&mut field, &name).await?);
    }
    let kind = fields.kind(&names)?;
    Ok((upload, kind))
}

/// A text field's value, at most [`TEXT_FIELD_BYTES`] long.
async fn text(field: &mut Field, name: &str) -> Result<String, Refused> {
    let too_long = || {
        WebError::BadRequest(format!(
            "the field {name} holds more than {TEXT_FIELD_BYTES} bytes"
        ))
    };
    let bytes = field
        .bytes(TEXT_FIELD_BYTES)
        .await
        .map_err(|_| too_long())??;
    String::from_utf8(bytes.to_vec())
        .map_err(|_| WebError::BadRequest(format!("the field {name} is not UTF-8 text")).into())
}

impl TextFields {
    /// What the fields ask for, the files being named `names`: every file of an upload is of
    /// one format (the `format` field's, or else their extensions').
    fn kind(self, names: &[String]) -> Result<Kind, WebError> {
        let bad = |message: String| Err(WebError::BadRequest(message));
        let model = self.model.filter(|model| !model.trim().is_empty());
        let kind = self.kind.unwrap_or_default();
        if model.is_some() && kind != "recommendations" {
            return bad("model names the model of recommendations; leave it empty".to_owned());
        }
        let judge = self.judge.filter(|judge| !judge.trim().is_empty());
        if judge.is_some() && kind != "judgments" {
            return bad("judge names the judge of judgments; leave it empty".to_owned());
        }
        let format = || match self.format.as_deref().unwrap_or_default() {
            "" => format_of(names),
            "csv" => Ok(Format::Csv),
            "jsonl" => Ok(Format::Jsonl),
            "trec" => Ok(Format::Trec),
            other => Err(WebError::BadRequest(format!(
                "format must be csv, jsonl or trec (or empty, for the files' extensions); got \
                 {other:?}"
            ))),
        };
        match kind.as_str() {
            "papers" => Ok(Kind::Papers(format()?)),
            "recommendations" => Ok(Kind::Recommendations(import::recommendations::Options {
                format: format()?,
                model,
            })),
            "ratings" => Ok(Kind::Ratings(Default::default())),
            "judgments" => {
                let Some(judge) = judge else {
                    return bad(
                        "judgments need the judge whose grades they are: fill in judge".to_owned(),
                    );
                };
                let judge = JudgeName::new(judge.trim())
                    .map_err(|invalid| WebError::BadRequest(invalid.to_string()))?;
                Ok(Kind::Judgments(import::judgments::Options { judge }))
            }
            other => bad(format!(
                "kind must be papers, recommendations, ratings or judgments; got {other:?}"
            )),
        }
    }
}

/// The one format the files' extensions say.
fn format_of(names: &[String]) -> Result<Format, WebError> {
    let mut formats = names.iter().map(|name| {
        Format::from_extension(std::path::Path::new(name)).ok_or_else(|| {
            WebError::BadRequest(format!(
                "cannot tell the format of {name:?} from its extension (.csv, .jsonl, .run, \
                 .trec or .txt): choose its format in the form"
            ))
        })
    });
    let first = formats.next().unwrap_or(Ok(Format::Csv))?;
    for format in formats {
        if format? != first {
            return Err(WebError::BadRequest(format!(
                "the files of one upload must be of one format ({}): upload the others apart",
                first.name()
            )));
        }
    }
    Ok(first)
}

/// The body of `payload`, ended with a `TimedOut` error once it has sent nothing for `idle`.
fn until_silent(
    payload: web::Payload,
    idle: Duration,
) -> impl Stream<Item = Result<Bytes, PayloadError>> {
    futures_util::stream::unfold(Some(payload), move |payload| async move {
        let mut payload = payload?;
        match tokio::time::timeout(idle, payload.next()).await {
            Ok(Some(chunk)) => Some((chunk, Some(payload))),
            Ok(None) => None,
            Err(_) => {
                let silent = io::Error::new(io::ErrorKind::TimedOut, "the upload fell silent");
                Some((Err(PayloadError::Io(silent)), None))
            }
        }
    })
    // The form's reader may ask again after the end.
    .fuse()
}

/// The request's `Content-Length`, when it gives one.
fn declared_length(request: &HttpRequest) -> Option<u64> {
    let length = request.headers().get(header::CONTENT_LENGTH)?;
    length.to_str().ok()?.parse().ok()
}
