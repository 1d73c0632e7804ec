//! The columns of the model table: one entry each, in the order every output shows them.
//!
//! [`ModelRow`](super::ModelRow) keeps a value per mean column, and the JSON, the CSV, the
//! terminal table and the page's table all walk [`COLUMNS`]: a new per-target metric is a
//! function of [`OnTarget`] in `metrics` (a model's top k beside the other models' of the
//! target, the judgments, the settings and the standard scores) and one more entry here.

use crate::metrics::{self, OnTarget};

/// A column of the model table, after the model's name and rank.
#[derive(Debug)]
pub struct Column {
    /// Its name in the JSON and the CSV header (an interval is two CSV fields, `_low` and
    /// `_high`), and the page's `sort` value.
    pub key: &'static str,
    pub value: Value,
    /// The heading of the terminal table.
    pub table_heading: Heading,
    /// The heading of the page's table; `None` when the page leaves the column out.
    pub page_heading: Option<Heading>,
    /// What the page's heading stands for, in words.
    pub description: &'static str,
}

/// What a column holds.
#[derive(Debug, Clone, Copy)]
pub enum Value {
    /// The mean, over the evaluated targets where it is defined, of a per-target score.
    Mean(Metric),
    /// The 95% bootstrap interval of the mean NDCG.
    Interval,
    /// How many targets the mean NDCG averages.
    Targets,
    /// The mean per-target NDCG difference to the leader.
    Difference,
    /// The paired sign-flip test against the leader.
    PValue,
    /// [`Value::PValue`] after Holm's adjustment over the comparisons.
    PValueHolm,
}

/// A per-target score: a pure function of the model on the target; `None` where it is
/// undefined (left out of the mean).
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    pub score: fn(&OnTarget) -> Option<f64>,
    /// Shown for every target in the per-target outputs.
    pub per_target: bool,
    /// A share of the top k that is rated: below 1 it asks for care, and the page flags it.
    pub coverage: bool,
}

/// A heading; `at_k` ones end in `@` and the cutoff (`NDCG@8`).
#[derive(Debug, Clone, Copy)]
pub struct Heading {
    pub text: &'static str,
    pub at_k: bool,
}

impl Heading {
    const fn at_k(text: &'static str) -> Heading {
        Heading { text, at_k: true }
    }

    const fn plain(text: &'static str) -> Heading {
        Heading { text, at_k: false }
    }

    /// The heading for the cutoff `k`.
    pub fn with_k(&self, k: usize) -> String {
        if self.at_k {
            format!("{}@{k}", self.text)
        } else {
            self.text.to_owned()
        }
    }
}

const fn mean(score: fn(&OnTarget) -> Option<f64>) -> Value {
    Value::Mean(Metric {
        score,
        per_target: false,
        coverage: false,
    })
}

