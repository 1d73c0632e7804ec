//! `GET /leaderboard`: which model is best under the options in the address, how sure we are,
//! and why: the settings in plain words, warnings where the evidence is thin, a chart of
//! NDCG@k with its intervals, the table of every metric, the options form and the downloads.
//!
//! The numbers come from the study's query (`study.evaluation().leaderboard`), exactly as
//! `paperjudge leaderboard` computes them; this module only reads the address and shows the
//! result.

mod chart;
mod per_target;
mod query;

use actix_web::{web, HttpResponse};
use askama::Template;

use super::auth::Signed;
use super::csrf::CsrfToken;
use super::view::{self, Nav, PruningControl, Standing};
use super::WebError;
use crate::domain::JudgeName;
use crate::leaderboard::columns::{self, Value, COLUMNS};
use crate::leaderboard::{
    JudgeBoard, Leaderboard, LeaderboardOption, ModelRow, OnThePage, Partial, TargetCounts,
    OPTIONS, SIGNIFICANCE_LEVEL,
};
use crate::metrics::{Judgments, Settings};
use crate::study::evaluation::Evaluated;
use crate::study::Study;
use crate::words::{page, plural};
use chart::Chart;
use query::{Sort, SortBy};

pub use per_target::MatrixCell;
pub use query::LeaderboardQuery;

/// Fewer evaluated targets than this, and the page warns that the evidence is thin.
const FEW_TARGETS: usize = 10;

/// `/leaderboard` and its per-target views.
pub fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/leaderboard", web::get().to(show))
        .route("/leaderboard/targets", web::get().to(per_target::matrix))
        .route(
            "/leaderboard/targets/{target}",
            web::get().to(per_target::target),
        );
}

/// The leaderboard the address asks for, computed as `paperjudge leaderboard` computes it
/// (or kept from the last time it was asked for, when the study has not changed since).
pub async fn asked(study: &Study, query: &LeaderboardQuery) -> Result<Evaluated, WebError> {
    Ok(study
        .evaluation()
        .leaderboard(&query.options, query.partial)
        .await?)
}

#[derive(Template)]
#[template(path = "leaderboard.html")]
struct LeaderboardPage {
    nav: Nav,
    k: usize,
    settings_in_words: String,
    /// With raters: how one judgment per pair came from their stars.
    judgments: Option<String>,
    /// With raters, for the owner: whether the verdict depends on who rated.
    who_rated: Option<String>,
    targets_in_words: String,
    /// With `partial=include`: what including partly rated targets gives away.
    unblinding: Option<String>,
    warnings: Vec<String>,
    /// Whether any model has a value: there are models and rated targets.
    has_results: bool,
    has_models: bool,
    headers: Vec<Header>,
    rows: Vec<RowView>,
    /// The anytime-valid verdict in words, with two models or more.
    decision: Option<String>,
    decided: bool,
    /// What the verdict can tell apart, beside the table's fixed-sample p-values.
    beside_the_table: Option<String>,
    pruning: Option<PruningControl>,
    /// With a judge (the owner's): what it did, and the raters' figures beside.
    judge: Option<JudgeView>,
    csrf_token: String,
    chart: Chart,
    form: OptionsForm,
    links: Links,
    trec_eval: TrecEvalView,
}

