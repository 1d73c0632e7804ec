//! The metric contract of `docs/metrics.md`: per-target NDCG@k, Judged@k, P@k, R@k,
//! F1@k, AP@k, RR@k and unique relevant@k under named options, and the statistics over targets (means that skip
//! undefined values, a bootstrap interval, a paired randomization test, Holm's adjustment),
//! the anytime-valid confidence sequences of the decision, and the study checks' statistics
//! (weighted kappa, Kendall's tau-b).
//!
//! Pure functions only: no I/O, no clock, and every random draw comes from a ChaCha8 stream
//! with a fixed seed (or, for the leaderboard's resampling, a SplitMix64 stream keyed by a
//! target's id and a fixed seed), so the same data always gives the same numbers on every
//! machine.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::num::NonZeroUsize;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::domain::{Grade, PoolDepth, RaterName, Stars};

mod agreement;
mod confidence_sequence;
mod on_target;
mod prediction_powered;
mod resampling;
mod student_t;
mod study_checks;

pub use agreement::{krippendorff_alpha, krippendorff_alpha_ci95, star_counts, Level, StarCounts};
pub use confidence_sequence::{
    confidence_sequence, pairwise_alpha, Betting, Bounds, ConfidenceSequence, Interval, GRID_STEPS,
};
pub use on_target::{unique_relevant, OnTarget, Ranked, TargetTops};
pub use prediction_powered::{
    compare_pairs, estimate_mean, estimate_mean_with, HumanOnly, Judged, PairComparison, PairTest,
    PredictionPowered, Unavailable, MIN_JUDGED_ONLY, MIN_RATED,
};
pub use resampling::additive::{self, poisson_bootstrap_ci95, sign_flip_p_value};
pub use resampling::{bootstrap_ci95, bootstrap_ci95_each, holm, Comparison, RESAMPLES};
pub use student_t::{t_quantile, t_two_sided_p};
pub use study_checks::{
    consistency, kendall_tau_b, quadratic_weighted_kappa, spearman, ConfusionMatrix, Consistency,
};

/// A text that is not one of an option's allowed values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{option} must be one of: {} (got {got:?})", .allowed.join(", "))]
pub struct InvalidOption {
    /// The option's name as the command line spells it, e.g. `gain`.
    pub option: &'static str,
    /// Every value the option accepts.
    pub allowed: &'static [&'static str],
    /// What was given instead.
    pub got: String,
}

