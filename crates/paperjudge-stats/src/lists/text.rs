//! The view as `paperjudge lists` prints it: what it speaks for, then each part's sentence and
//! its numbers in aligned columns (the checks' tables: 4 decimals, `-` where undefined).

use super::Lists;
use crate::checks::text::push_table;
use crate::terminal::escape;
use crate::words::plural;
use crate::words::terminal::{self, number};
use crate::words::thousands;

impl Lists {
    /// The view for a terminal.
    pub fn to_table(&self) -> String {
        let settings = &self.settings;
        let mut out = format!(
            "Lists of {} {} over {}; top {}, RBO p = {}, pool depth {}; library of {} papers\n",
            self.models.len(),
            plural(self.models.len(), "model", "models"),
            self.scope_in_words(),
            settings.k,
            settings.rbo_p,
            settings.pool_depth,
            thousands(self.library as i64),
        );
        out.push_str(super::READS_LISTS_ONLY);
        out.push('\n');
        if let Some(unblinding) = self.unblinding() {
            out.push_str(&format!("Warning: {unblinding}\n"));
        }
        if let Some(empty) = self.emptiness() {
            out.push_str(empty);
            out.push('\n');
            return out;
        }

        out.push_str(&format!(
            "\nOverlap of the top {} (means over the targets where either model has a list; \
             95% bootstrap intervals)\n",
            settings.k
        ));
        if self.models.len() == 1 {
            out.push_str("One model: there is no other to compare it with.\n");
        }
        for sentence in &self.sentences.most_alike {
            out.push_str(&escape(sentence));
            out.push('\n');
        }
        let mut rows = vec![[
            "model".to_owned(),
            "and model".to_owned(),
            "targets".to_owned(),
            "shared".to_owned(),
            "Jaccard".to_owned(),
            "95% CI".to_owned(),
            "RBO".to_owned(),
            "95% CI".to_owned(),
        ]];
        for pair in &self.pairs {
            rows.push([
                escape(&pair.a).into_owned(),
                escape(&pair.b).into_owned(),
                pair.targets.to_string(),
                number(pair.shared),
                number(pair.jaccard),
                terminal::interval(pair.jaccard_ci95, terminal::PLACES),
                number(pair.rbo),
                terminal::interval(pair.rbo_ci95, terminal::PLACES),
            ]);
        }
        push_table(&mut out, &rows);

        out.push_str(&format!(
            "\nContribution to the pool ({} pairs in the top {} of every list; {} at pool depth {})\n{}\n",
            thousands(self.pool.pairs as i64),
            settings.k,
            thousands(self.pool.pairs_at_pool_depth as i64),
            settings.pool_depth,
            escape(&self.sentences.contribution),
        ));
        let mut rows = vec![[
            "model".to_owned(),
            "unique pairs".to_owned(),
            "share".to_owned(),
            "pairs saved without".to_owned(),
        ]];
        for model in &self.contribution {
            rows.push([
                escape(&model.model).into_owned(),
                model.unique_pairs.to_string(),
                number(model.unique_share),
                model.pairs_saved_without.to_string(),
            ]);
        }
        push_table(&mut out, &rows);

        out.push_str(&format!(
            "\nCoverage and concentration (the top {} over every target)\n{}\n",
            settings.k,
            escape(&self.sentences.coverage)
        ));
        let mut rows = vec![[
            "model".to_owned(),
            "targets".to_owned(),
            "recommendations".to_owned(),
            "distinct papers".to_owned(),
            "library share".to_owned(),
            "Gini".to_owned(),
        ]];
        for model in &self.coverage {
            rows.push([
                escape(&model.model).into_owned(),
                model.targets.to_string(),
                model.recommendations.to_string(),
                model.distinct_papers.to_string(),
                number(model.library_share),
                number(model.gini),
            ]);
        }
        push_table(&mut out, &rows);

        out.push_str("\nPapers recommended most often\n");
        let mut rows = vec![["paper", "lists", "targets", "title"].map(str::to_owned)];
        for paper in &self.most_recommended {
            rows.push([
                escape(&paper.paper).into_owned(),
                paper.lists.to_string(),
                paper.targets.to_string(),
                escape(&paper.title).into_owned(),
            ]);
        }
        push_table(&mut out, &rows);
        out
    }
}