pub async fn show(
    query: LeaderboardQuery,
    study: web::Data<Study>,
    signed: Signed,
    csrf: CsrfToken,
) -> Result<HttpResponse, WebError> {
    let query = LeaderboardQuery {
        per_target: false,
        ..query
    };
    query.allowed_for(&signed)?;
    let board = asked(&study, &query).await?.seen_by(signed.rater_only());
    let mut sorted = board.models.clone();
    query.sort.apply(&mut sorted);
    // Pruning changes the study for everyone: the owner's to offer, from the raters' own
    // verdict (what `paperjudge prune` follows), never from a judge's.
    let pruning = match signed.rater_only() {
        None => {
            let raters_verdict = board.decision.as_ref().filter(|_| board.judge.is_none());
            PruningControl::new(&study.pruning().state().await?, raters_verdict)
        }
        Some(_) => None,
    };
    let judges = match signed.rater_only() {
        None => study.judges().names().await?,
        Some(_) => Vec::new(),
    };
    let mut response = view::html(&LeaderboardPage {
        nav: Nav::of(&signed.0),
        k: board.settings.k.get(),
        settings_in_words: board.settings.describe(),
        judgments: board
            .judgments
            .as_ref()
            .map(|judgments| judgments.describe()),
        who_rated: board
            .who_rated_in_words()
            .filter(|_| signed.rater_only().is_none()),
        targets_in_words: targets_in_words(&board, signed.rater_only().is_some()),
        unblinding: unblinding(&board),
        warnings: warnings(&board),
        has_results: board.targets.evaluated > 0 && !board.models.is_empty(),
        has_models: !board.models.is_empty(),
        headers: headers(&query, board.settings.k.get()),
        rows: sorted.iter().map(RowView::new).collect(),
        decision: board.decision.as_ref().map(|d| d.in_words()),
        decided: board.decision.as_ref().is_some_and(|d| d.decided),
        beside_the_table: (board.decision.as_ref())
            .filter(|_| !board.prediction_powered())
            .and_then(|d| d.beside_the_table()),
        pruning,
        judge: board
            .judge
            .as_ref()
            .map(|judge| JudgeView::new(judge, &board)),
        csrf_token: csrf.value().to_owned(),
        chart: Chart::new(&board.models),
        form: OptionsForm::new(&board, query.sort, &signed, &judges),
        links: Links::new(&query, &board.settings),
        trec_eval: TrecEvalView::new(&board),
    })?;
    csrf.set_cookie_on(&mut response)?;
    Ok(response)
}

/// What a judge did to the board, and each model's figures with it and without.
struct JudgeView {
    words: String,
    /// What became of the tuning targets, for a judge trials chose.
    tuning: Option<String>,
    warning: Option<String>,
    /// Whether the NDCG column is prediction-powered (else the raters' alone, and no table).
    prediction_powered: bool,
    rows: Vec<JudgeRowView>,
}

struct JudgeRowView {
    model: String,
    ndcg: String,
    ci95: String,
    raters_ndcg: String,
    raters_ci95: String,
    raters_targets: usize,
}

impl JudgeView {
    fn new(judge: &JudgeBoard, board: &Leaderboard) -> JudgeView {
        let number = |value| page::number(value, 3);
        let interval = |ends| page::interval_or_missing(ends, 3);
        JudgeView {
            words: judge.in_words(),
            tuning: judge.tuning_in_words(),
            warning: judge.order_warning(),
            prediction_powered: judge.prediction_powered(),
            rows: (board.models.iter())
                .filter_map(|row| {
                    let raters = row.human_only?;
                    Some(JudgeRowView {
                        model: row.model.clone(),
                        ndcg: number(row.ndcg()),
                        ci95: interval(row.ci95),
                        raters_ndcg: number(raters.ndcg),
                        raters_ci95: interval(raters.ci95),
                        raters_targets: raters.targets,
                    })
                })
                .collect(),
        }
    }
}

/// A model's row of the page's table.
struct RowView {
    standing: Standing,
    /// Each column of the page, in order.
    cells: Vec<Cell>,
}

/// A number as shown, with the exact value the script sorts by.
struct Cell {
    text: String,
    /// `None` for a column the table is not ordered by (the interval); empty when undefined.
    value: Option<String>,
    /// The column the models are ranked by: shown strong.
    ranking: bool,
    /// An interval: shown in its own style.
    interval: bool,
    /// The value asks for care (a Judged@k below 1).
    flagged: bool,
}

impl Cell {
    /// `value` written as `text`.
    fn shown_as(value: Option<f64>, text: String) -> Cell {
        Cell {
            text,
            value: Some(value.map(|v| v.to_string()).unwrap_or_default()),
            ranking: false,
            interval: false,
            flagged: false,
        }
    }

