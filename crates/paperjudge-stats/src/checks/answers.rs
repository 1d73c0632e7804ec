//! What the raters answered beyond their stars (docs/metrics.md, "Study checks"): how often
//! they could not judge a pair, by rater and by model ("a model whose papers nobody can
//! judge"), and how the ratings moved when the study's guidelines changed: each version's
//! stars, "can't judge" and agreement.

use serde::Serialize;

use super::raters::pairs;
use crate::domain::{GuidelinesVersion, PaperKey, RaterAnswer, RaterId, RaterName};
use crate::leaderboard::TargetInput;
use crate::metrics::{krippendorff_alpha, star_counts, Level, Settings};
use crate::words::{page, plural};

/// One version of the study's guidelines: what the checks name it by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuidelinesVersionInfo {
    pub version: GuidelinesVersion,
    /// When it was set (RFC 3339).
    pub set_at: String,
    /// The version that cleared the guidelines (the built-in scale alone from then on).
    pub cleared: bool,
}

/// What the reports read: the targets the checks are over (fully rated ones, or with
/// `include-partial` every one with a rating; "can't judge" alone too), each with its lists
/// and every answer given on it.
pub struct AnswersInput<'a> {
    pub models: &'a [String],
    pub targets: Vec<(&'a TargetInput<PaperKey>, &'a [RaterAnswer])>,
    pub raters: &'a [(RaterId, RaterName)],
    /// Every version of the guidelines, oldest first.
    pub versions: &'a [GuidelinesVersionInfo],
}

/// The `cannot_judge` key of the checks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CannotJudgeReport {
    /// Answers given (stars or "can't judge") on the targets checked.
    pub answers: usize,
    pub cannot_judge: usize,
    pub share: Option<f64>,
    /// Pairs that no rater who answered could judge: unjudged in every metric.
    pub unjudged_pairs: usize,
    /// Every rater who answered, by name.
    pub raters: Vec<RaterCannotJudge>,
    /// Every model, in the study's order.
    pub models: Vec<ModelCannotJudge>,
    pub sentence: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RaterCannotJudge {
    pub name: RaterName,
    pub answers: usize,
    pub cannot_judge: usize,
    pub share: Option<f64>,
}

/// A model's pairs in its top k on the targets checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelCannotJudge {
    pub model: String,
    /// Its pairs that some rater answered.
    pub pairs: usize,
    /// Those no rater could judge.
    pub unjudged: usize,
    pub share: Option<f64>,
}

/// The `guidelines` key of the checks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GuidelinesReport {
    /// The ratings before any guidelines (when there are some), then every version, oldest
    /// first.
    pub versions: Vec<VersionReport>,
    pub sentence: String,
}

/// The answers given under one version of the guidelines.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VersionReport {
    /// `null`: before the study had guidelines.
    pub version: Option<GuidelinesVersion>,
    pub set_at: Option<String>,
    pub cleared: bool,
    /// Answers given (stars or "can't judge").
    pub answers: usize,
    pub cannot_judge: usize,
    pub cannot_judge_share: Option<f64>,
    /// The share of each number of stars among the stars given, 1 to 5.
    pub stars_shares: Option<[f64; 5]>,
    pub mean_stars: Option<f64>,
    /// The share of the stars given at the threshold or above.
    pub share_relevant: Option<f64>,
    /// Pairs two raters or more gave stars to under this version.
    pub pairs_rated_twice: usize,
    /// Krippendorff's alpha (ordinal) over those pairs.
    pub alpha_ordinal: Option<f64>,
}

/// A share as a whole percentage, as the sentences say it.
fn percent(share: Option<f64>) -> String {
    page::percent(share, 0)
}

