//! What pages show of a paper, and how a page becomes an answer; the fragments more than one
//! page shows (a model's standing, the pruning control).
//!
//! Every text from the data is escaped by askama; on top of that, only `http(s)` addresses
//! become links, since escaping does not make a `javascript:` link harmless. The one `|safe`
//! is the study's guidelines, HTML that [`markdown::render`] made safe ([`RenderedMarkdown`]).

use actix_web::http::header::ContentType;
use actix_web::HttpResponse;
use askama::Template;

use super::WebError;
use crate::domain::PaperId;
use crate::study::papers::Paper;
use crate::study::raters::Rater;

mod markdown;
mod pruning_control;
mod standing;

pub use markdown::{render as render_markdown, RenderedMarkdown};
pub use pruning_control::PruningControl;
pub use standing::Standing;

/// Abstracts longer than this are folded to their first lines, unfoldable in place.
const FOLD_ABSTRACTS_LONGER_THAN: usize = 600;

/// Room for a page to render into without growing: a rating page takes about 6 KB a paper, and
/// growing a buffer copies it each time.
const PAGE_BUFFER_BYTES: usize = 64 * 1024;

/// Renders a page into a 200 answer.
pub fn html(page: &impl Template) -> Result<HttpResponse, WebError> {
    let mut body = String::with_capacity(PAGE_BUFFER_BYTES);
    page.render_into(&mut body)?;
    Ok(HttpResponse::Ok()
        .content_type(ContentType::html())
        .body(body))
}

/// What the site's navigation and a page's text offer: the owner's pages (the study checks,
/// the import, the per-target views and the qrels of every rater's stars) to the owner alone,
/// so that a rater is never offered a link that answers 403.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nav {
    pub owner_pages: bool,
}

impl Nav {
    /// The owner's, and the pages only the owner sees (or anyone before signing in).
    pub const OWNER: Nav = Nav { owner_pages: true };

    /// For `rater`, the owner or a rater signed in.
    pub fn of(rater: &Rater) -> Nav {
        Nav {
            owner_pages: rater.is_owner(),
        }
    }
}

/// A paper as the pages show it.
pub struct PaperView {
    pub external_id: PaperId,
    /// The element id of the paper on the rating page; see [`anchor`].
    pub anchor: String,
    pub title: String,
    pub authors: String,
    pub year: Option<i64>,
    /// The paper's address, when it is a web address.
    pub link: Option<String>,
    pub abstract_text: String,
    /// The abstract is long enough to be shown folded. The page holds it once; the
    /// stylesheet shows its first lines until the reader unfolds it.
    pub abstract_folds: bool,
}

impl From<Paper> for PaperView {
    fn from(paper: Paper) -> PaperView {
        PaperView {
            anchor: anchor(paper.external_id.as_str()),
            link: web_link(&paper.url),
            abstract_folds: paper.abstract_text.chars().count() > FOLD_ABSTRACTS_LONGER_THAN,
            external_id: paper.external_id,
            title: paper.title,
            authors: paper.authors,
            year: paper.year,
            abstract_text: paper.abstract_text,
        }
    }
}

/// The element id (and URL fragment) of a paper: `paper-` and its external id, with every
/// byte outside `[A-Za-z0-9.-]` written as `_` and two hex digits. That is a valid id and
/// fragment whatever the external id holds, and two ids never share an anchor.
pub fn anchor(external_id: &str) -> String {
    let mut anchor = String::from("paper-");
    for byte in external_id.bytes() {
        if byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'.' {
            anchor.push(char::from(byte));
        } else {
            anchor.push_str(&format!("_{byte:02x}"));
        }
    }
    anchor
}

fn web_link(url: &str) -> Option<String> {
    let url = url.trim();
    let is_web = ["http://", "https://"].iter().any(|scheme| {
        url.get(..scheme.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(scheme))
    });
    is_web.then(|| url.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_keep_safe_characters_and_encode_the_rest() {
        assert_eq!(anchor("P1"), "paper-P1");
        assert_eq!(anchor("demo-01.v2"), "paper-demo-01.v2");
        assert_eq!(anchor("10.1145/x y"), "paper-10.1145_2fx_20y");
        assert_eq!(anchor("a_2f"), "paper-a_5f2f");
        assert_eq!(anchor("\"><script>"), "paper-_22_3e_3cscript_3e");
        assert_eq!(anchor("é"), "paper-_c3_a9");
    }

    #[test]
    fn only_web_addresses_become_links() {
        assert_eq!(
            web_link(" https://x.org/p "),
            Some("https://x.org/p".to_owned())
        );
        assert_eq!(web_link("HTTP://x.org"), Some("HTTP://x.org".to_owned()));
        assert_eq!(web_link("javascript:alert(1)"), None);
        assert_eq!(web_link(""), None);
        assert_eq!(web_link("ftp://x.org"), None);
    }
}