    /// The row's value in `column`, as the page writes it.
    fn of(row: &ModelRow, column: &columns::Column) -> Cell {
        let value = row.number(column);
        match column.value {
            Value::Mean(metric) => Cell {
                ranking: column.key == columns::RANKING.key,
                flagged: metric.coverage && value.is_some_and(|share| share < 1.0),
                ..Cell::shown_as(value, page::number(value, 3))
            },
            Value::Interval => Cell {
                value: None,
                interval: true,
                ..Cell::shown_as(None, page::interval_or_missing(row.ci95, 3))
            },
            Value::Targets => Cell::shown_as(value, page::number(value, 0)),
            Value::Difference => Cell::shown_as(value, page::signed(value, 3)),
            Value::PValue | Value::PValueHolm => Cell::shown_as(value, page::p_value(value)),
        }
    }
}

impl RowView {
    fn new(row: &ModelRow) -> RowView {
        RowView {
            standing: Standing::of(row),
            cells: (COLUMNS.iter())
                .filter(|column| column.page_heading.is_some())
                .map(|column| Cell::of(row, column))
                .collect(),
        }
    }
}

/// A column heading; a sortable one links to the page sorted by it.
struct Header {
    label: String,
    /// What the heading's abbreviation stands for.
    description: &'static str,
    /// The column holds numbers (aligned right).
    numeric: bool,
    /// The page sorted by this column: in its own order, or reversed when sorted by it now.
    link: Option<String>,
    column: Option<&'static str>,
    default_order: &'static str,
    /// `ascending` or `descending` on the column the rows are sorted by.
    aria_sort: Option<&'static str>,
}

impl Header {
    /// The label up to its cutoff (`Judged` of `Judged@8`): a narrow table may break the
    /// heading there.
    fn label_start(&self) -> &str {
        self.label
            .split_once('@')
            .map_or(&self.label, |(start, _)| start)
    }

    /// The cutoff of an `@k` label (`@8`).
    fn label_cutoff(&self) -> Option<&str> {
        self.label.find('@').map(|at| &self.label[at..])
    }
}

fn headers(query: &LeaderboardQuery, k: usize) -> Vec<Header> {
    let sortable = |column: SortBy, label: String, description: &'static str| {
        let current = query.sort.by == column;
        let order = if current {
            query.sort.order().reversed()
        } else {
            column.default_order()
        };
        Header {
            label,
            description,
            numeric: column != SortBy::Model,
            link: Some(query.link(
                "/leaderboard",
                &[("sort", column.as_str()), ("order", order.as_str())],
            )),
            column: Some(column.as_str()),
            default_order: column.default_order().as_str(),
            aria_sort: current.then(|| match query.sort.order() {
                query::Order::Asc => "ascending",
                query::Order::Desc => "descending",
            }),
        }
    };
    let mut headers = vec![
        sortable(SortBy::Rank, "Rank".to_owned(), "Position by NDCG"),
        sortable(SortBy::Model, "Model".to_owned(), "The model's name"),
    ];
    for column in COLUMNS {
        let Some(heading) = column.page_heading else {
            continue;
        };
        let label = heading.with_k(k);
        headers.push(match column.value {
            Value::Interval => Header {
                label,
                description: column.description,
                numeric: true,
                link: None,
                column: None,
                default_order: "",
                aria_sort: None,
            },
            _ => sortable(SortBy::Column(column), label, column.description),
        });
    }
    headers
}

/// The targets the board counts, in words; for a rater (`rater`), the targets not evaluated
/// are counted by their own ratings (see [`crate::study::Evaluated::seen_by`]).
fn targets_in_words(board: &Leaderboard, rater: bool) -> String {
    let TargetCounts {
        evaluated,
        skipped_empty,
        unrated,
        skipped_no_relevant,
        partly_rated,
        ..
    } = board.targets;
    let yours = if rater { " you rated" } else { "" };
    let partly_rated = match board.partial {
        Partial::Exclude => format!(
            "{partly_rated} partly rated {}{yours} {} left out until every pooled paper of {} \
             is rated",
            plural(partly_rated, "target", "targets"),
            plural(partly_rated, "is", "are"),
            plural(partly_rated, "it", "them"),
        ),
        Partial::Include => format!("{partly_rated} of them partly rated"),
    };
    format!(
        "{evaluated} {} evaluated ({partly_rated}), {unrated} without {}ratings. Left out for \
         having nothing relevant: {skipped_empty} from NDCG, {skipped_no_relevant} from P, R, \
         F1, AP, RR and unique relevant.",
        plural(evaluated, "target", "targets"),
        if rater { "your " } else { "" },
    )
}

