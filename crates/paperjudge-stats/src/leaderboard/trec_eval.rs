//! How trec_eval gives a leaderboard's NDCG: the command to run on the qrels of the board's
//! targets (`export qrels`, fully rated targets only unless partly rated ones are included)
//! and a model's run, and, in words, what of the board's settings makes trec_eval's number
//! another (docs/metrics.md, "Agreement with trec_eval").

use super::Leaderboard;
use crate::metrics::{Empty, Gain, Ideal, Judgments, Unjudged};
use crate::words::plural;

impl Leaderboard {
    /// The trec_eval command whose NDCG equals the board's NDCG@k on the qrels of its targets
    /// (`-c`: a target a run has no list for scores 0, as here; `-J` with unrated papers
    /// taken out of the lists).
    pub fn trec_eval_command(&self) -> String {
        let condensed = match self.settings.unjudged {
            Unjudged::Zero => "",
            Unjudged::Skip => " -J",
        };
        format!(
            "trec_eval -c{condensed} -m ndcg_cut.{} qrels.txt RUN",
            self.settings.k
        )
    }

    /// The settings under which trec_eval's NDCG would be the board's, each with why: "gain =
    /// linear (trec_eval's gains are linear)"; empty when the command gives the board's
    /// numbers as it is.
    pub fn unlike_trec_eval(&self) -> Vec<String> {
        let settings = &self.settings;
        let mut unlike = Vec::new();
        if settings.gain == Gain::Exponential {
            unlike.push("gain = linear (trec_eval's gains are linear)".to_owned());
        }
        if settings.ideal == Ideal::List {
            unlike.push(
                "ideal = judged (trec_eval's ideal ranking is of every judged paper of the \
                 target)"
                    .to_owned(),
            );
        }
        let skipped = self.targets.skipped_empty;
        if settings.empty == Empty::Skip && skipped > 0 {
            unlike.push(format!(
                "empty = zero (trec_eval scores 0 the {skipped} {} with nothing relevant that \
                 this table leaves out)",
                plural(skipped, "target", "targets")
            ));
        }
        if self.judgments == Some(Judgments::Mean) {
            unlike.push(
                "judgments = lower-median (qrels hold whole stars: each pair's lower median, \
                 not the mean)"
                    .to_owned(),
            );
        }
        if self
            .judge
            .as_ref()
            .is_some_and(|judge| judge.prediction_powered())
        {
            unlike.push(
                "no judge (trec_eval reads the raters' judgments alone, as the table of the \
                 raters' figures does)"
                    .to_owned(),
            );
        }
        unlike
    }
}
