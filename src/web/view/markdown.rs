//! The study's guidelines, Markdown the owner writes, as a page shows them.
//!
//! Safe whatever the text holds, since a rater cannot choose what the owner writes and the
//! owner may paste it from anywhere: pulldown-cmark (CommonMark) renders it, and on the way
//! every piece of raw HTML becomes text (escaped, so `<script>` or `onerror=` shows as what
//! was typed and never as markup), a link keeps its address only when it is `http(s)` or
//! relative (a `javascript:` or `data:` one becomes its words alone), and an image becomes its
//! description (the pages load nothing from elsewhere). Headings start one level below the
//! page's title.

use std::fmt;

use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// HTML rendered from Markdown by [`render`], safe to put in a page as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedMarkdown(String);

impl fmt::Display for RenderedMarkdown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `markdown` as HTML: raw HTML escaped, links `http(s)` or relative only, images as their
/// description, headings from `<h2>` down.
pub fn render(markdown: &str) -> RenderedMarkdown {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let events: Vec<Event<'_>> = Parser::new_ext(markdown, options).collect();
    let levels = HeadingLevels::of(&events);
    // Whether each link opened is kept, so that its end goes with it.
    let mut links_kept = Vec::new();
    let safe = events.into_iter().filter_map(|event| match event {
        Event::Html(html) | Event::InlineHtml(html) => Some(Event::Text(html)),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => {
            let kept = is_safe_address(&dest_url);
            links_kept.push(kept);
            kept.then_some(Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }))
        }
        Event::End(TagEnd::Link) => links_kept
            .pop()
            .unwrap_or(false)
            .then_some(Event::End(TagEnd::Link)),
        Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => None,
        Event::Start(Tag::Heading {
            level,
            id,
            classes,
            attrs,
        }) => Some(Event::Start(Tag::Heading {
            level: levels.on_page(level),
            id,
            classes,
            attrs,
        })),
        Event::End(TagEnd::Heading(level)) => {
            Some(Event::End(TagEnd::Heading(levels.on_page(level))))
        }
        other => Some(other),
    });
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, safe);
    RenderedMarkdown(html)
}

/// The heading levels a text uses, each shown as `<h2>` for the highest, `<h3>` for the next,
/// and so on: under the page's `<h1>` without a level skipped, however the text numbers them.
struct HeadingLevels {
    used: Vec<HeadingLevel>,
}

impl HeadingLevels {
    fn of(events: &[Event<'_>]) -> HeadingLevels {
        let mut used: Vec<HeadingLevel> = (events.iter())
            .filter_map(|event| match event {
                Event::Start(Tag::Heading { level, .. }) => Some(*level),
                _ => None,
            })
            .collect();
        used.sort_unstable();
        used.dedup();
        HeadingLevels { used }
    }

    fn on_page(&self, level: HeadingLevel) -> HeadingLevel {
        let rank = self
            .used
            .iter()
            .position(|used| *used == level)
            .unwrap_or(0);
        match rank {
            0 => HeadingLevel::H2,
            1 => HeadingLevel::H3,
            2 => HeadingLevel::H4,
            3 => HeadingLevel::H5,
            _ => HeadingLevel::H6,
        }
    }
}

/// An `http(s)` address, or one relative to the page (no scheme). Tabs and line breaks are
/// left out first and leading spaces and control characters trimmed, as browsers do before
/// they read a scheme: `java&#9;script:` is `javascript:` to them.
fn is_safe_address(address: &CowStr<'_>) -> bool {
    let address: String = (address.chars())
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let address = address.trim_start_matches(|c: char| c <= ' ');
    let lowercase = address.to_ascii_lowercase();
    if lowercase.starts_with("http://") || lowercase.starts_with("https://") {
        return true;
    }
    // A scheme is whatever comes before a colon that no slash, `?` or `#` precedes.
    match address.find([':', '/', '?', '#']) {
        Some(at) => !address[at..].starts_with(':'),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_is_rendered() {
        assert_eq!(
            render("Rate **method** papers\n\n- one\n- two").to_string(),
            "<p>Rate <strong>method</strong> papers</p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n"
        );
    }

    #[test]
    fn raw_html_is_text() {
        let html = render("<script>alert(1)</script>\n\nA <img src=x onerror=alert(1)> here");
        assert_eq!(
            html.to_string(),
            "&lt;script&gt;alert(1)&lt;/script&gt;\n<p>A &lt;img src=x onerror=alert(1)&gt; here</p>\n"
        );
    }

    #[test]
    fn only_http_and_relative_links_are_kept() {
        assert_eq!(
            render("[a](https://example.org/x) [b](/targets) [c](#top)").to_string(),
            "<p><a href=\"https://example.org/x\">a</a> <a href=\"/targets\">b</a> \
             <a href=\"#top\">c</a></p>\n"
        );
        for hostile in [
            "[x](javascript:alert(1))",
            "[x](JavaScript:alert(1))",
            "[x](java&#9;script:alert(1))",
            "[x](<java\tscript:alert(1)>)",
            "[x](&#x20;javascript:alert(1))",
            "[x](data:text/html;base64,PHNjcmlwdD4=)",
            "[x](vbscript:msgbox)",
            "<javascript:alert(1)>",
            "[x][r]\n\n[r]: javascript:alert(1)",
        ] {
            let html = render(hostile).to_string();
            assert!(!html.contains("<a"), "{hostile}: {html}");
        }
    }

    #[test]
    fn images_are_their_description() {
        assert_eq!(
            render("![a chart](https://example.org/c.png)").to_string(),
            "<p>a chart</p>\n"
        );
    }

    #[test]
    fn headings_start_below_the_page_title() {
        assert_eq!(
            render("### Scope\n\n##### Detail\n\n### Next").to_string(),
            "<h2>Scope</h2>\n<h3>Detail</h3>\n<h2>Next</h2>\n"
        );
    }
}
