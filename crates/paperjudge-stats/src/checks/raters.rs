//! Agreement among several raters (docs/metrics.md, "Several raters"): how far the raters'
//! stars agree on the pairs rated twice or more, how each rater differs, and whether the
//! verdict depends on who rated.
//!
//! What each number speaks for: the pairs rated twice or more are a random share of the
//! study's pairs (the overlap is drawn once, by chance), so alpha and its interval stand for
//! the agreement on the study's pairs between raters like these; each rater's leniency, kappa,
//! alpha without them and ranking speak for those raters only, not for raters at large.

use serde::Serialize;

use super::ranking::{self, tau};
use super::strength;
use crate::domain::{RaterAnswer, RaterId, RaterName, Stars};
use crate::leaderboard::{listed, who_rated, RaterLeader};
use crate::metrics::{
    krippendorff_alpha, krippendorff_alpha_ci95, quadratic_weighted_kappa, star_counts,
    ConfusionMatrix, Level, Settings, StarCounts,
};

/// One target's ratings: each rated paper's answer by each rater who rated it, by paper.
type Ratings = Vec<RaterAnswer>;

/// One rater's own ranking of the models: their stars alone (`rater:NAME`) over the targets
/// they rated whole.
#[derive(Debug, Clone, PartialEq)]
pub struct RaterRanking {
    pub rater: RaterName,
    /// The targets it is over.
    pub targets: usize,
    /// Each model's mean NDCG, in the order of the study's models.
    pub ndcg: Vec<Option<f64>>,
}

/// What the agreement reads: the raters' ratings of the evaluated targets and the rankings.
#[derive(Debug, Clone)]
pub struct RatersInput {
    /// Every rater, by name.
    pub names: Vec<(RaterId, RaterName)>,
    /// The ratings of each evaluated target, by paper and rater.
    pub ratings: Vec<Ratings>,
    pub models: Vec<String>,
    /// Each model's mean NDCG under the judgments asked for (the consensus).
    pub consensus: Vec<Option<f64>>,
    /// Each rater's own ranking.
    pub rankings: Vec<RaterRanking>,
}

