//! The leaderboard as an aligned table for a terminal: numbers with 4 decimals, under a line
//! stating the settings and one counting the targets, over the verdict in words and a line
//! saying how the comparisons were made.

use super::columns::{Value, COLUMNS};
use super::{Leaderboard, ModelRow, Partial, TargetCounts};
use crate::metrics::RESAMPLES;
use crate::words::terminal;

impl Leaderboard {
    pub fn to_table(&self) -> String {
        let k = self.settings.k.get();
        let mut header = vec!["rank".to_owned(), "model".to_owned()];
        header.extend(COLUMNS.iter().map(|column| column.table_heading.with_k(k)));
        let mut lines = vec![header];
        lines.extend(self.models.iter().map(cells));

        let widths: Vec<usize> = (0..lines[0].len())
            .map(|c| {
                (lines.iter())
                    .map(|line| line[c].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut table = format!("{}\n", self.settings.describe());
        if let Some(judgments) = &self.judgments {
            table.push_str(&crate::terminal::escape(&judgments.describe()));
            table.push('\n');
        }
        table.push_str(&format!(
            "{}; pool depth {}\n",
            self.targets_in_words(),
            self.pool_depth,
        ));
        if let Some(judge) = &self.judge {
            table.push_str(&crate::terminal::escape(&judge.in_words()));
            table.push('\n');
            if let Some(tuning) = judge.tuning_in_words() {
                table.push_str(&tuning);
                table.push('\n');
            }
            if let Some(warning) = judge.order_warning() {
                table.push_str(&format!("Warning: {warning}.\n"));
            }
        }
        for line in &lines {
            let cells: Vec<String> = (line.iter().zip(&widths).enumerate())
                .map(|(column, (cell, &width))| {
                    // The model name reads best left-aligned, numbers right-aligned.
                    if column == 1 {
                        format!("{cell:<width$}")
                    } else {
                        format!("{cell:>width$}")
                    }
                })
                .collect();
            table.push_str(cells.join("  ").trim_end());
            table.push('\n');
        }
        for row in &self.models {
            if let Some(raters) = row.human_only.filter(|_| self.prediction_powered()) {
                let line = format!("{}: raters alone {}", row.model, raters.in_words());
                table.push_str(&crate::terminal::escape(&line));
                table.push('\n');
            }
            if let Some(pruned) = row.pruned_in_words() {
                let line = format!("{}: {pruned}", row.model);
                table.push_str(&crate::terminal::escape(&line));
                table.push('\n');
            }
        }
        if let Some(decision) = &self.decision {
            table.push_str(&crate::terminal::escape(&decision.in_words()));
            table.push('\n');
        }
        if let Some(who_rated) = self.who_rated_in_words() {
            table.push_str(&crate::terminal::escape(&who_rated));
            table.push('\n');
        }
        if self.prediction_powered() {
            // The judge's sentence above says how NDCG's diff and p were made.
        } else {
            table.push_str(&format!(
                "diff and p: paired against the leader; p from a two-sided sign-flip test with \
             {RESAMPLES} permutations, Holm-adjusted over every pair of models; 95% CI from \
             {RESAMPLES} Poisson bootstrap resamples (docs/metrics.md)\n"
            ));
        }
        // Beside prediction-powered tests, the comparison of the table's tests and the verdict
        // (written for the raters' own) would mislead.
        let beside = (self.decision.as_ref())
            .filter(|_| !self.prediction_powered())
            .and_then(|d| d.beside_the_table());
        if let Some(beside) = beside {
            table.push_str(&beside);
            table.push('\n');
        }
        table
    }

    fn targets_in_words(&self) -> String {
        let TargetCounts {
            evaluated,
            skipped_empty,
            unrated,
            skipped_no_relevant,
            partly_rated,
            ..
        } = self.targets;
        let partly_rated = match self.partial {
            Partial::Exclude => format!("{partly_rated} partly rated and left out"),
            Partial::Include => format!("{partly_rated} of them partly rated (include-partial)"),
        };
        format!(
            "{evaluated} targets evaluated ({skipped_empty} skipped from NDCG and \
             {skipped_no_relevant} from P/R/F1/AP/RR/unique for having nothing relevant), \
             {partly_rated}, {unrated} unrated"
        )
    }
}

/// A model's line: rank, name (as a table shows it: made safe for a terminal, a long one cut),
/// then each column.
fn cells(row: &ModelRow) -> Vec<String> {
    let mut line = vec![
        row.rank.to_string(),
        crate::terminal::cell(&row.model).into_owned(),
    ];
    line.extend(COLUMNS.iter().map(|column| match column.value {
        Value::Interval => terminal::interval(row.ci95, terminal::PLACES),
        Value::Targets => row.targets.to_string(),
        Value::Difference => terminal::signed(row.mean_diff_vs_leader),
        Value::Mean(_) | Value::PValue | Value::PValueHolm => terminal::number(row.number(column)),
    }));
    line
}
