//! The leaderboard pages and downloads over HTTP, on the fixture study with T1 fully rated and
//! T2 half rated, against numbers computed by hand and against `paperjudge leaderboard`.

use std::path::Path;
use std::process::Command;

use crate::web_support::{
    attr, selector, text, unescape, Page, TestApp, HOSTILE_ID, HOSTILE_TITLE, MODELS,
};
use reqwest::header::{ACCEPT, CONTENT_DISPOSITION, CONTENT_TYPE};
use reqwest::StatusCode;
use serde_json::{json, Value};

const ALPHA: &str = MODELS[0];
const BRAVO: &str = MODELS[1];
const CHARLIE: &str = MODELS[2];

/// The fixture with T1's pool fully rated and two of T2's four papers rated.
///
/// Gains at the defaults (stars − 1): T1 P1 4, P2 3, P4 2, P6 1, P3 P5 and the hostile paper
/// 0; T2 P7 4, P8 2. Lists: T1 alpha [P1 P2 P3], bravo [P2 P4 P5], charlie [P6 P1 hostile];
/// T2 alpha [P7 P8], bravo [P8 P9 (unrated)], charlie [P1 (unrated)].
async fn rated_study() -> TestApp {
    let app = TestApp::with_fixture().await;
    app.rate_all_of_t1().await;
    app.store_rating("T2", "P7", 5).await;
    app.store_rating("T2", "P8", 3).await;
    app
}

fn dcg(gains: &[f64]) -> f64 {
    (gains.iter().enumerate())
        .map(|(index, gain)| gain / ((index + 2) as f64).log2())
        .sum()
}

/// NDCG@8 of alpha, bravo and charlie at the default settings, which evaluate T1 alone (T2 is
/// only partly rated).
fn default_ndcg() -> [f64; 3] {
    let t1 = dcg(&[4.0, 3.0, 2.0, 1.0]);
    [
        dcg(&[4.0, 3.0, 0.0]) / t1,
        dcg(&[3.0, 2.0, 0.0]) / t1,
        dcg(&[1.0, 4.0, 0.0]) / t1,
    ]
}

/// Mean NDCG@8 of alpha, bravo and charlie with partly rated targets included (T1 and T2).
fn partial_ndcg() -> [f64; 3] {
    let (t1, t2) = (dcg(&[4.0, 3.0, 2.0, 1.0]), dcg(&[4.0, 2.0]));
    [
        (dcg(&[4.0, 3.0, 0.0]) / t1 + 1.0) / 2.0,
        (dcg(&[3.0, 2.0, 0.0]) / t1 + dcg(&[2.0, 0.0]) / t2) / 2.0,
        (dcg(&[1.0, 4.0, 0.0]) / t1 + 0.0) / 2.0,
    ]
}

/// Mean NDCG@2 with exponential gain (2^(stars − 1) − 1: 5★ 15, 4★ 7, 3★ 3, 2★ 1).
fn exponential_ndcg_at_2() -> [f64; 3] {
    let (t1, t2) = (dcg(&[15.0, 7.0]), dcg(&[15.0, 3.0]));
    [
        1.0,
        (dcg(&[7.0, 3.0]) / t1 + dcg(&[3.0, 0.0]) / t2) / 2.0,
        (dcg(&[1.0, 15.0]) / t1 + 0.0) / 2.0,
    ]
}

/// `(rank, model, NDCG)` of each row of the page's table, in page order.
fn table_rows(html: &str) -> Vec<(String, String, String)> {
    let page = Page::parse(html);
    (page.select("#board-table tbody tr").into_iter())
        .map(|row| {
            let cell = |css: &str| row.select(&selector(css)).next().expect(css);
            (
                attr(cell("td.num"), "data-value"),
                attr(cell("th[scope=row]"), "data-value"),
                text(cell("strong")),
            )
        })
        .collect()
}

fn row(rank: &str, model: &str, ndcg: f64) -> (String, String, String) {
    (rank.to_owned(), model.to_owned(), format!("{ndcg:.3}"))
}

