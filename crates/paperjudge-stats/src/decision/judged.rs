//! The verdict with a judge (docs/metrics.md, "The verdict with a judge"): the same verdict
//! (out, open, equivalent, margin, targets still needed, pruning), each pair's sequence a
//! [`JudgedSequence`] that also uses the judge's values of every judged target.
//!
//! How the leaderboard calls it: [`decide_with_judge`] with the judged targets (those whose
//! every pooled pair the judge graded) in the study's order, each model's NDCG under the
//! judge's stars (`None` for a model the target's pool left out), and the fully rated targets
//! in the order they were completed, each with the models' NDCG under the raters' judgments
//! and, when the target is judged, under the judge's. An undefined NDCG counts 0, as in the
//! verdict without a judge.

use super::{Decision, DecisionError, Margin, Monitor, Order, Pair, TargetsAhead, ESTIMATE_LIMIT};
use crate::metrics::{
    pairwise_alpha, AsymptoticSequence, ConfidenceSequence, Interval, JudgedSequence,
};

/// The share of each pair's alpha spent on the judge's mean; the rest goes to the rated
/// targets. The judge's mean is known from many more targets, so a small share widens its
/// interval little.
pub const JUDGE_SHARE: f64 = 0.1;

/// The judge's per-target differences are clamped to [−0.5, 0.5] before use: differences of
/// NDCG rarely reach half the scale, and the range the bets must survive grows with it.
pub const JUDGE_CLAMP: f64 = 0.5;

/// A pair's evidence: the raters' differences alone, or with the judge's.
#[derive(Debug, Clone)]
pub(super) enum Evidence {
    Raters(ConfidenceSequence),
    Judged(JudgedSequence),
    /// Measured beside the others: valid only asymptotically.
    Asymptotic(AsymptoticSequence),
}

impl Evidence {
    /// Takes a rated target's difference, with the judge's where the target is judged.
    pub(super) fn observe(&mut self, raters: f64, judge: Option<f64>) -> Interval {
        match self {
            Evidence::Raters(sequence) => sequence.observe(raters),
            Evidence::Judged(sequence) => sequence.observe_rated(raters, judge),
            Evidence::Asymptotic(sequence) => sequence.observe_rated(raters, judge),
        }
    }

    pub(super) fn interval(&self) -> Interval {
        match self {
            Evidence::Raters(sequence) => sequence.interval(),
            Evidence::Judged(sequence) => sequence.interval(),
            Evidence::Asymptotic(sequence) => sequence.interval(),
        }
    }

    /// The estimated mean difference: the raters' mean (`observed` over `count`), or with a
    /// judge the prediction-powered one.
    pub(super) fn estimate(&self, observed: f64, count: usize) -> f64 {
        match self {
            Evidence::Judged(sequence) if count > 0 => sequence.estimate(),
            Evidence::Asymptotic(sequence) if count > 0 => sequence.estimate(),
            _ if count == 0 => 0.0,
            _ => observed / count as f64,
        }
    }

