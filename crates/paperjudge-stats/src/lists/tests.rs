//! The lists' statistics on nulls drawn from the population they speak for: models whose lists
//! are the same, models that draw their lists independently at random from the library (whose
//! mean overlap is known exactly), and models that spread or concentrate their
//! recommendations.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

/// Two independent uniform draws of `k` papers of `library`, each in a random order.
fn random_lists(rng: &mut ChaCha8Rng, library: usize, k: usize) -> [Vec<usize>; 2] {
    [(); 2].map(|()| rand::seq::index::sample(rng, library, k).into_vec())
}

fn choose(n: u64, k: u64) -> f64 {
    (0..k).fold(1.0, |product, i| product * (n - i) as f64 / (i + 1) as f64)
}

/// The mean Jaccard and RBO of two independent uniform draws of k of N papers: the papers
/// shared, i, are hypergeometric (Jaccard i / (2k − i)); the overlap of the top d, X_d, has
/// mean d²/N, and RBO is linear in the X_d.
fn truth(library: usize, k: usize, p: f64) -> (f64, f64) {
    let (n, k64) = (library as u64, k as u64);
    let jaccard = (0..=k64)
        .map(|i| {
            choose(k64, i) * choose(n - k64, k64 - i) / choose(n, k64) * i as f64
                / (2 * k64 - i) as f64
        })
        .sum();
    let overlap = |d: usize| (d * d) as f64 / library as f64;
    let sum: f64 = (1..=k)
        .map(|d| overlap(d) / d as f64 * p.powi(d as i32))
        .sum();
    let rbo = (1.0 - p) / p * sum + overlap(k) / k as f64 * p.powi(k as i32);
    (jaccard, rbo)
}

/// How often the intervals of `studies` studies of `targets` targets (resampled in at most
/// `batches` batches) cover the true mean Jaccard and RBO of independent random lists.
fn coverage_of_random_lists(studies: u64, targets: usize, batches: usize) -> (usize, usize) {
    let (library, k, p) = (30, 8, Persistence::DEFAULT);
    let (jaccard, rbo) = truth(library, k, p.get());
    let covered: Vec<(bool, bool)> = (0..studies)
        .into_par_iter()
        .map(|study| {
            let mut rng = ChaCha8Rng::seed_from_u64(study);
            let (mut jaccards, mut rbos) = (Vec::new(), Vec::new());
            for _ in 0..targets {
                let [a, b] = random_lists(&mut rng, library, k);
                let overlap = Overlap::of(&a, &b);
                jaccards.push(overlap.jaccard().expect("two lists of 8"));
                rbos.push(overlap.rbo_ext(p).expect("two lists of 8"));
            }
            let found = intervals(&[&jaccards, &rbos], batches);
            let covers = |interval: Option<[f64; 2]>, truth: f64| {
                interval.is_some_and(|[low, high]| low <= truth && truth <= high)
            };
            (covers(found[0], jaccard), covers(found[1], rbo))
        })
        .collect();
    (
        covered.iter().filter(|covered| covered.0).count(),
        covered.iter().filter(|covered| covered.1).count(),
    )
}

/// Independent random lists of 8 of 30 papers (mean Jaccard 0.1612, mean RBO 0.1898): the
/// 95% intervals of 200 studies of 40 targets cover both means about as often as promised, in
/// at least 90% of the studies. Measured: 187 and 185 of 200.
#[test]
fn intervals_cover_the_mean_overlap_of_independent_random_lists() {
    let (jaccard, rbo) = truth(30, 8, 0.9);
    assert!(
        (jaccard - 0.1612).abs() < 1e-4 && (rbo - 0.1898).abs() < 1e-4,
        "{jaccard} {rbo}"
    );
    let covered = coverage_of_random_lists(200, 40, BATCHES);
    assert!(covered.0 >= 180 && covered.1 >= 180, "{covered:?} of 200");
}

/// The same with 400 targets dealt into 20 batches of 20, as study L's 40,000 targets are
/// into 500 batches of 80. Measured: 183 and 189 of 200.
#[test]
fn intervals_over_batches_of_targets_cover_the_mean_as_well() {
    let covered = coverage_of_random_lists(200, 400, 20);
    assert!(covered.0 >= 180 && covered.1 >= 180, "{covered:?} of 200");
}

/// With a batch per target, the intervals are the plain bootstrap of drawn indices
/// ([`metrics::bootstrap_ci95`]), to the bit.
#[test]
fn with_a_batch_per_target_the_intervals_are_the_plain_bootstrap() {
    let values: Vec<f64> = (0..BATCHES)
        .map(|i| ((i * 7919) % 1000) as f64 / 999.0)
        .collect();
    assert_eq!(
        intervals(&[&values], BATCHES),
        vec![metrics::bootstrap_ci95(&values)]
    );
    let batched = intervals(&[&values], 50);
    assert_ne!(batched[0], metrics::bootstrap_ci95(&values));
}

