//! The leaderboard with a machine judge (docs/metrics.md, "Prediction-powered estimates"):
//! the raters' board, its NDCG made prediction-powered by a judge's grades of many targets.
//!
//! Population: the study's targets, of which the judged ones J are a random sample and the
//! fully rated judged ones H a random sample of J (rated in `/next`'s order). Each model's mean
//! NDCG and each pair's mean difference are the PPI++ estimates of
//! [`metrics::estimate_mean`](crate::metrics::estimate_mean) over J, with H's ratings
//! correcting the judge's error; the verdict stays the raters' own ([`VERDICT_WITH_A_JUDGE`]
//! says why). The other columns (judged@k, P, R, F1, AP, RR, unique relevant) stay the
//! raters' means: their undefined values are skipped, which a prediction-powered mean cannot
//! do (on a target nobody rated, nobody knows whether the raters' value would be defined).

use std::collections::HashMap;
use std::hash::Hash;

use super::columns;
use super::{score, Collection, Leaderboard, Partial};
use crate::domain::JudgeName;
use crate::metrics::{self, compare_pairs, estimate_mean, Judged, Unavailable};
use crate::words::{capitalized, plural, terminal};

/// Why the verdict with a judge is the raters' own, in one sentence: the leaderboard's JSON
/// (`judge.verdict`), its page and its table say it.
pub const VERDICT_WITH_A_JUDGE: &str = "The verdict is the raters' own: a verdict valid \
    however often you look is held back by how far a target's difference can fall, not by its \
    spread, so a judge's grades cannot settle it sooner at the differences a study tells apart \
    (docs/metrics.md, \"The verdict with a judge\")";

/// A judge's targets as the leaderboard reads them.
#[derive(Debug, Clone)]
pub struct JudgedTargets<K> {
    pub name: JudgeName,
    /// The judged targets (every pooled pair graded) in the study's order, the judge's grades
    /// as their judgments, the models in the order of the raters' collection.
    pub collection: Collection<K>,
    /// Each judged target's position among the raters' collection's targets; `None` for a
    /// target without a rating.
    pub in_raters: Vec<Option<usize>>,
    /// The positions of the judged targets the judge was chosen on (the tuning set of the
    /// trials that chose it): judged, never rated targets that correct it (docs/metrics.md,
    /// "A judge chosen on rated targets").
    pub tuning: Vec<usize>,
}

/// What the judge did to the board.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeBoard {
    pub name: JudgeName,
    pub targets_judged: usize,
    /// The fully rated judged targets: the sample that corrects the judge.
    pub targets_rated: usize,
    /// How many rated targets the raters alone would need for the widths the judge gives:
    /// the median over the pairs of models.
    pub worth_rated_targets: Option<f64>,
    /// Every pair of models (in the order of the study's models), estimated.
    pub pairs: Vec<JudgePair>,
    /// Why the NDCG is the raters' alone; `None` when it is prediction-powered.
    pub unavailable: Option<String>,
    /// Fully rated judged targets that come, in the study's order, after a judged target
    /// nobody has rated: a sign that someone picked which targets to rate.
    pub rated_out_of_order: usize,
    /// The rated targets left out of those that correct the judge, because it was chosen on
    /// them; 0 when none were.
    pub tuning_targets_left_out: usize,
}

impl JudgeBoard {
    /// Whether the rows' NDCG, intervals and tests are prediction-powered.
    pub fn prediction_powered(&self) -> bool {
        self.unavailable.is_none()
    }

    /// How much the judge is worth, in words: "the judge's 200 targets count as 14 more rated
    /// ones here".
    pub fn worth_in_words(&self) -> Option<String> {
        let worth = self
            .worth_rated_targets
            .filter(|_| self.prediction_powered())?;
        let more = (worth - self.targets_rated as f64).round();
        Some(if more >= 1.0 {
            format!(
                "the judge's {} targets count as {more:.0} more rated {} here",
                self.targets_judged,
                if more == 1.0 { "one" } else { "ones" }
            )
        } else {
            format!(
                "the judge's {} targets add nothing the {} rated ones do not give (its weight \
                 goes to 0 where it cannot help)",
                self.targets_judged, self.targets_rated
            )
        })
    }

