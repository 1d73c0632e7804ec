//! Shared by the web and browser tests: the app on port 0 over a real SQLite file, a fixture
//! study whose model names and scores must never reach a rating page, and an HTTP client that
//! keeps the CSRF cookie by hand (no cookie store: the tests see exactly what is sent).

use std::net::TcpListener;

use paperjudge::db;
use paperjudge::domain::{PaperId, Stars};
use paperjudge::web::Access;
use reqwest::header::{HeaderMap, ACCEPT, COOKIE, LOCATION, SET_COOKIE};
use reqwest::{Response, StatusCode};

use crate::common::TestStudy;

/// The models of the fixture: not one of these may appear on a rating page.
pub const MODELS: [&str; 3] = ["alpha-lda-300", "bravo-lsa-200", "charlie-bm25"];

/// The scores of the fixture, as distinctive as the names.
pub const SCORES: [&str; 3] = ["91.8273", "64.5091", "37.2468"];

/// An id, title, authors, abstract and link that would break out of the page if not escaped.
pub const HOSTILE_ID: &str = "h<b>&\"'";
pub const HOSTILE_TITLE: &str = "<script>alert(\"title\")</script> & co";

/// Papers T1 and T2 are targets; P10 is a paper but no target and in no pool.
const PAPERS_CSV: &str = "id,title,abstract,authors,year,url
T1,Target one,The first target.,Ada Target,2019,https://example.org/T1
T2,Target two,The second target.,Bo Target,2020,https://example.org/T2
P1,Paper one,Abstract one.,Author One,2011,https://example.org/P1
P2,Paper two,Abstract two.,Author Two,2012,https://example.org/P2
P3,Paper three,Abstract three.,Author Three,2013,https://example.org/P3
P4,Paper four,Abstract four.,Author Four,2014,https://example.org/P4
P5,Paper five,Abstract five.,Author Five,2015,https://example.org/P5
P6,Paper six,Abstract six.,Author Six,2016,https://example.org/P6
P7,Paper seven,Abstract seven.,Author Seven,2017,https://example.org/P7
P8,Paper eight,Abstract eight.,Author Eight,2018,https://example.org/P8
P9,Paper nine,Abstract nine.,Author Nine,2019,https://example.org/P9
P10,Paper ten,Abstract ten.,Author Ten,2020,https://example.org/P10
\"h<b>&\"\"'\",\"<script>alert(\"\"title\"\")</script> & co\",</p><img src=x onerror=alert(1)>,O'Brien & <em>Sons</em>,2021,javascript:alert(1)
";

/// T1's pool: P1..P6 and the hostile paper (7 pairs); T2's pool: P1, P7, P8, P9 (4 pairs).
const RECOMMENDATIONS_CSV: &str = "model,target,rank,paper,score
alpha-lda-300,T1,1,P1,91.8273
alpha-lda-300,T1,2,P2,90.1
alpha-lda-300,T1,3,P3,89.1
bravo-lsa-200,T1,1,P2,64.5091
bravo-lsa-200,T1,2,P4,60.1
bravo-lsa-200,T1,3,P5,59.1
charlie-bm25,T1,1,P6,37.2468
charlie-bm25,T1,2,P1,30.1
charlie-bm25,T1,3,\"h<b>&\"\"'\",29.1
alpha-lda-300,T2,1,P7,80.1
alpha-lda-300,T2,2,P8,79.1
bravo-lsa-200,T2,1,P8,50.1
bravo-lsa-200,T2,2,P9,49.1
charlie-bm25,T2,1,P1,20.1
";

pub const T1_POOL_SIZE: i64 = 7;

/// The fixture study, not served yet.
pub async fn fixture_study() -> TestStudy {
    let study = TestStudy::new().await;
    study.papers(PAPERS_CSV).await;
    study.recommendations(RECOMMENDATIONS_CSV).await;
    study
}

/// The running app and a client for it.
pub struct TestApp {
    pub study: TestStudy,
    pub address: String,
    pub http: reqwest::Client,
}

