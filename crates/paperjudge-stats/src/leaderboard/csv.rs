//! The leaderboard as CSV (RFC 4180, CRLF line ends): one row per model, or one per model and
//! evaluated target, the settings repeated on every row so that the file states what it
//! measured. Undefined values are empty fields; numbers are written in the shortest form that
//! reads back as the same number.

use super::columns::{self, Value, COLUMNS, SETTINGS_COLUMNS};
use super::Leaderboard;
use crate::words::csv_number;

impl Leaderboard {
    /// One row per model.
    pub fn to_csv(&self) -> String {
        let mut header = vec!["model".to_owned(), "rank".to_owned()];
        for column in COLUMNS {
            match column.value {
                Value::Interval => {
                    header.extend(["low", "high"].map(|end| format!("{}_{end}", column.key)))
                }
                _ => header.push(column.key.to_owned()),
            }
        }
        if self.judge.is_some() {
            header.extend(
                ["ndcg", "ci95_low", "ci95_high", "targets"].map(|key| format!("human_only_{key}")),
            );
        }
        let settings = self.settings_values();
        let rows = self.models.iter().map(|row| {
            let mut record = vec![row.model.clone(), row.rank.to_string()];
            for column in COLUMNS {
                match column.value {
                    Value::Interval => {
                        let [low, high] = row.ci95.map_or([None, None], |ends| ends.map(Some));
                        record.extend([csv_number(low), csv_number(high)]);
                    }
                    Value::Targets => record.push(row.targets.to_string()),
                    _ => record.push(csv_number(row.number(column))),
                }
            }
            if let Some(raters) = row.human_only {
                let [low, high] = raters.ci95.map_or([None, None], |ends| ends.map(Some));
                record.extend([csv_number(raters.ndcg), csv_number(low), csv_number(high)]);
                record.push(raters.targets.to_string());
            }
            record
        });
        write(header, rows, &settings)
    }

    /// One row per model and evaluated target.
    pub fn per_target_csv(&self) -> String {
        let mut header = vec!["target".to_owned(), "model".to_owned()];
        header.extend(columns::per_target().map(|column| column.key.to_owned()));
        let settings = self.settings_values();
        let rows = self.per_target.iter().flat_map(|target| {
            (self.models.iter().enumerate()).map(move |(row, model)| {
                let mut record = vec![target.target.clone(), model.model.clone()];
                record.extend(target.values(row).iter().map(|&value| csv_number(value)));
                record
            })
        });
        write(header, rows, &settings)
    }

    /// The settings columns' names and values: those of every board, then `judgments` with
    /// raters and `judge` with a judge.
    fn settings_values(&self) -> Vec<(&'static str, String)> {
        let s = &self.settings;
        let values = [
            s.k.to_string(),
            s.gain.to_string(),
            s.relevance.to_string(),
            s.ideal.to_string(),
            s.unjudged.to_string(),
            s.empty.to_string(),
            s.threshold.to_string(),
            s.ap_denominator.to_string(),
            self.pool_depth.to_string(),
            self.partial.as_str().to_owned(),
        ];
        (SETTINGS_COLUMNS.iter().copied().zip(values))
            .chain((self.judgments.as_ref()).map(|judgments| ("judgments", judgments.to_string())))
            .chain((self.judge.as_ref()).map(|judge| ("judge", judge.name.to_string())))
            .collect()
    }
}

/// The header and the rows, each followed by the settings columns.
fn write(
    header: Vec<String>,
    rows: impl Iterator<Item = Vec<String>>,
    settings: &[(&str, String)],
) -> String {
    let mut csv = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::new());
    let header = header.iter().map(String::as_str);
    let mut written = csv.write_record(header.chain(settings.iter().map(|(name, _)| *name)));
    for row in rows {
        let settings = settings.iter().map(|(_, value)| value);
        written = written.and_then(|()| csv.write_record(row.iter().chain(settings)));
    }
    written.expect("CSV into memory cannot fail");
    let bytes = csv.into_inner().expect("a flush into memory cannot fail");
    String::from_utf8(bytes).expect("CSV of UTF-8 fields is UTF-8")
}
