//! The model comparison of a study, computed from in-memory data under one set of
//! [`Settings`], and its JSON, CSV and terminal renderings (`shared/spec/interface.md`).

use std::collections::HashMap;
use std::hash::Hash;

use rayon::prelude::*;
use serde::{Serialize, Serializer};

use crate::decision::Decision;
use crate::domain::{PoolDepth, Stars};
use crate::metrics::{self, Settings, TargetScores, RESAMPLES};

/// Holm-adjusted p-values at or above this leave a model tied with the leader.
pub const SIGNIFICANCE_LEVEL: f64 = 0.05;

/// One target of the study as the leaderboard needs it.
#[derive(Debug, Clone)]
pub struct TargetInput<K> {
    /// The target's external paper id.
    pub target: String,
    /// Every rated paper of the target, whichever model retrieved it.
    pub judgments: HashMap<K, Stars>,
    /// Each model's ranked list, best first, in the order of the model names given to
    /// [`Leaderboard::compute`]; `None` when the model has no list for this target.
    pub lists: Vec<Option<Vec<K>>>,
}

/// Which targets a comparison evaluates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Partial {
    /// Only fully rated targets (every pooled pair rated): the default of every view a rater
    /// can reach, since a number that moved with each rating of a target still being rated
    /// would tell which models listed the paper just rated.
    #[default]
    Exclude,
    /// Also targets with at least one rating (`include-partial`), for an analyst who accepts
    /// that it unblinds the targets still being rated.
    Include,
}

impl Partial {
    pub fn as_str(self) -> &'static str {
        match self {
            Partial::Exclude => "exclude",
            Partial::Include => "include",
        }
    }
}

/// The targets of the study around those given to [`Leaderboard::compute`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StudyTargets {
    /// Every target of the study: those given, and unrated or partly rated ones that need not
    /// be given (they are only counted).
    pub total: usize,
    /// Targets with some but not all pooled pairs rated.
    pub partly_rated: usize,
    /// Whether the partly rated targets are among those given.
    pub partial: Partial,
}

impl StudyTargets {
    /// A study where the targets given are all there are, each evaluated if it has a rating.
    pub fn given(count: usize) -> StudyTargets {
        StudyTargets {
            total: count,
            partly_rated: 0,
            partial: Partial::Include,
        }
    }
}

/// How many targets the comparison used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TargetCounts {
    /// Targets scored: fully rated ones, and with `include-partial` every one with a rating.
    pub evaluated: usize,
    /// Evaluated targets left out of the NDCG means: no judged paper has a positive gain
    /// (only with `empty = skip`).
    pub skipped_empty: usize,
    /// Targets without any rating.
    pub unrated: usize,
    /// Evaluated targets left out of the P, R, F1, AP and RR means: no judged paper reaches
    /// the threshold (only with `empty = skip`). An extension of interface.md.
    pub skipped_no_relevant: usize,
    /// Targets with some but not all pooled pairs rated: scored nowhere unless
    /// `include-partial` (then among the evaluated ones).
    pub partly_rated: usize,
}

/// One model's row. Every `Option` is `None` where the value is undefined.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelRow {
    pub model: String,
    /// 1-based position in the order of the rows.
    pub rank: usize,
    /// Mean NDCG@k over the evaluated targets where it is defined.
    pub ndcg: Option<f64>,
    /// 95% percentile-bootstrap interval of `ndcg`.
    pub ci95: Option<[f64; 2]>,
    /// How many targets `ndcg` averages.
    pub targets: usize,
    /// Mean Judged@k over the targets where the model has a list.
    pub judged_at_k: Option<f64>,
    /// Mean per-target NDCG difference, this model minus the leader, over the targets where
    /// both are defined (0 for the leader).
    pub mean_diff_vs_leader: Option<f64>,
    /// Paired sign-flip randomization test against the leader; `None` for the leader.
    pub p_value_vs_leader: Option<f64>,
    /// `p_value_vs_leader` after Holm's adjustment over all comparisons with the leader.
    pub p_value_holm: Option<f64>,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub f1: Option<f64>,
    pub ap: Option<f64>,
    pub rr: Option<f64>,
}