/// Defines a settings enum whose values are spelled in kebab-case everywhere: command line,
/// query parameters, JSON and CSV.
macro_rules! metric_option {
    (
        $(#[$meta:meta])*
        $name:ident, option $option:literal, default $default:ident,
        { $($(#[$variant_meta:meta])* $variant:ident => $text:literal,)+ }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$variant_meta])* $variant,)+
        }

        impl $name {
            /// Every value's name, in the order the contract lists them.
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            /// The value's name as the command line, URLs and exports spell it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name::$default
            }
        }

        impl FromStr for $name {
            type Err = InvalidOption;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                match text {
                    $($text => Ok($name::$variant),)+
                    _ => Err(InvalidOption {
                        option: $option,
                        allowed: Self::NAMES,
                        got: text.to_owned(),
                    }),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = String::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

metric_option! {
    /// How a relevance grade becomes a gain.
    Gain, option "gain", default Linear, {
        /// gain = rel (classic NDCG, trec_eval).
        Linear => "linear",
        /// gain = 2^rel − 1 (Burges et al. 2005).
        Exponential => "exponential",
    }
}

metric_option! {
    /// How stars become a relevance grade `rel`.
    Relevance, option "relevance", default StarsMinusOne, {
        /// rel = stars − 1, so 1 star (irrelevant) is worth nothing.
        StarsMinusOne => "stars-minus-one",
        /// rel = stars.
        Stars => "stars",
    }
}

impl Relevance {
    /// The relevance grade `rel` of a paper rated `stars` (also the qrels level).
    pub fn of(self, stars: Stars) -> u8 {
        match self {
            Relevance::StarsMinusOne => stars.get() - 1,
            Relevance::Stars => stars.get(),
        }
    }
}

metric_option! {
    /// Which ranking normalises DCG.
    Ideal, option "ideal", default Judged, {
        /// All judged papers of the target sorted by gain (trec_eval `ndcg_cut`); every model
        /// of a target shares it.
        Judged => "judged",
        /// The list's own top k sorted by gain.
        List => "list",
    }
}

metric_option! {
    /// What an unrated paper in a list counts as.
    Unjudged, option "unjudged", default Zero, {
        /// Gain 0, not relevant (trec_eval).
        Zero => "zero",
        /// Removed from the list before the cutoff: the condensed list (trec_eval `-J`).
        Skip => "skip",
    }
}

metric_option! {
    /// What a target with nothing to find scores: NDCG when no judged paper has a positive
    /// gain, the binary metrics when no judged paper reaches the threshold.
    Empty, option "empty", default Skip, {
        /// Undefined: left out of the mean and counted as skipped.
        Skip => "skip",
        /// 0 (trec_eval).
        Zero => "zero",
    }
}

metric_option! {
    /// The denominator of AP@k.
    ApDenominator, option "ap-denominator", default Relevant, {
        /// All relevant judged papers of the target (trec_eval `map_cut`).
        Relevant => "relevant",
        /// The relevant papers in the top k (AP is 0 when there are none).
        Hits => "hits",
        /// min(k, relevant judged papers).
        MinKRelevant => "min-k-relevant",
    }
}

/// One judgment per pair from the stars its raters gave it (docs/metrics.md, "Several
/// raters"). With one rater every choice gives their stars.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum Judgments {
    /// The median; of an even count, the lower of the two middle values (the cautious reading).
    #[default]
    LowerMedian,
    /// The median; of an even count, the higher of the two middle values.
    UpperMedian,
    /// The mean: a fractional grade, whose gain is computed as usual.
    Mean,
    /// One rater's stars alone, over the targets they rated whole.
    Rater(RaterName),
}

impl Judgments {
    /// Every value's name, `rater:NAME` for any rater's name.
    pub const NAMES: &'static [&'static str] =
        &["lower-median", "upper-median", "mean", "rater:NAME"];

    /// The judgment of a pair from the stars its raters gave it (one rater's alone for
    /// [`Judgments::Rater`], whose caller picks them), which it sorts; `None` for no stars.
    pub fn of(&self, sorted: &mut [Stars]) -> Option<Grade> {
        sorted.sort_unstable();
        match self {
            Judgments::Mean => Grade::mean(sorted),
            Judgments::UpperMedian => sorted.get(sorted.len() / 2).map(|&s| s.into()),
            Judgments::LowerMedian | Judgments::Rater(_) => {
                (sorted.len().checked_sub(1)).map(|last| sorted[last / 2].into())
            }
        }
    }

    /// Whether every judgment is a whole number of stars (as qrels hold them).
    pub fn is_whole(&self) -> bool {
        *self != Judgments::Mean
    }

    /// The judgments in words: "judgments: the lower median of the raters' stars".
    pub fn describe(&self) -> String {
        match self {
            Judgments::LowerMedian => {
                "judgments: the median of the raters' stars, the lower of two middle ones"
                    .to_owned()
            }
            Judgments::UpperMedian => {
                "judgments: the median of the raters' stars, the higher of two middle ones"
                    .to_owned()
            }
            Judgments::Mean => "judgments: the mean of the raters' stars".to_owned(),
            Judgments::Rater(name) => {
                format!("judgments: {name}'s stars alone, over the targets {name} rated whole")
            }
        }
    }
}

impl FromStr for Judgments {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "lower-median" => Ok(Judgments::LowerMedian),
            "upper-median" => Ok(Judgments::UpperMedian),
            "mean" => Ok(Judgments::Mean),
            _ => match text.strip_prefix("rater:") {
                Some(name) => RaterName::new(name)
                    .map(Judgments::Rater)
                    .map_err(|invalid| format!("judgments {text:?}: {invalid}")),
                None => Err(format!(
                    "judgments must be one of: {} (got {text:?})",
                    Self::NAMES.join(", ")
                )),
            },
        }
    }
}

impl fmt::Display for Judgments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Judgments::LowerMedian => f.write_str("lower-median"),
            Judgments::UpperMedian => f.write_str("upper-median"),
            Judgments::Mean => f.write_str("mean"),
            Judgments::Rater(name) => write!(f, "rater:{name}"),
        }
    }
}

