//! The leaderboard's resampling, made of sums that a target adds to: the Poisson bootstrap of
//! each model's mean NDCG and the paired sign-flip test of every pair of models.
//!
//! Each target draws its own part of every resample, from a generator keyed by its id alone:
//! its weight in each of the [`RESAMPLES`] bootstrap resamples (Poisson(1), Hanley & MacGibbon
//! 2006; Chamandy et al. 2012) and its sign in each of as many permutations. A resample's
//! statistic is a sum over the targets of what each contributes, so the numbers of n targets
//! are kept as sums, a finished target adds its part to them and a changed one takes its old
//! part away: the leaderboard after a rating costs one target's draws, not n.
//!
//! The sums are exact. Each value (in [−1, 1]: an NDCG, a difference of two) is rounded to a
//! whole number of [`QUANTUM`]s, q = round(x · 2^32), and every sum is of whole numbers, so
//! the order of the additions changes no bit: the sums of the same targets are the same
//! whether they were added in the study's order, in another, or taken away and added again,
//! and ties of |S*| ≥ |S| are decided exactly. The sums are kept in f64, exact while every
//! partial sum stays below 2^53: a weight is at most [`MAX_WEIGHT`] = 8 and |q| at most 2^32,
//! so a bootstrap sum over n targets is at most 8 · 2^32 · n, below 2^53 for n ≤ 2^18
//! ([`MAX_TARGETS`], 262,144: fifty times the fully rated targets of study L, six times all
//! its targets); a sign-flip sum at most 2^32 · n. Beyond that bound the numbers would still
//! be the same resampling, only not to the bit in every order. The rounding moves a value by
//! at most 2^−33, and so an interval's ends by as little.
//!
//! The generator (docs/metrics.md states it for anyone to reproduce an interval;
//! `tests/fixtures/resampling/reference.py` does, and a test compares): the key of a target is
//! FNV-1a 64 of its id's UTF-8 bytes, xor [`WEIGHTS_SEED`] for its weights and xor
//! [`SIGNS_SEED`] for its signs; each key seeds a SplitMix64 stream. Output k of the weights'
//! stream gives the weights of resamples 4k .. 4k + 3, from its bits 0–15, 16–31, 32–47 and
//! 48–63: a 16-bit uniform u gives the weight #{k : u ≥ C_k} over the 8 thresholds C_k =
//! round(2^16 · P(Poisson(1) ≤ k)), k = 0..7, so the weight is Poisson(1) to within 2^−17 of
//! each probability, cut at 8 (P(X ≥ 8) = 10^−5). Output j of the signs' stream gives the signs
//! of permutations 64j .. 64j + 63: bit i set flips the target in permutation 64j + i.
//!
//! The cost is that of the plain bootstrap: every target adds to every resample. The sums of 8
//! models lie side by side in a row of 8 f64 (one cache line, added as vectors), and a target
//! adds to resample r the row of its multiples w · q that its weight w picks; four targets add
//! to permutation r the row of their flipped sums that their four signs pick (16 rows). The
//! full computation ([`Sums::of`]) runs over blocks of resamples, on every core, each block's
//! sums in the cache while every target adds to them.

use rayon::prelude::*;

use super::{holm, quantile_of, Comparison, RESAMPLES};

/// The unit values are rounded to: 2^−32.
pub const QUANTUM: f64 = 1.0 / (1u64 << 32) as f64;

/// The largest bootstrap weight a target takes.
pub const MAX_WEIGHT: usize = THRESHOLDS.len();

/// The most targets whose sums stay exact in f64 (see the module's comment):
/// 8 · 2^32 · n ≤ 2^53.
pub const MAX_TARGETS: usize = 1 << 18;

/// Xor'ed with a target's key to seed its weights' stream ("paperjb1" in ASCII).
pub const WEIGHTS_SEED: u64 = 0x7061_7065_726a_6231;
/// Xor'ed with a target's key to seed its signs' stream ("paperjs1" in ASCII).
pub const SIGNS_SEED: u64 = 0x7061_7065_726a_7331;