impl ModelRow {
    /// Not the leader, yet not significantly worse than it (Holm-adjusted p ≥ 0.05).
    pub fn tied_with_leader(&self) -> bool {
        self.p_value_holm.is_some_and(|p| p >= SIGNIFICANCE_LEVEL)
    }
}

/// One model on one evaluated target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PerTargetRow {
    pub target: String,
    pub model: String,
    pub ndcg: Option<f64>,
    pub judged_at_k: Option<f64>,
}

/// The comparison of every model of a study.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaderboard {
    pub settings: Settings,
    pub pool_depth: PoolDepth,
    /// Whether partly rated targets were evaluated.
    pub partial: Partial,
    pub targets: TargetCounts,
    /// Sorted by `ndcg` descending (undefined last), then by model name; the first is the
    /// leader.
    pub models: Vec<ModelRow>,
    /// Every model on every evaluated target (targets in input order, models in row order),
    /// when asked for.
    pub per_target: Option<Vec<PerTargetRow>>,
    /// The anytime-valid verdict over the fully rated targets in the order they were
    /// completed; `None` with fewer than two models, or where that order is not known.
    pub decision: Option<Decision>,
}

impl Leaderboard {
    /// Compares `models` on `targets`, each evaluated when it has a rating; `study` counts
    /// the targets around them.
    ///
    /// # Panics
    /// When a target does not have exactly one list entry per model.
    pub fn compute<K: Copy + Eq + Hash + Sync>(
        models: &[String],
        targets: &[TargetInput<K>],
        study: StudyTargets,
        settings: Settings,
        pool_depth: PoolDepth,
        include_per_target: bool,
    ) -> Leaderboard {
        for target in targets {
            assert_eq!(
                target.lists.len(),
                models.len(),
                "target {} needs one list entry per model",
                target.target
            );
        }
        let evaluated: Vec<&TargetInput<K>> =
            targets.iter().filter(|t| !t.judgments.is_empty()).collect();
        let by_target: Vec<Vec<TargetScores>> = (evaluated.par_iter())
            .map(|target| {
                (target.lists.iter())
                    .map(|list| {
                        let list = list.as_deref().unwrap_or_default();
                        metrics::evaluate_target(list, &target.judgments, &settings)
                    })
                    .collect()
            })
            .collect();
        // scores[model][target], over the evaluated targets.
        let scores: Vec<Vec<TargetScores>> = (0..models.len())
            .map(|model| by_target.iter().map(|target| target[model]).collect())
            .collect();
        let order = leaderboard_order(models, &scores);
        let per_target = include_per_target.then(|| {
            (evaluated.iter().enumerate())
                .flat_map(|(target, input)| order.iter().map(move |&model| (target, input, model)))
                .map(|(target, input, model)| PerTargetRow {
                    target: input.target.clone(),
                    model: models[model].clone(),
                    ndcg: scores[model][target].ndcg,
                    judged_at_k: scores[model][target].judged_at_k,
                })
                .collect()
        });
        Leaderboard {
            settings,
            pool_depth,
            partial: study.partial,
            targets: count_targets(study, targets.len(), &evaluated, &settings),
            models: model_rows(models, &scores, &order),
            per_target,
            decision: None,
        }
    }

    /// The leaderboard as pretty-printed JSON, ending in a newline.
    pub fn to_json(&self) -> String {
        let mut json = serde_json::to_string_pretty(self).expect("a leaderboard serializes");
        json.push('\n');
        json
    }