fn input(models: &[(&str, Vec<Vec<i64>>)], library: usize) -> ListsInput {
    let count = models[0].1.len();
    ListsInput {
        models: models.iter().map(|(name, _)| (*name).to_owned()).collect(),
        lists: (models.iter())
            .map(|(_, lists)| {
                let mut model = ModelLists::default();
                for list in lists {
                    for &paper in list {
                        model.push(PaperKey(paper));
                    }
                    model.end_list();
                }
                model
            })
            .collect(),
        scope: Scope {
            count,
            partial: Partial::Exclude,
            fully_rated: count,
            still_being_rated: 0,
            choice: "all",
            candidates: count,
            without_lists: 0,
        },
        library,
        pool_depth: PoolDepth::DEFAULT,
    }
}

fn view(input: &ListsInput) -> Lists {
    Lists::of(input, ListsOptions::default().settings(input.pool_depth))
}

/// Two models with the same lists: Jaccard and RBO 1 on every target, intervals [1, 1];
/// neither brings a paper the other does not.
#[test]
fn identical_models_agree_fully() {
    let lists: Vec<Vec<i64>> = (0..30)
        .map(|target| (0..8).map(|rank| 100 + (target * 3 + rank) % 50).collect())
        .collect();
    let lists = view(&input(&[("a", lists.clone()), ("b", lists)], 200));
    let pair = &lists.pairs[0];
    assert_eq!(
        (pair.targets, pair.shared, pair.jaccard),
        (30, Some(8.0), Some(1.0))
    );
    assert_eq!(pair.jaccard_ci95, Some([1.0, 1.0]));
    assert!((pair.rbo.unwrap() - 1.0).abs() < 1e-12, "{:?}", pair.rbo);
    let [low, high] = pair.rbo_ci95.unwrap();
    assert!((low - 1.0).abs() < 1e-12 && (high - 1.0).abs() < 1e-12);
    assert_eq!(lists.pool.pairs, 240);
    assert!(lists
        .contribution
        .iter()
        .all(|model| model.unique_pairs == 0));
}

/// A model that spreads its recommendations evenly over the library has Gini 0; one that
/// recommends the same 8 papers to every target, (N − 8)/(N − 1); by hand, frequencies
/// 1, 2, 3 in a library of 5 (two papers never recommended): Σ (2j − 6) f_(j) = 0·1 + 2·2 + 4·3
/// = 16 over (5 − 1)·6: 2/3.
#[test]
fn gini_is_0_for_an_even_spread_and_near_1_for_the_same_papers_everywhere() {
    assert_eq!(gini(&[3, 3, 3, 3], 4), Some(0.0));
    assert_eq!(gini(&[40; 8], 100), Some(92.0 / 99.0));
    assert_eq!(gini(&[12], 10), Some(1.0));
    assert_eq!(gini(&[1, 2, 3], 5), Some(2.0 / 3.0));
    assert_eq!(gini(&[], 5), None);
    assert_eq!(gini(&[4], 1), None);

    // Through the view: 10 targets, a library of 100 papers.
    let same: Vec<Vec<i64>> = (0..10).map(|_| (1..=8).collect()).collect();
    let spread: Vec<Vec<i64>> = (0..10)
        .map(|target| (0..8).map(|rank| 1 + (target * 8 + rank) % 100).collect())
        .collect();
    let lists = view(&input(&[("same", same), ("spread", spread)], 100));
    let [same, spread] = [&lists.coverage[0], &lists.coverage[1]];
    assert_eq!((same.distinct_papers, same.gini), (8, Some(92.0 / 99.0)));
    assert_eq!(same.library_share, Some(0.08));
    // 80 recommendations of 80 distinct papers: the least a model can concentrate them,
    // (N − R)/(N − 1) = 20/99.
    assert_eq!(
        (spread.distinct_papers, spread.gini),
        (80, Some(20.0 / 99.0))
    );
}

