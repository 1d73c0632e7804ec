//! Methods: `HEAD` wherever `GET` is answered, and 405 with `Allow` for a method an address
//! does not take (a 404 only for an address that exists for no method at all).
//!
//! Both follow from actix's router instead of a list of our own: `HEAD` is answered as `GET`
//! (the HTTP layer knows the request was `HEAD` and sends the headers without the body), and
//! actix records the methods of every route whose address matched, which the catch-all
//! resource below reports as `Allow`.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{header, Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{web, Resource};

use super::WebError;

/// The last resource of the app, matching every address, with no route of its own: a request
/// that reaches it gets actix's 405, with `Allow` when an earlier route matched the address
/// for another method, and without when none did.
pub fn every_other_address() -> Resource {
    web::resource("/{address:.*}")
}

/// The middleware: `HEAD` in as `GET`, and the 405s of [`every_other_address`] out as our
/// error pages (405 with `Allow`, or 404).
pub async fn head_and_not_allowed(
    mut request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let method = request.method().clone();
    if method == Method::HEAD {
        request.head_mut().method = Method::GET;
    }
    let response = next.call(request).await?;
    if response.status() != StatusCode::METHOD_NOT_ALLOWED {
        return Ok(response.map_into_left_body());
    }
    let allowed: Option<Vec<String>> = response
        .headers()
        .get(header::ALLOW)
        .and_then(|allow| allow.to_str().ok())
        .map(|allow| {
            allow
                .split(',')
                .map(|method| method.trim().to_owned())
                .collect()
        });
    let error = match allowed {
        Some(mut allowed) if !allowed.is_empty() => {
            if allowed.iter().any(|allowed| allowed == "GET") {
                allowed.push("HEAD".to_owned());
            }
            WebError::MethodNotAllowed {
                method: method.to_string(),
                allow: allowed.join(", "),
            }
        }
        _ => WebError::no_such_page(),
    };
    let (request, _) = response.into_parts();
    Ok(ServiceResponse::from_err(error, request).map_into_right_body())
}