    /// One CSV row per model (RFC 4180, CRLF line ends), the settings repeated on every row
    /// so that the file states what it measured; undefined values are empty fields.
    pub fn to_csv(&self) -> String {
        let mut csv = String::new();
        push_csv_record(&mut csv, MODEL_COLUMNS.iter().chain(SETTINGS_COLUMNS));
        let settings = self.settings_values();
        for row in &self.models {
            let [ci_low, ci_high] = row
                .ci95
                .map_or([None, None], |[lo, hi]| [Some(lo), Some(hi)]);
            let values = [
                row.model.clone(),
                row.rank.to_string(),
                csv_number(row.ndcg),
                csv_number(ci_low),
                csv_number(ci_high),
                row.targets.to_string(),
                csv_number(row.judged_at_k),
                csv_number(row.mean_diff_vs_leader),
                csv_number(row.p_value_vs_leader),
                csv_number(row.p_value_holm),
                csv_number(row.precision),
                csv_number(row.recall),
                csv_number(row.f1),
                csv_number(row.ap),
                csv_number(row.rr),
            ];
            push_csv_record(&mut csv, values.iter().chain(&settings));
        }
        csv
    }

    /// One CSV row per model and evaluated target, with the settings as in [`Self::to_csv`];
    /// only a header when the per-target rows were not computed.
    pub fn per_target_csv(&self) -> String {
        let mut csv = String::new();
        push_csv_record(&mut csv, PER_TARGET_COLUMNS.iter().chain(SETTINGS_COLUMNS));
        let settings = self.settings_values();
        for row in self.per_target.iter().flatten() {
            let values = [
                row.target.clone(),
                row.model.clone(),
                csv_number(row.ndcg),
                csv_number(row.judged_at_k),
            ];
            push_csv_record(&mut csv, values.iter().chain(&settings));
        }
        csv
    }