    /// What the judge did, in words: which figures are prediction-powered and how, or why
    /// none is; then that the verdict is the raters' own, and why.
    pub fn in_words(&self) -> String {
        match &self.unavailable {
            None => format!(
                "Judge {}: {} targets judged, {} of them rated. NDCG, its 95% CI, diff and p are \
                 prediction-powered (PPI++: the judge's mean over the judged targets corrected \
                 by its error on the rated ones; t intervals and t tests with {} degrees of \
                 freedom, p Holm-adjusted over every pair of models); the other columns are the \
                 raters' alone. {}. {VERDICT_WITH_A_JUDGE}.",
                self.name,
                self.targets_judged,
                self.targets_rated,
                self.targets_rated.saturating_sub(1),
                capitalized(&self.worth_in_words().unwrap_or_default()),
            ),
            Some(why) => format!(
                "Judge {}: {} targets judged, {} of them rated; {why}. {VERDICT_WITH_A_JUDGE}.",
                self.name, self.targets_judged, self.targets_rated
            ),
        }
    }

    /// What became of the targets the judge was chosen on, when trials chose it.
    pub fn tuning_in_words(&self) -> Option<String> {
        (self.tuning_targets_left_out > 0).then(|| {
            format!(
                "The judge was chosen on the trials' tuning set: its {} rated {} left out of \
                 the rated targets that correct it (they count as judged), which keeps the \
                 interval honest at some width (docs/metrics.md, \"A judge chosen on rated \
                 targets\").",
                self.tuning_targets_left_out,
                plural(self.tuning_targets_left_out, "target is", "targets are")
            )
        })
    }

    /// The warning to show when the rated targets are not the first of the study's order.
    pub fn order_warning(&self) -> Option<String> {
        (self.rated_out_of_order > 0).then(|| {
            format!(
                "{} rated {} after a judged target nobody rated, in the study's order: if \
                 someone picked which targets to rate, the rated ones are no random sample of \
                 the judged ones and the prediction-powered intervals may mislead",
                self.rated_out_of_order,
                plural(self.rated_out_of_order, "target comes", "targets come")
            )
        })
    }
}

/// One pair of models: the prediction-powered estimate of their mean NDCG difference.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgePair {
    pub a: String,
    pub b: String,
    /// The correlation of the judge's and the raters' differences over the rated targets.
    pub rho: Option<f64>,
    pub lambda: f64,
    pub half_width: f64,
    pub half_width_human_only: f64,
}

/// The raters' figures alone, shown beside the prediction-powered ones: their mean over the
/// rated judged targets (undefined counting 0) with its t interval; where the figures are not
/// prediction-powered, the row's own.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatersOnly {
    pub ndcg: Option<f64>,
    pub ci95: Option<[f64; 2]>,
    pub targets: usize,
}

impl RatersOnly {
    /// "NDCG 0.6123 [0.5801, 0.6445] over 48 targets".
    pub fn in_words(&self) -> String {
        format!(
            "NDCG {} {} over {} targets",
            terminal::number(self.ndcg),
            terminal::interval(self.ci95, terminal::PLACES),
            self.targets
        )
    }
}

impl Leaderboard {
    /// Whether a judge made the NDCG column prediction-powered.
    pub fn prediction_powered(&self) -> bool {
        self.judge
            .as_ref()
            .is_some_and(JudgeBoard::prediction_powered)
    }
}

