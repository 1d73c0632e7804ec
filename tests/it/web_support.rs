//! Shared by the web and browser tests: the app on port 0 over a real SQLite file, a fixture
//! study whose model names and scores must never reach a rating page, HTTP clients that keep
//! cookies by hand (no cookie store: the tests see exactly what is sent), and pages parsed as
//! a browser parses them (`scraper`) to check them by selector.

use std::net::{IpAddr, Ipv4Addr, TcpListener};
use std::time::Duration;

use paperjudge::domain::RaterName;
use paperjudge::web::{Access, Password};
use reqwest::header::{HeaderMap, ACCEPT, COOKIE, HOST, LOCATION, ORIGIN, SET_COOKIE};
use reqwest::{Response, StatusCode};
use scraper::{ElementRef, Html, Selector};

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

/// The stars `TestApp::rate_all_of_t1` gives T1's pool: P1 5★, P2 4★, P3 1★, P4 3★, P5 1★,
/// P6 2★ and the hostile paper 1★ (gains at the defaults 4, 3, 0, 2, 0, 1, 0).
pub const T1_STARS: [(&str, u8); 7] = [
    ("P1", 5),
    ("P2", 4),
    ("P3", 1),
    ("P4", 3),
    ("P5", 1),
    ("P6", 2),
    (HOSTILE_ID, 1),
];

/// The fixture study, not served yet.
pub async fn fixture_study() -> TestStudy {
    let study = TestStudy::new().await;
    study.papers(PAPERS_CSV).await;
    study.recommendations(RECOMMENDATIONS_CSV).await;
    study
}

/// The owner's password of a study served with raters ([`served_with_raters`]).
pub const OWNER_PASSWORD: &str = "the owner's password";

/// The password of the rater `name` in a study served with raters.
pub fn password_of(name: &str) -> String {
    format!("{name}'s own password")
}

/// `study` with the raters `names` (their passwords [`password_of`]) and `per_target` raters a
/// target, served with [`OWNER_PASSWORD`].
pub async fn served_with_raters(study: TestStudy, names: &[&str], per_target: u32) -> TestApp {
    for name in names {
        let rater = RaterName::new(name).expect("a rater's name");
        (study.study.raters().add(&rater, &password_of(name)).await).expect("a rater added");
    }
    (study.study.raters().set_plan(Some(per_target), None).await).expect("the rating plan");
    let access = Access {
        password: Password::new(OWNER_PASSWORD).ok(),
        ..Access::default()
    };
    TestApp::spawn_with(study, access).await
}

/// A client for the app that follows no redirect (the tests check them) and drops a connection
/// idle for 2 s, before the server's keep-alive of 5 s closes it: a request sent on a connection
/// the server is closing at that moment fails ("connection closed before message completed"),
/// as an upload did after its test spent 5 s on raw sockets.
pub fn http_client() -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .pool_idle_timeout(Duration::from_secs(2))
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
            paperjudge::web::run(listener, study.study.clone(), access).expect("the app starts");
        tokio::spawn(server);
        let http = http_client().build().expect("an HTTP client");
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

    /// GET as the browser of `session`, with its cookie.
    pub async fn get_as(&self, session: &Session, path: &str) -> Response {
        self.http
            .get(self.url(path))
            .header(COOKIE, &session.cookie)
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
        sqlx::query_scalar("SELECT id FROM papers WHERE external_id = ?")
            .bind(external_id)
            .fetch_optional(&self.study.connections)
            .await
            .expect("the query runs")
            .unwrap_or_else(|| panic!("paper {external_id} exists"))
    }

    /// Opens a rating page as a new browser would: no cookie, so it gets one.
    pub async fn session(&self, target: i64) -> Session {
        self.session_from(&format!("/targets/{target}")).await
    }

    /// Opens the page at `path` (one with a form) as a new browser would.
    pub async fn session_from(&self, path: &str) -> Session {
        let response = self.get(path).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
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
        .fetch_optional(&self.study.connections)
        .await
        .expect("the query runs")
    }

    /// The stored (stars, note) of a pair (stars `None`: "can't judge"); `None` when unrated.
    pub async fn stored_rating(
        &self,
        target: &str,
        paper: &str,
    ) -> Option<(Option<i64>, Option<String>)> {
        sqlx::query_as(
            "SELECT r.stars, r.note FROM ratings r
             JOIN papers t ON t.id = r.target_id JOIN papers p ON p.id = r.paper_id
             WHERE t.external_id = ? AND p.external_id = ?",
        )
        .bind(target)
        .bind(paper)
        .fetch_optional(&self.study.connections)
        .await
        .expect("the query runs")
    }

    /// The history of a pair as `(previous, stars, source)`, oldest first.
    pub async fn history(
        &self,
        target: &str,
        paper: &str,
    ) -> Vec<(Option<u8>, Option<u8>, String)> {
        self.study.history(target, paper).await
    }

    /// Rates a pair as an import of ratings does (for setting up a state).
    pub async fn store_rating(&self, target: &str, paper: &str, stars: u8) {
        self.store_ratings(&[(target, paper, stars)]).await;
    }

    /// Rates pairs (target, paper, stars) in one import of ratings, made on the first day of
    /// 2026.
    pub async fn store_ratings(&self, ratings: &[(&str, &str, u8)]) {
        let quoted = |id: &str| format!("\"{}\"", id.replace('"', "\"\""));
        let mut csv = String::from("target,paper,stars,rated_at\n");
        for (target, paper, stars) in ratings {
            csv.push_str(&format!(
                "{},{},{stars},2026-01-01T00:00:00Z\n",
                quoted(target),
                quoted(paper)
            ));
        }
        self.study.ratings(&csv).await;
    }

    /// Rates every pooled paper of T1 as [`T1_STARS`] says.
    pub async fn rate_all_of_t1(&self) {
        let ratings: Vec<(&str, &str, u8)> = (T1_STARS.iter())
            .map(|&(paper, stars)| ("T1", paper, stars))
            .collect();
        self.store_ratings(&ratings).await;
    }

    /// The targets being rated in the order `/next` offers them (the study's random order).
    pub async fn rating_order(&self) -> Vec<String> {
        sqlx::query_scalar(
            "SELECT p.external_id FROM targets t JOIN papers p ON p.id = t.target_id
             WHERE t.active = 1 ORDER BY t.order_key, t.target_id",
        )
        .fetch_all(&self.study.connections)
        .await
        .expect("the rating order")
    }

    /// A target's pool in the stored blind order, by external id.
    pub async fn blind_order(&self, target: &str) -> Vec<String> {
        self.study.blind_order(target).await
    }
}