    /// An aligned table for a terminal, numbers with 4 decimals, under a line stating the
    /// settings and one counting the targets.
    pub fn to_table(&self) -> String {
        let k = self.settings.k;
        let mut header = vec![
            "rank".to_owned(),
            "model".to_owned(),
            format!("NDCG@{k}"),
            "95% CI".to_owned(),
            "targets".to_owned(),
            format!("judged@{k}"),
            "diff".to_owned(),
            "p".to_owned(),
            "p (Holm)".to_owned(),
        ];
        header.extend(["P", "R", "F1", "AP", "RR"].map(|metric| format!("{metric}@{k}")));
        let mut lines = vec![header];
        for row in &self.models {
            let mut line = vec![
                row.rank.to_string(),
                crate::terminal::escape(&row.model).into_owned(),
                table_number(row.ndcg),
                row.ci95
                    .map_or("-".to_owned(), |[lo, hi]| format!("[{lo:.4}, {hi:.4}]")),
                row.targets.to_string(),
                table_number(row.judged_at_k),
                row.mean_diff_vs_leader
                    .map_or("-".to_owned(), |d| format!("{d:+.4}")),
                table_number(row.p_value_vs_leader),
                table_number(row.p_value_holm),
            ];
            line.extend([row.precision, row.recall, row.f1, row.ap, row.rr].map(table_number));
            lines.push(line);
        }

        let columns = lines[0].len();
        let widths: Vec<usize> = (0..columns)
            .map(|c| {
                lines
                    .iter()
                    .map(|l| l[c].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let TargetCounts {
            evaluated,
            skipped_empty,
            unrated,
            skipped_no_relevant,
            partly_rated,
        } = self.targets;
        let partly_rated = match self.partial {
            Partial::Exclude => format!("{partly_rated} partly rated and left out"),
            Partial::Include => format!("{partly_rated} of them partly rated (include-partial)"),
        };
        let mut table = format!(
            "{}\n{evaluated} targets evaluated ({skipped_empty} skipped from NDCG and \
             {skipped_no_relevant} from P/R/F1/AP/RR for having nothing relevant), \
             {partly_rated}, {unrated} unrated; pool depth {}\n",
            self.settings.describe(),
            self.pool_depth,
        );
        for line in &lines {
            let cells: Vec<String> = line
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(column, (cell, &width))| {
                    // The model name reads best left-aligned, numbers right-aligned.
                    if column == 1 {
                        format!("{cell:<width$}")
                    } else {
                        format!("{cell:>width$}")
                    }
                })
                .collect();
            table.push_str(cells.join("  ").trim_end());
            table.push('\n');
        }
        if let Some(decision) = &self.decision {
            table.push_str(&crate::terminal::escape(&decision.in_words()));
            table.push('\n');
        }
        table.push_str(&format!(
            "diff and p: paired against the leader; p from a two-sided sign-flip test with \
             {RESAMPLES} permutations, Holm-adjusted over the comparisons; 95% CI from \
             {RESAMPLES} bootstrap resamples\n"
        ));
        table
    }

    fn settings_values(&self) -> Vec<String> {
        let s = &self.settings;
        vec![
            s.k.to_string(),
            s.gain.to_string(),
            s.relevance.to_string(),
            s.ideal.to_string(),
            s.unjudged.to_string(),
            s.empty.to_string(),
            s.threshold.to_string(),
            s.ap_denominator.to_string(),
            self.pool_depth.to_string(),
            self.partial.as_str().to_owned(),
        ]
    }
}

/// Model indices by mean NDCG descending (undefined last), then by name.
fn leaderboard_order(models: &[String], scores: &[Vec<TargetScores>]) -> Vec<usize> {
    let mean_ndcg: Vec<Option<f64>> = (scores.iter())
        .map(|s| metrics::mean(s.iter().map(|t| t.ndcg)).value)
        .collect();
    let mut order: Vec<usize> = (0..models.len()).collect();
    order.sort_by(|&a, &b| {
        let by_ndcg = match (mean_ndcg[a], mean_ndcg[b]) {
            (Some(x), Some(y)) => y.total_cmp(&x),
            (x, y) => y.is_some().cmp(&x.is_some()),
        };
        by_ndcg.then_with(|| models[a].cmp(&models[b]))
    });
    order
}

fn count_targets<K: Copy + Eq + Hash>(
    study: StudyTargets,
    given: usize,
    evaluated: &[&TargetInput<K>],
    settings: &Settings,
) -> TargetCounts {
    // What even a missing list scores tells whether a target has anything to find.
    let nothing_to_find: Vec<TargetScores> = (evaluated.iter())
        .map(|t| metrics::evaluate_target(&[], &t.judgments, settings))
        .collect();
    let left_out = match study.partial {
        Partial::Exclude => study.partly_rated,
        Partial::Include => 0,
    };
    let total = study.total.max(given + left_out);
    TargetCounts {
        evaluated: evaluated.len(),
        skipped_empty: nothing_to_find.iter().filter(|s| s.ndcg.is_none()).count(),
        unrated: total - evaluated.len() - left_out,
        partly_rated: study.partly_rated,
        skipped_no_relevant: (nothing_to_find.iter())
            .filter(|s| s.precision.is_none())
            .count(),
    }
}

/// The rows in leaderboard `order`, each compared with the first (the leader).
fn model_rows(models: &[String], scores: &[Vec<TargetScores>], order: &[usize]) -> Vec<ModelRow> {
    let defined_ndcg: Vec<Vec<f64>> = (order.iter())
        .map(|&model| scores[model].iter().filter_map(|s| s.ndcg).collect())
        .collect();
    let samples: Vec<&[f64]> = defined_ndcg.iter().map(Vec::as_slice).collect();
    let leader = order.first().map(|&model| &scores[model]);
    // Paired: only the targets where both a model and the leader are defined.
    let differences: Vec<Vec<f64>> = (order.iter())
        .map(|&model| {
            (leader.into_iter())
                .flat_map(|leader| leader.iter().zip(&scores[model]))
                .filter_map(|(leader, this)| Some(this.ndcg? - leader.ndcg?))
                .collect()
        })
        .collect();
    // Each spreads its resamples over the cores.
    let intervals = metrics::bootstrap_ci95_each(&samples);
    // The leader (position 0) is not tested against itself.
    let compared_with_leader: Vec<&[f64]> = (differences.iter().enumerate())
        .map(|(position, differences)| {
            if position > 0 {
                differences.as_slice()
            } else {
                &[]
            }
        })
        .collect();
    let p_values = metrics::sign_flip_p_values_each(&compared_with_leader);
    let mut rows: Vec<ModelRow> = (order.iter().enumerate())
        .map(|(position, &model)| {
            let scores = &scores[model];
            let mean_of = |metric: fn(&TargetScores) -> Option<f64>| {
                metrics::mean(scores.iter().map(metric)).value
            };
            let differences = &differences[position];
            ModelRow {
                model: models[model].clone(),
                rank: position + 1,
                ndcg: mean_of(|s| s.ndcg),
                ci95: intervals[position],
                targets: samples[position].len(),
                judged_at_k: mean_of(|s| s.judged_at_k),
                mean_diff_vs_leader: metrics::mean(differences.iter().map(|&d| Some(d))).value,
                p_value_vs_leader: p_values[position],
                p_value_holm: None,
                precision: mean_of(|s| s.precision),
                recall: mean_of(|s| s.recall),
                f1: mean_of(|s| s.f1),
                ap: mean_of(|s| s.ap),
                rr: mean_of(|s| s.rr),
            }
        })
        .collect();

    let compared: Vec<usize> = (0..rows.len())
        .filter(|&row| rows[row].p_value_vs_leader.is_some())
        .collect();
    let p_values: Vec<f64> = (compared.iter())
        .filter_map(|&row| rows[row].p_value_vs_leader)
        .collect();
    for (&row, adjusted) in compared.iter().zip(metrics::holm(&p_values)) {
        rows[row].p_value_holm = Some(adjusted);
    }
    rows
}

const MODEL_COLUMNS: &[&str] = &[
    "model",
    "rank",
    "ndcg",
    "ci95_low",
    "ci95_high",
    "targets",
    "judged_at_k",
    "mean_diff_vs_leader",
    "p_value_vs_leader",
    "p_value_holm",
    "precision",
    "recall",
    "f1",
    "ap",
    "rr",
];

const PER_TARGET_COLUMNS: &[&str] = &["target", "model", "ndcg", "judged_at_k"];

const SETTINGS_COLUMNS: &[&str] = &[
    "k",
    "gain",
    "relevance",
    "ideal",
    "unjudged",
    "empty",
    "threshold",
    "ap_denominator",
    "pool_depth",
    "partial",
];

/// Appends one record, quoting the fields that need it (RFC 4180).
fn push_csv_record<T: AsRef<str>>(csv: &mut String, fields: impl Iterator<Item = T>) {
    for (index, field) in fields.enumerate() {
        if index > 0 {
            csv.push(',');
        }
        let field = field.as_ref();
        if field.contains([',', '"', '\r', '\n']) {
            csv.push('"');
            csv.push_str(&field.replace('"', "\"\""));
            csv.push('"');
        } else {
            csv.push_str(field);
        }
    }
    csv.push_str("\r\n");
}

/// The shortest text that reads back as the same number; empty when undefined.
fn csv_number(value: Option<f64>) -> String {
    value.map_or(String::new(), |v| v.to_string())
}

fn table_number(value: Option<f64>) -> String {
    value.map_or("-".to_owned(), |v| format!("{v:.4}"))
}

/// The JSON of `interface.md`: the settings with the pool depth, the target counts, the
/// model rows, and the per-target rows only when they were computed.
impl Serialize for Leaderboard {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct SettingsJson<'a> {
            #[serde(flatten)]
            metrics: &'a Settings,
            pool_depth: u32,
            partial: Partial,
        }
        #[derive(Serialize)]
        struct LeaderboardJson<'a> {
            settings: SettingsJson<'a>,
            targets: &'a TargetCounts,
            decision: Option<&'a Decision>,
            models: &'a [ModelRow],
            #[serde(skip_serializing_if = "Option::is_none")]
            per_target: Option<&'a [PerTargetRow]>,
        }
        LeaderboardJson {
            settings: SettingsJson {
                metrics: &self.settings,
                pool_depth: self.pool_depth.get(),
                partial: self.partial,
            },
            targets: &self.targets,
            decision: self.decision.as_ref(),
            models: &self.models,
            per_target: self.per_target.as_deref(),
        }
        .serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroUsize;