#[tokio::test]
async fn by_default_the_page_leaves_partly_rated_targets_out() {
    let app = rated_study().await;
    let [alpha, bravo, charlie] = default_ndcg();

    let page = app.get_text("/leaderboard").await;

    assert!(page.contains(
        "<p class=\"board-targets\">1 target evaluated (1 partly rated target is left out until \
         every pooled paper of it is rated), 0 without ratings."
    ));
    assert_eq!(
        table_rows(&page),
        [
            row("1", ALPHA, alpha),
            row("2", BRAVO, bravo),
            row("3", CHARLIE, charlie)
        ]
    );
    assert!(!page.contains("Not blind."));
    assert!(!page.contains("is-flagged"), "every paper of T1 is rated");
    assert!(page.contains(
        "<input id=\"option-partial\" name=\"partial\" type=\"checkbox\" value=\"include\" \
         aria-describedby=\"option-partial-help\">"
    ));
}

#[tokio::test]
async fn the_page_shows_the_settings_in_words_the_table_and_the_warnings() {
    let app = rated_study().await;
    let [alpha, bravo, charlie] = partial_ndcg();

    let page = app.get_text("/leaderboard?partial=include").await;
    let json: Value =
        serde_json::from_str(&app.get_text("/leaderboard.json?partial=include").await).unwrap();

    assert!(page.contains(
        "<p class=\"board-settings\">NDCG@8 · linear gain = stars − 1 · ideal from all judged \
         papers of each target · unrated papers count 0 · targets without relevant papers \
         skipped · relevant = 4+ stars · AP over all relevant papers</p>"
    ));
    assert!(page.contains(
        "2 targets evaluated (1 of them partly rated), 0 without ratings. Left out for having \
         nothing relevant: 0 from NDCG, 0 from P, R, F1, AP, RR and unique relevant."
    ));
    assert!(page.contains(
        "<p class=\"board-unblinding\" role=\"note\"><strong>Not blind.</strong> Partly rated \
         targets are included (1 now)."
    ));
    assert!(page.contains(
        "rating that target after reading them is no longer blind, and nothing records that \
         they were read (the rating history marks as made with provenance known only the \
         changes of targets already fully rated)."
    ));
    assert!(page.contains("<a href=\"/leaderboard\">Fully rated targets only</a>"));
    assert!(page.contains("value=\"include\" checked"));
    assert_eq!(json["settings"]["partial"], "include");
    assert_eq!(
        table_rows(&page),
        [
            row("1", ALPHA, alpha),
            row("2", BRAVO, bravo),
            row("3", CHARLIE, charlie)
        ]
    );
    for (index, expected) in [alpha, bravo, charlie].into_iter().enumerate() {
        let ndcg = json["models"][index]["ndcg"].as_f64().unwrap();
        assert!((ndcg - expected).abs() < 1e-12, "{ndcg} vs {expected}");
    }
    assert!(page.contains("<span class=\"badge\">leader</span>"));
    let p_bravo = json["models"][1]["p_value_holm"].as_f64().unwrap();
    assert!(
        p_bravo >= 0.05,
        "two targets cannot separate them: {p_bravo}"
    );
    assert!(page.contains(
        "<span class=\"badge badge-tied\" title=\"not separated from the leader at p &lt; 0.05\">\
         tied<span class=\"visually-hidden\"> with the leader</span></span>"
    ));
    // Judged@8: bravo's T2 list is half rated (P9), charlie's T2 list (P1) not at all.
    assert!(page.contains("<td class=\"num is-flagged\" data-value=\"0.75\">0.750</td>"));

    let warnings = Page::parse(&page).texts(".board-warnings li");
    assert_eq!(
        warnings,
        [
            format!(
                "Judged@8 below 1: {BRAVO} (0.750), {CHARLIE} (0.500). Part of their top 8 is \
                 unrated, so their scores rest on papers nobody has judged."
            ),
            "1 target is only partly rated: its ideal ranking may still change.".to_owned(),
            "Only 2 targets are evaluated: with fewer than 10, the intervals are wide, yet cover \
             the mean less often than their 95% says (about 88% with 8 targets), and the order \
             may change with the next target."
                .to_owned(),
            format!(
                "The top two are not separated: {BRAVO} against {ALPHA} gives p = {p_bravo:.3} \
                 (Holm-adjusted), not below 0.05."
            ),
        ]
    );
    for link in [
        "href=\"/leaderboard.csv?partial=include\"",
        "href=\"/leaderboard.csv?partial=include&#38;per_target=1\"",
        "href=\"/leaderboard.json?partial=include\"",
        "href=\"/leaderboard.json?partial=include&#38;per_target=1\"",
        "href=\"/export/ratings.csv\"",
        "href=\"/export/qrels.txt?relevance=stars-minus-one\"",
        "href=\"/leaderboard/targets\"",
    ] {
        assert!(page.contains(link), "{link}");
    }
}