fn share(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// How often the raters of `input` could not judge a pair, overall, by rater, and in each
/// model's top `k`.
pub fn cannot_judge(input: &AnswersInput<'_>, k: usize) -> CannotJudgeReport {
    let answers: Vec<&RaterAnswer> = (input.targets.iter())
        .flat_map(|(_, answers)| answers.iter())
        .collect();
    let cannot_judge = answers.iter().filter(|a| a.stars().is_none()).count();
    let unjudged_pairs = (input.targets.iter())
        .map(|(_, answers)| unjudged(answers).count())
        .sum();
    let mut raters: Vec<RaterCannotJudge> = (input.raters.iter())
        .filter_map(|(id, name)| {
            let given = answers.iter().filter(|a| a.rater == *id).count();
            let cannot = (answers.iter())
                .filter(|a| a.rater == *id && a.stars().is_none())
                .count();
            (given > 0).then(|| RaterCannotJudge {
                name: name.clone(),
                answers: given,
                cannot_judge: cannot,
                share: share(cannot, given),
            })
        })
        .collect();
    raters.sort_by(|a, b| a.name.cmp(&b.name));
    let models: Vec<ModelCannotJudge> = (input.models.iter().enumerate())
        .map(|(model, name)| {
            let (mut pairs, mut unjudged_in_top) = (0, 0);
            for (target, answers) in &input.targets {
                let Some(Some(list)) = target.lists.get(model) else {
                    continue;
                };
                if !target.pooled(model) {
                    continue;
                }
                let nobody_could: Vec<PaperKey> = unjudged(answers).collect();
                for paper in list.iter().take(k) {
                    if answers.iter().any(|answer| answer.paper == *paper) {
                        pairs += 1;
                        unjudged_in_top += usize::from(nobody_could.contains(paper));
                    }
                }
            }
            ModelCannotJudge {
                model: name.clone(),
                pairs,
                unjudged: unjudged_in_top,
                share: share(unjudged_in_top, pairs),
            }
        })
        .collect();
    let sentence = cannot_judge_sentence(answers.len(), cannot_judge, unjudged_pairs, &models, k);
    CannotJudgeReport {
        answers: answers.len(),
        cannot_judge,
        share: share(cannot_judge, answers.len()),
        unjudged_pairs,
        raters,
        models,
        sentence,
    }
}

/// The papers of one target's `answers` (by paper) that no rater who answered could judge.
fn unjudged(answers: &[RaterAnswer]) -> impl Iterator<Item = PaperKey> + '_ {
    (answers.chunk_by(|a, b| a.paper == b.paper))
        .filter(|pair| pair.iter().all(|answer| answer.stars().is_none()))
        .map(|pair| pair[0].paper)
}

fn cannot_judge_sentence(
    answers: usize,
    cannot_judge: usize,
    unjudged_pairs: usize,
    models: &[ModelCannotJudge],
    k: usize,
) -> String {
    if cannot_judge == 0 {
        return "No rater marked a pair \"can't judge\".".to_owned();
    }
    let mut said = format!(
        "{cannot_judge} of {answers} answers ({}) are \"can't judge\"; {unjudged_pairs} {} \
         nobody could judge {} unjudged in every metric.",
        percent(share(cannot_judge, answers)),
        plural(unjudged_pairs, "pair", "pairs"),
        plural(unjudged_pairs, "is", "are"),
    );
    // The largest share, the first in the study's order of those tied.
    let most = (models.iter()).filter(|model| model.unjudged > 0).fold(
        None,
        |most: Option<&ModelCannotJudge>, model| match most {
            Some(most) if most.share >= model.share => Some(most),
            _ => Some(model),
        },
    );
    if let Some(model) = most {
        said.push_str(&format!(
            " Most in {}'s top {k}: {} of {} pairs ({}).",
            model.model,
            model.unjudged,
            model.pairs,
            percent(model.share)
        ));
    }
    said
}

/// How the answers moved with the guidelines: the answers before any guidelines (when there
/// are such), then each version's, oldest first.
pub fn by_guidelines(input: &AnswersInput<'_>, settings: &Settings) -> GuidelinesReport {
    let before = VersionInfoOrNone::Before;
    let mut groups: Vec<VersionInfoOrNone<'_>> = vec![before];
    groups.extend(input.versions.iter().map(VersionInfoOrNone::Version));
    let versions: Vec<VersionReport> = (groups.into_iter())
        .map(|group| version_report(input, group, settings))
        .filter(|report| report.version.is_some() || report.answers > 0)
        .collect();
    let sentence = guidelines_sentence(&versions, input.versions.is_empty());
    GuidelinesReport { versions, sentence }
}

/// The ratings before the study had guidelines, or one version of them.
#[derive(Clone, Copy)]
enum VersionInfoOrNone<'a> {
    Before,
    Version(&'a GuidelinesVersionInfo),
}