    use serde_json::{json, Value};

    use super::*;

    /// Three models, four targets, k = 3, the contract's defaults otherwise:
    /// - T1: a 5★, b 3★, c 1★ (gains 4, 2, 0; one relevant paper)
    /// - T2: d 4★, e 2★ (gains 3, 1; one relevant paper)
    /// - T3: f 1★, g 1★ (nothing to find: skipped from every mean)
    /// - T4: no rating (unrated)
    fn study() -> (Vec<String>, Vec<TargetInput<&'static str>>) {
        let models = ["gamma, v2", "beta", "alpha"].map(String::from).to_vec();
        let target =
            |id: &str, rated: &[(&'static str, i64)], lists: [Option<&[&'static str]>; 3]| {
                TargetInput {
                    target: id.to_owned(),
                    judgments: (rated.iter())
                        .map(|&(paper, stars)| (paper, Stars::new(stars).unwrap()))
                        .collect(),
                    lists: lists.map(|list| list.map(<[_]>::to_vec)).to_vec(),
                }
            };
        let targets = vec![
            target(
                "T1",
                &[("a", 5), ("b", 3), ("c", 1)],
                [None, Some(&["a", "b", "c"]), Some(&["a", "b", "c"])],
            ),
            target(
                "T2",
                &[("d", 4), ("e", 2)],
                [Some(&["z", "d"]), Some(&["d", "e"]), Some(&["d", "e"])],
            ),
            target(
                "T3",
                &[("f", 1), ("g", 1)],
                [Some(&["g", "f"]), Some(&["f", "z"]), Some(&["f"])],
            ),
            target("T4", &[], [Some(&["a"]), None, Some(&["x"])]),
        ];
        (models, targets)
    }