#[tokio::test]
async fn options_in_the_address_change_the_numbers_and_sorting_only_the_row_order() {
    let app = rated_study().await;
    let [alpha, bravo, charlie] = exponential_ndcg_at_2();
    assert!(bravo > charlie, "{bravo} {charlie}");

    let page = app
        .get_text("/leaderboard?k=2&gain=exponential&partial=include&sort=model&order=desc")
        .await;

    assert!(page.contains(
        "<p class=\"board-settings\">NDCG@2 · exponential gain = 2^(stars − 1) − 1 · ideal from \
         all judged papers of each target · unrated papers count 0 ·"
    ));
    assert_eq!(
        table_rows(&page),
        [
            row("3", CHARLIE, charlie),
            row("2", BRAVO, bravo),
            row("1", ALPHA, alpha)
        ]
    );
    assert!(page.contains("<th scope=\"col\" aria-sort=\"descending\" data-column=\"model\""));
    // The sorted heading's link reverses the order; the others keep the options.
    assert!(page.contains(
        "<a href=\"/leaderboard?k=2&#38;gain=exponential&#38;partial=include&#38;sort=model\
         &#38;order=asc\""
    ));
    assert!(page.contains(
        "<a href=\"/leaderboard?k=2&#38;gain=exponential&#38;partial=include&#38;sort=ndcg\
         &#38;order=desc\""
    ));
    assert!(page.contains("name=\"k\" type=\"number\" min=\"1\" step=\"1\" value=\"2\""));
    assert!(page.contains("<option value=\"exponential\" selected>exponential</option>"));
    assert!(page.contains("<option value=\"linear\">linear</option>"));
    assert!(page.contains("<input type=\"hidden\" name=\"sort\" value=\"model\">"));
    assert!(page.contains("href=\"/leaderboard.csv?k=2&#38;gain=exponential&#38;partial=include\""));
    assert!(page.contains("href=\"/leaderboard/targets?k=2&#38;gain=exponential\""));
    assert!(page.contains("Every metric at k = 2."));
}

