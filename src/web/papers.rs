//! `GET /papers?q=...[&with=recommendations]`: the library searched by id, title, authors and
//! abstract (or only its papers with recommendations, which `with` alone lists), a page of
//! ranked hits at a time; each says whether the paper is a target being rated and offers to
//! choose it (or to drop a chosen target not rated yet) with `POST /targets`, and the owner may
//! choose targets at random there, seeded as `paperjudge targets choose --sample N --seed S`.
//! A rater sees their own ratings of each target, and no form to choose or drop one (the
//! owner's to do).

use actix_web::{web, HttpResponse};
use askama::Template;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde::Deserialize;

use super::auth::Signed;
use super::csrf::CsrfToken;
use super::view::{self, Nav};
use super::WebError;
use crate::domain::PaperId;
use crate::domain::TargetChoice;
use crate::study::targets::{Among, Hit, Overview, MARK_END, MARK_START};
use crate::study::Study;
use crate::words::plural;
use crate::words::thousands;

/// Hits per page.
const HITS_PER_PAGE: i64 = 20;
/// Pages of hits one can go through: a person refines the words long before.
const MAX_PAGE: i64 = 500;
/// The longest search text accepted, in characters.
const MAX_QUERY_CHARS: usize = 200;

/// `GET /papers`.
pub fn routes(config: &mut web::ServiceConfig) {
    config.route("/papers", web::get().to(search));
}

#[derive(Debug, Deserialize)]
pub struct SearchQuery {
    q: Option<String>,
    page: Option<String>,
    /// `recommendations`: only the papers with recommendations.
    with: Option<String>,
}

#[derive(Template)]
#[template(path = "papers.html")]
struct SearchPage {
    nav: Nav,
    q: String,
    /// Only the papers with recommendations.
    only_listed: bool,
    /// The same search among the papers with recommendations only, while it is not.
    filtered: Option<String>,
    /// The owner's random choice of targets, when there is any paper to draw.
    random: Option<RandomChoice>,
    /// What the search found, when there was a word to search for.
    results: Option<Results>,
    choice_in_words: String,
    rates_all: bool,
    /// A rater asks: each target's pairs rated are theirs, and choosing is not theirs to do.
    rater: bool,
    csrf_token: String,
}

struct Results {
    /// How many were found, and which of them are shown.
    heading: String,
    first_shown: i64,
    hits: Vec<HitView>,
    page: i64,
    previous_page: Option<String>,
    next_page: Option<String>,
}

/// The owner's form to choose targets at random, as `targets choose --sample N --seed S`.
struct RandomChoice {
    /// The papers with recommendations the sample is drawn among.
    among: usize,
    /// The study rates every paper with recommendations: a sample makes it rate those only.
    switches: bool,
}

impl RandomChoice {
    fn new(overview: &Overview) -> Option<RandomChoice> {
        let switches = overview.choice == TargetChoice::All;
        let among = if switches {
            usize::try_from(overview.candidates).unwrap_or_default()
        } else {
            overview.choosable()
        };
        (among > 0).then_some(RandomChoice { among, switches })
    }
}

/// A hit as the page shows it.
struct HitView {
    /// The paper's row id, as the address of its rating page has it.
    id: i64,
    external_id: PaperId,
    anchor: String,
    title: String,
    authors: String,
    year: Option<i64>,
    /// The passage around the words found: text, and whether it is a found word.
    passage: Vec<(String, bool)>,
    status: Status,
    rated: i64,
    /// `None` for a rater, of a target they did not take.
    pooled: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// A target being rated.
    Rated,
    /// Some model has a list for it, but it is not rated now.
    Candidate,
    /// No model has recommended anything for it yet.
    NoRecommendations,
}

impl HitView {
    fn new(hit: Hit) -> HitView {
        let status = if hit.active {
            Status::Rated
        } else if hit.listed {
            Status::Candidate
        } else {
            Status::NoRecommendations
        };
        HitView {
            id: hit.id,
            anchor: view::anchor(hit.external_id.as_str()),
            external_id: hit.external_id,
            title: hit.title,
            authors: hit.authors,
            year: hit.year,
            passage: passage(&hit.passage),
            status,
            rated: hit.rated,
            pooled: hit.pooled,
        }
    }

    fn is_target(&self) -> bool {
        self.status == Status::Rated
    }

    fn is_candidate(&self) -> bool {
        self.status == Status::Candidate
    }
}

/// What the page shows, in words: "7 papers found, 1 to 5 shown", "3 papers with
/// recommendations found", or without a search "6 papers with recommendations".
fn heading(count: i64, offset: i64, shown: i64, among: Among, searched: bool) -> String {
    let which = match among {
        Among::Library => "",
        Among::WithRecommendations => " with recommendations",
    };
    let found = format!(
        "{} {}{which}{}",
        thousands(count),
        plural(count, "paper", "papers"),
        if searched { " found" } else { "" }
    );
    if count == 0 {
        format!("No paper{which} found")
    } else if shown == 0 {
        format!("{found}; this page is past the last of them")
    } else if shown < count {
        format!("{found}, {} to {} shown", offset + 1, offset + shown)
    } else {
        found
    }
}

