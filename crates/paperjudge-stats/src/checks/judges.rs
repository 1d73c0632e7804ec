//! The audit of a machine judge (docs/metrics.md, "Machine judges"): how far its grades agree
//! with the raters' judgments, and whether its own ranking of the models agrees with theirs.
//!
//! What each number speaks for: the agreement is over the pooled pairs of this study's fully
//! rated targets that the judge graded, the judge against the study's judgments (the lower
//! median of each pair's raters' stars): it stands for pairs of targets like these, graded by
//! this judge with this prompt, against raters like these. The judge's ranking is over every
//! target it graded whole; the raters' over the fully rated targets.

use serde::Serialize;

use super::ranking::{self, tau};
use crate::domain::{JudgeName, Stars};
use crate::metrics::{
    krippendorff_alpha, krippendorff_alpha_ci95, quadratic_weighted_kappa, spearman, star_counts,
    ConfusionMatrix, Level, Settings, StarCounts,
};

/// What the audit of one judge reads.
#[derive(Debug, Clone)]
pub struct JudgeInput {
    pub name: JudgeName,
    /// The pairs of fully rated targets it graded: (the raters' judgment, the judge's grade).
    pub pairs: Vec<(Stars, Stars)>,
    pub models: Vec<String>,
    /// Each model's mean NDCG with the judge's grades, over the targets it graded whole.
    pub judge_ndcg: Vec<Option<f64>>,
    /// The targets those means are over.
    pub targets_judged: usize,
    /// Each model's mean NDCG with the raters' judgments, over the fully rated targets.
    pub raters_ndcg: Vec<Option<f64>>,
}

/// One judge's audit: the `judges` key of the checks, a section of `/checks` and `/judges`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgeAudit {
    pub name: JudgeName,
    /// Pairs of fully rated targets the judge graded, which the agreement is over.
    pub pairs_compared: usize,
    /// Krippendorff's alpha, ordinal metric, the judge as one more rater beside the raters'
    /// judgments.
    pub alpha_ordinal: Option<f64>,
    /// Its 95% percentile-bootstrap interval over the pairs.
    pub alpha_ordinal_ci95: Option<[f64; 2]>,
    /// Cohen's kappa with quadratic weights, judge against the raters.
    pub kappa_quadratic: Option<f64>,
    pub spearman: Option<f64>,
    /// `confusion[raters − 1][judge − 1]`: the raters' judgment in rows, the judge's grade in
    /// columns.
    pub confusion: [[u64; 5]; 5],
    /// The judge's mean stars, and the raters', over the pairs compared.
    pub mean_stars: Option<f64>,
    pub mean_stars_raters: Option<f64>,
    /// The share of the pairs compared at the threshold or above, the judge's and the raters'.
    pub share_relevant: Option<f64>,
    pub share_relevant_raters: Option<f64>,
    /// The targets the judge graded whole, which its ranking is over.
    pub targets_judged: usize,
    /// The leader on the judge's grades, and on the raters'.
    pub leader: Option<String>,
    pub leader_raters: Option<String>,
    /// Kendall's tau-b of the judge's ranking of the models against the raters'.
    pub tau_b: Option<f64>,
    /// Each model's mean NDCG on the judge's grades and on the raters', by the raters' order.
    pub ranking: Vec<JudgedModel>,
    pub sentence: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JudgedModel {
    pub model: String,
    pub ndcg_judge: Option<f64>,
    pub ndcg_raters: Option<f64>,
}