/// The raters' `board` of `raters` with the judge's targets `judged`: the NDCG column, its
/// intervals, differences and tests prediction-powered when at least
/// [`metrics::MIN_RATED`] judged targets are rated for every model (else the raters' figures,
/// with the reason), and the raters' figures kept beside each row. The verdict stays the
/// raters' own.
pub fn with_judge<K: Copy + Eq + Hash + Send + Sync>(
    mut board: Leaderboard,
    raters: &Collection<K>,
    judged: &JudgedTargets<K>,
) -> Leaderboard {
    let models = raters.models.len();
    let judge_scores = score(&judged.collection, board.settings, Partial::Exclude);
    let judge_index: HashMap<usize, usize> = (judge_scores.evaluated.iter().enumerate())
        .map(|(index, &position)| (position, index))
        .collect();
    // The judge's NDCG per judged target and model (undefined: 0; not pooled: none).
    let judge_ndcg: Vec<Vec<Option<f64>>> = (judged.collection.targets.iter().enumerate())
        .map(|(position, target)| {
            (0..models)
                .map(|model| {
                    let index = *judge_index.get(&position)?;
                    target
                        .pooled(model)
                        .then(|| judge_scores.ndcg(model, index).unwrap_or(0.0))
                })
                .collect()
        })
        .collect();
    let raters_ndcg = RatersNdcg::of(&board, raters);
    let mut rated: Vec<Option<&[Option<f64>]>> = (judged.in_raters.iter())
        .map(|position| raters_ndcg.fully_rated(raters, (*position)?))
        .collect();
    // A judge chosen on these targets fits them better than it fits others: they correct it
    // no more, and count as judged.
    let mut tuning_targets_left_out = 0;
    for &position in &judged.tuning {
        if let Some(values) = rated.get_mut(position) {
            tuning_targets_left_out += usize::from(values.take().is_some());
        }
    }

    let per_model: Vec<Vec<Option<Judged>>> = (0..models)
        .map(|model| {
            (judge_ndcg.iter().zip(&rated))
                .map(|(judge, rated)| {
                    Some(Judged {
                        judge: judge[model]?,
                        raters: rated.and_then(|values| values[model]),
                    })
                })
                .collect()
        })
        .collect();
    let targets_rated = rated.iter().filter(|values| values.is_some()).count();
    // Without a model there is nothing to estimate (and no leader to rank the rows by).
    let estimates: Result<Vec<_>, Unavailable> = match models {
        0 => Err(Unavailable::TooFewRated {
            rated: targets_rated,
        }),
        _ => (per_model.iter())
            .map(|values| estimate_mean(&values.iter().flatten().copied().collect::<Vec<_>>()))
            .collect(),
    };
    let comparisons = compare_pairs(&per_model);
    let pairs: Vec<JudgePair> = (comparisons.iter())
        .filter_map(|comparison| {
            let test = comparison.result.as_ref().ok()?;
            Some(JudgePair {
                a: raters.models[comparison.a].clone(),
                b: raters.models[comparison.b].clone(),
                rho: test.difference.rho,
                lambda: test.difference.lambda,
                half_width: test.difference.half_width,
                half_width_human_only: test.difference.human_only.half_width,
            })
        })
        .collect();
    let worth_rated_targets = metrics::median(
        &mut (comparisons.iter())
            .filter_map(|c| c.result.as_ref().ok()?.difference.worth_rated_targets())
            .collect::<Vec<_>>(),
    );

    let mut seen_unrated = false;
    let mut rated_out_of_order = 0;
    for (position, values) in judged.in_raters.iter().zip(&rated) {
        match (position, values) {
            (None, _) => seen_unrated = true,
            (Some(_), Some(_)) if seen_unrated => rated_out_of_order += 1,
            _ => {}
        }
    }

    // Without the estimate, the rows are the raters' own, and so is what stands beside them.
    for row in &mut board.models {
        row.human_only = Some(RatersOnly {
            ndcg: row.ndcg(),
            ci95: row.ci95,
            targets: row.targets,
        });
    }
    let unavailable = match &estimates {
        Ok(estimates) => {
            replace_ndcg(&mut board, raters, estimates, &comparisons);
            None
        }
        Err(why) => Some(format!("{why}: the NDCG is the raters' alone")),
    };

    board.targets.judged = Some(judged.collection.targets.len());
    board.judge = Some(JudgeBoard {
        name: judged.name.clone(),
        targets_judged: judged.collection.targets.len(),
        targets_rated,
        worth_rated_targets,
        pairs,
        unavailable,
        rated_out_of_order,
        tuning_targets_left_out,
    });
    board
}

/// The raters' NDCG of every fully rated evaluated target, per model in the collection's
/// order (undefined: 0; not pooled: none), read from the board's per-target rows.
struct RatersNdcg {
    by_position: HashMap<usize, Vec<Option<f64>>>,
}

impl RatersNdcg {
    fn of<K>(board: &Leaderboard, raters: &Collection<K>) -> Self {
        let row_of_model: Vec<usize> = (raters.models.iter())
            .map(|model| {
                (board.models.iter())
                    .position(|row| row.model == *model)
                    .expect("a row per model")
            })
            .collect();
        let by_position = (board.per_target.iter())
            .filter(|row| raters.targets[row.position].fully_rated)
            .map(|row| {
                let target = &raters.targets[row.position];
                let values = (row_of_model.iter().enumerate())
                    .map(|(model, &at)| {
                        target
                            .pooled(model)
                            .then(|| row.value(at, columns::RANKING).unwrap_or(0.0))
                    })
                    .collect();
                (row.position, values)
            })
            .collect();
        RatersNdcg { by_position }
    }