/// A browser as far as the server can tell: the cookies it was given, kept by hand so that a
/// test sees exactly what is sent; the address it connects from; the site it believes it is
/// on; and what a TLS proxy in front of the app says of it.
pub struct Browser {
    pub http: reqwest::Client,
    address: String,
    cookies: Vec<(String, String)>,
    /// The site whose pages this browser shows, when it is not the address it connects to: a
    /// name that points at the app (its own, or another site's, DNS rebinding).
    site: Option<Site>,
    /// What a TLS proxy in front of the app appends to `X-Forwarded-For` for this browser.
    forwarded_for: Option<String>,
}

/// What a browser on a site sends: the `Host` of every request, and with a post the `Origin`
/// of the site's pages and `Sec-Fetch-Site: same-origin`.
struct Site {
    host: String,
    origin: String,
}

impl Browser {
    /// A browser on this machine, using the app.
    pub fn new(app: &TestApp) -> Browser {
        Browser::at(&app.address)
    }

    /// A browser on this machine, using the app at `address` (`http://127.0.0.1:PORT`).
    pub fn at(address: &str) -> Browser {
        Browser::connecting_from(address, Ipv4Addr::LOCALHOST)
    }

    /// A browser on another machine, as far as the server can tell: loopback connections
    /// may come from any address of 127.0.0.0/8.
    pub fn from(app: &TestApp, local_address: Ipv4Addr) -> Browser {
        Browser::connecting_from(&app.address, local_address)
    }

    /// A browser showing the pages of the site `http://{host}`, whose name points at the app
    /// at `address`: it connects to the app and sends `host` as the `Host`.
    pub fn on_site(address: &str, host: &str) -> Browser {
        Browser {
            site: Some(Site {
                host: host.to_owned(),
                origin: format!("http://{host}"),
            }),
            ..Browser::at(address)
        }
    }

    /// A browser whose requests reach the app through a proxy, which appends `client` to
    /// `X-Forwarded-For` (after whatever the browser itself put there).
    pub fn through_proxy(app: &TestApp, client: &str) -> Browser {
        Browser {
            forwarded_for: Some(client.to_owned()),
            ..Browser::new(app)
        }
    }

    fn connecting_from(address: &str, local_address: Ipv4Addr) -> Browser {
        let http = http_client()
            .local_address(IpAddr::V4(local_address))
            .build()
            .expect("an HTTP client");
        Browser {
            http,
            address: address.to_owned(),
            cookies: Vec::new(),
            site: None,
            forwarded_for: None,
        }
    }

    /// The `Cookie` header this browser sends.
    pub fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    pub fn cookie(&self, name: &str) -> Option<&str> {
        self.cookies
            .iter()
            .find(|(cookie, _)| cookie == name)
            .map(|(_, value)| value.as_str())
    }

    /// Keeps `name=value` (an empty value deletes the cookie).
    pub fn set_cookie(&mut self, name: &str, value: &str) {
        self.cookies.retain(|(cookie, _)| cookie != name);
        if !value.is_empty() {
            self.cookies.push((name.to_owned(), value.to_owned()));
        }
    }

    /// Keeps the cookies a response sets (an empty value, as a removal cookie has, deletes).
    fn keep_cookies(&mut self, response: &Response) {
        for set_cookie in response.headers().get_all(SET_COOKIE) {
            let text = set_cookie.to_str().expect("an ASCII cookie");
            let pair = text.split(';').next().expect("a name and value");
            let (name, value) = pair.split_once('=').expect("name=value");
            self.set_cookie(name, value);
        }
    }