/// The `raters` key of the checks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatersReport {
    /// Pairs with two ratings or more, over which alpha is computed.
    pub pairs_rated_twice: usize,
    /// Krippendorff's alpha, ordinal metric.
    pub alpha_ordinal: Option<f64>,
    /// Its 95% percentile-bootstrap interval over those pairs.
    pub alpha_ordinal_ci95: Option<[f64; 2]>,
    /// Krippendorff's alpha, interval metric.
    pub alpha_interval: Option<f64>,
    /// Quadratic-weighted kappa for every two raters who rated a pair in common.
    pub kappa: Vec<RaterKappa>,
    /// Every rater with a rating of the evaluated targets, by name.
    pub raters: Vec<RaterReport>,
    /// The leader under the judgments asked for.
    pub leader: Option<String>,
    /// Whether some rater's stars alone make another model lead.
    pub leader_depends_on_rater: bool,
    pub sentence: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RaterKappa {
    pub a: RaterName,
    pub b: RaterName,
    /// The pairs both rated.
    pub pairs: usize,
    pub kappa: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RaterReport {
    pub name: RaterName,
    pub ratings: usize,
    pub mean_stars: Option<f64>,
    /// The share of their ratings at the threshold or above (4 stars by default).
    pub share_relevant: Option<f64>,
    /// Ordinal alpha over the pairs still rated twice without this rater's ratings.
    pub alpha_without: Option<f64>,
    /// Kendall's tau-b of their own ranking against the consensus ranking.
    pub tau_b: Option<f64>,
    /// The leader on their stars alone.
    pub leader: Option<String>,
    /// The targets their ranking is over (those they rated whole).
    pub targets: usize,
}

/// The agreement among the raters of `input`, with `settings`' threshold for relevance.
pub fn agreement(input: &RatersInput, settings: &Settings) -> RatersReport {
    let name_of = |id: RaterId| {
        (input.names.iter())
            .find(|(known, _)| *known == id)
            .map(|(_, name)| name.clone())
    };
    let pairs = pairs(&input.ratings);
    let counts = |without: Option<RaterId>| -> Vec<StarCounts> {
        (pairs.iter())
            .map(|raters| {
                let stars: Vec<Stars> = (raters.iter())
                    .filter(|(rater, _)| Some(*rater) != without)
                    .map(|(_, stars)| *stars)
                    .collect();
                star_counts(&stars)
            })
            .collect()
    };
    let all = counts(None);
    let alpha_ordinal = krippendorff_alpha(&all, Level::Ordinal);
    let mut raters: Vec<RaterId> = (pairs.iter().flatten()).map(|(rater, _)| *rater).collect();
    raters.sort_unstable();
    raters.dedup();
    let mut named: Vec<(RaterId, RaterName)> = (raters.iter())
        .filter_map(|&id| Some((id, name_of(id)?)))
        .collect();
    named.sort_by(|a, b| a.1.cmp(&b.1));
    let leader = ranking::leader(&input.models, &input.consensus);
    let reports: Vec<RaterReport> = (named.iter())
        .map(|(id, name)| {
            let given: Vec<Stars> = (pairs.iter().flatten())
                .filter(|(rater, _)| rater == id)
                .map(|(_, stars)| *stars)
                .collect();
            let share =
                |count: usize| (!given.is_empty()).then(|| count as f64 / given.len() as f64);
            let ranking = input.rankings.iter().find(|ranking| &ranking.rater == name);
            RaterReport {
                name: name.clone(),
                ratings: given.len(),
                mean_stars: share(given.iter().map(|stars| usize::from(stars.get())).sum()),
                share_relevant: share(
                    given
                        .iter()
                        .filter(|&&stars| settings.is_relevant(stars))
                        .count(),
                ),
                alpha_without: krippendorff_alpha(&counts(Some(*id)), Level::Ordinal),
                tau_b: ranking.and_then(|ranking| tau(&input.consensus, &ranking.ndcg)),
                leader: ranking.and_then(|own| ranking::leader(&input.models, &own.ndcg)),
                targets: ranking.map_or(0, |ranking| ranking.targets),
            }
        })
        .collect();
    let kappa = (named.iter().enumerate())
        .flat_map(|(index, a)| named[index + 1..].iter().map(move |b| (a, b)))
        .filter_map(|((a, a_name), (b, b_name))| {
            let both: Vec<(Stars, Stars)> = (pairs.iter())
                .filter_map(|raters| {
                    let of = |who: &RaterId| {
                        (raters.iter())
                            .find(|(rater, _)| rater == who)
                            .map(|(_, stars)| *stars)
                    };
                    Some((of(a)?, of(b)?))
                })
                .collect();
            (!both.is_empty()).then(|| RaterKappa {
                a: a_name.clone(),
                b: b_name.clone(),
                pairs: both.len(),
                kappa: quadratic_weighted_kappa(&ConfusionMatrix::of(&both).counts),
            })
        })
        .collect();
    let pairs_rated_twice = all.iter().filter(|c| c.iter().sum::<u32>() >= 2).count();
    let alpha_ordinal_ci95 = krippendorff_alpha_ci95(&all, Level::Ordinal);
    let leader_depends_on_rater =
        (reports.iter()).any(|report| report.leader.is_some() && report.leader != leader);
    let sentence = sentence(
        &reports,
        pairs_rated_twice,
        alpha_ordinal,
        alpha_ordinal_ci95,
        leader.as_deref(),
    );
    RatersReport {
        pairs_rated_twice,
        alpha_ordinal,
        alpha_ordinal_ci95,
        alpha_interval: krippendorff_alpha(&all, Level::Interval),
        kappa,
        raters: reports,
        leader,
        leader_depends_on_rater,
        sentence,
    }
}

/// Every pair of the targets given stars with its raters' stars: "can't judge" is no
/// judgment, and agrees or disagrees with nothing.
pub(super) fn pairs(ratings: &[Ratings]) -> Vec<Vec<(RaterId, Stars)>> {
    (ratings.iter())
        .flat_map(|ratings| {
            (ratings.chunk_by(|a, b| a.paper == b.paper)).map(|pair| {
                (pair.iter())
                    .filter_map(|rated| Some((rated.rater, rated.stars()?)))
                    .collect::<Vec<_>>()
            })
        })
        .filter(|raters| !raters.is_empty())
        .collect()
}

/// Landis and Koch's words for an agreement, as an adverb: "agree moderately".
fn adverb(value: f64) -> String {
    match strength(value) {
        "poor, worse than chance" => "worse than chance".to_owned(),
        "almost perfect" => "almost perfectly".to_owned(),
        word => format!("{word}ly"),
    }
}

fn sentence(
    raters: &[RaterReport],
    pairs_rated_twice: usize,
    alpha: Option<f64>,
    interval: Option<[f64; 2]>,
    leader: Option<&str>,
) -> String {
    let names: Vec<&str> = raters.iter().map(|rater| rater.name.as_str()).collect();
    let who = listed(&names);
    if raters.len() < 2 {
        return match raters.first() {
            Some(only) => format!(
                "Only {} rated the fully rated targets: there is no agreement to measure yet.",
                only.name
            ),
            None => "No rating of a fully rated target yet.".to_owned(),
        };
    }
    let agreement = match (pairs_rated_twice, alpha) {
        (0, _) => format!(
            "No pair is rated by two of {who} yet: agreement is measured on the targets that \
             one more rater rates (`paperjudge raters set --overlap`)"
        ),
        (_, None) => format!(
            "{who} gave the same stars to every pair rated twice ({pairs_rated_twice}): alpha \
             is undefined without variation"
        ),
        (_, Some(alpha)) => {
            let interval = interval.map_or(String::new(), |[low, high]| {
                format!(" [{low:.2}, {high:.2}]")
            });
            format!(
                "{who} agree {} (α = {alpha:.2}{interval} over {pairs_rated_twice} pairs rated \
                 twice)",
                adverb(alpha)
            )
        }
    };
    let mut said = match leader {
        Some(leader) => {
            let leaders: Vec<RaterLeader> = (raters.iter())
                .map(|rater| RaterLeader {
                    rater: rater.name.clone(),
                    leader: rater.leader.clone(),
                    targets: rater.targets,
                })
                .collect();
            format!("{agreement}; {}.", who_rated(leader, &leaders))
        }
        None => format!("{agreement}."),
    };
    let disagrees = (raters.iter())
        .filter_map(|rater| Some((rater, rater.alpha_without? - alpha?)))
        .filter(|(_, rise)| *rise >= NOTABLE_RISE)
        .max_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((rater, _)) = disagrees {
        said.push_str(&format!(
            " Without {}'s stars α would be {:.2}: {} disagrees with the others most.",
            rater.name,
            rater.alpha_without.unwrap_or_default(),
            rater.name
        ));
    }
    said
}

/// A rise of alpha without one rater's stars worth a sentence.
const NOTABLE_RISE: f64 = 0.05;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_listed_as_a_sentence_lists_them() {
        assert_eq!(listed(&["Ann"]), "Ann");
        assert_eq!(listed(&["Ann", "Bo"]), "Ann and Bo");
        assert_eq!(listed(&["Ann", "Bo", "Cy"]), "Ann, Bo and Cy");
    }

    fn leader(rater: &str, leader: Option<&str>) -> RaterLeader {
        RaterLeader {
            rater: RaterName::new(rater).unwrap(),
            leader: leader.map(str::to_owned),
            targets: 9,
        }
    }

    #[test]
    fn whether_the_leader_depends_on_who_rated_is_said() {
        let same = [leader("Ann", Some("LDA")), leader("Bo", Some("LDA"))];
        assert_eq!(
            who_rated("LDA", &same),
            "with either one's stars alone LDA still leads"
        );
        let three = [same[0].clone(), same[1].clone(), leader("Cy", Some("LSA"))];
        assert_eq!(
            who_rated("LDA", &three),
            "the leader depends on who rated: with Cy's stars alone (9 targets) LSA leads \
             instead of LDA"
        );
        let unfinished = [same[0].clone(), leader("Cy", None)];
        assert_eq!(
            who_rated("LDA", &unfinished),
            "on the stars alone of each rater who rated a target whole, LDA still leads; Cy \
             rated no fully rated target whole yet"
        );
    }

    #[test]
    fn agreement_is_said_as_landis_and_koch_say_it() {
        assert_eq!(adverb(0.61), "substantially");
        assert_eq!(adverb(0.5), "moderately");
        assert_eq!(adverb(0.9), "almost perfectly");
        assert_eq!(adverb(-0.2), "worse than chance");
    }
}