/// What `partial=include` gives away, when it is in force.
fn unblinding(board: &Leaderboard) -> Option<String> {
    (board.partial == Partial::Include).then(|| {
        let partly_rated = board.targets.partly_rated;
        format!(
            "Partly rated targets are included ({partly_rated} now). These numbers move with \
             every rating of a target still being rated, so they tell which models listed the \
             paper just rated: rating {} after reading them is no longer blind, and nothing \
             records that they were read (the rating history marks as made with provenance \
             known only the changes of targets already fully rated).",
            plural(partly_rated, "that target", "those targets"),
        )
    })
}

/// Where the numbers rest on thin evidence, in words.
fn warnings(board: &Leaderboard) -> Vec<String> {
    let k = board.settings.k;
    let mut warnings = Vec::new();
    let judged = columns::named("judged_at_k").expect("the Judged@k column");
    let partly_judged: Vec<String> = (board.models.iter())
        .filter_map(|row| {
            let judged = row.number(judged).filter(|&judged| judged < 1.0)?;
            Some(format!("{} ({})", row.model, page::number(Some(judged), 3)))
        })
        .collect();
    if !partly_judged.is_empty() {
        warnings.push(format!(
            "Judged@{k} below 1: {}. Part of their top {k} is unrated, so their scores rest on \
             papers nobody has judged.",
            partly_judged.join(", ")
        ));
    }
    let partly_rated = board.targets.partly_rated;
    if partly_rated > 0 && board.partial == Partial::Include {
        warnings.push(format!(
            "{partly_rated} {} only partly rated: {} ideal ranking may still change.",
            plural(partly_rated, "target is", "targets are"),
            plural(partly_rated, "its", "their"),
        ));
    }
    let evaluated = board.targets.evaluated;
    if evaluated > 0 && evaluated < FEW_TARGETS {
        warnings.push(format!(
            "Only {evaluated} {} evaluated: with fewer than {FEW_TARGETS}, the intervals are \
             wide, yet cover the mean less often than their 95% says (about 88% with 8 targets), \
             and the order may change with the next target.",
            plural(evaluated, "target is", "targets are"),
        ));
    }
    if let [leader, second, ..] = &board.models[..] {
        if let (Some(_), Some(p)) = (leader.ndcg(), second.p_value_holm) {
            if second.tied_with_leader() {
                warnings.push(format!(
                    "The top two are not separated: {} against {} gives p = {p:.3} \
                     (Holm-adjusted), not below {SIGNIFICANCE_LEVEL}.",
                    second.model, leader.model
                ));
            }
        }
    }
    warnings
}

/// The options form, showing the settings in force.
struct OptionsForm {
    k: usize,
    pool_depth: u32,
    choices: Vec<Choice>,
    include_partial: bool,
    sort: &'static str,
    order: &'static str,
}

/// A select of the form.
struct Choice {
    name: &'static str,
    help: &'static str,
    values: Vec<ChoiceValue>,
}

struct ChoiceValue {
    value: String,
    /// As the list shows it: the value, or "none" for the empty one (the option left out).
    label: String,
    selected: bool,
}

impl Choice {
    fn new(
        name: &'static str,
        help: &'static str,
        values: impl IntoIterator<Item = String>,
        current: String,
    ) -> Choice {
        let values = (values.into_iter())
            .map(|value| ChoiceValue {
                selected: value == current,
                label: match value.as_str() {
                    "" => "none".to_owned(),
                    _ => value.clone(),
                },
                value,
            })
            .collect();
        Choice { name, help, values }
    }
}

