//! The stylesheet, the rating script, the leaderboard script, the re-check script, the
//! import script and the judge run script, compiled into the binary so that it is the one file to deploy.
//!
//! Pages link them with a hash of their content in the query, so browsers may keep them for a
//! year and still fetch a changed file at once.

use std::sync::LazyLock;

use actix_web::http::header;
use actix_web::{web, HttpResponse};
use sha2::{Digest, Sha256};

pub const STYLESHEET_PATH: &str = "/static/style.css";
pub const SCRIPT_PATH: &str = "/static/rating.js";
/// Loaded by the leaderboard page only, never by a rating page.
pub const LEADERBOARD_SCRIPT_PATH: &str = "/static/leaderboard.js";
/// The keys of the re-check page.
pub const RECHECK_SCRIPT_PATH: &str = "/static/recheck.js";
/// The uploads' progress on the import page, and a job's on its page.
pub const IMPORT_SCRIPT_PATH: &str = "/static/import.js";
/// A judge run's progress on its page.
pub const JUDGES_SCRIPT_PATH: &str = "/static/judges.js";

const STYLESHEET: &str = include_str!("../../static/style.css");
const SCRIPT: &str = include_str!("../../static/rating.js");
const LEADERBOARD_SCRIPT: &str = include_str!("../../static/leaderboard.js");
const RECHECK_SCRIPT: &str = include_str!("../../static/recheck.js");
const IMPORT_SCRIPT: &str = include_str!("../../static/import.js");
const JUDGES_SCRIPT: &str = include_str!("../../static/judges.js");

const CACHE_FOR_A_YEAR: &str = "public, max-age=31536000, immutable";

static STYLESHEET_HREF: LazyLock<String> = LazyLock::new(|| versioned(STYLESHEET_PATH, STYLESHEET));
static SCRIPT_HREF: LazyLock<String> = LazyLock::new(|| versioned(SCRIPT_PATH, SCRIPT));
static LEADERBOARD_SCRIPT_HREF: LazyLock<String> =
    LazyLock::new(|| versioned(LEADERBOARD_SCRIPT_PATH, LEADERBOARD_SCRIPT));
static RECHECK_SCRIPT_HREF: LazyLock<String> =
    LazyLock::new(|| versioned(RECHECK_SCRIPT_PATH, RECHECK_SCRIPT));
static IMPORT_SCRIPT_HREF: LazyLock<String> =
    LazyLock::new(|| versioned(IMPORT_SCRIPT_PATH, IMPORT_SCRIPT));
static JUDGES_SCRIPT_HREF: LazyLock<String> =
    LazyLock::new(|| versioned(JUDGES_SCRIPT_PATH, JUDGES_SCRIPT));

/// The stylesheet's address as pages link it.
pub fn stylesheet_href() -> &'static str {
    &STYLESHEET_HREF
}

/// The rating script's address as pages link it.
pub fn script_href() -> &'static str {
    &SCRIPT_HREF
}

/// The leaderboard script's address as the leaderboard page links it.
pub fn leaderboard_script_href() -> &'static str {
    &LEADERBOARD_SCRIPT_HREF
}

/// The re-check script's address as the re-check page links it.
pub fn recheck_script_href() -> &'static str {
    &RECHECK_SCRIPT_HREF
}

/// The import script's address as the import pages link it.
pub fn import_script_href() -> &'static str {
    &IMPORT_SCRIPT_HREF
}

/// The judge run script's address as a run's page links it.
pub fn judges_script_href() -> &'static str {
    &JUDGES_SCRIPT_HREF
}

/// The six files, each at its path.
pub fn routes(config: &mut web::ServiceConfig) {
    config
        .route(STYLESHEET_PATH, web::get().to(stylesheet))
        .route(SCRIPT_PATH, web::get().to(script))
        .route(LEADERBOARD_SCRIPT_PATH, web::get().to(leaderboard_script))
        .route(RECHECK_SCRIPT_PATH, web::get().to(recheck_script))
        .route(IMPORT_SCRIPT_PATH, web::get().to(import_script))
        .route(JUDGES_SCRIPT_PATH, web::get().to(judges_script));
}

async fn stylesheet() -> HttpResponse {
    cached("text/css; charset=utf-8", STYLESHEET)
}

async fn script() -> HttpResponse {
    cached("text/javascript; charset=utf-8", SCRIPT)
}

async fn leaderboard_script() -> HttpResponse {
    cached("text/javascript; charset=utf-8", LEADERBOARD_SCRIPT)
}

async fn recheck_script() -> HttpResponse {
    cached("text/javascript; charset=utf-8", RECHECK_SCRIPT)
}

async fn import_script() -> HttpResponse {
    cached("text/javascript; charset=utf-8", IMPORT_SCRIPT)
}

async fn judges_script() -> HttpResponse {
    cached("text/javascript; charset=utf-8", JUDGES_SCRIPT)
}

fn cached(content_type: &'static str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, content_type))
        .insert_header((header::CACHE_CONTROL, CACHE_FOR_A_YEAR))
        .body(body)
}

/// `path` with the first 16 hex digits of the SHA-256 of `content` as its version: stable
/// across builds and Rust versions (unlike `DefaultHasher`), and new with every change.
fn versioned(path: &str, content: &str) -> String {
    let digest = Sha256::digest(content.as_bytes());
    format!("{path}?v={}", hex::encode(&digest[..8]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_is_the_start_of_the_content_digest() {
        // SHA-256("abc") = ba7816bf8f01cfea...
        assert_eq!(versioned("/x.css", "abc"), "/x.css?v=ba7816bf8f01cfea");
        assert_ne!(versioned("/x.css", "abd"), versioned("/x.css", "abc"));
    }
}
