//! The request log: one span per request, and one line at `info` when it is answered, with
//! the method, the route's pattern (`/targets/{target}/ratings`, never the path or its query,
//! which may carry a paper id or a search), the status, the time it took and who asked (the
//! rater's id, the owner's `1`, as the session middleware says). Nothing a visitor sends is
//! logged beyond that: no form field (a password, a CSRF token), no header (a cookie). The
//! static files and the health check, which a page or a service manager asks for again and
//! again and which change nothing, are logged at `debug` (`PAPERJUDGE_LOG=debug` shows them):
//! at `info`, a line of their own cost as much as serving them (wrk on the stylesheet: 43,700
//! requests a second without the log, 24,200 with it).
//!
//! A middleware of its own rather than `tracing-actix-web`: that crate's root span carries
//! the path, the client's address and a request id of a UUID crate more, and logs nothing by
//! itself when a request ends; this is the one line the issue asks for, in the server's log.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::HttpMessage;
use tracing::field::Empty;
use tracing::Instrument;

use super::auth::Signed;
use super::health;

/// The middleware, outside every other, so that its span holds whatever the others and the
/// handler log, and its line gives the status that goes out.
pub async fn log_request(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let quiet = request.path().starts_with("/static/") || request.path() == health::PATH;
    let span = if quiet {
        tracing::debug_span!("request", method = %request.method(), route = Empty, rater = Empty)
    } else {
        tracing::info_span!("request", method = %request.method(), route = Empty, rater = Empty)
    };
    let answered = next.call(request).instrument(span.clone()).await;
    let status = match &answered {
        Ok(response) => {
            let request = response.request();
            // Known once the request has been routed: `None` for an address no route has.
            if let Some(route) = request.match_pattern() {
                span.record("route", route);
            }
            if let Some(Signed(rater)) = request.extensions().get::<Signed>() {
                span.record("rater", rater.id.0);
            }
            response.status()
        }
        Err(error) => error.as_response_error().status_code(),
    };
    // Milliseconds to a tenth.
    let latency_ms = (started.elapsed().as_secs_f64() * 10_000.0).round() / 10.0;
    span.in_scope(|| match quiet {
        true => tracing::debug!(status = status.as_u16(), latency_ms, "answered"),
        false => tracing::info!(status = status.as_u16(), latency_ms, "answered"),
    });
    answered
}