/// Every column, in the order of the JSON's keys and of every table.
pub const COLUMNS: &[Column] = &[
    Column {
        key: "ndcg",
        value: Value::Mean(Metric {
            score: |on| on.scores.ndcg,
            per_target: true,
            coverage: false,
        }),
        table_heading: Heading::at_k("NDCG"),
        page_heading: Some(Heading::at_k("NDCG")),
        description: "Mean NDCG over the evaluated targets",
    },
    Column {
        key: "ci95",
        value: Value::Interval,
        table_heading: Heading::plain("95% CI"),
        page_heading: Some(Heading::plain("95% interval")),
        description: "95% bootstrap interval of NDCG",
    },
    Column {
        key: "targets",
        value: Value::Targets,
        table_heading: Heading::plain("targets"),
        page_heading: Some(Heading::plain("Targets")),
        description: "Evaluated targets in the NDCG mean",
    },
    Column {
        key: "judged_at_k",
        value: Value::Mean(Metric {
            score: |on| on.scores.judged_at_k,
            per_target: true,
            coverage: true,
        }),
        table_heading: Heading::at_k("judged"),
        page_heading: Some(Heading::at_k("Judged")),
        description: "Share of the top k that is rated",
    },
    Column {
        key: "mean_diff_vs_leader",
        value: Value::Difference,
        table_heading: Heading::plain("diff"),
        page_heading: Some(Heading::plain("Δ leader")),
        description: "Mean per-target NDCG difference to the leader",
    },
    Column {
        key: "p_value_vs_leader",
        value: Value::PValue,
        table_heading: Heading::plain("p"),
        page_heading: None,
        description: "Paired sign-flip test against the leader",
    },
    Column {
        key: "p_value_holm",
        value: Value::PValueHolm,
        table_heading: Heading::plain("p (Holm)"),
        page_heading: Some(Heading::plain("p (Holm)")),
        description: "Paired sign-flip test against the leader, Holm-adjusted over every pair \
                      of models",
    },
    Column {
        key: "precision",
        value: mean(|on| on.scores.precision),
        table_heading: Heading::at_k("P"),
        page_heading: Some(Heading::at_k("P")),
        description: "Precision: relevant papers in the top k, over k",
    },
    Column {
        key: "recall",
        value: mean(|on| on.scores.recall),
        table_heading: Heading::at_k("R"),
        page_heading: Some(Heading::at_k("R")),
        description: "Recall: relevant papers in the top k, over all relevant",
    },
    Column {
        key: "f1",
        value: mean(|on| on.scores.f1),
        table_heading: Heading::at_k("F1"),
        page_heading: Some(Heading::at_k("F1")),
        description: "Harmonic mean of P and R",
    },
    Column {
        key: "ap",
        value: mean(|on| on.scores.ap),
        table_heading: Heading::at_k("AP"),
        page_heading: Some(Heading::at_k("AP")),
        description: "Average precision",
    },
    Column {
        key: "rr",
        value: mean(|on| on.scores.rr),
        table_heading: Heading::at_k("RR"),
        page_heading: Some(Heading::plain("RR")),
        description: "Reciprocal rank of the first relevant paper in the top k",
    },
    Column {
        key: "unique_relevant",
        value: mean(metrics::unique_relevant),
        table_heading: Heading::at_k("unique"),
        page_heading: Some(Heading::at_k("Unique")),
        description: "Relevant papers in the top k that no other model has in its top k",
    },
];

/// The column the models are ranked by, and whose per-target values the intervals and the
/// tests against the leader are computed from.
pub const RANKING: &Column = &COLUMNS[0];

/// The mean columns, with their position among them (the position of their value in a
/// [`ModelRow`](super::ModelRow)).
pub fn means() -> impl Iterator<Item = (usize, &'static Column, Metric)> {
    (COLUMNS.iter())
        .filter_map(|column| match column.value {
            Value::Mean(metric) => Some((column, metric)),
            _ => None,
        })
        .enumerate()
        .map(|(position, (column, metric))| (position, column, metric))
}

/// The position among the mean columns of the column named `key`.
pub fn mean_position(key: &str) -> Option<usize> {
    means()
        .find(|(_, column, _)| column.key == key)
        .map(|(position, ..)| position)
}

/// The position of [`RANKING`] among the mean columns.
pub fn ranking_position() -> usize {
    mean_position(RANKING.key).expect("the ranking column is a mean")
}

/// The columns shown for every target, in order.
pub fn per_target() -> impl Iterator<Item = &'static Column> {
    means()
        .filter(|(_, _, metric)| metric.per_target)
        .map(|(_, column, _)| column)
}

/// The column named `key`.
pub fn named(key: &str) -> Option<&'static Column> {
    COLUMNS.iter().find(|column| column.key == key)
}

/// The settings columns that follow the values in every CSV row, so that the file states
/// what it measured.
pub const SETTINGS_COLUMNS: &[&str] = &[
    "k",
    "gain",
    "relevance",
    "ideal",
    "unjudged",
    "empty",
    "threshold",
    "ap_denominator",
    "pool_depth",
    "partial",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_ranking_is_the_ndcg_mean() {
        for (index, column) in COLUMNS.iter().enumerate() {
            assert!(
                COLUMNS[..index].iter().all(|other| other.key != column.key),
                "{} twice",
                column.key
            );
        }
        assert_eq!(RANKING.key, "ndcg");
        assert!(matches!(RANKING.value, Value::Mean(metric) if metric.per_target));
        let per_target: Vec<&str> = per_target().map(|column| column.key).collect();
        assert_eq!(per_target, ["ndcg", "judged_at_k"]);
    }
}
