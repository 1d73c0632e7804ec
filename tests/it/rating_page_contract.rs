//! The contract between the rating page and its script: every selector `static/rating.js`
//! names at its top (PAGE, PAPERS, PAPER) finds its elements on a rendered rating page, so
//! that a change to `templates/rating.html` that would break the script fails here, without a
//! browser.

use crate::web_support::{attr, selector, text, Page, TestApp, T1_POOL_SIZE};

const SCRIPT: &str = include_str!("../../static/rating.js");

/// The `name: "selector",` lines of the object `const {name} = { ... };` in the script.
fn selectors_of(object: &str) -> Vec<(String, String)> {
    let start = SCRIPT
        .find(&format!("const {object} = {{"))
        .unwrap_or_else(|| panic!("rating.js declares {object}"));
    let body = &SCRIPT[start..];
    let body = &body[..body.find("};").expect("the object ends")];
    body.lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (name, value) = line.trim().split_once(": ").expect("name: \"selector\",");
            let value = value.trim_end_matches(',');
            let quoted = |quote: char| value.strip_prefix(quote)?.strip_suffix(quote);
            let css = quoted('"')
                .or_else(|| quoted('\''))
                .expect("a quoted selector");
            (name.to_owned(), css.to_owned())
        })
        .collect()
}

/// The selector the script assigns to `const {name} = "...";`.
fn selector_constant(name: &str) -> String {
    let start = SCRIPT
        .find(&format!("const {name} = \""))
        .unwrap_or_else(|| panic!("rating.js declares {name}"))
        + format!("const {name} = \"").len();
    SCRIPT[start..start + SCRIPT[start..].find('"').expect("a closing quote")].to_owned()
}

/// The fixture's T1 with two papers rated, as a browser without a cookie gets it.
async fn rating_page() -> Page {
    let app = TestApp::with_fixture().await;
    app.store_rating("T1", "P2", 4).await;
    app.store_rating("T1", "P6", 1).await;
    let t1 = app.paper_id("T1").await;
    Page::parse(&app.get_text(&format!("/targets/{t1}")).await)
}

#[test]
fn the_script_names_what_it_needs_of_the_page() {
    let page = selectors_of("PAGE");
    let paper = selectors_of("PAPER");
    assert_eq!(page.len(), 11, "{page:?}");
    assert_eq!(paper.len(), 8, "{paper:?}");
    for (_, css) in page.iter().chain(&paper) {
        selector(css);
    }
    selector(&selector_constant("PAPERS"));
}

#[tokio::test]
async fn every_element_the_script_needs_is_on_the_rating_page() {
    let page = rating_page().await;

    for (name, css) in selectors_of("PAGE") {
        assert_eq!(page.count(&css), 1, "PAGE.{name}: {css}");
    }
    let papers = page.select(&selector_constant("PAPERS"));
    assert_eq!(papers.len() as i64, T1_POOL_SIZE);
    assert_eq!(
        papers.len(),
        page.count("article.paper"),
        "every paper is one of PAPERS"
    );
    for paper in &papers {
        let id = attr(*paper, "data-paper");
        for (name, css) in selectors_of("PAPER") {
            let found = paper.select(&selector(&css)).count();
            assert!(found > 0, "PAPER.{name} ({css}) is missing in paper {id}");
        }
    }
}

#[tokio::test]
async fn each_paper_holds_its_stars_as_the_script_reads_them() {
    let page = rating_page().await;
    let papers = page.select(&selector_constant("PAPERS"));
    let star = selector(&selectors_of("PAPER")[2].1);
    let star_text = selector(".star-text");

    let mut rated = Vec::new();
    for paper in papers {
        let id = attr(paper, "data-paper");
        let stars = attr(paper, "data-stars");
        let classes: Vec<&str> = paper.value().classes().collect();
        let state = if stars.is_empty() {
            "is-unrated"
        } else {
            "is-rated"
        };
        assert!(
            classes.contains(&state),
            "{id}: {classes:?} with stars {stars:?}"
        );
        // `describe` reads a star's words from its label: one radio a value ("can't judge"
        // too), each in a label with its text, and the checked one is the stored answer.
        let labels: Vec<_> = paper.select(&selector("label")).collect();
        let words: Vec<(String, String)> = labels
            .iter()
            .filter_map(|label| {
                let radio = label.select(&star).next()?;
                let words = label.select(&star_text).next().map(text)?;
                Some((attr(radio, "value"), words))
            })
            .collect();
        assert_eq!(
            words,
            [
                ("1", "1 irrelevant"),
                ("2", "2 marginally relevant"),
                ("3", "3 moderately relevant"),
                ("4", "4 relevant"),
                ("5", "5 highly relevant"),
                ("cannot-judge", "I can't judge this"),
            ]
            .map(|(value, words)| (value.to_owned(), words.to_owned())),
            "{id}"
        );
        let checked: Vec<String> = paper
            .select(&selector("input[name=stars][checked]"))
            .map(|radio| attr(radio, "value"))
            .collect();
        assert_eq!(
            checked,
            Vec::from_iter((!stars.is_empty()).then_some(stars.clone()))
        );
        if !stars.is_empty() {
            rated.push((id, stars));
        }
    }
    rated.sort();
    assert_eq!(
        rated,
        [
            ("P2".to_owned(), "4".to_owned()),
            ("P6".to_owned(), "1".to_owned())
        ]
    );
}
