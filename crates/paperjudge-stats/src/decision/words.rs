//! The verdict in words: the sentences the dashboard, the leaderboard and the command line
//! say of a [`Decision`]. The numbers they name are the statistics' own (`decision/mod.rs`); only
//! the English is here.

use super::{Decision, Sequence, ESTIMATE_LIMIT};
use crate::metrics::Bounds;
use crate::words::counted;
use crate::words::plural;

/// "a", "a and b", "a, b and c".
fn listed(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((only, _)) => (*only).to_owned(),
        None => String::new(),
    }
}

/// A distance in NDCG as the verdict's words give it: two decimals, more where two would
/// show 0.00.
pub(super) fn distance(value: f64) -> String {
    let value = value.max(0.0);
    if value > 0.0 && value < 0.005 {
        format!("{value:.3}")
    } else {
        format!("{value:.2}")
    }
}

impl Decision {
    /// The verdict in a few sentences, as the dashboard and the leaderboard say it.
    pub fn in_words(&self) -> String {
        let percent = format!("{}%", (self.level * 100.0).round());
        let Some(leader) = &self.leader else {
            return format!(
                "No target is fully rated yet: the verdict ({percent} confidence about the \
                 library the targets stand for, valid however often you look) starts with the \
                 first."
            );
        };
        let after = counted(self.targets_rated, "target", "targets");
        let names = |names: &[String]| -> String {
            listed(&names.iter().map(String::as_str).collect::<Vec<_>>())
        };
        let is_are = |names: &[String]| plural(names.len(), "is", "are");
        let out = if self.out.is_empty() {
            String::new()
        } else {
            format!(" {} {} out.", names(&self.out), is_are(&self.out))
        };
        if self.decided && self.equivalent.is_empty() {
            return format!(
                "{leader} is the best of the {} models at {percent} confidence after {after}; \
                 you can stop.",
                self.models
            );
        }
        if self.decided {
            let mut any = vec![leader.clone()];
            any.extend(self.equivalent.iter().cloned());
            return format!(
                "{} {} within {} of {leader} at {percent} confidence after {after}: any of {} \
                 will do; you can stop.{out}",
                names(&self.equivalent),
                is_are(&self.equivalent),
                self.margin,
                names(&any),
            );
        }
        let open: Vec<&Sequence> = (self.sequences.iter())
            .filter(|sequence| self.open.contains(&sequence.model))
            .collect();
        let bounds = Bounds::DIFFERENCE;
        let mut text = if open
            .iter()
            .all(|sequence| sequence.low <= bounds.low && sequence.high >= bounds.high)
        {
            format!(
                "{leader} leads after {after}, but at {percent} confidence for all {} pairs at \
                 once every interval still spans every possible difference: nothing is told \
                 apart yet.",
                self.pairs()
            )
        } else {
            let open: Vec<String> = (open.iter())
                .map(|sequence| {
                    format!(
                        "{} (at most {} below, at most {} above)",
                        sequence.model,
                        distance(-sequence.low),
                        distance(sequence.high)
                    )
                })
                .collect();
            format!(
                "{leader} leads after {after}. Not yet separated from it at {percent} \
                 confidence: {}.",
                listed(&open.iter().map(String::as_str).collect::<Vec<_>>())
            )
        };
        if !self.equivalent.is_empty() {
            text.push_str(&format!(
                " {} {} within {} of {leader}.",
                names(&self.equivalent),
                is_are(&self.equivalent),
                self.margin
            ));
        }
        text.push_str(&out);
        text.push(' ');
        text.push_str(&self.what_it_takes(leader));
        text
    }

    /// The last sentence of an open verdict: what more it takes.
    fn what_it_takes(&self, leader: &str) -> String {
        if let Some(model) = &self.beyond {
            let margin = if self.margin.get() > 0.0 {
                "a larger margin"
            } else {
                "a margin (such as --margin 0.02)"
            };
            return format!(
                "If the targets to come differ as those so far, {model} and {leader} would take \
                 more than {} to tell apart: {margin} says when two models are close enough \
                 for either to do.",
                counted(ESTIMATE_LIMIT, "target", "targets")
            );
        }
        match (self.targets_estimate, self.targets_to_choose()) {
            (Some(more), None) => format!(
                "About {} would settle it if they differ as those so far.",
                counted(more, "more target", "more targets")
            ),
            (Some(more), Some(choose)) => {
                let next = match (self.targets_left, self.choosable >= choose) {
                    (0, true) => {
                        format!("Every chosen target is rated: choose about {choose} more.")
                    }
                    (left, true) => {
                        format!("Rate the {left} left and choose about {choose} more.")
                    }
                    (_, false) if self.choosable > 0 => format!(
                        "The library has {} more papers with recommendations to choose: import \
                         the models' lists for about {} others.",
                        self.choosable,
                        choose - self.choosable
                    ),
                    (_, false) => format!(
                        "Every paper with recommendations is a target: import the models' lists \
                         for about {choose} more papers."
                    ),
                };
                format!(
                    "About {} would settle it if they differ as those so far. {next}",
                    counted(more, "more target", "more targets")
                )
            }
            (None, _) => String::new(),
        }
    }

    /// What the verdict can tell apart now, beside the fixed-sample table of p-values: the
    /// two answer different questions, and neither is hidden.
    pub fn beside_the_table(&self) -> Option<String> {
        if self.leader.is_none() || self.sequences.is_empty() {
            return None;
        }
        let mut widths: Vec<f64> = (self.sequences.iter())
            .map(|sequence| (sequence.high - sequence.low) / 2.0)
            .collect();
        widths.sort_by(f64::total_cmp);
        let typical = widths[widths.len() / 2];
        Some(format!(
            "The table's p-values test these {} once, each model against the leader (Holm over \
             all {} pairs). The verdict answers for the library they stand for, however often you \
             look, so it asks more of the data: after {} its intervals are about ±{} wide, and \
             smaller differences are not told apart yet.",
            counted(self.targets_rated, "target", "targets"),
            self.pairs(),
            counted(self.targets_rated, "target", "targets"),
            distance(typical)
        ))
    }
}