/// The audit of the judge `input` describes, with `settings`' threshold for relevance.
pub fn audit(input: &JudgeInput, settings: &Settings) -> JudgeAudit {
    let pairs = &input.pairs;
    let counts: Vec<StarCounts> = (pairs.iter())
        .map(|&(raters, judge)| star_counts(&[raters, judge]))
        .collect();
    let confusion = ConfusionMatrix::of(pairs);
    let as_numbers = |side: fn(&(Stars, Stars)) -> Stars| -> Vec<f64> {
        pairs
            .iter()
            .map(|pair| f64::from(side(pair).get()))
            .collect()
    };
    let (raters, judge) = (as_numbers(|pair| pair.0), as_numbers(|pair| pair.1));
    let mean = |values: &[f64]| {
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let relevant = |side: fn(&(Stars, Stars)) -> Stars| {
        (!pairs.is_empty()).then(|| {
            let count = pairs
                .iter()
                .filter(|pair| settings.is_relevant(side(pair)))
                .count();
            count as f64 / pairs.len() as f64
        })
    };
    let alpha_ordinal = krippendorff_alpha(&counts, Level::Ordinal);
    let kappa_quadratic = quadratic_weighted_kappa(&confusion.counts);
    let leader = ranking::leader(&input.models, &input.judge_ndcg);
    let leader_raters = ranking::leader(&input.models, &input.raters_ndcg);
    let tau_b = tau(&input.raters_ndcg, &input.judge_ndcg);
    let mut audit = JudgeAudit {
        name: input.name.clone(),
        pairs_compared: pairs.len(),
        alpha_ordinal,
        alpha_ordinal_ci95: alpha_ordinal
            .and_then(|_| krippendorff_alpha_ci95(&counts, Level::Ordinal)),
        kappa_quadratic,
        spearman: spearman(&raters, &judge),
        confusion: confusion.counts,
        mean_stars: mean(&judge),
        mean_stars_raters: mean(&raters),
        share_relevant: relevant(|pair| pair.1),
        share_relevant_raters: relevant(|pair| pair.0),
        targets_judged: input.targets_judged,
        leader,
        leader_raters,
        tau_b,
        ranking: (ranking::order(&input.models, &input.raters_ndcg).into_iter())
            .map(|model| JudgedModel {
                model: input.models[model].clone(),
                ndcg_judge: input.judge_ndcg[model],
                ndcg_raters: input.raters_ndcg[model],
            })
            .collect(),
        sentence: String::new(),
    };
    audit.sentence = sentence(&audit);
    audit
}

/// The audit in a sentence or two: how well the judge agrees with the raters (Landis and
/// Koch's words for kappa), whether it is more lenient, and whether its ranking is theirs.
fn sentence(audit: &JudgeAudit) -> String {
    let name = &audit.name;
    let agreement = match (audit.pairs_compared, audit.kappa_quadratic) {
        (0, _) => format!(
            "{name} graded no pair of a fully rated target yet: there is nothing to compare \
             with the raters."
        ),
        (pairs, None) => format!(
            "Over {pairs} pairs of fully rated targets, κ is undefined: the judge or the raters \
             gave every pair the same stars."
        ),
        (pairs, Some(kappa)) => format!(
            "{name} agrees with the raters {} (quadratic κ = {kappa:.2} over {pairs} pairs of \
             fully rated targets).",
            super::strength(kappa)
        ),
    };
    let mut said = agreement;
    if let (Some(judge), Some(raters)) = (audit.share_relevant, audit.share_relevant_raters) {
        if (judge - raters).abs() >= 0.1 {
            said.push_str(&format!(
                " It calls {:.0}% of them relevant, the raters {:.0}%: it is {}.",
                judge * 100.0,
                raters * 100.0,
                if judge > raters {
                    "more lenient"
                } else {
                    "stricter"
                }
            ));
        }
    }
    match (&audit.leader, &audit.leader_raters, audit.tau_b) {
        (Some(judge), Some(raters), Some(tau)) if judge == raters => said.push_str(&format!(
            " On its own grades {judge} leads too (τ-b = {tau:.2} with the raters' ranking)."
        )),
        (Some(judge), Some(raters), Some(tau)) => said.push_str(&format!(
            " On its own grades {judge} leads where the raters' leader is {raters} (τ-b = \
             {tau:.2}): its numbers are no substitute for theirs."
        )),
        _ => {}
    }
    said
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Settings;

    fn stars(pairs: &[(i64, i64)]) -> Vec<(Stars, Stars)> {
        (pairs.iter())
            .map(|&(a, b)| (Stars::new(a).unwrap(), Stars::new(b).unwrap()))
            .collect()
    }

    #[test]
    fn a_lenient_judge_that_ranks_another_model_first_is_said_so() {
        let input = JudgeInput {
            name: JudgeName::new("smollm").unwrap(),
            pairs: stars(&[(1, 4), (2, 4), (4, 5), (5, 5), (1, 1)]),
            models: vec!["A".into(), "B".into()],
            judge_ndcg: vec![Some(0.5), Some(0.9)],
            targets_judged: 7,
            raters_ndcg: vec![Some(0.8), Some(0.4)],
        };
        let audit = audit(&input, &Settings::default());
        assert_eq!(audit.pairs_compared, 5);
        assert_eq!(audit.confusion[0][3], 1);
        assert_eq!(audit.mean_stars, Some(19.0 / 5.0));
        assert_eq!(audit.mean_stars_raters, Some(13.0 / 5.0));
        assert_eq!(audit.share_relevant, Some(0.8));
        assert_eq!(audit.share_relevant_raters, Some(0.4));
        assert_eq!(audit.leader.as_deref(), Some("B"));
        assert_eq!(audit.leader_raters.as_deref(), Some("A"));
        assert_eq!(audit.tau_b, Some(-1.0));
        assert_eq!(audit.ranking[0].model, "A");
        assert!(
            audit
                .sentence
                .contains("It calls 80% of them relevant, the raters 40%: it is more lenient."),
            "{}",
            audit.sentence
        );
        assert!(
            audit
                .sentence
                .contains("On its own grades B leads where the raters' leader is A"),
            "{}",
            audit.sentence
        );
    }
}