impl Serialize for Judgments {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Every option of the metric contract. `Default` is the contract's default with k = 8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Settings {
    /// The cutoff of every metric.
    pub k: NonZeroUsize,
    pub gain: Gain,
    pub relevance: Relevance,
    pub ideal: Ideal,
    pub unjudged: Unjudged,
    pub empty: Empty,
    /// The least number of stars that counts as relevant for P, R, F1, AP, RR and
    /// unique relevant@k.
    #[serde(serialize_with = "serialize_stars")]
    pub threshold: Stars,
    pub ap_denominator: ApDenominator,
}

fn serialize_stars<S: Serializer>(stars: &Stars, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u8(stars.get())
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            k: NonZeroUsize::new(8).expect("8 is not zero"),
            gain: Gain::default(),
            relevance: Relevance::default(),
            ideal: Ideal::default(),
            unjudged: Unjudged::default(),
            empty: Empty::default(),
            threshold: Stars::new(4).expect("4 is a valid number of stars"),
            ap_denominator: ApDenominator::default(),
        }
    }
}

impl Settings {
    /// The defaults with k set to the study's pool depth, as the contract asks.
    pub fn for_pool_depth(pool_depth: PoolDepth) -> Settings {
        let k = usize::try_from(pool_depth.get()).expect("a pool depth fits in usize");
        Settings {
            k: NonZeroUsize::new(k).expect("a pool depth is at least 1"),
            ..Settings::default()
        }
    }

    /// The gain of a paper judged `grade`: a number of stars, or the mean of several raters'
    /// (docs/metrics.md, "Several raters"), whose relevance lies between two whole grades.
    pub fn gain(&self, grade: impl Into<Grade>) -> f64 {
        let grade = grade.into();
        match grade.as_stars() {
            Some(stars) => {
                let rel = self.relevance.of(stars);
                match self.gain {
                    Gain::Linear => f64::from(rel),
                    Gain::Exponential => f64::from((1u32 << rel) - 1),
                }
            }
            None => {
                let rel = match self.relevance {
                    Relevance::StarsMinusOne => grade.get() - 1.0,
                    Relevance::Stars => grade.get(),
                };
                match self.gain {
                    Gain::Linear => rel,
                    Gain::Exponential => rel.exp2() - 1.0,
                }
            }
        }
    }

    /// Whether a paper judged `grade` counts as relevant for P, R, F1, AP, RR and
    /// unique relevant@k.
    pub fn is_relevant(&self, grade: impl Into<Grade>) -> bool {
        grade.into().get() >= f64::from(self.threshold.get())
    }

    /// The settings in plain words, for pages and terminal output.
    pub fn describe(&self) -> String {
        let k = self.k;
        let gain = match (self.gain, self.relevance) {
            (Gain::Linear, Relevance::StarsMinusOne) => "linear gain = stars − 1",
            (Gain::Linear, Relevance::Stars) => "linear gain = stars",
            (Gain::Exponential, Relevance::StarsMinusOne) => "exponential gain = 2^(stars − 1) − 1",
            (Gain::Exponential, Relevance::Stars) => "exponential gain = 2^stars − 1",
        };
        let ideal = match self.ideal {
            Ideal::Judged => "ideal from all judged papers of each target".to_owned(),
            Ideal::List => format!("ideal from each list's own top {k}"),
        };
        let unjudged = match self.unjudged {
            Unjudged::Zero => "unrated papers count 0",
            Unjudged::Skip => "unrated papers removed from lists",
        };
        let empty = match self.empty {
            Empty::Skip => "targets without relevant papers skipped",
            Empty::Zero => "targets without relevant papers count 0",
        };
        let relevant = match self.threshold.get() {
            5 => "relevant = 5 stars".to_owned(),
            stars => format!("relevant = {stars}+ stars"),
        };
        let ap = match self.ap_denominator {
            ApDenominator::Relevant => "AP over all relevant papers".to_owned(),
            ApDenominator::Hits => format!("AP over the relevant papers in the top {k}"),
            ApDenominator::MinKRelevant => format!("AP over min({k}, relevant papers)"),
        };
        format!("NDCG@{k} · {gain} · {ideal} · {unjudged} · {empty} · {relevant} · {ap}")
    }

