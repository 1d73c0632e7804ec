//! Variant sensitivity: the ranking of the models under every combination of gain, ideal,
//! unjudged and k in {5, the pool depth, 10}, each against the ranking under the settings
//! asked for (Kendall's tau-b), and every variant under which another model leads.

use std::hash::Hash;
use std::num::NonZeroUsize;

use serde::Serialize;

use super::ranking::{mean_ndcg, order, tau};
use crate::leaderboard::TargetInput;
use crate::metrics::{Gain, Ideal, Settings, Unjudged};

/// A model's place under one variant.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Placed {
    pub model: String,
    pub rank: usize,
    pub ndcg: Option<f64>,
}

/// The ranking under one combination of options.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Variant {
    /// What differs from the settings asked for, in words ("exponential gain with k = 5"), or
    /// "the settings asked for".
    pub name: String,
    pub gain: Gain,
    pub ideal: Ideal,
    pub unjudged: Unjudged,
    pub k: usize,
    /// The settings asked for are this variant.
    pub is_default: bool,
    /// The models in rank order, as `paperjudge leaderboard` with these options ranks them.
    pub ranking: Vec<Placed>,
    /// The first model, when it has a value.
    pub leader: Option<String>,
    /// Kendall's tau-b of the models' NDCG here against the settings asked for (an undefined
    /// NDCG ranks below every value); `None` with fewer than two models or all tied.
    pub kendall_tau: Option<f64>,
    pub leader_changed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sensitivity {
    /// The leader under the settings asked for.
    pub leader: Option<String>,
    /// Every variant, gain by ideal by unjudged by k.
    pub variants: Vec<Variant>,
    /// The smallest tau of any variant.
    pub smallest_tau: Option<f64>,
    /// "LSA 200 leads under exponential gain with k = 5", one per variant with another leader.
    pub leader_changes: Vec<String>,
    pub sentence: String,
}

/// How many variants a sentence names before it counts the rest.
const CHANGES_NAMED: usize = 3;

pub fn sensitivity<K: Copy + Eq + Hash>(
    models: &[String],
    targets: &[&TargetInput<K>],
    settings: &Settings,
    pool_depth: usize,
) -> Sensitivity {
    let scores_under = |settings: &Settings| -> Vec<Option<f64>> {
        (0..models.len())
            .map(|model| mean_ndcg(targets, model, settings))
            .collect()
    };
    let default_scores = scores_under(settings);
    let leader_of = |scores: &[Option<f64>]| {
        let first = *order(models, scores).first()?;
        scores[first].map(|_| models[first].clone())
    };
    let leader = leader_of(&default_scores);
    let mut ks = vec![5, pool_depth, 10];
    ks.sort_unstable();
    ks.dedup();
    let mut variants = Vec::new();
    for gain in [Gain::Linear, Gain::Exponential] {
        for ideal in [Ideal::Judged, Ideal::List] {
            for unjudged in [Unjudged::Zero, Unjudged::Skip] {
                for &k in &ks {
                    let variant_settings = Settings {
                        gain,
                        ideal,
                        unjudged,
                        k: NonZeroUsize::new(k).unwrap_or(settings.k),
                        ..*settings
                    };
                    let scores = scores_under(&variant_settings);
                    let ranking = (order(models, &scores).iter().enumerate())
                        .map(|(position, &model)| Placed {
                            model: models[model].clone(),
                            rank: position + 1,
                            ndcg: scores[model],
                        })
                        .collect();
                    let variant_leader = leader_of(&scores);
                    variants.push(Variant {
                        name: name(settings, &variant_settings),
                        gain,
                        ideal,
                        unjudged,
                        k,
                        is_default: variant_settings == *settings,
                        ranking,
                        leader_changed: variant_leader != leader,
                        leader: variant_leader,
                        kendall_tau: tau(&default_scores, &scores),
                    });
                }
            }
        }
    }
    let leader_changes: Vec<String> = (variants.iter())
        .filter(|variant| variant.leader_changed)
        .map(|variant| match &variant.leader {
            Some(leader) => format!("{leader} leads under {}", variant.name),
            None => format!("no model has a value under {}", variant.name),
        })
        .collect();
    let smallest_tau = (variants.iter())
        .filter_map(|variant| variant.kendall_tau)
        .min_by(f64::total_cmp);
    let sentence = match (&leader, leader_changes.len()) {
        (None, _) => {
            "Variant sensitivity needs a fully rated target and a model with an NDCG.".to_owned()
        }
        (Some(_), 0) => format!(
            "The leader is the same under all {} variants.",
            variants.len()
        ),
        (Some(leader), changes) if changes <= CHANGES_NAMED => format!(
            "{}; {leader} leads under the other {} of the {} variants.",
            leader_changes.join("; "),
            variants.len() - changes,
            variants.len()
        ),
        (Some(_), changes) => format!(
            "{}; another model leads under {} more of the {} variants.",
            leader_changes[..CHANGES_NAMED].join("; "),
            changes - CHANGES_NAMED,
            variants.len()
        ),
    };
    Sensitivity {
        leader,
        variants,
        smallest_tau,
        leader_changes,
        sentence,
    }
}