fn version_report(
    input: &AnswersInput<'_>,
    group: VersionInfoOrNone<'_>,
    settings: &Settings,
) -> VersionReport {
    let version = match group {
        VersionInfoOrNone::Before => None,
        VersionInfoOrNone::Version(info) => Some(info.version),
    };
    let under: Vec<Vec<RaterAnswer>> = (input.targets.iter())
        .map(|(_, answers)| {
            (answers.iter())
                .filter(|answer| answer.guidelines == version)
                .copied()
                .collect()
        })
        .collect();
    let answers = under.iter().map(Vec::len).sum();
    let stars: Vec<_> = (under.iter().flatten())
        .filter_map(RaterAnswer::stars)
        .collect();
    let counts = star_counts(&stars);
    let given = stars.len();
    let twice: Vec<_> = (pairs(&under).iter())
        .filter(|raters| raters.len() >= 2)
        .map(|raters| star_counts(&raters.iter().map(|(_, s)| *s).collect::<Vec<_>>()))
        .collect();
    VersionReport {
        version,
        set_at: match group {
            VersionInfoOrNone::Before => None,
            VersionInfoOrNone::Version(info) => Some(info.set_at.clone()),
        },
        cleared: matches!(group, VersionInfoOrNone::Version(info) if info.cleared),
        answers,
        cannot_judge: answers - given,
        cannot_judge_share: share(answers - given, answers),
        stars_shares: (given > 0)
            .then(|| std::array::from_fn(|at| counts[at] as f64 / given as f64)),
        mean_stars: share(
            stars.iter().map(|stars| usize::from(stars.get())).sum(),
            given,
        ),
        share_relevant: share(
            stars.iter().filter(|&&s| settings.is_relevant(s)).count(),
            given,
        ),
        pairs_rated_twice: twice.len(),
        alpha_ordinal: krippendorff_alpha(&twice, Level::Ordinal),
    }
}