    /// The value a target with nothing to find gets.
    fn score_when_empty(&self) -> Option<f64> {
        match self.empty {
            Empty::Skip => None,
            Empty::Zero => Some(0.0),
        }
    }
}

/// DCG@k of gains in ranked order: Σ gain_i / log2(i + 1) over i = 1..min(k, len).
pub fn dcg(gains: &[f64], k: usize) -> f64 {
    gains
        .iter()
        .take(k)
        .enumerate()
        .map(|(index, gain)| gain / ((index + 2) as f64).log2())
        // Not `sum()`, whose empty sum is -0.0 and would print as "-0".
        .fold(0.0, |sum, term| sum + term)
}

/// DCG@k of `gains` over DCG@k of `ideal_gains` sorted descending; `None` when the ideal
/// DCG is 0.
pub fn ndcg(gains: &[f64], ideal_gains: &[f64], k: usize) -> Option<f64> {
    let ideal = ideal_dcg(ideal_gains.to_vec(), k);
    (ideal > 0.0).then(|| dcg(gains, k) / ideal)
}

fn ideal_dcg(mut gains: Vec<f64>, k: usize) -> f64 {
    gains.sort_unstable_by(|a, b| b.total_cmp(a));
    dcg(&gains, k)
}

/// One model's scores on one target. `None` means undefined (see [`evaluate_target`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TargetScores {
    pub ndcg: Option<f64>,
    /// Share of the top min(k, |list|) that is rated, on the list as given (not condensed).
    pub judged_at_k: Option<f64>,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub f1: Option<f64>,
    pub ap: Option<f64>,
    pub rr: Option<f64>,
}

/// Scores a model's ranked `list` (best first, no paper twice; empty when the model has no
/// list for the target) against the target's `judgments`.
///
/// - A target without any judgment is not evaluated: every score is undefined.
/// - NDCG is undefined (0 with `empty = zero`) when no judged paper has a positive gain; the
///   binary metrics likewise when no judged paper reaches the threshold. Otherwise an empty
///   list scores 0, and so does a list whose own ideal is 0 under `ideal = list`.
/// - With `unjudged = skip` every metric but Judged@k sees the condensed list.
/// - Judged@k is undefined for an empty list.
pub fn evaluate_target<K: Copy + Eq + Hash, G: Copy + Into<Grade>>(
    list: &[K],
    judgments: &HashMap<K, G>,
    settings: &Settings,
) -> TargetScores {
    let (_, scores) = TargetTops::of(std::iter::once(list), judgments, settings);
    scores[0]
}

/// What a target's judgments hold to find, whichever list is scored there: read once per
/// target, not once per model.
#[derive(Debug, Clone, Copy)]
struct ToFind {
    /// The ideal DCG@k of every judged paper.
    judged_ideal: f64,
    /// How many judged papers reach the threshold (R of recall).
    relevant: usize,
}

impl ToFind {
    fn of<K, G: Copy + Into<Grade>>(judgments: &HashMap<K, G>, settings: &Settings) -> ToFind {
        ToFind {
            judged_ideal: ideal_dcg(
                judgments.values().map(|&s| settings.gain(s)).collect(),
                settings.k.get(),
            ),
            relevant: (judgments.values())
                .filter(|&&grade| settings.is_relevant(grade))
                .count(),
        }
    }
}