/// round(2^16 · P(Poisson(1) ≤ k)) for k = 0..7 (for k = 8 it is 2^16: no 16-bit uniform
/// reaches it). `tests/fixtures/resampling/reference.py` computes them to 60 digits and checks
/// these.
const THRESHOLDS: [u16; 8] = [
    24_109, 48_219, 60_273, 64_292, 65_296, 65_497, 65_531, 65_535,
];

/// The weight of each 16-bit uniform: #{k : u ≥ C_k}.
static WEIGHT_OF: [u8; 1 << 16] = weight_table();

const fn weight_table() -> [u8; 1 << 16] {
    let mut table = [0; 1 << 16];
    let mut uniform = 0;
    while uniform < table.len() {
        let mut weight = 0;
        while weight < THRESHOLDS.len() && uniform >= THRESHOLDS[weight] as usize {
            weight += 1;
        }
        table[uniform] = weight as u8;
        uniform += 1;
    }
    table
}

/// Byte i of `SPREAD[b]` is bit i of b.
static SPREAD: [u64; 256] = spread_table();

const fn spread_table() -> [u64; 256] {
    let mut table = [0; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            table[byte] |= ((byte as u64 >> bit) & 1) << (8 * bit);
            bit += 1;
        }
        byte += 1;
    }
    table
}

/// Resamples drawn together in the full computation ([`Sums::of`]): a block's sums of 8
/// models (64 kB) stay in the second-level cache while every target adds to them. A multiple
/// of 64, so that a block starts at a word of the signs.
const BLOCK: usize = 512;

/// Targets added in one pass over a block's resamples ([`Block::add`]).
const AT_ONCE: usize = 8;

/// Models side by side in a [`Row`].
const LANES: usize = 8;

/// One value of each of 8 models: one cache line, which the processor adds as vectors.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(align(64))]
struct Row([f64; LANES]);

impl Row {
    const ZERO: Row = Row([0.0; LANES]);

    fn add(&mut self, other: &Row) {
        for (sum, term) in self.0.iter_mut().zip(&other.0) {
            *sum += term;
        }
    }

    fn scaled(&self, by: f64) -> Row {
        Row(self.0.map(|value| value * by))
    }
}