    fn settings() -> Settings {
        Settings {
            k: NonZeroUsize::new(3).unwrap(),
            ..Settings::default()
        }
    }

    fn compute(per_target: bool) -> Leaderboard {
        let (models, targets) = study();
        let pool_depth = PoolDepth::new(3).unwrap();
        Leaderboard::compute(
            &models,
            &targets,
            StudyTargets::given(targets.len()),
            settings(),
            pool_depth,
            per_target,
        )
    }

    #[track_caller]
    fn assert_close(actual: Option<f64>, expected: f64) {
        let actual = actual.expect("a defined value");
        assert!((actual - expected).abs() < 1e-12, "{actual} vs {expected}");
    }

    #[test]
    fn hand_computed_study() {
        let board = compute(false);
        assert_eq!(
            board.targets,
            TargetCounts {
                evaluated: 3,
                skipped_empty: 1,
                unrated: 1,
                skipped_no_relevant: 1,
                partly_rated: 0,
            }
        );
        let names: Vec<&str> = board.models.iter().map(|m| m.model.as_str()).collect();
        assert_eq!(
            names,
            ["alpha", "beta", "gamma, v2"],
            "NDCG descending, then name"
        );

        let [alpha, beta, gamma] = &board.models[..] else {
            panic!("three rows")
        };
        // alpha and beta rank every list ideally; beta's T3 list has an unrated paper.
        for (row, rank, judged) in [(alpha, 1, 1.0), (beta, 2, 5.0 / 6.0)] {
            assert_eq!(row.rank, rank);
            assert_eq!(row.ndcg, Some(1.0));
            assert_eq!(row.ci95, Some([1.0, 1.0]));
            assert_eq!(row.targets, 2);
            assert_close(row.judged_at_k, judged);
            assert_eq!(row.mean_diff_vs_leader, Some(0.0));
            assert_close(row.precision, 1.0 / 3.0);
            assert_eq!(
                (row.recall, row.f1, row.ap, row.rr),
                (Some(1.0), Some(0.5), Some(1.0), Some(1.0))
            );
        }
        assert_eq!((alpha.p_value_vs_leader, alpha.p_value_holm), (None, None));
        assert!(!alpha.tied_with_leader());
        assert_eq!(
            (beta.p_value_vs_leader, beta.p_value_holm),
            (Some(1.0), Some(1.0))
        );
        assert!(beta.tied_with_leader());

        // gamma: no list for T1 (0); T2 = [z (unrated), d]: DCG 3/log2 3 of ideal 3 + 1/log2 3.
        let gamma_t2 = (3.0 / 3f64.log2()) / (3.0 + 1.0 / 3f64.log2());
        assert_eq!(gamma.rank, 3);
        assert_close(gamma.ndcg, gamma_t2 / 2.0);
        // Two values: the 2.5% and 97.5% quantiles of the resample means are the extremes.
        assert_eq!(gamma.ci95, Some([0.0, gamma_t2]));
        assert_eq!(gamma.targets, 2);
        assert_close(gamma.judged_at_k, (0.5 + 1.0) / 2.0);
        assert_close(gamma.mean_diff_vs_leader, (-1.0 + gamma_t2 - 1.0) / 2.0);
        // Two differences: half of the sign patterns are as extreme as the observed one.
        let p = gamma.p_value_vs_leader.unwrap();
        assert!((0.45..0.55).contains(&p), "{p}");
        // Holm over {beta: 1, gamma: p}: gamma's p is the smaller one, times 2.
        assert_eq!(gamma.p_value_holm, Some((2.0 * p).min(1.0)));
        assert_close(gamma.precision, 1.0 / 6.0);
        assert_close(gamma.recall, 0.5);
        assert_close(gamma.f1, 0.25);
        assert_close(gamma.ap, 0.25);
        assert_close(gamma.rr, 0.25);
    }

