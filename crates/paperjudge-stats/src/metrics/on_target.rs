//! One target as every per-target metric reads it: each model's top k, the papers numbered once
//! for the target (so that lists compare without the study's keys) with their judgments, the
//! settings, and each model's standard scores ([`TargetScores`], which hold what the target's
//! other judgments decide: NDCG's ideal, the relevant papers R behind recall).
//!
//! A metric is a pure `fn(&OnTarget) -> Option<f64>` (`None`: undefined on the target, left
//! out of the mean): one of the standard scores, or a function of several models' lists or of
//! a setting. The leaderboard's columns name them (`leaderboard::columns::COLUMNS`).

use std::collections::HashMap;
use std::hash::Hash;

use rustc_hash::FxHashMap;

use super::{binary_scores, target_ndcg, Settings, TargetScores, ToFind, Unjudged};
use crate::domain::Grade;

/// A paper of a model's top k: its number on the target (a paper has the same number in every
/// model's top) and its judgment, if it has one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranked {
    pub paper: u32,
    pub grade: Option<Grade>,
}

/// Every model's top k of one target as the metrics read it: the first k papers of its list,
/// or with `unjudged = skip` its first k judged ones (the condensed list); empty for a model
/// without a list.
#[derive(Debug, Clone)]
pub struct TargetTops {
    ranked: Vec<Ranked>,
    /// Model m's top is `ranked[starts[m]..starts[m + 1]]`.
    starts: Vec<usize>,
    /// For each paper's number, how many models' tops hold it.
    found_by: Vec<u32>,
}

impl TargetTops {
    /// Every model's top k of `lists` (best first, no paper twice; in the order of the models)
    /// against the target's `judgments`, and each model's standard scores there, as
    /// [`evaluate_target`](super::evaluate_target) gives them: the lists are read once.
    pub fn of<'a, K: Copy + Eq + Hash + 'a, G: Copy + Into<Grade>>(
        lists: impl ExactSizeIterator<Item = &'a [K]> + Clone,
        judgments: &HashMap<K, G>,
        settings: &Settings,
    ) -> (TargetTops, Vec<TargetScores>) {
        let k = settings.k.get();
        let models = lists.len();
        // At most min(k, length) papers of each list make its top: sized for that, nothing grows
        // while the lists are read.
        let papers = lists.clone().map(|list| list.len().min(k)).sum();
        let mut tops = TargetTops {
            ranked: Vec::with_capacity(papers),
            starts: Vec::with_capacity(models + 1),
            found_by: Vec::with_capacity(papers),
        };
        let mut numbers: FxHashMap<K, u32> =
            FxHashMap::with_capacity_and_hasher(papers, Default::default());
        let mut judged_at_k = Vec::with_capacity(models);
        for list in lists {
            tops.starts.push(tops.ranked.len());
            let mut judged_in_first_k = 0usize;
            for (index, &paper) in list.iter().enumerate() {
                let grade = judgments.get(&paper).map(|&grade| grade.into());
                if index < k && grade.is_some() {
                    judged_in_first_k += 1;
                }
                let in_top = tops.ranked.len() - tops.starts.last().copied().unwrap_or(0);
                if in_top == k {
                    // Past the top: only Judged@k's count of the first k is left to make.
                    if index >= k {
                        break;
                    }
                    continue;
                }
                if grade.is_none() && settings.unjudged == Unjudged::Skip {
                    continue;
                }
                let next = u32::try_from(numbers.len()).expect("fewer than 2^32 papers");
                let number = *numbers.entry(paper).or_insert(next);
                if number == next {
                    tops.found_by.push(0);
                }
                tops.found_by[number as usize] += 1;
                tops.ranked.push(Ranked {
                    paper: number,
                    grade,
                });
            }
            let first_k = list.len().min(k);
            judged_at_k.push((first_k > 0).then(|| judged_in_first_k as f64 / first_k as f64));
        }
        tops.starts.push(tops.ranked.len());
        if judgments.is_empty() {
            return (tops, vec![TargetScores::default(); models]);
        }
        let to_find = ToFind::of(judgments, settings);
        let mut top: Vec<Option<Grade>> = Vec::with_capacity(k.min(papers));
        let scores = (judged_at_k.into_iter().enumerate())
            .map(|(model, judged_at_k)| {
                top.clear();
                top.extend(tops.top(model).iter().map(|ranked| ranked.grade));
                let binary = binary_scores(&top, &to_find, settings);
                TargetScores {
                    ndcg: target_ndcg(&top, &to_find, settings),
                    judged_at_k,
                    precision: binary.map(|b| b.precision),
                    recall: binary.map(|b| b.recall),
                    f1: binary.map(|b| b.f1),
                    ap: binary.map(|b| b.ap),
                    rr: binary.map(|b| b.rr),
                }
            })
            .collect();
        (tops, scores)
    }

    /// The top k of the model at `model`, best first.
    pub fn top(&self, model: usize) -> &[Ranked] {
        &self.ranked[self.starts[model]..self.starts[model + 1]]
    }

    /// How many models' tops hold the paper numbered `paper`.
    pub fn found_by(&self, paper: u32) -> usize {
        self.found_by[paper as usize] as usize
    }
}

/// One model on one target: what a per-target metric reads.
#[derive(Debug, Clone, Copy)]
pub struct OnTarget<'a> {
    /// The model's position among the tops.
    pub model: usize,
    /// Every model's top k of the target, this one's among them.
    pub tops: &'a TargetTops,
    /// The metrics' settings: the cutoff, the threshold of relevance and the rest.
    pub settings: &'a Settings,
    /// The model's standard scores on the target.
    pub scores: &'a TargetScores,
}

impl OnTarget<'_> {
    /// The model's own top k.
    pub fn top(&self) -> &[Ranked] {
        self.tops.top(self.model)
    }
}

/// Unique relevant@k (docs/metrics.md): how many papers of the model's top k are relevant
/// (judged at or above the threshold) and in no other model's top k of the target, every top
/// read as the binary metrics read it (condensed under `unjudged = skip`). Defined exactly
/// where the binary metrics are: not where no judged paper reaches the threshold (0 there
/// under `empty = zero`, since then no paper is relevant).
pub fn unique_relevant(on: &OnTarget) -> Option<f64> {
    on.scores.precision?;
    let found_alone = (on.top().iter())
        .filter(|ranked| {
            ranked
                .grade
                .is_some_and(|grade| on.settings.is_relevant(grade))
                && on.tops.found_by(ranked.paper) == 1
        })
        .count();
    Some(found_alone as f64)
}