    /// How many more rated targets the pair's sequence, continued from where it stands, takes
    /// to be `settled`, if the targets to come differ as those seen: without a judge the
    /// differences alternate one standard deviation either side of their mean; with one, the
    /// raters' and the judge's differences cycle through four points with the means, spreads
    /// and correlation seen. `None` beyond [`ESTIMATE_LIMIT`].
    pub(super) fn targets_to_settle(
        &self,
        pair: &Pair,
        settled: impl Fn(Interval) -> bool,
    ) -> Option<usize> {
        match self {
            Evidence::Raters(sequence) => {
                let count = pair.count.max(1) as f64;
                let mean = pair.observed / count;
                let deviation = (pair.squares / count - mean * mean).max(0.0).sqrt();
                let bounds = sequence.bounds();
                let mut sequence = sequence.clone();
                (1..=ESTIMATE_LIMIT).find(|step| {
                    let sign = if step % 2 == 0 { 1.0 } else { -1.0 };
                    let next = (mean + sign * deviation).clamp(bounds.low, bounds.high);
                    settled(sequence.observe(next))
                })
            }
            Evidence::Asymptotic(sequence) => {
                let count = pair.count.max(1) as f64;
                let mean = pair.observed / count;
                let deviation = (pair.squares / count - mean * mean).max(0.0).sqrt();
                let mut sequence = sequence.clone();
                (1..=ESTIMATE_LIMIT).find(|step| {
                    let sign = if step % 2 == 0 { 1.0 } else { -1.0 };
                    let next = (mean + sign * deviation).clamp(-1.0, 1.0);
                    settled(sequence.observe_rated(next, None))
                })
            }
            Evidence::Judged(sequence) => {
                let ([y, f], [spread_y, spread_f], rho) = sequence.rated_summary();
                let k = (1.0 - rho * rho).max(0.0).sqrt();
                // Mean 0, variance 1 each, correlation rho.
                let cycle = [
                    (1.0, rho + k),
                    (-1.0, -rho - k),
                    (1.0, rho - k),
                    (-1.0, k - rho),
                ];
                let mut sequence = sequence.clone();
                (1..=ESTIMATE_LIMIT).find(|step| {
                    let (u, v) = cycle[step % 4];
                    let raters = (y + spread_y * u).clamp(-1.0, 1.0);
                    let judge = (f + spread_f * v).clamp(-1.0, 1.0);
                    settled(sequence.observe_rated(raters, Some(judge)))
                })
            }
        }
    }
}

/// A fully rated target as the verdict with a judge takes it: each model's NDCG under the
/// raters' judgments and, if the target is judged, under the judge's stars.
#[derive(Debug, Clone, Copy)]
pub struct RatedTarget<'a> {
    pub raters: &'a [Option<f64>],
    pub judge: Option<&'a [Option<f64>]>,
}

impl Monitor {
    /// A verdict over `models` whose pairs also use a judge, starting from the judged targets
    /// `judged[target][model]` in the study's order (the judge's NDCG of each model; `None` for
    /// a model the target's pool left out). Each pair's level is shared as without a judge,
    /// [`JUDGE_SHARE`] of it going to the judge's mean.
    ///
    /// # Panics
    /// With fewer than two models.
    pub fn with_judge(
        models: Vec<String>,
        margin: Margin,
        judged: &[Vec<Option<f64>>],
    ) -> Result<Monitor, DecisionError> {
        let mut monitor = Monitor::new(models, Order::Random, margin);
        let pair_alpha = pairwise_alpha(super::ALPHA, monitor.models.len());
        for pair in &mut monitor.pairs {
            pair.sequence = Evidence::Judged(JudgedSequence::new(
                pair_alpha * JUDGE_SHARE,
                pair_alpha * (1.0 - JUDGE_SHARE),
                JUDGE_CLAMP,
            ));
        }
        for target in judged {
            monitor.observe_judged(target)?;
        }
        Ok(monitor)
    }

    /// The verdict with asymptotic sequences ([`AsymptoticSequence`]), with the judge or
    /// without: measured beside the betting sequences (`examples/prediction_powered.rs`),
    /// valid only as the rated targets grow.
    pub fn with_asymptotic_sequences(
        models: Vec<String>,
        margin: Margin,
        judged: &[Vec<Option<f64>>],
        with_judge: bool,
    ) -> Result<Monitor, DecisionError> {
        let mut monitor = Monitor::new(models, Order::Random, margin);
        let pair_alpha = pairwise_alpha(super::ALPHA, monitor.models.len());
        for pair in &mut monitor.pairs {
            pair.sequence = Evidence::Asymptotic(AsymptoticSequence::new(pair_alpha, with_judge));
        }
        for target in judged {
            monitor.observe_judged(target)?;
        }
        Ok(monitor)
    }

    fn check(&self, ndcg: &[Option<f64>]) -> Result<(), DecisionError> {
        if ndcg.len() != self.models.len() {
            return Err(DecisionError::WrongLength {
                got: ndcg.len(),
                models: self.models.len(),
            });
        }
        match ndcg.iter().flatten().find(|v| !(0.0..=1.0).contains(*v)) {
            Some(bad) => Err(DecisionError::OutOfRange(*bad)),
            None => Ok(()),
        }
    }