fn guidelines_sentence(versions: &[VersionReport], never_set: bool) -> String {
    if never_set {
        return "The study has no guidelines of its own: every rating was made with the \
                built-in scale alone."
            .to_owned();
    }
    let described: Vec<String> = (versions.iter())
        .map(|report| {
            let name = match report.version {
                None => "before any guidelines".to_owned(),
                Some(version) if report.cleared => format!("version {version} (cleared)"),
                Some(version) => format!("under version {version}"),
            };
            if report.answers == 0 {
                return format!("{name}, no rating yet");
            }
            let alpha = match report.alpha_ordinal {
                Some(alpha) => format!(
                    ", α = {alpha:.2} over {} {} rated twice",
                    report.pairs_rated_twice,
                    plural(report.pairs_rated_twice, "pair", "pairs")
                ),
                None => String::new(),
            };
            format!(
                "{name}, {} {} (mean {} stars, {} relevant, {} can't judge){alpha}",
                report.answers,
                plural(report.answers, "rating", "ratings"),
                report
                    .mean_stars
                    .map_or("–".to_owned(), |mean| format!("{mean:.2}")),
                percent(report.share_relevant),
                percent(report.cannot_judge_share),
            )
        })
        .collect();
    let mut said = described.join("; ");
    if let Some(first) = said.get(..1) {
        said = format!("{}{}.", first.to_uppercase(), &said[1..]);
    }
    said
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::domain::Answer;

    fn answer(paper: i64, rater: i64, stars: Option<i64>, version: Option<i64>) -> RaterAnswer {
        RaterAnswer {
            paper: PaperKey(paper),
            rater: RaterId(rater),
            answer: Answer::stored(stars).unwrap(),
            guidelines: version.map(GuidelinesVersion),
        }
    }

    fn target(lists: Vec<Vec<i64>>) -> TargetInput<PaperKey> {
        TargetInput {
            target: "T".to_owned(),
            fully_rated: true,
            judgments: HashMap::new(),
            lists: (lists.into_iter())
                .map(|list| Some(list.into_iter().map(PaperKey).collect()))
                .collect(),
            left_out: Vec::new(),
        }
    }

    #[test]
    fn cannot_judge_is_counted_by_rater_and_by_model() {
        let models = ["a".to_owned(), "b".to_owned()];
        let raters = [
            (RaterId(1), RaterName::new("Ann").unwrap()),
            (RaterId(2), RaterName::new("Bo").unwrap()),
        ];
        // Paper 10: Ann 3, Bo can't judge (judged). Paper 11: both can't judge (unjudged).
        // Paper 12: Ann 5. Model a lists 10, 11; model b lists 12, 10, 11 (11 past k = 2).
        let answers = vec![
            answer(10, 1, Some(3), None),
            answer(10, 2, None, None),
            answer(11, 1, None, None),
            answer(11, 2, None, None),
            answer(12, 1, Some(5), None),
        ];
        let lists = target(vec![vec![10, 11], vec![12, 10, 11]]);
        let input = AnswersInput {
            models: &models,
            targets: vec![(&lists, &answers)],
            raters: &raters,
            versions: &[],
        };
        let report = cannot_judge(&input, 2);
        assert_eq!((report.answers, report.cannot_judge), (5, 3));
        assert_eq!(report.unjudged_pairs, 1);
        let by_rater: Vec<(usize, usize)> = (report.raters.iter())
            .map(|rater| (rater.answers, rater.cannot_judge))
            .collect();
        assert_eq!(by_rater, [(3, 1), (2, 2)]);
        let by_model: Vec<(usize, usize, Option<f64>)> = (report.models.iter())
            .map(|model| (model.pairs, model.unjudged, model.share))
            .collect();
        assert_eq!(by_model, [(2, 1, Some(0.5)), (2, 0, Some(0.0))]);
        assert_eq!(
            report.sentence,
            "3 of 5 answers (60%) are \"can't judge\"; 1 pair nobody could judge is unjudged \
             in every metric. Most in a's top 2: 1 of 2 pairs (50%)."
        );
    }

    #[test]
    fn each_version_of_the_guidelines_has_its_stars_and_agreement() {
        let models = ["a".to_owned()];
        let raters = [
            (RaterId(1), RaterName::new("Ann").unwrap()),
            (RaterId(2), RaterName::new("Bo").unwrap()),
        ];
        let answers = vec![
            // Before any guidelines: 10 rated 1 and 5 (disagreeing).
            answer(10, 1, Some(1), None),
            answer(10, 2, Some(5), None),
            // Under version 1: 11 rated 4 and 4, 12 rated 2 and 2, 13 can't judge once.
            answer(11, 1, Some(4), Some(1)),
            answer(11, 2, Some(4), Some(1)),
            answer(12, 1, Some(2), Some(1)),
            answer(12, 2, Some(2), Some(1)),
            answer(13, 1, None, Some(1)),
        ];
        let lists = target(vec![vec![10, 11, 12, 13]]);
        let versions = [
            GuidelinesVersionInfo {
                version: GuidelinesVersion(1),
                set_at: "2026-12-01T09:00:00Z".to_owned(),
                cleared: false,
            },
            GuidelinesVersionInfo {
                version: GuidelinesVersion(2),
                set_at: "2026-12-02T09:00:00Z".to_owned(),
                cleared: true,
            },
        ];
        let input = AnswersInput {
            models: &models,
            targets: vec![(&lists, &answers)],
            raters: &raters,
            versions: &versions,
        };
        let settings = Settings::default();
        let report = by_guidelines(&input, &settings);
        let versions: Vec<Option<i64>> = (report.versions.iter())
            .map(|v| v.version.map(|v| v.0))
            .collect();
        assert_eq!(versions, [None, Some(1), Some(2)]);
        let [before, first, cleared] = &report.versions[..] else {
            panic!("three groups");
        };
        assert_eq!(before.stars_shares, Some([0.5, 0.0, 0.0, 0.0, 0.5]));
        assert_eq!(before.pairs_rated_twice, 1);
        assert_eq!(before.alpha_ordinal, Some(0.0), "one pair, disagreed on");
        assert_eq!((first.answers, first.cannot_judge), (5, 1));
        assert_eq!(first.stars_shares, Some([0.0, 0.5, 0.0, 0.5, 0.0]));
        assert_eq!(first.mean_stars, Some(3.0));
        assert_eq!(first.alpha_ordinal, Some(1.0), "two pairs, each agreed on");
        assert_eq!((cleared.answers, cleared.cleared), (0, true));
        assert_eq!(
            report.sentence,
            "Before any guidelines, 2 ratings (mean 3.00 stars, 50% relevant, 0% can't judge), \
             α = 0.00 over 1 pair rated twice; under version 1, 5 ratings (mean 3.00 stars, 50% relevant, 20% can't \
             judge), α = 1.00 over 2 pairs rated twice; version 2 (cleared), no rating yet."
        );
    }
}
