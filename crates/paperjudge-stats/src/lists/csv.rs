//! The view as CSV (RFC 4180, CRLF line ends), long: one number a row, named by its table,
//! model (and other model, or paper) and statistic, with the interval's ends where it has one,
//! and the settings repeated on every row so that the file states what it measured. Undefined
//! values are empty fields; numbers are written in the shortest form that reads back as the
//! same number.

use super::Lists;
use crate::words::csv_number;

const HEADER: [&str; 12] = [
    "table",
    "model",
    "other_model",
    "paper",
    "statistic",
    "value",
    "low",
    "high",
    "k",
    "rbo_p",
    "pool_depth",
    "targets",
];

/// A row's first eight fields.
struct Row<'a> {
    table: &'a str,
    model: &'a str,
    other: &'a str,
    paper: &'a str,
    statistic: &'a str,
    value: Option<f64>,
    interval: Option<[f64; 2]>,
}

impl Lists {
    pub fn to_csv(&self) -> String {
        let mut rows: Vec<Row> = Vec::new();
        let row = |table, model, other, statistic, value| Row {
            table,
            model,
            other,
            paper: "",
            statistic,
            value,
            interval: None,
        };
        for pair in &self.pairs {
            let (a, b) = (pair.a.as_str(), pair.b.as_str());
            rows.push(row("pairs", a, b, "targets", Some(pair.targets as f64)));
            rows.push(row("pairs", a, b, "shared", pair.shared));
            rows.push(Row {
                interval: pair.jaccard_ci95,
                ..row("pairs", a, b, "jaccard", pair.jaccard)
            });
            rows.push(Row {
                interval: pair.rbo_ci95,
                ..row("pairs", a, b, "rbo", pair.rbo)
            });
        }
        rows.push(row("pool", "", "", "pairs", Some(self.pool.pairs as f64)));
        rows.push(row(
            "pool",
            "",
            "",
            "pairs_at_pool_depth",
            Some(self.pool.pairs_at_pool_depth as f64),
        ));
        for model in &self.contribution {
            let name = model.model.as_str();
            let count = |n: u64| Some(n as f64);
            rows.push(row(
                "contribution",
                name,
                "",
                "unique_pairs",
                count(model.unique_pairs),
            ));
            rows.push(row(
                "contribution",
                name,
                "",
                "unique_share",
                model.unique_share,
            ));
            rows.push(row(
                "contribution",
                name,
                "",
                "pairs_saved_without",
                count(model.pairs_saved_without),
            ));
        }
        for model in &self.coverage {
            let name = model.model.as_str();
            let count = |n: u64| Some(n as f64);
            rows.push(row(
                "coverage",
                name,
                "",
                "targets",
                count(model.targets as u64),
            ));
            rows.push(row(
                "coverage",
                name,
                "",
                "recommendations",
                count(model.recommendations),
            ));
            rows.push(row(
                "coverage",
                name,
                "",
                "distinct_papers",
                count(model.distinct_papers),
            ));
            rows.push(row(
                "coverage",
                name,
                "",
                "library_share",
                model.library_share,
            ));
            rows.push(row("coverage", name, "", "gini", model.gini));
        }
        for paper in &self.most_recommended {
            for (statistic, value) in [("lists", paper.lists), ("targets", paper.targets)] {
                rows.push(Row {
                    paper: &paper.paper,
                    ..row("most_recommended", "", "", statistic, Some(value as f64))
                });
            }
        }

        let settings = [
            self.settings.k.to_string(),
            self.settings.rbo_p.to_string(),
            self.settings.pool_depth.to_string(),
            self.targets.count.to_string(),
        ];
        let mut csv = csv::WriterBuilder::new()
            .terminator(csv::Terminator::CRLF)
            .from_writer(Vec::new());
        let mut written = csv.write_record(HEADER);
        for row in rows {
            let [low, high] = row.interval.map_or([None, None], |ends| ends.map(Some));
            let fields = [
                row.table.to_owned(),
                row.model.to_owned(),
                row.other.to_owned(),
                row.paper.to_owned(),
                row.statistic.to_owned(),
                csv_number(row.value),
                csv_number(low),
                csv_number(high),
            ];
            written = written.and_then(|()| csv.write_record(fields.iter().chain(&settings)));
        }
        written.expect("CSV into memory cannot fail");
        let bytes = csv.into_inner().expect("a flush into memory cannot fail");
        String::from_utf8(bytes).expect("CSV of UTF-8 fields is UTF-8")
    }
}