/// What `paperjudge --db DB ARGS` prints; it must succeed.
fn cli(db: &Path, args: &[String]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_paperjudge"))
        .arg("--db")
        .arg(db)
        .args(args)
        .env("PAPERJUDGE_LOG", "warn")
        .output()
        .expect("the binary runs");
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[tokio::test]
async fn downloads_equal_what_the_command_line_prints_byte_for_byte() {
    let app = rated_study().await;
    let db = app.study.db_path();
    let option_sets: [&[(&str, &str)]; 4] = [
        &[],
        &[("k", "2"), ("gain", "exponential")],
        &[("partial", "include")],
        &[
            ("relevance", "stars"),
            ("ideal", "list"),
            ("unjudged", "skip"),
            ("empty", "zero"),
            ("threshold", "3"),
            ("ap-denominator", "hits"),
        ],
    ];
    let mut checked = 0;
    for options in option_sets {
        for per_target in [false, true] {
            for format in ["csv", "json"] {
                let mut query: Vec<String> = options
                    .iter()
                    .map(|(name, value)| format!("{name}={value}"))
                    .collect();
                let mut args = vec!["leaderboard".to_owned(), format!("--format={format}")];
                args.extend(options.iter().map(|(name, value)| match *name {
                    "partial" => "--include-partial".to_owned(),
                    _ => format!("--{name}={value}"),
                }));
                if per_target {
                    query.push("per_target=1".to_owned());
                    args.push("--per-target".to_owned());
                }
                let path = format!("/leaderboard.{format}?{}", query.join("&"));

                let response = app.get(&path).await;
                assert_eq!(response.status(), StatusCode::OK, "{path}");
                let content_type = response.headers()[CONTENT_TYPE]
                    .to_str()
                    .unwrap()
                    .to_owned();
                let disposition = response.headers()[CONTENT_DISPOSITION].to_str().unwrap();
                assert_eq!(
                    disposition,
                    format!("attachment; filename=\"paperjudge-leaderboard.{format}\"")
                );
                let body = response.text().await.unwrap();

                assert_eq!(body, cli(&db, &args), "{path}");
                let expected_type = match format {
                    "csv" => "text/csv; charset=utf-8",
                    _ => "application/json",
                };
                assert_eq!(content_type, expected_type);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 16);

    // The ratings CSV and the qrels, as `paperjudge export` writes them.
    for (path, args) in [
        ("/export/ratings.csv", vec!["export", "ratings"]),
        ("/export/qrels.txt", vec!["export", "qrels"]),
        (
            "/export/qrels.txt?relevance=stars",
            vec!["export", "qrels", "--relevance", "stars"],
        ),
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert!(response.headers()[CONTENT_DISPOSITION]
            .to_str()
            .unwrap()
            .starts_with("attachment; filename=\"paperjudge-"));
        let args: Vec<String> = args.into_iter().map(str::to_owned).collect();
        assert_eq!(response.text().await.unwrap(), cli(&db, &args), "{path}");
    }
    assert!(app
        .get_text("/export/qrels.txt")
        .await
        .contains("T2 0 P7 4\n"));
}

#[tokio::test]
async fn an_invalid_option_is_refused_with_400_naming_the_allowed_values() {
    let app = rated_study().await;
    for (path, message) in [
        (
            "/leaderboard?gain=quadratic",
            "gain must be one of: linear, exponential (got \"quadratic\")",
        ),
        (
            "/leaderboard?unjudged=ignore",
            "unjudged must be one of: zero, skip (got \"ignore\")",
        ),
        (
            "/leaderboard.csv?k=0",
            "k must be a whole number from 1 up (got \"0\")",
        ),
        (
            "/leaderboard.json?threshold=6",
            "threshold must be a number of stars from 1 to 5 (got \"6\")",
        ),
        (
            "/leaderboard?sort=score",
            "sort must be one of: rank, model, ndcg, targets, judged_at_k, mean_diff_vs_leader, \
             p_value_holm, precision, recall, f1, ap, rr, unique_relevant (got \"score\")",
        ),
        (
            "/leaderboard/targets?ap-denominator=all",
            "ap-denominator must be one of: relevant, hits, min-k-relevant (got \"all\")",
        ),
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{path}");
        let body = unescape(&response.text().await.unwrap());
        assert!(
            body.contains(&format!("<p class=\"error-message\">{message}</p>")),
            "{path}: {body}"
        );
    }

    let scripted = app
        .http
        .get(app.url("/leaderboard.json?ideal=best"))
        .header(ACCEPT, "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(scripted.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        scripted.json::<Value>().await.unwrap(),
        json!({"error": "ideal must be one of: judged, list (got \"best\")"})
    );
    let unknown = app.get("/leaderboard?colour=red").await;
    assert_eq!(unknown.status(), StatusCode::BAD_REQUEST);
    assert!(unknown.text().await.unwrap().contains(
        "is not a parameter of the leaderboard; the parameters are: k, gain, relevance, ideal, \
         unjudged, empty, threshold, ap-denominator, margin, judgments, judge, partial, sort, order, per_target"
    ));
}

#[tokio::test]
async fn the_per_target_view_shows_only_fully_rated_targets() {
    let app = rated_study().await;
    let (t1, t2) = (app.paper_id("T1").await, app.paper_id("T2").await);

    let unfinished = app.get(&format!("/leaderboard/targets/{t2}")).await;
    assert_eq!(unfinished.status(), StatusCode::FORBIDDEN);
    let unfinished = unfinished.text().await.unwrap();
    assert!(unfinished.contains("This target is not fully rated yet (2 of 4 pooled papers rated)."));
    assert!(unfinished.contains(&format!("href=\"/targets/{t2}\">Rate this target</a>")));
    for hidden in MODELS.iter().chain(&["Paper seven", "NDCG@8 <strong>"]) {
        assert!(
            !unfinished.contains(hidden),
            "{hidden} on an unfinished target"
        );
    }
    let finished = app.get_text(&format!("/leaderboard/targets/{t1}")).await;
    let t1_ideal = dcg(&[4.0, 3.0, 2.0, 1.0]);
    let finished_page = Page::parse(&finished);
    let sections = finished_page.select("section.target-list");
    assert_eq!(sections.len(), 3);
    for (section, (model, rank, dcg_value, papers, glyphs)) in sections.iter().zip([
        (
            ALPHA,
            1,
            dcg(&[4.0, 3.0, 0.0]),
            ["P1", "P2", "P3"],
            ["★★★★★", "★★★★☆", "★☆☆☆☆"],
        ),
        (
            BRAVO,
            2,
            dcg(&[3.0, 2.0, 0.0]),
            ["P2", "P4", "P5"],
            ["★★★★☆", "★★★☆☆", "★☆☆☆☆"],
        ),
        (
            CHARLIE,
            3,
            dcg(&[1.0, 4.0, 0.0]),
            ["P6", "P1", HOSTILE_ID],
            ["★★☆☆☆", "★★★★★", "★☆☆☆☆"],
        ),
    ]) {
        let texts =
            |css: &str| -> Vec<String> { section.select(&selector(css)).map(text).collect() };
        assert_eq!(texts("h2"), [format!("{rank}. {model}")]);
        assert_eq!(
            texts(".stat-line"),
            [format!(
                "NDCG@8 {:.3} · Judged@8 1.000",
                dcg_value / t1_ideal
            )]
        );
        assert_eq!(texts(".paper-id"), papers);
        assert_eq!(texts("[aria-hidden=true]"), glyphs);
    }
    let first_stars: Vec<String> = (sections[0].select(&selector(".visually-hidden")))
        .map(text)
        .collect();
    assert_eq!(first_stars[0], "5 stars, highly relevant");
    assert!(!finished.contains(HOSTILE_TITLE));
    assert!(finished.contains("&#60;script&#62;alert(&#34;title&#34;)&#60;/script&#62; &#38; co"));

    let matrix = app.get_text("/leaderboard/targets").await;
    assert!(matrix.contains(&format!(
        "<a href=\"/leaderboard/targets/{t1}\">Target one</a>"
    )));
    assert!(!matrix.contains("Target two"));
    assert!(matrix.contains("1 target is not yet fully rated."));
    assert_eq!(
        Page::parse(&matrix).texts("thead th.num"),
        MODELS,
        "leaderboard order"
    );
    let alpha_on_t1 = dcg(&[4.0, 3.0, 0.0]) / t1_ideal;
    assert!(matrix.contains(&format!(
        "<td class=\"num shade shade-8\">{alpha_on_t1:.3}</td>"
    )));

    assert_eq!(
        app.get("/leaderboard/targets/999999").await.status(),
        StatusCode::NOT_FOUND
    );
    let not_a_target = app.paper_id("P10").await;
    assert_eq!(
        app.get(&format!("/leaderboard/targets/{not_a_target}"))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn the_chart_is_well_formed_svg_with_one_bar_per_model() {
    let app = rated_study().await;
    let page = app.get_text("/leaderboard?partial=include").await;
    let svg = &page[page.find("<svg").unwrap()..page.find("</svg>").unwrap() + "</svg>".len()];

    let document = roxmltree::Document::parse(svg).expect("the chart is XML");
    let bars: Vec<roxmltree::Node> = (document.descendants())
        .filter(|node| node.has_tag_name("rect") && node.attribute("class") == Some("bar"))
        .collect();
    assert_eq!(bars.len(), MODELS.len());
    for ((bar, model), ndcg) in bars.iter().zip(MODELS).zip(partial_ndcg()) {
        let row = bar.parent().unwrap();
        let title = row.children().find(|n| n.has_tag_name("title")).unwrap();
        assert!(title
            .text()
            .unwrap()
            .starts_with(&format!("{model}: NDCG@8 {ndcg:.3} [")));
        let width: f64 = bar.attribute("width").unwrap().parse().unwrap();
        assert!((width - 440.0 * ndcg).abs() <= 0.05, "{width} for {ndcg}");
        assert_eq!(bar.attribute("x"), Some("222"));
    }
    let whiskers = (document.descendants())
        .filter(|node| node.attribute("class") == Some("whisker"))
        .count();
    assert_eq!(whiskers, MODELS.len());
}

#[tokio::test]
async fn the_dashboard_shows_the_top_three_and_rating_pages_do_not_load_the_script() {
    let app = rated_study().await;
    let [alpha, ..] = default_ndcg();

    let dashboard = app.get_text("/").await;
    let script = app.get("/static/leaderboard.js").await;
    let rating_page = app
        .get_text(&format!("/targets/{}", app.paper_id("T1").await))
        .await;

    assert!(dashboard.contains(&format!(
        "<th scope=\"row\">{ALPHA} <span class=\"badge\">leader</span></th>\n        <td class=\"num\"><strong>{alpha:.3}</strong></td>"
    )));
    assert!(dashboard.find(ALPHA) < dashboard.find(BRAVO));
    assert!(dashboard.find(BRAVO) < dashboard.find(CHARLIE));
    assert!(dashboard.contains("<a href=\"/leaderboard\">The full leaderboard</a>"));
    assert_eq!(script.status(), StatusCode::OK);
    assert_eq!(
        script.headers()[CONTENT_TYPE],
        "text/javascript; charset=utf-8"
    );
    assert!(!rating_page.contains("leaderboard.js"));
    assert!(app
        .get_text("/leaderboard")
        .await
        .contains("<script src=\"/static/leaderboard.js?v="));
}

#[tokio::test]
async fn a_study_without_ratings_says_so() {
    let app = TestApp::with_fixture().await;

    let page = app.get_text("/leaderboard").await;

    assert!(
        page.contains("No target is fully rated yet: the comparison appears here once every pooled\npaper of a target is rated.")
    );
    assert!(!page.contains("<svg"));
    assert!(!page.contains("id=\"board-table\""));
}

/// The form offers every option of `leaderboard::OPTIONS` that has fixed values, each with all
/// of them and the one in force selected; the margin, a setting of the verdict, is left to the
/// address. A new option with fixed values is on the page once it is in OPTIONS.
#[tokio::test]
async fn the_form_offers_every_option_with_fixed_values_from_options_alone() {
    use paperjudge::leaderboard::{OnThePage, OPTIONS};
    use paperjudge::metrics::Settings;
    let app = rated_study().await;
    let page = Page::parse(&app.get_text("/leaderboard?gain=exponential").await);
    let settings = Settings {
        gain: paperjudge::metrics::Gain::Exponential,
        ..Settings::default()
    };
    let mut offered = 0;
    for option in &OPTIONS {
        let select = format!("select#option-{}", option.name);
        match option.on_the_page {
            OnThePage::Choice {
                values, current, ..
            } => {
                let options = format!("{select} option");
                assert_eq!(page.attrs(&options, "value"), values(), "{}", option.name);
                assert_eq!(
                    page.attrs(&format!("{options}[selected]"), "value"),
                    [current(&settings)],
                    "{}",
                    option.name
                );
                offered += 1;
            }
            _ => assert!(page.attrs(&select, "name").is_empty(), "{}", option.name),
        }
    }
    assert_eq!(offered, 7);
    assert_eq!(page.attrs("input#option-k", "value"), ["8"]);
}