    /// Whether `keys` occur in `json` in this order (as a subsequence of its keys).
    fn keys_in_order(json: &str, keys: &[&str]) -> bool {
        let mut from = 0;
        keys.iter()
            .all(|key| match json[from..].find(&format!("\"{key}\":")) {
                Some(position) => {
                    from += position + 1;
                    true
                }
                None => false,
            })
    }

    #[test]
    fn json_has_the_interface_shape() {
        let json = compute(true).to_json();
        assert!(json.ends_with("}\n"));
        assert!(keys_in_order(
            &json,
            &["settings", "targets", "models", "per_target"]
        ));
        assert!(keys_in_order(
            &json,
            &[
                "k",
                "gain",
                "relevance",
                "ideal",
                "unjudged",
                "empty",
                "threshold",
                "ap_denominator",
                "pool_depth",
                "evaluated",
                "skipped_empty",
                "unrated",
                "skipped_no_relevant",
                "partly_rated",
                "model",
                "rank",
                "ndcg",
                "ci95",
                "targets",
                "judged_at_k",
                "mean_diff_vs_leader",
                "p_value_vs_leader",
                "p_value_holm",
                "precision",
                "recall",
                "f1",
                "ap",
                "rr"
            ]
        ));
        let value: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            value["settings"],
            json!({"k": 3, "gain": "linear", "relevance": "stars-minus-one", "ideal": "judged",
                   "unjudged": "zero", "empty": "skip", "threshold": 4,
                   "ap_denominator": "relevant", "pool_depth": 3, "partial": "include"})
        );
        assert_eq!(
            value["targets"],
            json!({"evaluated": 3, "skipped_empty": 1, "unrated": 1, "skipped_no_relevant": 1,
                   "partly_rated": 0})
        );
        let leader = &value["models"][0];
        assert_eq!(leader["model"], "alpha");
        assert_eq!(leader["ci95"], json!([1.0, 1.0]));
        assert_eq!(leader["mean_diff_vs_leader"], json!(0.0));
        assert!(leader["p_value_vs_leader"].is_null() && leader["p_value_holm"].is_null());