/// The walk compares two models' top k as bits when a target's lists hold 64 papers or fewer,
/// else by their ranks: either way each pair's values are those of [`Overlap::of`] on each
/// target, to the bit. Random lists of 8 models over a library of 200, of 3 to 20 papers (some
/// empty), at k = 8 (at most 64 papers a target: bits), k = 20 (up to 160: mostly ranks) and
/// k = 3.
#[test]
fn the_walk_compares_as_overlap_does_by_bits_and_by_ranks() {
    let mut rng = ChaCha8Rng::seed_from_u64(43);
    let models: Vec<(String, Vec<Vec<i64>>)> = (0..8)
        .map(|model| {
            let lists = (0..60)
                .map(|target| {
                    let length = match (model + target) % 7 {
                        0 => 0,
                        _ => rng.random_range(3..=20),
                    };
                    (rand::seq::index::sample(&mut rng, 200, length).into_iter())
                        .map(|paper| paper as i64 + 1)
                        .collect()
                })
                .collect();
            (format!("model {model}"), lists)
        })
        .collect();
    let named: Vec<(&str, Vec<Vec<i64>>)> = (models.iter())
        .map(|(name, lists)| (name.as_str(), lists.clone()))
        .collect();
    let input = input(&named, 200);
    let mut by_ranks = 0;
    for k in [3, 8, 20] {
        let options = ListsOptions {
            k: NonZeroUsize::new(k),
            ..ListsOptions::default()
        };
        let lists = Lists::of(&input, options.settings(input.pool_depth));
        let mut pairs = lists.pairs.iter();
        for a in 0..8 {
            for b in a + 1..8 {
                let (mut jaccards, mut rbos, mut shared) = (Vec::new(), Vec::new(), 0);
                for target in 0..60 {
                    let top = |model: usize| {
                        let list = &models[model].1[target];
                        list[..list.len().min(k)].to_vec()
                    };
                    let overlap = Overlap::of(&top(a), &top(b));
                    if let (Some(jaccard), Some(rbo)) =
                        (overlap.jaccard(), overlap.rbo_ext(Persistence::DEFAULT))
                    {
                        jaccards.push(Some(jaccard));
                        rbos.push(Some(rbo));
                        shared += overlap.shared();
                    }
                }
                let pair = pairs.next().expect("a pair");
                assert_eq!(
                    (pair.jaccard, pair.rbo, pair.targets),
                    (
                        metrics::mean(jaccards.clone()).value,
                        metrics::mean(rbos).value,
                        jaccards.len()
                    ),
                    "{} and {} at k = {k}",
                    pair.a,
                    pair.b
                );
                assert_eq!(pair.shared, Some(shared as f64 / jaccards.len() as f64));
            }
        }
        by_ranks += (0..60)
            .filter(|&target| {
                let mut papers: Vec<i64> = (models.iter())
                    .flat_map(|(_, lists)| lists[target].iter().take(k).copied())
                    .collect();
                papers.sort_unstable();
                papers.dedup();
                papers.len() > PREFIX_BITS
            })
            .count();
    }
    assert!(by_ranks >= 30, "{by_ranks} targets compared by ranks");
}

/// Coverage and the most recommended papers count by key in a flat array where the keys are
/// close (row numbers), else in a hash map: the same lists under keys spread far apart (by a
/// factor of 10^9, in the same order) give the same view.
#[test]
fn papers_are_counted_alike_under_close_keys_and_keys_far_apart() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let models: Vec<(String, Vec<Vec<i64>>)> = (0..4)
        .map(|model| {
            let lists = (0..50)
                .map(|_| {
                    (rand::seq::index::sample(&mut rng, 30, 8).into_iter())
                        .map(|paper| paper as i64 + 1)
                        .collect()
                })
                .collect();
            (format!("model {model}"), lists)
        })
        .collect();
    let spread = |factor: i64| {
        let named: Vec<(&str, Vec<Vec<i64>>)> = (models.iter())
            .map(|(name, lists)| {
                let lists = (lists.iter())
                    .map(|list| list.iter().map(|paper| paper * factor).collect())
                    .collect();
                (name.as_str(), lists)
            })
            .collect();
        view(&input(&named, 30))
    };
    let (close, far) = (spread(1), spread(1_000_000_000));
    assert!(matches!(
        Tally::new(span(&input(&[("a", vec![vec![1, 30]])], 30), 8), 30),
        Tally::Flat { .. }
    ));
    assert!(matches!(
        Tally::new(
            span(&input(&[("a", vec![vec![1, 30_000_000_000]])], 30), 8),
            30
        ),
        Tally::Map(_)
    ));
    assert_eq!(close.coverage, far.coverage);
    let recommended = |lists: &Lists, factor: i64| -> Vec<(i64, u64, u64)> {
        (lists.most_recommended.iter())
            .map(|paper| (paper.key.0 / factor, paper.lists, paper.targets))
            .collect()
    };
    assert_eq!(recommended(&close, 1), recommended(&far, 1_000_000_000));
    assert_eq!(close.most_recommended.len(), MOST_RECOMMENDED);
    assert!(close
        .coverage
        .iter()
        .all(|model| model.distinct_papers == 30));
}