fn target_ndcg(top: &[Option<Grade>], to_find: &ToFind, settings: &Settings) -> Option<f64> {
    let k = settings.k.get();
    let judged_ideal = to_find.judged_ideal;
    if judged_ideal == 0.0 {
        return settings.score_when_empty();
    }
    let gains: Vec<f64> = top
        .iter()
        .map(|stars| stars.map_or(0.0, |s| settings.gain(s)))
        .collect();
    let ideal = match settings.ideal {
        Ideal::Judged => judged_ideal,
        Ideal::List => ideal_dcg(gains.clone(), k),
    };
    // Under `ideal = list` a list with nothing of value has ideal 0 and DCG 0: it found
    // nothing of a target that has something to find, so it scores 0.
    Some(if ideal > 0.0 {
        dcg(&gains, k) / ideal
    } else {
        0.0
    })
}

#[derive(Clone, Copy)]
struct BinaryScores {
    precision: f64,
    recall: f64,
    f1: f64,
    ap: f64,
    rr: f64,
}

fn binary_scores(
    top: &[Option<Grade>],
    to_find: &ToFind,
    settings: &Settings,
) -> Option<BinaryScores> {
    let relevant = to_find.relevant;
    if relevant == 0 {
        return settings.score_when_empty().map(|zero| BinaryScores {
            precision: zero,
            recall: zero,
            f1: zero,
            ap: zero,
            rr: zero,
        });
    }
    let mut hits = 0usize;
    let mut precision_sum = 0.0;
    let mut first_hit = None;
    for (index, stars) in top.iter().enumerate() {
        if stars.is_some_and(|grade| settings.is_relevant(grade)) {
            hits += 1;
            precision_sum += hits as f64 / (index + 1) as f64;
            first_hit.get_or_insert(index + 1);
        }
    }
    let k = settings.k.get();
    let precision = hits as f64 / k as f64;
    let recall = hits as f64 / relevant as f64;
    let f1 = if hits == 0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    let ap_denominator = match settings.ap_denominator {
        ApDenominator::Relevant => relevant,
        ApDenominator::Hits => hits,
        ApDenominator::MinKRelevant => k.min(relevant),
    };
    let ap = if hits == 0 {
        0.0
    } else {
        precision_sum / ap_denominator as f64
    };
    let rr = first_hit.map_or(0.0, |rank| 1.0 / rank as f64);
    Some(BinaryScores {
        precision,
        recall,
        f1,
        ap,
        rr,
    })
}

/// A mean that skipped undefined values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mean {
    /// `None` when no value was defined.
    pub value: Option<f64>,
    /// How many defined values went into the mean.
    pub used: usize,
    /// How many undefined values were left out.
    pub skipped: usize,
}

/// The arithmetic mean of the defined values.
/// The median of `values` (the mean of the middle two of an even count); `None` for none.
pub fn median(values: &mut [f64]) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    match values.len() {
        0 => None,
        len if len % 2 == 1 => Some(values[middle]),
        _ => Some((values[middle - 1] + values[middle]) / 2.0),
    }
}