    fn fully_rated<K>(&self, raters: &Collection<K>, position: usize) -> Option<&[Option<f64>]> {
        raters.targets.get(position).filter(|t| t.fully_rated)?;
        self.by_position.get(&position).map(Vec::as_slice)
    }
}

/// Puts the prediction-powered NDCG, its interval, the differences from the new leader and
/// their tests into the rows, ranked again by it (then by name), the per-target rows
/// following the new order.
fn replace_ndcg<K>(
    board: &mut Leaderboard,
    raters: &Collection<K>,
    estimates: &[metrics::PredictionPowered],
    comparisons: &[metrics::PairComparison],
) {
    let ranking = columns::ranking_position();
    let model_of = |name: &str| {
        (raters.models.iter())
            .position(|model| model == name)
            .expect("a model per row")
    };
    let old_rows: Vec<String> = board.models.iter().map(|row| row.model.clone()).collect();
    board.models.sort_by(|a, b| {
        let (x, y) = (
            estimates[model_of(&a.model)].estimate,
            estimates[model_of(&b.model)].estimate,
        );
        y.total_cmp(&x).then_with(|| a.model.cmp(&b.model))
    });
    let leader = model_of(&board.models[0].model);
    for (rank, row) in board.models.iter_mut().enumerate() {
        let model = model_of(&row.model);
        let estimate = &estimates[model];
        row.rank = rank + 1;
        row.means[ranking] = Some(estimate.estimate);
        row.ci95 = Some(estimate.ci95());
        row.targets = estimate.judged;
        // Beside it, the raters' mean over the same rated targets, counted the same way (an
        // undefined NDCG as 0), with its t interval: the two intervals compare directly.
        let raters = &estimate.human_only;
        row.human_only = Some(RatersOnly {
            ndcg: Some(raters.estimate),
            ci95: Some([
                raters.estimate - raters.half_width,
                raters.estimate + raters.half_width,
            ]),
            targets: estimate.rated,
        });
        if model == leader {
            row.mean_diff_vs_leader = Some(0.0);
            row.p_value_vs_leader = None;
            row.p_value_holm = None;
            continue;
        }
        let pair = (comparisons.iter())
            .find(|c| (c.a, c.b) == (leader.min(model), leader.max(model)))
            .and_then(|c| c.result.as_ref().ok());
        row.mean_diff_vs_leader = pair.map(|test| {
            let a_minus_b = test.difference.estimate;
            if model < leader {
                a_minus_b
            } else {
                -a_minus_b
            }
        });
        row.p_value_vs_leader = pair.map(|test| test.p_value);
        row.p_value_holm = pair.map(|test| test.p_value_holm);
    }
    let new_from_old: Vec<usize> = (board.models.iter())
        .map(|row| {
            (old_rows.iter())
                .position(|old| *old == row.model)
                .expect("the same rows")
        })
        .collect();
    board.per_target = (board.per_target.iter())
        .map(|row| row.reordered(&new_from_old))
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::decision::Margin;
    use crate::domain::PoolDepth;
    use crate::metrics::Settings;

    /// A study without models (a judge whose run found nothing to grade) gets a board without
    /// rows, and no panic.
    #[test]
    fn a_study_without_models_gets_an_empty_board() {
        let raters: Collection<u32> = Collection::of(Vec::new(), Vec::new(), PoolDepth::DEFAULT);
        let board = Leaderboard::of(&raters, Settings::default(), Margin::NONE, Partial::Exclude);
        let judged = JudgedTargets {
            name: JudgeName::new("empty").unwrap(),
            collection: Collection::of(Vec::new(), Vec::new(), PoolDepth::DEFAULT),
            in_raters: Vec::new(),
            tuning: Vec::new(),
        };
        let board = with_judge(board, &raters, &judged);
        assert!(board.models.is_empty());
        let judge = board.judge.expect("the judge's part");
        assert_eq!(judge.targets_judged, 0);
        assert_eq!(
            judge.unavailable.as_deref(),
            Some(
                "0 judged targets are rated; a prediction-powered estimate needs 20: the NDCG is \
                 the raters' alone"
            )
        );
    }
}
