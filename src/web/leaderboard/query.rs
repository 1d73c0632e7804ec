//! The leaderboard's address: the options of metrics.md under the command line's names, how
//! to order the table, and whether downloads add per-target rows.
//!
//! Each value is parsed on its own, so that a wrong one is answered with 400 naming the option
//! and the values it allows, not with a deserializer's wording.

use std::cmp::Ordering;
use std::fmt;
use std::future::{ready, Ready};
use std::str::FromStr;

use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};

use crate::leaderboard::{columns, LeaderboardOptions, ModelRow, Partial, OPTIONS};
use crate::metrics::Judgments;
use crate::web::auth::Signed;
use crate::web::WebError;

/// The parameters of the leaderboard's addresses beyond the metric options ([`OPTIONS`]).
const MORE_PARAMETERS: [&str; 4] = ["partial", "sort", "order", "per_target"];

/// What a leaderboard address asks for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LeaderboardQuery {
    /// The metric options given; each one left out takes its default.
    pub options: LeaderboardOptions,
    /// The table's row order (the page only).
    pub sort: Sort,
    /// Whether the downloads add every target's NDCG and Judged@k per model, as
    /// `paperjudge leaderboard --per-target` does.
    pub per_target: bool,
    /// `partial=include` also evaluates partly rated targets, as `--include-partial` does.
    pub partial: Partial,
}

impl LeaderboardQuery {
    /// Parses a query string; an empty value counts as left out, the last of a repeated
    /// parameter wins.
    pub fn parse(query_string: &str) -> Result<LeaderboardQuery, WebError> {
        let pairs = web::Query::<Vec<(String, String)>>::from_query(query_string)
            .map_err(|error| WebError::BadRequest(format!("the address cannot be read: {error}")))?
            .into_inner();
        let mut query = LeaderboardQuery::default();
        for (name, value) in pairs.iter().filter(|(_, value)| !value.is_empty()) {
            if let Some(read) = query.options.read(name, value) {
                read.map_err(WebError::BadRequest)?;
                continue;
            }
            match name.as_str() {
                "sort" => query.sort.by = parse(value)?,
                "order" => query.sort.order = Some(parse(value)?),
                "per_target" | "per-target" => query.per_target = parse_flag(name, value)?,
                "partial" => query.partial = parse_partial(value)?,
                _ => {
                    let parameters: Vec<&str> = (OPTIONS.iter().map(|option| option.name))
                        .chain(MORE_PARAMETERS)
                        .collect();
                    return Err(WebError::BadRequest(format!(
                        "{name:?} is not a parameter of the leaderboard; the parameters are: {}",
                        parameters.join(", ")
                    )));
                }
            }
        }
        Ok(query)
    }

    /// Refuses (403) what only the owner may see in a study with raters: per-target rows, partly
    /// rated targets, another rater's judgments, and a machine judge's figures. A rater sees the comparison over fully
    /// rated targets, by the study's judgments or their own stars.
    pub fn allowed_for(&self, Signed(rater): &Signed) -> Result<(), WebError> {
        if rater.is_owner() {
            return Ok(());
        }
        let others = match &self.options.judgments {
            Some(Judgments::Rater(name)) => name != &rater.name,
            _ => false,
        };
        // A judge's figures are the owner's: they never move a number a rater reads.
        let judge = self.options.judge.is_some();
        if self.per_target || self.partial == Partial::Include || others || judge {
            return Err(WebError::OwnerOnly(rater.name.to_string()));
        }
        Ok(())
    }

    /// The metric options given and `partial=include`, as a query string
    /// (`k=5&gain=exponential`), for links that keep them. Every value is a number or a name
    /// from a fixed list, but for a rater's name in `judgments=rater:NAME`, which is encoded.
    pub fn options_query(&self) -> String {
        let partial = (self.partial == Partial::Include)
            .then(|| ("partial", Partial::Include.as_str().to_owned()));
        let pairs: Vec<String> = (self.options.given().chain(partial))
            .map(|(name, value)| {
                format!("{name}={}", crate::web::papers::encode_query_value(&value))
            })
            .collect();
        pairs.join("&")
    }