    /// Takes one more judged target, in the study's order: each model's NDCG under the
    /// judge's stars. Without a judge, nothing to take.
    pub fn observe_judged(&mut self, judge: &[Option<f64>]) -> Result<(), DecisionError> {
        self.check(judge)?;
        for pair in &mut self.pairs {
            let (Some(first), Some(second)) = (judge[pair.first], judge[pair.second]) else {
                continue;
            };
            match &mut pair.sequence {
                Evidence::Judged(sequence) => sequence.observe_judged(first - second),
                Evidence::Asymptotic(sequence) => sequence.observe_judged(first - second),
                Evidence::Raters(_) => {}
            }
        }
        Ok(())
    }

    /// Takes the next fully rated target: each model's NDCG under the raters' judgments (as
    /// [`Monitor::observe`] takes it) and, when the target is judged, under the judge's stars.
    pub fn observe_rated(
        &mut self,
        raters: &[Option<f64>],
        judge: Option<&[Option<f64>]>,
    ) -> Result<(), DecisionError> {
        self.check(raters)?;
        if let Some(judge) = judge {
            self.check(judge)?;
        }
        for pair in &mut self.pairs {
            let (Some(first), Some(second)) = (raters[pair.first], raters[pair.second]) else {
                continue;
            };
            let observation = first - second;
            let judged = judge.and_then(|judge| Some(judge[pair.first]? - judge[pair.second]?));
            pair.sequence.observe(observation, judged);
            pair.observed += observation;
            pair.squares += observation * observation;
            pair.count += 1;
        }
        self.targets += 1;
        Ok(())
    }
}

/// The verdict with a judge: the judged targets in the study's order (see
/// [`Monitor::with_judge`]), then the fully rated targets in the order they were completed.
pub fn decide_with_judge(
    models: Vec<String>,
    judged: &[Vec<Option<f64>>],
    rated: &[RatedTarget],
    margin: Margin,
    ahead: TargetsAhead,
) -> Result<Option<Decision>, DecisionError> {
    if models.len() < 2 {
        return Ok(None);
    }
    let mut monitor = Monitor::with_judge(models, margin, judged)?;
    for target in rated {
        monitor.observe_rated(target.raters, target.judge)?;
    }
    Ok(Some(monitor.decision(ahead)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(count: usize) -> Vec<String> {
        (0..count).map(|m| format!("m{m}")).collect()
    }

    /// A judge whose grades never reach the rated targets gives the raters' own verdict, its
    /// sequences at the level left to them.
    #[test]
    fn rated_targets_the_judge_did_not_grade_count_as_the_raters_alone() {
        let mut monitor = Monitor::with_judge(names(2), Margin::NONE, &[]).unwrap();
        let pair_alpha = pairwise_alpha(super::super::ALPHA, 2);
        let mut raters = ConfidenceSequence::new(
            crate::metrics::Bounds::DIFFERENCE,
            pair_alpha * (1.0 - JUDGE_SHARE),
        );
        for t in 0..120 {
            let a = f64::from(t % 5) / 5.0;
            monitor.observe_rated(&[Some(a), Some(0.3)], None).unwrap();
            raters.observe(a - 0.3);
        }
        assert_eq!(monitor.interval(0, 1), raters.interval());
    }

    #[test]
    fn bad_judge_values_are_an_error() {
        assert_eq!(
            Monitor::with_judge(names(2), Margin::NONE, &[vec![Some(0.5)]]).unwrap_err(),
            DecisionError::WrongLength { got: 1, models: 2 }
        );
        let mut monitor = Monitor::with_judge(names(2), Margin::NONE, &[]).unwrap();
        assert_eq!(
            monitor.observe_rated(&[Some(0.5), Some(0.2)], Some(&[Some(1.5), Some(0.2)])),
            Err(DecisionError::OutOfRange(1.5))
        );
    }
}