/// Splits a passage into plain text and found words; every part is escaped by the template.
fn passage(text: &str) -> Vec<(String, bool)> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(MARK_START) {
        if start > 0 {
            parts.push((rest[..start].to_owned(), false));
        }
        let after = &rest[start + MARK_START.len_utf8()..];
        let end = after.find(MARK_END).unwrap_or(after.len());
        parts.push((after[..end].to_owned(), true));
        rest = after.get(end + MARK_END.len_utf8()..).unwrap_or_default();
    }
    if !rest.is_empty() {
        parts.push((rest.to_owned(), false));
    }
    parts
}

async fn search(
    study: web::Data<Study>,
    query: web::Query<SearchQuery>,
    signed: Signed,
    csrf: CsrfToken,
) -> Result<HttpResponse, WebError> {
    let query = query.into_inner();
    let q = query.q.unwrap_or_default();
    let among = match query.with.as_deref() {
        None | Some("") => Among::Library,
        Some("recommendations") => Among::WithRecommendations,
        Some(other) => {
            return Err(WebError::BadRequest(format!(
                "with must be recommendations (papers with recommendations only), got {other:?}"
            )))
        }
    };
    if q.chars().count() > MAX_QUERY_CHARS {
        return Err(WebError::BadRequest(format!(
            "q (the search) is too long: at most {MAX_QUERY_CHARS} characters"
        )));
    }
    let page = match query.page.as_deref() {
        None | Some("") => 1,
        Some(text) => text
            .parse::<i64>()
            .ok()
            .filter(|page| (1..=MAX_PAGE).contains(page))
            .ok_or_else(|| {
                WebError::BadRequest(format!(
                    "page must be a whole number from 1 to {MAX_PAGE}, got {text:?}"
                ))
            })?,
    };
    let offset = (page - 1) * HITS_PER_PAGE;
    let rater = signed.rater_only();
    let search = study
        .targets()
        .search(&q, among, (offset, HITS_PER_PAGE), rater)
        .await?;
    let overview = search.overview;
    let address = |among: Among, page: i64| {
        let mut parameters = Vec::new();
        if !q.is_empty() {
            parameters.push(format!("q={}", encode_query_value(&q)));
        }
        if among == Among::WithRecommendations {
            parameters.push("with=recommendations".to_owned());
        }
        if page > 1 {
            parameters.push(format!("page={page}"));
        }
        format!("/papers?{}", parameters.join("&"))
    };
    // As the search reads it: a word has a letter or digit.
    let searched = q.chars().any(char::is_alphanumeric);
    let results = search.found.map(|(hits, count)| Results {
        heading: heading(count, offset, hits.len() as i64, among, searched),
        first_shown: offset + 1,
        page,
        previous_page: (page > 1).then(|| address(among, page - 1)),
        next_page: (offset + HITS_PER_PAGE < count && page < MAX_PAGE)
            .then(|| address(among, page + 1)),
        hits: hits.into_iter().map(HitView::new).collect(),
    });
    let mut response = view::html(&SearchPage {
        nav: Nav::of(&signed.0),
        filtered: (among == Among::Library && results.is_some())
            .then(|| address(Among::WithRecommendations, 1)),
        only_listed: among == Among::WithRecommendations,
        random: rater
            .is_none()
            .then(|| RandomChoice::new(&overview))
            .flatten(),
        q,
        results,
        choice_in_words: overview.in_words(),
        rates_all: overview.choice == TargetChoice::All,
        rater: rater.is_some(),
        csrf_token: csrf.value().to_owned(),
    })?;
    csrf.set_cookie_on(&mut response)?;
    Ok(response)
}

/// Every byte but the unreserved characters of RFC 3986.
const NOT_UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `text` as the value of a query parameter: every byte but the unreserved characters of
/// RFC 3986 percent-encoded.
pub fn encode_query_value(text: &str) -> String {
    utf8_percent_encode(text, NOT_UNRESERVED).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(encode_query_value("graph neural"), "graph%20neural");
        assert_eq!(encode_query_value("a&b=c#d"), "a%26b%3Dc%23d");
        assert_eq!(encode_query_value("é"), "%C3%A9");
        assert_eq!(encode_query_value("P-1.x_~"), "P-1.x_~");
    }

    #[test]
    fn a_passage_is_split_at_its_marks() {
        assert_eq!(passage(""), vec![]);
        assert_eq!(passage("plain"), vec![("plain".to_owned(), false)]);
        assert_eq!(
            passage("a \u{2}graph\u{3} of \u{2}<b>\u{3}"),
            vec![
                ("a ".to_owned(), false),
                ("graph".to_owned(), true),
                (" of ".to_owned(), false),
                ("<b>".to_owned(), true),
            ]
        );
        // A mark left open (a stray control character in a paper) ends the passage.
        assert_eq!(
            passage("x\u{2}y"),
            vec![("x".to_owned(), false), ("y".to_owned(), true)]
        );
    }
}