    /// The address `path` with the metric options given and `more` parameters.
    pub fn link(&self, path: &str, more: &[(&str, &str)]) -> String {
        let mut query = self.options_query();
        for (name, value) in more {
            if !query.is_empty() {
                query.push('&');
            }
            query.push_str(&format!("{name}={value}"));
        }
        if query.is_empty() {
            path.to_owned()
        } else {
            format!("{path}?{query}")
        }
    }
}

/// The query of a leaderboard address; a wrong one is a 400 naming the option.
impl FromRequest for LeaderboardQuery {
    type Error = WebError;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(LeaderboardQuery::parse(request.query_string()))
    }
}

fn parse<T: FromStr<Err: fmt::Display>>(value: &str) -> Result<T, WebError> {
    value
        .parse()
        .map_err(|error: T::Err| WebError::BadRequest(error.to_string()))
}

fn parse_partial(value: &str) -> Result<Partial, WebError> {
    value.parse().map_err(WebError::BadRequest)
}

fn parse_flag(name: &str, value: &str) -> Result<bool, WebError> {
    match value {
        "1" | "true" => Ok(true),
        "0" | "false" => Ok(false),
        _ => Err(WebError::BadRequest(format!(
            "{name} must be one of: 1, true, 0, false (got {value:?})"
        ))),
    }
}

/// What the table can be ordered by: the rank, the model's name, or a column of the page
/// (named as its JSON key).
#[derive(Debug, Clone, Copy, Default)]
pub enum SortBy {
    #[default]
    Rank,
    Model,
    Column(&'static columns::Column),
}

impl PartialEq for SortBy {
    fn eq(&self, other: &SortBy) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for SortBy {}

impl SortBy {
    /// Every column the table can be ordered by, in the page's order: those holding one
    /// number (not the interval).
    fn all() -> impl Iterator<Item = SortBy> {
        let shown = (columns::COLUMNS.iter())
            .filter(|column| column.page_heading.is_some())
            .filter(|column| !matches!(column.value, columns::Value::Interval))
            .map(SortBy::Column);
        [SortBy::Rank, SortBy::Model].into_iter().chain(shown)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SortBy::Rank => "rank",
            SortBy::Model => "model",
            SortBy::Column(column) => column.key,
        }
    }

    /// Rank and name read best ascending; every metric best first, i.e. descending.
    pub fn default_order(self) -> Order {
        match self {
            SortBy::Rank | SortBy::Model => Order::Asc,
            SortBy::Column(_) => Order::Desc,
        }
    }

    /// The row's value in this column; `None` when undefined (and for the model's name).
    fn value(self, row: &ModelRow) -> Option<f64> {
        match self {
            SortBy::Rank => Some(row.rank as f64),
            SortBy::Model => None,
            SortBy::Column(column) => row.number(column),
        }
    }
}

impl FromStr for SortBy {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        SortBy::all()
            .find(|column| column.as_str() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = SortBy::all().map(SortBy::as_str).collect();
                format!("sort must be one of: {} (got {text:?})", names.join(", "))
            })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Asc,
    Desc,
}

impl Order {
    pub fn as_str(self) -> &'static str {
        match self {
            Order::Asc => "asc",
            Order::Desc => "desc",
        }
    }

    pub fn reversed(self) -> Order {
        match self {
            Order::Asc => Order::Desc,
            Order::Desc => Order::Asc,
        }
    }
}

impl FromStr for Order {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "asc" => Ok(Order::Asc),
            "desc" => Ok(Order::Desc),
            _ => Err(format!("order must be one of: asc, desc (got {text:?})")),
        }
    }
}

/// The table's row order: by a column, in the order asked for or the column's own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sort {
    pub by: SortBy,
    pub order: Option<Order>,
}

impl Sort {
    pub fn order(self) -> Order {
        self.order.unwrap_or(self.by.default_order())
    }

    /// Orders `rows` by the column; undefined values last either way, ties by rank. Only the
    /// order of the rows changes: ranks stay those of NDCG.
    pub fn apply(self, rows: &mut [ModelRow]) {
        let order = self.order();
        rows.sort_by(|a, b| {
            let by_column = match self.by {
                SortBy::Model => directed(a.model.cmp(&b.model), order),
                column => match (column.value(a), column.value(b)) {
                    (Some(x), Some(y)) => directed(x.total_cmp(&y), order),
                    (x, y) => y.is_some().cmp(&x.is_some()),
                },
            };
            by_column.then(a.rank.cmp(&b.rank))
        });
    }
}