/// What `variant` changes of `asked`, in words.
fn name(asked: &Settings, variant: &Settings) -> String {
    let mut parts = Vec::new();
    if variant.gain != asked.gain {
        parts.push(format!("{} gain", variant.gain));
    }
    if variant.ideal != asked.ideal {
        parts.push(format!("ideal = {}", variant.ideal));
    }
    if variant.unjudged != asked.unjudged {
        parts.push(format!("unjudged = {}", variant.unjudged));
    }
    if variant.k != asked.k {
        parts.push(format!("k = {}", variant.k));
    }
    match parts.split_first() {
        None => "the settings asked for".to_owned(),
        Some((first, [])) => first.clone(),
        Some((first, rest)) => format!("{first} with {}", rest.join(" and ")),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::domain::{Grade, Stars};

    /// One target: model a lists the 5-star paper first, b lists nothing of value.
    #[test]
    fn a_clear_leader_leads_under_every_variant() {
        let stars = |value| Grade::from(Stars::new(value).unwrap());
        let target = TargetInput {
            target: "T".to_owned(),
            fully_rated: true,
            judgments: HashMap::from([(1, stars(5)), (2, stars(1)), (3, stars(3))]),
            lists: vec![Some(vec![1, 3, 2]), Some(vec![2])],
            left_out: Vec::new(),
        };
        let models = ["a".to_owned(), "b".to_owned()];
        let sensitivity = sensitivity(&models, &[&target], &Settings::default(), 8);
        assert_eq!(sensitivity.variants.len(), 24);
        assert_eq!(sensitivity.leader.as_deref(), Some("a"));
        assert!(sensitivity.leader_changes.is_empty());
        assert_eq!(
            sensitivity.sentence,
            "The leader is the same under all 24 variants."
        );
        assert!(sensitivity
            .variants
            .iter()
            .all(|variant| variant.kendall_tau == Some(1.0)));
        let asked: Vec<&Variant> = (sensitivity.variants.iter())
            .filter(|variant| variant.is_default)
            .collect();
        assert_eq!(asked.len(), 1);
        assert_eq!(
            (asked[0].k, asked[0].name.as_str()),
            (8, "the settings asked for")
        );
    }

    #[test]
    fn a_pool_depth_of_five_or_ten_gives_fewer_variants() {
        let models = ["a".to_owned()];
        assert_eq!(
            sensitivity::<u8>(&models, &[], &Settings::default(), 10)
                .variants
                .len(),
            16
        );
    }

    #[test]
    fn variants_are_named_by_what_they_change() {
        let asked = Settings::default();
        let variant = Settings {
            gain: Gain::Exponential,
            ideal: Ideal::List,
            k: NonZeroUsize::new(5).unwrap(),
            ..asked
        };
        assert_eq!(
            name(&asked, &variant),
            "exponential gain with ideal = list and k = 5"
        );
    }
}