        let rows = value["per_target"].as_array().unwrap();
        assert_eq!(rows.len(), 9, "3 evaluated targets × 3 models");
        assert_eq!(
            rows[0],
            json!({"target": "T1", "model": "alpha", "ndcg": 1.0, "judged_at_k": 1.0})
        );
        assert_eq!(
            rows[2],
            json!({"target": "T1", "model": "gamma, v2", "ndcg": 0.0, "judged_at_k": null})
        );
        assert!(rows[6..]
            .iter()
            .all(|row| row["target"] == "T3" && row["ndcg"].is_null()));
        assert!(!json.contains("NaN"));

        assert!(!compute(false).to_json().contains("per_target"));
    }

    #[test]
    fn csv_and_table_state_values_and_settings() {
        let board = compute(true);
        let csv = board.to_csv();
        let lines: Vec<&str> = csv.split_terminator("\r\n").collect();
        assert_eq!(
            lines[0],
            "model,rank,ndcg,ci95_low,ci95_high,targets,judged_at_k,mean_diff_vs_leader,\
             p_value_vs_leader,p_value_holm,precision,recall,f1,ap,rr,\
             k,gain,relevance,ideal,unjudged,empty,threshold,ap_denominator,pool_depth,partial"
        );
        assert!(lines[1].starts_with("alpha,1,1,1,1,2,1,0,,,0.3333333333333333,1,0.5,1,1,"));
        assert!(
            lines[1].ends_with(",3,linear,stars-minus-one,judged,zero,skip,4,relevant,3,include")
        );
        assert!(lines[3].starts_with("\"gamma, v2\",3,"));
        assert_eq!(lines.len(), 4);

        let per_target = board.per_target_csv();
        assert!(per_target.starts_with("target,model,ndcg,judged_at_k,k,"));
        assert!(per_target.contains("\r\nT1,\"gamma, v2\",0,,3,"));
        assert!(per_target.contains("\r\nT3,alpha,,1,3,"));

        let table = board.to_table();
        let mut lines = table.lines();
        assert_eq!(lines.next(), Some(settings().describe().as_str()));
        assert!(table.contains("  alpha      1.0000  [1.0000, 1.0000]"));
        assert!(table.contains("gamma, v2  0.2606"));
    }

    #[test]
    fn a_study_without_ratings_has_nothing_defined() {
        let models = ["m".to_owned()];
        let targets = [TargetInput {
            target: "T".to_owned(),
            judgments: HashMap::new(),
            lists: vec![Some(vec![1])],
        }];
        let board = Leaderboard::compute(
            &models,
            &targets,
            StudyTargets::given(targets.len()),
            settings(),
            PoolDepth::DEFAULT,
            true,
        );
        let row = &board.models[0];
        assert_eq!((row.ndcg, row.ci95, row.targets), (None, None, 0));
        assert_eq!(
            (row.mean_diff_vs_leader, row.p_value_vs_leader),
            (None, None)
        );
        assert_eq!(board.targets.unrated, 1);
        assert_eq!(board.per_target, Some(vec![]));
        let empty = Leaderboard::compute::<i64>(
            &[],
            &[],
            StudyTargets::given(0),
            settings(),
            PoolDepth::DEFAULT,
            false,
        );
        assert!(empty.models.is_empty());
        assert!(empty.to_table().lines().count() >= 3);
    }

    #[test]
    fn renders_are_byte_identical() {
        // Fresh hash maps each time, so nothing may depend on their iteration order.
        let (first, second) = (compute(true), compute(true));
        assert_eq!(first.to_json(), second.to_json());
        assert_eq!(first.to_csv(), second.to_csv());
        assert_eq!(first.per_target_csv(), second.per_target_csv());
        assert_eq!(first.to_table(), second.to_table());
    }
}