pub fn mean(values: impl IntoIterator<Item = Option<f64>>) -> Mean {
    let (mut sum, mut used, mut skipped) = (0.0, 0usize, 0usize);
    for value in values {
        match value {
            Some(value) => {
                sum += value;
                used += 1;
            }
            None => skipped += 1,
        }
    }
    Mean {
        value: (used > 0).then(|| sum / used as f64),
        used,
        skipped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(&mut []), None);
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }

    #[test]
    fn options_parse_their_kebab_case_names_only() {
        for gain in [Gain::Linear, Gain::Exponential] {
            assert_eq!(gain.as_str().parse::<Gain>(), Ok(gain));
        }
        assert_eq!(
            "min-k-relevant".parse::<ApDenominator>(),
            Ok(ApDenominator::MinKRelevant)
        );
        assert_eq!(
            "foo".parse::<Gain>().unwrap_err().to_string(),
            r#"gain must be one of: linear, exponential (got "foo")"#
        );
        assert_eq!(
            "Stars".parse::<Relevance>().unwrap_err().to_string(),
            r#"relevance must be one of: stars-minus-one, stars (got "Stars")"#
        );
        assert!("min_k_relevant".parse::<ApDenominator>().is_err());
    }

    #[test]
    fn judgments_combine_the_raters_stars() {
        let stars = |values: &[i64]| -> Vec<Stars> {
            values.iter().map(|&v| Stars::new(v).unwrap()).collect()
        };
        let grade =
            |judgments: Judgments, values: &[i64]| judgments.of(&mut stars(values)).map(Grade::get);
        assert_eq!(grade(Judgments::LowerMedian, &[4, 2]), Some(2.0));
        assert_eq!(grade(Judgments::UpperMedian, &[4, 2]), Some(4.0));
        assert_eq!(grade(Judgments::Mean, &[4, 2, 5]), Some(11.0 / 3.0));
        assert_eq!(grade(Judgments::LowerMedian, &[5, 1, 3]), Some(3.0));
        assert_eq!(grade(Judgments::UpperMedian, &[5, 1, 3]), Some(3.0));
        assert_eq!(grade(Judgments::LowerMedian, &[1, 5, 4, 2]), Some(2.0));
        assert_eq!(grade(Judgments::UpperMedian, &[1, 5, 4, 2]), Some(4.0));
        for judgments in [
            Judgments::LowerMedian,
            Judgments::UpperMedian,
            Judgments::Mean,
        ] {
            assert_eq!(grade(judgments.clone(), &[3]), Some(3.0));
            assert_eq!(grade(judgments, &[]), None);
        }
        for text in ["lower-median", "upper-median", "mean", "rater:Ann Lee"] {
            assert_eq!(text.parse::<Judgments>().unwrap().to_string(), text);
        }
        assert_eq!(
            "median".parse::<Judgments>().unwrap_err(),
            r#"judgments must be one of: lower-median, upper-median, mean, rater:NAME (got "median")"#
        );
        assert!("rater:"
            .parse::<Judgments>()
            .unwrap_err()
            .contains("is empty"));
    }

    #[test]
    fn a_mean_grade_gains_between_its_neighbours() {
        let settings = Settings::default();
        let three_and_a_half = Judgments::Mean
            .of(&mut [Stars::new(3).unwrap(), Stars::new(4).unwrap()])
            .unwrap();
        assert_eq!(settings.gain(three_and_a_half), 2.5);
        let exponential = Settings {
            gain: Gain::Exponential,
            ..Settings::default()
        };
        assert!((exponential.gain(three_and_a_half) - (2f64.powf(2.5) - 1.0)).abs() < 1e-12);
        assert!(!settings.is_relevant(three_and_a_half));
        assert!(settings.is_relevant(Stars::new(4).unwrap()));
    }

    #[test]
    fn default_settings_describe_themselves() {
        assert_eq!(
            Settings::default().describe(),
            "NDCG@8 · linear gain = stars − 1 · ideal from all judged papers of each target \
             · unrated papers count 0 · targets without relevant papers skipped \
             · relevant = 4+ stars · AP over all relevant papers"
        );
    }

    #[test]
    fn settings_serialize_with_contract_names() {
        let json = serde_json::to_string(&Settings::default()).unwrap();
        assert_eq!(
            json,
            r#"{"k":8,"gain":"linear","relevance":"stars-minus-one","ideal":"judged","unjudged":"zero","empty":"skip","threshold":4,"ap_denominator":"relevant"}"#
        );
    }

    #[test]
    fn gains_follow_relevance_and_gain() {
        let five = Stars::new(5).unwrap();
        let settings = |gain, relevance| Settings {
            gain,
            relevance,
            ..Settings::default()
        };
        assert_eq!(
            settings(Gain::Linear, Relevance::StarsMinusOne).gain(five),
            4.0
        );
        assert_eq!(settings(Gain::Linear, Relevance::Stars).gain(five), 5.0);
        assert_eq!(
            settings(Gain::Exponential, Relevance::StarsMinusOne).gain(five),
            15.0
        );
        assert_eq!(
            settings(Gain::Exponential, Relevance::Stars).gain(five),
            31.0
        );
    }
}
