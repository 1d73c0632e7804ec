//! The text of lists: CSV rows and TREC run lines.

use super::Listed;
use crate::format::{push_id, push_number, push_score};

/// Formats lists as CSV rows and TREC run lines; the scratch text of one row is kept between
/// calls.
#[derive(Default)]
pub struct ListFormatter {
    paper: String,
    rank: String,
    score: String,
}

impl ListFormatter {
    /// Appends `list` as `model,target,rank,paper,score` rows to `csv` and as
    /// `target Q0 paper rank score model` lines to `run`.
    pub fn push(
        &mut self,
        list: &[Listed],
        model: &str,
        target: &str,
        csv: &mut String,
        run: &mut String,
    ) {
        for (rank0, listed) in list.iter().enumerate() {
            self.paper.clear();
            push_id(&mut self.paper, listed.paper);
            self.rank.clear();
            push_number(&mut self.rank, rank0 as u64 + 1, 1);
            self.score.clear();
            push_score(&mut self.score, listed.micros);
            let (paper, rank, score) = (&self.paper, &self.rank, &self.score);
            for part in [model, ",", target, ",", rank, ",", paper, ",", score, "\n"] {
                csv.push_str(part);
            }
            for part in [
                target, " Q0 ", paper, " ", rank, " ", score, " ", model, "\n",
            ] {
                run.push_str(part);
            }
        }
    }
}