    fn send(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        let mut request = request.header(COOKIE, self.cookie_header());
        if let Some(site) = &self.site {
            request = request.header(HOST, &site.host);
        }
        match &self.forwarded_for {
            Some(client) => request.header("x-forwarded-for", client),
            None => request,
        }
    }

    pub async fn get(&mut self, path: &str) -> Response {
        let request = self.send(self.http.get(format!("{}{path}", self.address)));
        let response = request.send().await.expect("GET answers");
        self.keep_cookies(&response);
        response
    }

    /// Posts a form, answered as `answer` asks.
    pub async fn post(&mut self, path: &str, fields: &[(&str, &str)], answer: Answer) -> Response {
        let mut request = self.send(self.http.post(format!("{}{path}", self.address)));
        if let Some(site) = &self.site {
            request =
                (request.header(ORIGIN, &site.origin)).header("sec-fetch-site", "same-origin");
        }
        if answer == Answer::Json {
            request = request.header(ACCEPT, "application/json");
        }
        let response = request.form(fields).send().await.expect("POST answers");
        self.keep_cookies(&response);
        response
    }

    /// The token of the page's forms (fetching the page gives a new browser its cookie).
    pub async fn form_token(&mut self, path: &str) -> String {
        let page = self.get(path).await.text().await.expect("a page");
        hidden_token(&page).expect("a form with a token")
    }

    /// Logs in with `password` through the login form.
    pub async fn log_in(&mut self, password: &str) -> Response {
        let token = self.form_token("/login").await;
        let fields = [("password", password), ("csrf_token", &token)];
        self.post("/login", &fields, Answer::Redirect).await
    }

    /// Signs in as the rater `name` through the login form.
    pub async fn log_in_as(&mut self, name: &str, password: &str) -> Response {
        let token = self.form_token("/login").await;
        let fields = [
            ("rater", name),
            ("password", password),
            ("csrf_token", &token),
        ];
        self.post("/login", &fields, Answer::Redirect).await
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

/// A page parsed as a browser parses it, so that tests check elements, attributes and text
/// by CSS selector instead of by the markup's spelling.
pub struct Page(Html);

impl Page {
    pub fn parse(html: &str) -> Page {
        Page(Html::parse_document(html))
    }

    /// Every element `css` selects, in page order.
    pub fn select(&self, css: &str) -> Vec<ElementRef<'_>> {
        self.0.select(&selector(css)).collect()
    }

    pub fn count(&self, css: &str) -> usize {
        self.select(css).len()
    }

    /// The one element `css` selects; fails the test unless there is exactly one.
    pub fn one(&self, css: &str) -> ElementRef<'_> {
        match self.select(css)[..] {
            [element] => element,
            ref elements => panic!("{} elements match {css}, not one", elements.len()),
        }
    }

    /// The text of the one element `css` selects, as [`text`] gives it.
    pub fn text(&self, css: &str) -> String {
        text(self.one(css))
    }

    /// The text of every element `css` selects.
    pub fn texts(&self, css: &str) -> Vec<String> {
        self.select(css).into_iter().map(text).collect()
    }

    /// The attribute `name` of the one element `css` selects.
    pub fn attr(&self, css: &str, name: &str) -> String {
        attr(self.one(css), name)
    }

    /// The attribute `name` of every element `css` selects that has it.
    pub fn attrs(&self, css: &str, name: &str) -> Vec<String> {
        (self.select(css).into_iter())
            .filter_map(|element| element.value().attr(name).map(str::to_owned))
            .collect()
    }

    /// The whole page's text, as [`text`] gives it.
    pub fn all_text(&self) -> String {
        text(self.0.root_element())
    }
}

pub fn selector(css: &str) -> Selector {
    Selector::parse(css).unwrap_or_else(|error| panic!("bad selector {css}: {error}"))
}

/// An element's text, with every run of white space made one space and the ends trimmed.
pub fn text(element: ElementRef<'_>) -> String {
    let text: String = element.text().collect();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// An attribute of an element; fails the test when the element does not have it.
pub fn attr(element: ElementRef<'_>, name: &str) -> String {
    (element.value().attr(name))
        .unwrap_or_else(|| panic!("no {name} on {}", element.html()))
        .to_owned()
}

/// The value of the first `csrf_token` field of a page.
pub fn hidden_token(html: &str) -> Option<String> {
    let page = Page::parse(html);
    page.attrs("input[name=csrf_token]", "value")
        .into_iter()
        .next()
}

/// The message of an error page.
pub fn error_message(html: &str) -> String {
    Page::parse(html).text(".error-message")
}

/// The papers of a rating page (their `data-paper`), in page order.
pub fn papers_in_page_order(html: &str) -> Vec<String> {
    Page::parse(html).attrs("article.paper", "data-paper")
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