/// A browser's CSRF cookie and the token its pages carry.
pub struct Session {
    pub cookie: String,
    pub token: String,
}

/// How a test posts a form: as the rating script (JSON answer) or as a plain form (303).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Json,
    Redirect,
}

impl TestApp {
    /// The fixture study, served.
    pub async fn with_fixture() -> TestApp {
        TestApp::spawn(fixture_study().await).await
    }

    pub async fn spawn(study: TestStudy) -> TestApp {
        TestApp::spawn_with(study, Access::default()).await
    }

    /// The app with a password or other access settings.
    pub async fn spawn_with(study: TestStudy, access: Access) -> TestApp {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let address = format!("http://{}", listener.local_addr().expect("an address"));
        let server =
            paperjudge::web::run(listener, study.pool.clone(), access).expect("the app starts");
        tokio::spawn(server);
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("an HTTP client");
        TestApp {
            study,
            address,
            http,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    pub async fn get(&self, path: &str) -> Response {
        self.http
            .get(self.url(path))
            .send()
            .await
            .expect("GET answers")
    }

    pub async fn get_text(&self, path: &str) -> String {
        let response = self.get(path).await;
        assert_eq!(response.status(), StatusCode::OK, "GET {path}");
        response.text().await.expect("a body")
    }

    /// The row id of a paper (the `n` of `/targets/{n}`).
    pub async fn paper_id(&self, external_id: &str) -> i64 {
        db::papers::key_of(&self.study.pool, external_id)
            .await
            .expect("the query runs")
            .unwrap_or_else(|| panic!("paper {external_id} exists"))
            .0
    }

    /// Opens a rating page as a new browser would: no cookie, so it gets one.
    pub async fn session(&self, target: i64) -> Session {
        let response = self.get(&format!("/targets/{target}")).await;
        assert_eq!(response.status(), StatusCode::OK);
        let cookie = csrf_cookie(response.headers()).expect("a new browser gets the CSRF cookie");
        let html = response.text().await.expect("a body");
        let token = hidden_token(&html).expect("the page's forms carry the token");
        Session { cookie, token }
    }

    /// Posts `fields` with the session's cookie (if any), answered as `answer` asks.
    pub async fn post(
        &self,
        path: &str,
        session: Option<&Session>,
        fields: &[(&str, &str)],
        answer: Answer,
    ) -> Response {
        let mut request = self.http.post(self.url(path)).form(fields);
        if let Some(session) = session {
            request = request.header(COOKIE, &session.cookie);
        }
        if answer == Answer::Json {
            request = request.header(ACCEPT, "application/json");
        }
        request.send().await.expect("POST answers")
    }

    /// Rates as the rating page does, with the session's token.
    pub async fn rate(
        &self,
        session: &Session,
        target: i64,
        paper: &str,
        stars: &str,
        answer: Answer,
    ) -> Response {
        let fields = [
            ("paper", paper),
            ("stars", stars),
            ("csrf_token", session.token.as_str()),
        ];
        self.post(
            &format!("/targets/{target}/ratings"),
            Some(session),
            &fields,
            answer,
        )
        .await
    }

    pub async fn undo(&self, session: &Session, target: i64, answer: Answer) -> Response {
        let fields = [("csrf_token", session.token.as_str())];
        self.post(
            &format!("/targets/{target}/undo"),
            Some(session),
            &fields,
            answer,
        )
        .await
    }

    /// The stored stars of a pair, straight from the database.
    pub async fn stored_stars(&self, target: &str, paper: &str) -> Option<i64> {
        sqlx::query_scalar(
            "SELECT r.stars FROM ratings r
             JOIN papers t ON t.id = r.target_id JOIN papers p ON p.id = r.paper_id
             WHERE t.external_id = ? AND p.external_id = ?",
        )
        .bind(target)
        .bind(paper)
        .fetch_optional(&self.study.pool)
        .await
        .expect("the query runs")
    }

    /// The history of a pair as `(previous, stars, source)`, oldest first.
    pub async fn history(
        &self,
        target: &str,
        paper: &str,
    ) -> Vec<(Option<u8>, Option<u8>, String)> {
        let entries = db::ratings::history(
            &self.study.pool,
            PaperId(self.paper_id(target).await),
            PaperId(self.paper_id(paper).await),
        )
        .await
        .expect("the history reads");
        entries
            .into_iter()
            .map(|entry| {
                (
                    entry.previous.map(Stars::get),
                    entry.stars.map(Stars::get),
                    entry.source,
                )
            })
            .collect()
    }

    /// Rates a pair directly in the database, as an import would (for setting up a state).
    pub async fn store_rating(&self, target: &str, paper: &str, stars: u8) {
        let mut tx = self.study.pool.begin().await.expect("a transaction");
        db::ratings::set(
            &mut tx,
            PaperId(self.paper_id(target).await),
            PaperId(self.paper_id(paper).await),
            Stars::new(i64::from(stars)),
            "2026-01-01T00:00:00Z",
            db::ratings::Source::Import,
        )
        .await
        .expect("the rating is stored");
        tx.commit().await.expect("the commit");
    }

    /// Rates every pooled paper of T1: P1 5★, P2 4★, P3 1★, P4 3★, P5 1★, P6 2★ and the
    /// hostile paper 1★ (gains at the defaults 4, 3, 0, 2, 0, 1, 0).
    pub async fn rate_all_of_t1(&self) {
        for (paper, stars) in [
            ("P1", 5),
            ("P2", 4),
            ("P3", 1),
            ("P4", 3),
            ("P5", 1),
            ("P6", 2),
            (HOSTILE_ID, 1),
        ] {
            self.store_rating("T1", paper, stars).await;
        }
    }

    /// The targets being rated in the order `/next` offers them (the study's random order).
    pub async fn rating_order(&self) -> Vec<String> {
        sqlx::query_scalar(
            "SELECT p.external_id FROM targets t JOIN papers p ON p.id = t.target_id
             WHERE t.active = 1 ORDER BY t.order_key, t.target_id",
        )
        .fetch_all(&self.study.pool)
        .await
        .expect("the rating order")
    }

    /// A target's pool in the stored blind order, by external id.
    pub async fn stored_order(&self, target: &str) -> Vec<String> {
        db::blind_pool::all_rows(&self.study.pool)
            .await
            .expect("the pool reads")
            .into_iter()
            .filter(|row| row.target == target)
            .map(|row| row.paper)
            .collect()
    }
}

/// `paperjudge_browser=<id>` (the browser session the CSRF token is bound to) from a response's `Set-Cookie`.
pub fn csrf_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find(|value| value.starts_with("paperjudge_browser="))
        .and_then(|value| value.split(';').next())
        .map(str::to_owned)
}

/// The value of the first hidden `csrf_token` field of a page.
pub fn hidden_token(html: &str) -> Option<String> {
    let start = html.find("name=\"csrf_token\" value=\"")? + "name=\"csrf_token\" value=\"".len();
    let end = html[start..].find('"')?;
    Some(html[start..start + end].to_owned())
}

/// The `data-paper` attributes of a rating page, in page order, unescaped.
pub fn papers_in_page_order(html: &str) -> Vec<String> {
    html.split("data-paper=\"")
        .skip(1)
        .map(|rest| unescape(&rest[..rest.find('"').expect("a closing quote")]))
        .collect()
}

/// Undoes askama's HTML escaping (decimal references for `"&'<>`).
pub fn unescape(text: &str) -> String {
    text.replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&#60;", "<")
        .replace("&#62;", ">")
        .replace("&#38;", "&")
}

pub fn location(response: &Response) -> String {
    response
        .headers()
        .get(LOCATION)
        .expect("a Location header")
        .to_str()
        .expect("an ASCII Location")
        .to_owned()
}
