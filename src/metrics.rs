//! The metric contract of `shared/spec/metrics.md`: per-target NDCG@k, Judged@k, P@k, R@k,
//! F1@k, AP@k and RR@k under named options, and the statistics over targets (means that skip
//! undefined values, a bootstrap interval, a paired randomization test, Holm's adjustment).
//!
//! Pure functions only: no I/O, no clock, and every random draw comes from a ChaCha8 stream
//! with a fixed seed, so the same data always gives the same numbers on every machine.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::num::NonZeroUsize;
use std::str::FromStr;

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::domain::{PoolDepth, Stars};

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
    /// The least number of stars that counts as relevant for P, R, F1, AP and RR.
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

    /// The gain of a paper rated `stars`.
    pub fn gain(&self, stars: Stars) -> f64 {
        let rel = self.relevance.of(stars);
        match self.gain {
            Gain::Linear => f64::from(rel),
            Gain::Exponential => f64::from((1u32 << rel) - 1),
        }
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
pub fn evaluate_target<K: Copy + Eq + Hash>(
    list: &[K],
    judgments: &HashMap<K, Stars>,
    settings: &Settings,
) -> TargetScores {
    if judgments.is_empty() {
        return TargetScores::default();
    }
    let k = settings.k.get();
    let top: Vec<Option<Stars>> = list
        .iter()
        .map(|paper| judgments.get(paper).copied())
        .filter(|stars| settings.unjudged == Unjudged::Zero || stars.is_some())
        .take(k)
        .collect();
    let binary = binary_scores(&top, judgments, settings);
    TargetScores {
        ndcg: target_ndcg(&top, judgments, settings),
        judged_at_k: judged_at_k(list, judgments, k),
        precision: binary.map(|b| b.precision),
        recall: binary.map(|b| b.recall),
        f1: binary.map(|b| b.f1),
        ap: binary.map(|b| b.ap),
        rr: binary.map(|b| b.rr),
    }
}

fn target_ndcg<K: Eq + Hash>(
    top: &[Option<Stars>],
    judgments: &HashMap<K, Stars>,
    settings: &Settings,
) -> Option<f64> {
    let k = settings.k.get();
    let judged_ideal = ideal_dcg(judgments.values().map(|&s| settings.gain(s)).collect(), k);
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

fn judged_at_k<K: Eq + Hash>(list: &[K], judgments: &HashMap<K, Stars>, k: usize) -> Option<f64> {
    let top = &list[..list.len().min(k)];
    let judged = top.iter().filter(|p| judgments.contains_key(p)).count();
    (!top.is_empty()).then(|| judged as f64 / top.len() as f64)
}

#[derive(Clone, Copy)]
struct BinaryScores {
    precision: f64,
    recall: f64,
    f1: f64,
    ap: f64,
    rr: f64,
}

fn binary_scores<K: Eq + Hash>(
    top: &[Option<Stars>],
    judgments: &HashMap<K, Stars>,
    settings: &Settings,
) -> Option<BinaryScores> {
    let is_relevant = |stars: Stars| stars >= settings.threshold;
    let relevant = judgments.values().filter(|&&s| is_relevant(s)).count();
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
        if stars.is_some_and(is_relevant) {
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

/// Resamples of the bootstrap and permutations of the randomization test.
pub const RESAMPLES: usize = 10_000;

// Fixed ChaCha8 keys: the random streams, and so every interval and p-value, depend on the
// data alone. ChaCha8's keystream is specified, unlike the `rand` range-sampling algorithms,
// which is why indices and signs are derived from raw words below.
const BOOTSTRAP_SEED: [u8; 32] = *b"paperjudge/bootstrap-ci95/v1....";
const SIGN_FLIP_SEED: [u8; 32] = *b"paperjudge/sign-flip-test/v1....";

/// 95% percentile-bootstrap interval `[lo, hi]` of the mean of `values`; `None` when there
/// are none.
///
/// [`RESAMPLES`] resamples of `values.len()` draws with replacement; `lo` and `hi` are the
/// 2.5% and 97.5% quantiles of the resample means, interpolated linearly between order
/// statistics (Hyndman & Fan type 7, NumPy's default): the quantile p of sorted means
/// m_0..m_{B−1} is m_j + f·(m_{j+1} − m_j) with j + f = p·(B − 1).
pub fn bootstrap_ci95(values: &[f64]) -> Option<[f64; 2]> {
    bootstrap_ci95_each(&[values]).pop().flatten()
}

/// [`bootstrap_ci95`] of each sample, with identical results; samples of the same size share
/// the resample indices (the stream depends on the size alone), which makes a leaderboard of
/// many models fast.
pub fn bootstrap_ci95_each(samples: &[&[f64]]) -> Vec<Option<[f64; 2]>> {
    let mut intervals = vec![None; samples.len()];
    let mut sizes: Vec<usize> = samples.iter().map(|s| s.len()).filter(|&n| n > 0).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let share = RESAMPLES.div_ceil(cores);
    for size in sizes {
        let members: Vec<usize> = (0..samples.len())
            .filter(|&s| samples[s].len() == size)
            .collect();
        // Each core takes a share of the resamples; resample r draws from stream r of the
        // generator, so the intervals do not depend on the number of cores.
        let shares: Vec<Vec<Vec<f64>>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..RESAMPLES)
                .step_by(share)
                .map(|first| {
                    let resamples = first..(first + share).min(RESAMPLES);
                    let members = &members;
                    scope.spawn(move || resampled_means(samples, members, size, resamples))
                })
                .collect();
            (workers.into_iter())
                .map(|worker| worker.join().expect("a bootstrap worker never panics"))
                .collect()
        });
        for (position, &member) in members.iter().enumerate() {
            let mut means: Vec<f64> = (shares.iter())
                .flat_map(|share| share[position].iter().copied())
                .collect();
            means.sort_unstable_by(f64::total_cmp);
            intervals[member] = Some([quantile(&means, 0.025), quantile(&means, 0.975)]);
        }
    }
    intervals
}

/// The means of the bootstrap resamples `resamples` of each of `members` (all of length
/// `size`).
fn resampled_means(
    samples: &[&[f64]],
    members: &[usize],
    size: usize,
    resamples: std::ops::Range<usize>,
) -> Vec<Vec<f64>> {
    let mut means = vec![Vec::with_capacity(resamples.len()); members.len()];
    let mut draws = IndexDraws::new(size);
    let mut indices = vec![0; size];
    for resample in resamples {
        draws.fill(resample as u64, &mut indices);
        for (member, means) in members.iter().zip(&mut means) {
            means.push(gathered_sum(samples[*member], &indices) / size as f64);
        }
    }
    means
}

/// Σ values[i] over `indices` in four interleaved partial sums, which the processor adds in
/// parallel.
#[inline(never)]
fn gathered_sum(values: &[f64], indices: &[u32]) -> f64 {
    let (mut a, mut b, mut c, mut d) = (0.0, 0.0, 0.0, 0.0);
    let mut quads = indices.chunks_exact(4);
    for quad in &mut quads {
        a += values[quad[0] as usize];
        b += values[quad[1] as usize];
        c += values[quad[2] as usize];
        d += values[quad[3] as usize];
    }
    for &index in quads.remainder() {
        a += values[index as usize];
    }
    (a + b) + (c + d)
}

fn quantile(sorted: &[f64], p: f64) -> f64 {
    let position = p * (sorted.len() - 1) as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(sorted.len() - 1);
    sorted[below] + (position - below as f64) * (sorted[above] - sorted[below])
}

/// Uniform indices below `len` from the bootstrap stream: Lemire's multiply-and-shift on
/// 32-bit words, with rejection, so no index is favoured.
struct IndexDraws {
    rng: ChaCha8Rng,
    words: Vec<u8>,
    len: u64,
    reject_below: u32,
}

impl IndexDraws {
    fn new(len: usize) -> IndexDraws {
        let len32 = u32::try_from(len).expect("fewer than 2^32 targets");
        IndexDraws {
            rng: ChaCha8Rng::from_seed(BOOTSTRAP_SEED),
            words: vec![0; 4 * len],
            len: u64::from(len32),
            reject_below: len32.wrapping_neg() % len32,
        }
    }

    /// Resample number `resample`: as many indices as `len`, one little-endian word each of
    /// the generator's stream `resample`.
    fn fill(&mut self, resample: u64, indices: &mut [u32]) {
        self.rng.set_stream(resample);
        self.rng.set_word_pos(0);
        let IndexDraws {
            rng,
            words,
            len,
            reject_below,
        } = self;
        let product = |word: &[u8]| {
            u64::from(u32::from_le_bytes(
                word.try_into().expect("chunks of 4 bytes"),
            )) * *len
        };
        rng.fill_bytes(words);
        let mut any_rejected = false;
        for (index, word) in indices.iter_mut().zip(words.chunks_exact(4)) {
            let product = product(word);
            any_rejected |= (product as u32) < *reject_below;
            *index = (product >> 32) as u32;
        }
        // Rare (probability below len / 2^32 a word): each rejected word, in order, is
        // replaced by the next accepted word of the stream.
        if any_rejected {
            for (index, word) in indices.iter_mut().zip(words.chunks_exact(4)) {
                let mut product = product(word);
                while (product as u32) < *reject_below {
                    product = u64::from(rng.next_u32()) * *len;
                }
                *index = (product >> 32) as u32;
            }
        }
    }
}

/// Two-sided p-value of the paired sign-flip randomization test on per-target differences
/// between two models; `None` when there are none.
///
/// Each of [`RESAMPLES`] permutations flips the sign of every difference with probability
/// 1/2; p = (1 + #{|Σ flipped| ≥ |Σ d|}) / (1 + RESAMPLES). Sums stand in for means (same
/// count). Sums that differ from the observed one by no more than their rounding error count
/// as ties, so all-zero differences give exactly p = 1.
pub fn sign_flip_p_value(differences: &[f64]) -> Option<f64> {
    if differences.is_empty() {
        return None;
    }
    let observed = differences.iter().sum::<f64>().abs();
    let magnitude: f64 = differences.iter().map(|d| d.abs()).sum();
    let rounding = differences.len() as f64 * f64::EPSILON * magnitude;
    // Σ ±d of every four consecutive differences under each of the 16 sign patterns: the
    // permutations then need one lookup per four differences.
    let patterns: Vec<[f64; 16]> = differences
        .chunks(4)
        .map(|quad| {
            std::array::from_fn(|pattern| {
                (quad.iter().enumerate())
                    .map(|(j, &d)| if pattern >> j & 1 == 1 { -d } else { d })
                    .sum()
            })
        })
        .collect();
    let mut rng = ChaCha8Rng::from_seed(SIGN_FLIP_SEED);
    let mut at_least_as_extreme = 0usize;
    for _ in 0..RESAMPLES {
        if flipped_sum(&patterns, &mut rng).abs() >= observed - rounding {
            at_least_as_extreme += 1;
        }
    }
    Some((1 + at_least_as_extreme) as f64 / (1 + RESAMPLES) as f64)
}

/// Σ ±d with independent fair signs: one random word gives the signs of 64 differences, bit
/// j for difference j, so 4 bits pick the pattern of each quad. Four interleaved partial sums.
#[inline(never)]
fn flipped_sum(patterns: &[[f64; 16]], rng: &mut ChaCha8Rng) -> f64 {
    let (mut a, mut b, mut c, mut d) = (0.0, 0.0, 0.0, 0.0);
    for word_of_quads in patterns.chunks(16) {
        let mut signs = rng.next_u64();
        let mut fours = word_of_quads.chunks_exact(4);
        for four in &mut fours {
            a += four[0][(signs & 15) as usize];
            b += four[1][(signs >> 4 & 15) as usize];
            c += four[2][(signs >> 8 & 15) as usize];
            d += four[3][(signs >> 12 & 15) as usize];
            signs >>= 16;
        }
        for quad in fours.remainder() {
            a += quad[(signs & 15) as usize];
            signs >>= 4;
        }
    }
    (a + b) + (c + d)
}

/// Holm's step-down adjustment of `p_values` (one family), returned in the same order;
/// monotone in the sorted order and capped at 1.
pub fn holm(p_values: &[f64]) -> Vec<f64> {
    let count = p_values.len();
    let mut order: Vec<usize> = (0..count).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let mut adjusted = vec![0.0; count];
    let mut running_max: f64 = 0.0;
    for (position, &index) in order.iter().enumerate() {
        let scaled = ((count - position) as f64 * p_values[index]).min(1.0);
        running_max = running_max.max(scaled);
        adjusted[index] = running_max;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn holm_is_monotone_and_capped() {
        assert_eq!(holm(&[0.01, 0.04, 0.03]), vec![0.03, 0.06, 0.06]);
        assert_eq!(holm(&[0.5, 0.6]), vec![1.0, 1.0]);
        assert_eq!(holm(&[]), Vec::<f64>::new());
    }

    #[test]
    fn quantile_interpolates_linearly() {
        let sorted = [0.0, 1.0, 2.0, 3.0];
        assert_eq!(quantile(&sorted, 0.5), 1.5);
        assert_eq!(quantile(&sorted, 1.0), 3.0);
        assert_eq!(quantile(&sorted, 0.0), 0.0);
    }

    #[test]
    fn samples_of_one_size_share_resamples_without_changing_intervals() {
        let first: Vec<f64> = (0..40).map(|i| f64::from(i % 7) / 7.0).collect();
        let second: Vec<f64> = (0..40).map(|i| f64::from(i % 3) / 3.0).collect();
        let third = vec![0.25, 0.75];
        let together = bootstrap_ci95_each(&[&first, &[], &second, &third]);
        assert_eq!(
            together,
            [
                bootstrap_ci95(&first),
                None,
                bootstrap_ci95(&second),
                bootstrap_ci95(&third)
            ]
        );
        assert_eq!(bootstrap_ci95(&[0.5; 9]), Some([0.5, 0.5]));
    }

    #[test]
    fn clear_differences_are_significant() {
        let differences = vec![0.1; 30];
        let p = sign_flip_p_value(&differences).unwrap();
        // Only the identity and the all-flipped sign patterns are as extreme: p ≈ 1/10001.
        assert!(p < 0.001, "{p}");
    }
}
