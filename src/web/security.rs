//! Response headers that keep pages from being framed, sniffed, cached or fed foreign script.

use actix_web::http::header;
use actix_web::middleware::DefaultHeaders;

/// Scripts and styles only from paperjudge's own files, so no inline script or `on*`
/// attribute runs even if some text escaped its escaping; no framing; forms post only here.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; \
     base-uri 'none'; frame-ancestors 'none'";

/// Headers for every answer; one that sets its own `Cache-Control` (the static files) keeps it.
pub fn headers() -> DefaultHeaders {
    DefaultHeaders::new()
        .add((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .add((header::X_FRAME_OPTIONS, "DENY"))
        // Opening a paper in a new tab tells its site nothing about the study. Not
        // `no-referrer`: under it a browser sends `Origin: null` with a plain form, and the
        // CSRF guard rightly refuses that, so forms without the scripts would never save.
        .add((header::REFERRER_POLICY, "same-origin"))
        // Pages show live ratings: a back button must not show a stale copy.
        .add((header::CACHE_CONTROL, "no-store"))
}