impl OptionsForm {
    /// The form for `board`, made from [`OPTIONS`]: a select for each option with fixed
    /// values; with raters, the choice of judgments first (the combinations, and for the owner
    /// each rater's stars alone; for a rater, their own); for the owner of a study with judges,
    /// a choice of judge.
    fn new(board: &Leaderboard, sort: Sort, signed: &Signed, judges: &[JudgeName]) -> OptionsForm {
        let s: &Settings = &board.settings;
        let offered = |option: &LeaderboardOption| -> Option<Choice> {
            match option.on_the_page {
                OnThePage::Choice {
                    help,
                    values,
                    current,
                } => Some(Choice::new(option.name, help, values(), current(s))),
                OnThePage::Judgments { help } => {
                    let current = board.judgments.as_ref()?;
                    let raters = (board.by_rater.iter().flatten())
                        .map(|own| own.rater.clone())
                        .filter(|name| signed.0.is_owner() || *name == signed.0.name);
                    let values = ["lower-median", "upper-median", "mean"]
                        .map(str::to_owned)
                        .into_iter()
                        .chain(raters.map(|name| Judgments::Rater(name).to_string()));
                    Some(Choice::new(option.name, help, values, current.to_string()))
                }
                OnThePage::Judge { help } => (!judges.is_empty()).then(|| {
                    let current = board.judge.as_ref().map(|judge| judge.name.to_string());
                    Choice::new(
                        option.name,
                        help,
                        std::iter::once(String::new())
                            .chain(judges.iter().map(ToString::to_string)),
                        current.unwrap_or_default(),
                    )
                }),
                OnThePage::Cutoff | OnThePage::AddressOnly => None,
            }
        };
        let whose_stars =
            |option: &&LeaderboardOption| matches!(option.on_the_page, OnThePage::Judgments { .. });
        OptionsForm {
            k: s.k.get(),
            pool_depth: board.pool_depth.get(),
            choices: (OPTIONS.iter().filter(whose_stars))
                .chain(OPTIONS.iter().filter(|option| !whose_stars(option)))
                .filter_map(offered)
                .collect(),
            include_partial: board.partial == Partial::Include,
            sort: sort.by.as_str(),
            order: sort.order().as_str(),
        }
    }
}

/// The addresses of the other views and the downloads, with the options in force.
struct Links {
    /// This page without `partial=include`.
    blind: String,
    per_target: String,
    csv: String,
    per_target_csv: String,
    json: String,
    per_target_json: String,
    /// Every rated pair's qrels.
    qrels: String,
    /// The qrels of the fully rated targets.
    qrels_finished: String,
}

impl Links {
    fn new(query: &LeaderboardQuery, settings: &Settings) -> Links {
        let blind = LeaderboardQuery {
            partial: Partial::Exclude,
            ..query.clone()
        };
        Links {
            blind: blind.link("/leaderboard", &[]),
            // The per-target views show fully rated targets only, whatever `partial` says.
            per_target: blind.link("/leaderboard/targets", &[]),
            csv: query.link("/leaderboard.csv", &[]),
            per_target_csv: query.link("/leaderboard.csv", &[("per_target", "1")]),
            json: query.link("/leaderboard.json", &[]),
            per_target_json: query.link("/leaderboard.json", &[("per_target", "1")]),
            qrels: qrels(query, settings, ""),
            qrels_finished: qrels(query, settings, "&targets=finished"),
        }
    }
}

/// The qrels download with the board's relevance and judgments, and `more` parameters.
fn qrels(query: &LeaderboardQuery, settings: &Settings, more: &str) -> String {
    match query.options.judgments.as_ref().filter(|j| j.is_whole()) {
        Some(judgments) => format!(
            "/export/qrels.txt?relevance={}&judgments={}{more}",
            settings.relevance,
            super::papers::encode_query_value(&judgments.to_string())
        ),
        None => format!("/export/qrels.txt?relevance={}{more}", settings.relevance),
    }
}

/// The qrels of the board's targets and how trec_eval gives its NDCG from them; the owner's
/// (the qrels hold every rater's judgments).
struct TrecEvalView {
    /// Every rated pair's qrels are the board's (partly rated targets included).
    every_pair: bool,
    evaluated: usize,
    command: String,
    /// The settings under which trec_eval's number would be the board's, in words, when the
    /// board's are not those.
    unlike: Option<String>,
}

impl TrecEvalView {
    fn new(board: &Leaderboard) -> TrecEvalView {
        let unlike = board.unlike_trec_eval();
        TrecEvalView {
            every_pair: board.partial == Partial::Include,
            evaluated: board.targets.evaluated,
            command: board.trec_eval_command(),
            unlike: (!unlike.is_empty()).then(|| unlike.join(" and ")),
        }
    }
}