fn directed(ordering: Ordering, order: Order) -> Ordering {
    match order {
        Order::Asc => ordering,
        Order::Desc => ordering.reverse(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{ApDenominator, Gain};
    use std::num::NonZeroUsize;

    fn bad_request(query: &str) -> String {
        match LeaderboardQuery::parse(query) {
            Err(WebError::BadRequest(message)) => message,
            other => panic!("{query}: expected a bad request, got {other:?}"),
        }
    }

    #[test]
    fn options_sort_and_flags_are_read_and_written_back() {
        let query = LeaderboardQuery::parse(
            "k=5&gain=exponential&ap_denominator=hits&threshold=&sort=f1&order=asc&per_target=1",
        )
        .unwrap();
        assert_eq!(query.options.k, NonZeroUsize::new(5));
        assert_eq!(query.options.gain, Some(Gain::Exponential));
        assert_eq!(query.options.ap_denominator, Some(ApDenominator::Hits));
        assert_eq!(query.options.threshold, None, "an empty value is left out");
        assert_eq!(
            query.sort,
            Sort {
                by: SortBy::Column(columns::named("f1").unwrap()),
                order: Some(Order::Asc)
            }
        );
        assert!(query.per_target);
        assert_eq!(query.partial, Partial::Exclude);
        assert_eq!(
            query.options_query(),
            "k=5&gain=exponential&ap-denominator=hits"
        );
        let partial = LeaderboardQuery::parse("partial=include&k=3").unwrap();
        assert_eq!(partial.partial, Partial::Include);
        assert_eq!(partial.options_query(), "k=3&partial=include");
        assert_eq!(
            query.link("/leaderboard.csv", &[("per_target", "1")]),
            "/leaderboard.csv?k=5&gain=exponential&ap-denominator=hits&per_target=1"
        );
        assert_eq!(
            LeaderboardQuery::default().link("/leaderboard", &[]),
            "/leaderboard"
        );
    }

    #[test]
    fn a_wrong_value_is_refused_naming_the_option_and_its_values() {
        assert_eq!(
            bad_request("gain=quadratic"),
            "gain must be one of: linear, exponential (got \"quadratic\")"
        );
        assert_eq!(
            bad_request("ap-denominator=all"),
            "ap-denominator must be one of: relevant, hits, min-k-relevant (got \"all\")"
        );
        assert_eq!(
            bad_request("k=0"),
            "k must be a whole number from 1 up (got \"0\")"
        );
        assert_eq!(
            bad_request("threshold=6"),
            "threshold must be a number of stars from 1 to 5 (got \"6\")"
        );
        assert_eq!(
            bad_request("partial=yes"),
            "partial must be one of: exclude, include (got \"yes\")"
        );
        assert_eq!(
            bad_request("order=up"),
            "order must be one of: asc, desc (got \"up\")"
        );
        assert!(bad_request("sort=name").starts_with("sort must be one of: rank, model, ndcg,"));
        assert!(bad_request("colour=red").starts_with("\"colour\" is not a parameter"));
    }

    fn row(model: &str, rank: usize, recall: Option<f64>) -> ModelRow {
        ModelRow::undefined(model, rank).with("recall", recall)
    }

    fn recall() -> SortBy {
        SortBy::Column(columns::named("recall").unwrap())
    }

    fn sorted(by: SortBy, order: Option<Order>) -> Vec<String> {
        let mut rows = vec![
            row("b", 1, Some(0.5)),
            row("c", 2, None),
            row("a", 3, Some(0.5)),
            row("d", 4, Some(0.7)),
        ];
        Sort { by, order }.apply(&mut rows);
        rows.into_iter().map(|r| r.model).collect()
    }

    #[test]
    fn sorting_keeps_undefined_values_last_and_breaks_ties_by_rank() {
        assert_eq!(sorted(recall(), None), ["d", "b", "a", "c"]);
        assert_eq!(sorted(recall(), Some(Order::Asc)), ["b", "a", "d", "c"]);
        assert_eq!(sorted(SortBy::Model, None), ["a", "b", "c", "d"]);
        assert_eq!(
            sorted(SortBy::Rank, Some(Order::Desc)),
            ["d", "a", "c", "b"]
        );
    }
}