/// The key of a target: FNV-1a 64 of its id.
fn key(target: &str) -> u64 {
    (target.bytes()).fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// SplitMix64 (Steele, Lea & Flood 2014) from `seed`, its output `from` first: output k is
/// mix(seed + (k + 1) · γ).
fn split_mix(seed: u64, from: usize) -> impl Iterator<Item = u64> {
    const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut state = seed.wrapping_add((from as u64).wrapping_mul(GAMMA));
    std::iter::repeat_with(move || {
        state = state.wrapping_add(GAMMA);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    })
}

/// The value `x` (in [−1, 1]) as a whole number of [`QUANTUM`]s, held in an f64.
fn quantized(x: f64) -> f64 {
    (x.clamp(-1.0, 1.0) / QUANTUM).round()
}

/// One target to add to the resamples `from .. from + len`: its draws, and each model's
/// value in rows of [`LANES`] models. Filled again for each target, its buffers kept.
#[derive(Default)]
struct Drawn {
    /// The target's bootstrap weight in each resample.
    weights: Vec<u8>,
    /// Its signs: bit r % 64 of word (r − from) / 64 set where permutation r flips it.
    signs: Vec<u64>,
    /// q of each model (0 where undefined), times the sign of the addition.
    values: Vec<Row>,
    /// 1 for each model defined here, 0 for another (and for the lanes past the last model).
    defined: Vec<Row>,
    /// Whether some model is defined here and another not.
    mixed: bool,
}

impl Drawn {
    /// Fills in `target` with each model's value, `sign` 1 to add it and −1 to take it away;
    /// false (and nothing drawn) where no model is defined, as such a target adds nothing.
    fn fill(
        &mut self,
        target: &str,
        values: impl IntoIterator<Item = Option<f64>>,
        models: usize,
        sign: i32,
        from: usize,
        len: usize,
    ) -> bool {
        let groups = models.div_ceil(LANES);
        self.values.clear();
        self.values.resize(groups, Row::ZERO);
        self.defined.clear();
        self.defined.resize(groups, Row::ZERO);
        let mut count = 0;
        for (model, value) in values.into_iter().enumerate().take(models) {
            if let Some(value) = value {
                self.values[model / LANES].0[model % LANES] = f64::from(sign) * quantized(value);
                self.defined[model / LANES].0[model % LANES] = 1.0;
                count += 1;
            }
        }
        if count == 0 {
            return false;
        }
        self.mixed = count < models;
        let key = key(target);
        self.weights.resize(len, 0);
        let words = split_mix(key ^ WEIGHTS_SEED, from / 4);
        for (four, word) in self.weights.chunks_mut(4).zip(words) {
            for (j, weight) in four.iter_mut().enumerate() {
                *weight = WEIGHT_OF[(word >> (16 * j)) as u16 as usize];
            }
        }
        self.signs.clear();
        self.signs
            .extend(split_mix(key ^ SIGNS_SEED, from / 64).take(len.div_ceil(64)));
        true
    }
}

/// What [`Block::add`] works in, kept from one call to the next.
#[derive(Default)]
struct Scratch {
    /// Per pair of targets, per resample: 9 · w_a + w_b.
    pairs: Vec<Vec<u8>>,
    /// Per four targets, per permutation: the pattern of their signs.
    fours: Vec<Vec<u8>>,
    by_weights: Vec<[Row; 81]>,
    by_pattern: Vec<[Row; 16]>,
}

/// Every model's sums over some targets, resample by resample (over a block of resamples, or
/// all of them).
#[derive(Debug, Clone, PartialEq)]
struct Block {
    /// Σ w over the targets where some model is defined.
    weights: Vec<i32>,
    /// Per group of [`LANES`] models, per resample: Σ w·q of each model.
    weighted: Vec<Vec<Row>>,
    /// Per group, per resample: Σ w over the targets where the model is undefined but another
    /// one is defined (the model's Σ w is `weights` less this); `None` while there are none.
    weights_missing: Vec<Option<Vec<Row>>>,
    /// Per group, per permutation: Σ q of the flipped targets of each model (permutation r's
    /// Σ ±q is `totals` − 2 · `flipped[r]`).
    flipped: Vec<Vec<Row>>,
    /// Per group: Σ q.
    totals: Vec<Row>,
    /// Per group: the targets where each model is defined.
    defined: Vec<Row>,
}

impl Block {
    fn new(models: usize, len: usize) -> Block {
        let groups = models.div_ceil(LANES);
        Block {
            weights: vec![0; len],
            weighted: vec![vec![Row::ZERO; len]; groups],
            weights_missing: vec![None; groups],
            flipped: vec![vec![Row::ZERO; len]; groups],
            totals: vec![Row::ZERO; groups],
            defined: vec![Row::ZERO; groups],
        }
    }

    /// Adds up to [`AT_ONCE`] targets (or takes them away: their `values` negated, `sign`
    /// −1), in one pass over the resamples: each resample's sums add one row per pair of
    /// targets (picked by their two weights) and one per four (picked by their four signs).
    fn add(&mut self, targets: &[Drawn], sign: i32, scratch: &mut Scratch) {
        debug_assert!(targets.len() <= AT_ONCE);
        let len = self.weights.len();
        for target in targets {
            for (sum, &weight) in self.weights.iter_mut().zip(&target.weights) {
                *sum += sign * i32::from(weight);
            }
        }
        // Resample r's weights of a pair of targets as one index, 9 · w_a + w_b (w_b = 0
        // without a second target).
        scratch
            .pairs
            .resize_with(targets.len().div_ceil(2), Vec::new);
        for (index, pair) in scratch.pairs.iter_mut().zip(targets.chunks(2)) {
            let a = &pair[0].weights[..len];
            index.clear();
            match pair.get(1) {
                Some(b) => index.extend(a.iter().zip(&b.weights[..len]).map(|(a, b)| 9 * a + b)),
                None => index.extend(a.iter().map(|a| 9 * a)),
            }
        }
        // Permutation r's pattern of the signs of four targets: bit j set where target j of
        // the four flips.
        scratch
            .fours
            .resize_with(targets.len().div_ceil(4), Vec::new);
        for (patterns, four) in scratch.fours.iter_mut().zip(targets.chunks(4)) {
            patterns.clear();
            patterns.resize(len.div_ceil(64) * 64, 0);
            for (j, target) in four.iter().enumerate() {
                for (patterns, word) in patterns.chunks_exact_mut(64).zip(&target.signs) {
                    for (patterns, byte) in patterns.chunks_exact_mut(8).zip(word.to_le_bytes()) {
                        let spread = (SPREAD[usize::from(byte)] << j).to_le_bytes();
                        for (pattern, bit) in patterns.iter_mut().zip(spread) {
                            *pattern |= bit;
                        }
                    }
                }
            }
        }
        let Scratch {
            pairs,
            fours,
            by_weights,
            by_pattern,
        } = scratch;
        for group in 0..self.weighted.len() {
            // Row 9 · w_a + w_b of a pair: w_a · q_a + w_b · q_b of each model (q signed
            // already).
            by_weights.clear();
            by_weights.extend(targets.chunks(2).map(|pair| {
                std::array::from_fn(|index| {
                    let mut row = pair[0].values[group].scaled((index / 9) as f64);
                    if let Some(b) = pair.get(1) {
                        row.add(&b.values[group].scaled((index % 9) as f64));
                    }
                    row
                })
            }));
            // Row p of four targets: the sum of the values of those whose bits are set in p.
            by_pattern.clear();
            by_pattern.extend(targets.chunks(4).map(|four| {
                std::array::from_fn(|pattern| {
                    let mut sum = Row::ZERO;
                    for (j, target) in four.iter().enumerate() {
                        if pattern >> j & 1 == 1 {
                            sum.add(&target.values[group]);
                        }
                    }
                    sum
                })
            }));
            let rows = self.weighted[group]
                .iter_mut()
                .zip(&mut self.flipped[group]);
            for (r, (weighted, flipped)) in rows.enumerate() {
                // Summed in copies, which stay in registers.
                let mut sum = *weighted;
                for (index, by_weights) in pairs.iter().zip(by_weights.iter()) {
                    sum.add(&by_weights[usize::from(index[r])]);
                }
                *weighted = sum;
                let mut sum = *flipped;
                for (patterns, by_pattern) in fours.iter().zip(by_pattern.iter()) {
                    sum.add(&by_pattern[usize::from(patterns[r]) & 15]);
                }
                *flipped = sum;
            }
            for target in targets {
                self.totals[group].add(&target.values[group]);
                self.defined[group].add(&target.defined[group].scaled(f64::from(sign)));
            }
        }
        for target in targets.iter().filter(|target| target.mixed) {
            self.add_weights_missing(target, sign);
        }
    }

    fn add_weights_missing(&mut self, target: &Drawn, sign: i32) {
        let weights = &target.weights;
        for (group, missing) in self.weights_missing.iter_mut().enumerate() {
            let sign = f64::from(sign);
            let undefined = Row(target.defined[group]
                .0
                .map(|defined| sign * (1.0 - defined)));
            let multiples: [Row; MAX_WEIGHT + 1] =
                std::array::from_fn(|w| undefined.scaled(w as f64));
            let missing = missing.get_or_insert_with(|| vec![Row::ZERO; weights.len()]);
            for (sum, &weight) in missing.iter_mut().zip(weights) {
                sum.add(&multiples[usize::from(weight)]);
            }
        }
    }
}

/// Every model's resampling sums over a set of targets, to which a target can be added and
/// from which it can be taken away; the numbers are the same, to the bit, whatever the order
/// the targets came in.
#[derive(Debug, Clone, PartialEq)]
pub struct Sums {
    models: usize,
    sums: Block,
}

impl Sums {
    /// The sums over `targets` of `models` models, `values(model, index)` being the model's
    /// value on the target at `index` (`None` where undefined).
    pub fn of(
        targets: &[&str],
        models: usize,
        values: impl Fn(usize, usize) -> Option<f64> + Sync,
    ) -> Sums {
        let blocks: Vec<Block> = (0..RESAMPLES.div_ceil(BLOCK))
            .into_par_iter()
            .map(|block| {
                let from = block * BLOCK;
                let len = BLOCK.min(RESAMPLES - from);
                let mut sums = Block::new(models, len);
                let (mut batch, mut scratch) = (Vec::new(), Scratch::default());
                batch.resize_with(AT_ONCE, Drawn::default);
                let mut filled = 0;
                for (index, target) in targets.iter().enumerate() {
                    let values = (0..models).map(|model| values(model, index));
                    if batch[filled].fill(target, values, models, 1, from, len) {
                        filled += 1;
                    }
                    if filled == AT_ONCE {
                        sums.add(&batch, 1, &mut scratch);
                        filled = 0;
                    }
                }
                sums.add(&batch[..filled], 1, &mut scratch);
                sums
            })
            .collect();
        let mut sums = Block::new(models, 0);
        for block in blocks {
            sums.weights.extend(block.weights);
            for group in 0..sums.weighted.len() {
                sums.weighted[group].extend_from_slice(&block.weighted[group]);
                sums.flipped[group].extend_from_slice(&block.flipped[group]);
                if let Some(missing) = &block.weights_missing[group] {
                    sums.weights_missing[group]
                        .get_or_insert_with(Vec::new)
                        .extend_from_slice(missing);
                }
                // Every block sums all the targets' values.
                (sums.totals[group], sums.defined[group]) =
                    (block.totals[group], block.defined[group]);
            }
        }
        Sums { models, sums }
    }

    /// Adds `target` with each model's value (`None` where undefined).
    pub fn add(&mut self, target: &str, values: impl IntoIterator<Item = Option<f64>>) {
        self.add_or_take_away(target, values, 1);
    }

    /// Takes away `target`, added before with these `values`.
    pub fn take_away(&mut self, target: &str, values: impl IntoIterator<Item = Option<f64>>) {
        self.add_or_take_away(target, values, -1);
    }

    fn add_or_take_away(
        &mut self,
        target: &str,
        values: impl IntoIterator<Item = Option<f64>>,
        sign: i32,
    ) {
        let mut drawn = Drawn::default();
        if drawn.fill(target, values, self.models, sign, 0, RESAMPLES) {
            self.sums.add(&[drawn], sign, &mut Scratch::default());
        }
    }

    /// The number of targets where the model at `model` is defined.
    fn defined(&self, model: usize) -> f64 {
        self.sums.defined[model / LANES].0[model % LANES]
    }

    /// 95% percentile interval of the mean of the model at `model` over the Poisson bootstrap's
    /// resamples; `None` where it is defined on no target.
    ///
    /// Resample r's mean is Σ w·q / Σ w · 2^−32 over the targets where the model is defined
    /// (the division rounded once, the scaling exact); a resample whose weights there are all
    /// 0 has no mean and is left out (with n targets, each resample is with probability
    /// (24,109 / 65,536)^n ≈ e^−n). `lo` and `hi` are the 2.5% and 97.5% quantiles of the B′
    /// means left, interpolated linearly between order statistics (Hyndman & Fan type 7,
    /// NumPy's default): the quantile p of sorted means m_0..m_{B′−1} is
    /// m_j + f·(m_{j+1} − m_j), j + f = p·(B′ − 1).
    pub fn ci95(&self, model: usize) -> Option<[f64; 2]> {
        if self.defined(model) == 0.0 {
            return None;
        }
        let (group, lane) = (model / LANES, model % LANES);
        let missing = self.sums.weights_missing[group].as_deref();
        let mut means: Vec<f64> = (0..RESAMPLES)
            .filter_map(|r| {
                let weights =
                    f64::from(self.sums.weights[r]) - missing.map_or(0.0, |m| m[r].0[lane]);
                let weighted = self.sums.weighted[group][r].0[lane];
                (weights > 0.0).then(|| weighted / weights * QUANTUM)
            })
            .collect();
        if means.is_empty() {
            return None;
        }
        Some([0.025, 0.975].map(|p| quantile_of(&mut means, p)))
    }

    /// Σ q and permutation r's Σ of the flipped q of the model at `model`.
    fn signed(&self, model: usize) -> (f64, impl Iterator<Item = f64> + '_) {
        let (group, lane) = (model / LANES, model % LANES);
        let flipped = self.sums.flipped[group].iter().map(move |row| row.0[lane]);
        (self.sums.totals[group].0[lane], flipped)
    }

    /// The sign-flip p-value of the models at `a` and `b`, defined on the same targets: of
    /// their differences q_b − q_a; `None` on no target.
    fn p_value(&self, a: usize, b: usize) -> Option<f64> {
        if self.defined(a) == 0.0 {
            return None;
        }
        let ((total_a, flipped_a), (total_b, flipped_b)) = (self.signed(a), self.signed(b));
        let flipped = flipped_a.zip(flipped_b).map(|(a, b)| b - a);
        Some(p_value(total_b - total_a, flipped))
    }

    /// Each model of `order` compared with the first (the leader, picked by the same data),
    /// `values[i][t]` being the value of the model `order[i]` on the target `targets[t]` of
    /// these sums (`None` where undefined).
    ///
    /// Every pair of models is tested, and Holm's adjustment runs over all of them, although
    /// only the comparisons with the leader are answered: the leader is the model that did best
    /// on these targets, so a family of only its comparisons would hold its level for fixed
    /// hypotheses, not for these. Among 8 equally good models on 40 targets, the comparisons
    /// with the leader alone, Holm-adjusted among themselves, separate some model from it in
    /// about 10% of studies at 0.05; over all pairs, in under 5%
    /// (`tests/it/metrics_resampling.rs`).
    ///
    /// A pair defined on the same targets (as NDCG is: undefined on a target for every model or
    /// for none) is tested from its models' sums: under one permutation's signs
    /// Σ ±(q_b − q_a) = Σ ±q_b − Σ ±q_a, so m models cost m sums per permutation, not one per
    /// pair. Another pair is tested on its own sums, over the targets where both are defined.
    pub fn compare_with_first(
        &self,
        order: &[usize],
        targets: &[&str],
        values: &[Vec<Option<f64>>],
    ) -> Vec<Comparison> {
        let pairs: Vec<(usize, usize)> = (0..order.len())
            .flat_map(|a| (a + 1..order.len()).map(move |b| (a, b)))
            .collect();
        let p_values: Vec<Option<f64>> = (pairs.par_iter())
            .map(|&(a, b)| {
                let same_targets =
                    (values[a].iter().zip(&values[b])).all(|(a, b)| a.is_some() == b.is_some());
                if !same_targets {
                    // Over the targets where both are defined, from sums of their own.
                    let (targets, values): (Vec<&str>, Vec<[f64; 2]>) =
                        (targets.iter().zip(values[a].iter().zip(&values[b])))
                            .filter_map(|(&target, (&a, &b))| Some((target, [a?, b?])))
                            .unzip();
                    let both = Sums::of(&targets, 2, |model, index| Some(values[index][model]));
                    return both.p_value(0, 1);
                }
                self.p_value(order[a], order[b])
            })
            .collect();
        comparisons(values, &p_values)
    }
}

/// The leader's comparisons from the p-values of every pair (a, b), a before b, in the order
/// of [`Sums::compare_with_first`]'s pairs (the leader's with b is b − 1).
fn comparisons(values: &[Vec<Option<f64>>], p_values: &[Option<f64>]) -> Vec<Comparison> {
    let tested: Vec<usize> = (0..p_values.len())
        .filter(|&pair| p_values[pair].is_some())
        .collect();
    let tested_p_values: Vec<f64> = tested.iter().filter_map(|&pair| p_values[pair]).collect();
    let mut p_values_holm = vec![None; p_values.len()];
    for (&pair, adjusted) in tested.iter().zip(holm(&tested_p_values)) {
        p_values_holm[pair] = Some(adjusted);
    }
    (0..values.len())
        .map(|model| match model.checked_sub(1) {
            None => Comparison {
                mean_difference: values[0].iter().any(Option::is_some).then_some(0.0),
                p_value: None,
                p_value_holm: None,
            },
            Some(pair) => Comparison {
                // Paired: the targets where both are defined.
                mean_difference: super::super::mean(
                    (values[0].iter().zip(&values[model]))
                        .map(|(&leader, &this)| Some(this? - leader?)),
                )
                .value,
                p_value: p_values[pair],
                p_value_holm: p_values_holm[pair],
            },
        })
        .collect()
}

/// p = (1 + #{r : |S_r| ≥ |S|}) / (1 + [`RESAMPLES`]), S = Σ q (`total`) and S_r = S − 2 ·
/// `flipped[r]` permutation r's Σ ±q: all whole numbers, so ties count exactly.
fn p_value(total: f64, flipped: impl Iterator<Item = f64>) -> f64 {
    let reach = total.abs();
    let at_least_as_extreme = flipped.filter(|f| (total - 2.0 * f).abs() >= reach).count();
    (1 + at_least_as_extreme) as f64 / (1 + RESAMPLES) as f64
}

/// 95% Poisson-bootstrap interval of the mean of `values` (each in [−1, 1]) of `targets`
/// (see [`Sums::ci95`]); `None` when there are none.
pub fn poisson_bootstrap_ci95(targets: &[&str], values: &[f64]) -> Option<[f64; 2]> {
    Sums::of(targets, 1, |_, index| Some(values[index])).ci95(0)
}

/// Two-sided p-value of the paired sign-flip randomization test on the `differences` (each in
/// [−1, 1]) of two models on `targets`; `None` when there are none.
///
/// Each of [`RESAMPLES`] permutations flips the sign of every target's difference with
/// probability 1/2 (the target's sign drawn from its id);
/// p = (1 + #{|Σ flipped| ≥ |Σ d|}) / (1 + RESAMPLES), over the differences rounded to
/// whole [`QUANTUM`]s, whose sums are exact: sums stand in for means (same count), and
/// all-zero differences give exactly p = 1.
pub fn sign_flip_p_value(targets: &[&str], differences: &[f64]) -> Option<f64> {
    (!targets.is_empty()).then(|| {
        let sums = Sums::of(targets, 1, |_, index| Some(differences[index]));
        let (total, flipped) = sums.signed(0);
        p_value(total, flipped)
    })
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// Each weight takes its share of the 2^16 uniforms: C_k − C_{k−1}, the rounded Poisson(1)
    /// probabilities; and the bound that keeps the sums exact holds.
    #[test]
    fn weights_follow_the_thresholds() {
        let mut counts = [0u32; MAX_WEIGHT + 1];
        for &weight in WEIGHT_OF.iter() {
            counts[usize::from(weight)] += 1;
        }
        assert_eq!(
            counts,
            [24_109, 24_110, 12_054, 4_019, 1_004, 201, 34, 4, 1]
        );
        assert_eq!(MAX_WEIGHT * (1 << 32) * MAX_TARGETS, 1 << 53);
    }

    #[test]
    fn a_target_key_is_fnv_1a_and_its_stream_split_mix_64() {
        // FNV-1a 64 of "a" and SplitMix64's first outputs from seed 0 (published values).
        assert_eq!(key("a"), 0xaf63_dc4c_8601_ec8c);
        let outputs: Vec<u64> = split_mix(0, 0).take(2).collect();
        assert_eq!(outputs, [0xe220_a839_7b1d_cdaf, 0x6e78_9e6a_a1b9_65f4]);
        assert_eq!(split_mix(0, 1).next(), Some(outputs[1]));
    }

    /// Values of 10 models (two rows of lanes) on 45 targets: on some every model is
    /// undefined, on some a few models are.
    fn study(seed: u64) -> (Vec<String>, Vec<Vec<Option<f64>>>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let targets: Vec<String> = (0..45).map(|t| format!("target {t}")).collect();
        let values = (0..10)
            .map(|model| {
                (0..45)
                    .map(|t| {
                        let value = (rng.random::<f64>() * 16.0).round() / 16.0;
                        let undefined = t % 9 == 4 || (model >= 7 && t % 5 == 1);
                        (!undefined).then_some(value)
                    })
                    .collect()
            })
            .collect();
        (targets, values)
    }

    fn numbers(sums: &Sums, targets: &[&str], values: &[Vec<Option<f64>>]) -> Vec<Vec<u64>> {
        let order: Vec<usize> = (0..values.len()).collect();
        let comparisons = sums.compare_with_first(&order, targets, values);
        (0..values.len())
            .map(|model| {
                let interval = sums.ci95(model).unwrap_or([f64::NAN; 2]);
                let p = comparisons[model].p_value.unwrap_or(f64::NAN);
                vec![interval[0].to_bits(), interval[1].to_bits(), p.to_bits()]
            })
            .collect()
    }

    /// The sums of the same targets are the same, to the bit, whether computed at once, added
    /// one by one in another order, or with others added and taken away again.
    #[test]
    fn sums_do_not_depend_on_the_order_the_targets_came_in() {
        let (names, values) = study(3);
        let targets: Vec<&str> = names.iter().map(String::as_str).collect();
        let at_once = Sums::of(&targets, 10, |model, t| values[model][t]);
        let values = &values;
        let column = |t: usize| (0..10).map(move |model| values[model][t]);

        let mut order: Vec<usize> = (0..targets.len()).collect();
        order.reverse();
        order.swap(3, 30);
        let mut one_by_one = Sums::of(&[], 10, |_, _| None);
        for &t in &order {
            one_by_one.add(targets[t], column(t));
        }
        assert!(one_by_one == at_once);

        let (other_names, other_values) = study(4);
        let mut back_and_forth = Sums::of(&targets[..20], 10, |model, t| values[model][t]);
        for t in 0..10 {
            back_and_forth.add(&other_names[t], (0..10).map(|model| other_values[model][t]));
        }
        for (t, target) in targets.iter().enumerate().skip(20) {
            back_and_forth.add(target, column(t));
        }
        for t in (0..10).rev() {
            back_and_forth.take_away(&other_names[t], (0..10).map(|model| other_values[model][t]));
        }
        assert_eq!(
            numbers(&back_and_forth, &targets, values),
            numbers(&at_once, &targets, values)
        );
        assert_eq!(back_and_forth.sums.weighted, at_once.sums.weighted);
        assert_eq!(back_and_forth.sums.flipped, at_once.sums.flipped);
    }

    #[test]
    fn one_value_gives_the_interval_of_that_value_rounded() {
        let x = 0.3;
        let rounded = (x * 2f64.powi(32)).round() / 2f64.powi(32);
        assert_eq!(
            poisson_bootstrap_ci95(&["only"], &[x]),
            Some([rounded, rounded])
        );
        assert_eq!(poisson_bootstrap_ci95(&[], &[]), None);
        assert_eq!(sign_flip_p_value(&[], &[]), None);
    }

    #[test]
    fn quantiles_by_selection_are_those_of_the_sorted_values() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        for len in [1, 2, 3, 40, 10_000] {
            let values: Vec<f64> = (0..len)
                .map(|_| (rng.random::<f64>() * 64.0).round())
                .collect();
            let mut sorted = values.clone();
            sorted.sort_unstable_by(f64::total_cmp);
            for p in [0.0, 0.025, 0.5, 0.975, 1.0] {
                let selected = quantile_of(&mut values.clone(), p);
                assert_eq!(
                    selected.to_bits(),
                    super::super::quantile(&sorted, p).to_bits()
                );
            }
        }
    }

    #[test]
    fn clear_differences_are_significant() {
        let names: Vec<String> = (0..30).map(|t| format!("t{t}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let p = sign_flip_p_value(&names, &[0.1; 30]).unwrap();
        // Only the identity and the all-flipped sign patterns are as extreme: p ≈ 1/10001.
        assert!(p < 0.001, "{p}");
    }
}
