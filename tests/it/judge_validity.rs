//! The prediction-powered estimates and the verdict with a judge on nulls drawn from the
//! population they speak for: studies of targets drawn i.i.d. from a synthetic library of
//! known truth (`paperjudge::simulation::judged_library`), with a good, a useless and a biased
//! judge. The seeds are fixed, so every number here is the same on every run; the larger runs
//! behind docs/metrics.md are `cargo run --release --example prediction_powered`.

use paperjudge::metrics::{Bounds, ConfidenceSequence, JudgedSequence};
use paperjudge::simulation::judged_library::{Judge, JudgedLibrary, LibrarySpec, Sequences};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Quadratic kappa about 0.6 against the simulated rater.
const GOOD: Judge = Judge::Noisy {
    noise: 0.55,
    lenience: 1.0,
};

fn library(skills: &[f64], judge: Judge) -> JudgedLibrary {
    JudgedLibrary::new(&LibrarySpec {
        targets: 5_000,
        candidates: 30,
        skills: skills.to_vec(),
        k: 8,
        judge,
        seed: 31,
    })
}

fn judges(toward: usize) -> [(&'static str, Judge); 3] {
    [
        ("good", GOOD),
        ("useless", Judge::Useless),
        (
            "biased",
            Judge::Biased {
                noise: 0.55,
                lenience: 1.0,
                toward,
            },
        ),
    ]
}

/// The four-model library: m1 is 0.10 below m0.
const SKILLS: [f64; 4] = [1.0, 0.64, 0.4, 0.1];

/// The fixed-sample 95% intervals, at 20, 40 and 80 rated targets of 300 judged, over 2,000
/// studies each: a pair's difference covered in at least 94% of them, a model's NDCG (skewed,
/// with a mass at 1) in at least 93.5% (one standard error of 2,000 studies below 94%; the
/// example's 10,000 studies give 94% and more) and never a point less often than the raters'
/// own t interval on the same studies. Without the small-sample variance of a tuned λ, the
/// leader's NDCG was covered less often than by the raters' own interval.
#[test]
fn fixed_sample_intervals_cover_the_library_mean_whatever_the_judge() {
    for (name, judge) in judges(1) {
        let library = library(&SKILLS, judge);
        for rated in [20, 40, 80] {
            let pair = library.coverage(|v| v[0] - v[1], 300, rated, 0..2_000);
            let leader = library.coverage(|v| v[0], 300, rated, 0..2_000);
            assert_eq!((pair.unavailable, leader.unavailable), (0, 0));
            assert!(pair.rate() >= 0.94, "{name} judge, {rated} rated: {pair:?}");
            assert!(
                leader.rate() >= 0.935 && leader.rate() >= leader.rate_human_only() - 0.01,
                "{name} judge, {rated} rated: {leader:?}"
            );
        }
    }
}

/// A good judge narrows the interval, a useless one leaves it as the raters' (λ near 0).
#[test]
fn a_good_judge_narrows_the_interval_and_a_useless_one_does_not() {
    let good = library(&SKILLS, GOOD).coverage(|v| v[0] - v[1], 300, 40, 0..500);
    let useless = library(&SKILLS, Judge::Useless).coverage(|v| v[0] - v[1], 300, 40, 0..500);
    assert!(
        good.mean_half_width() < 0.85 * good.mean_half_width_human_only(),
        "{good:?}"
    );
    assert!(
        useless.mean_half_width() < 1.03 * useless.mean_half_width_human_only(),
        "{useless:?}"
    );
    assert!(useless.mean_lambda() < 0.15, "{useless:?}");
}

/// Two models equally best (their library means within 0.002) and two below: of 200
/// monitored studies per judge (300 judged targets, each rated in turn until the verdict is
/// decided), the verdict with the judge never rules either best model out nor names one of
/// them best, not even with a judge that gives one of them a star more; the asymptotic
/// sequences measured beside it err in at most 5%.
#[test]
fn the_verdict_with_a_judge_keeps_its_level() {
    for (name, judge) in judges(1) {
        let tie = library(&[1.0, 1.0, 0.64, 0.4], judge);
        assert_eq!(tie.best(), [0, 1], "{:?}", tie.means);
        let wrong = |sequences| {
            (0..200)
                .filter(|&seed| tie.monitored(300, 300, sequences, seed).wrong)
                .count()
        };
        assert_eq!(wrong(Sequences::BettingWithJudge), 0, "{name} judge");
        assert!(wrong(Sequences::AsymptoticWithJudge) <= 10, "{name} judge");
    }
}

/// A useless judge costs the verdict little: the rated targets to rule out the model 0.10
/// below the leader, median over 100 studies, at most 3% more than without the judge.
#[test]
fn a_useless_judge_costs_the_verdict_little() {
    let library = library(&SKILLS, Judge::Useless);
    let median = |sequences| {
        let mut times: Vec<usize> = (0..100)
            .map(|seed| {
                let outcome = library.monitored(300, 1_000, sequences, seed);
                outcome.out_at[1].unwrap_or(usize::MAX)
            })
            .collect();
        times.sort_unstable();
        times[49]
    };
    let (with, without) = (
        median(Sequences::BettingWithJudge),
        median(Sequences::Betting),
    );
    assert!(
        with as f64 <= 1.03 * without as f64,
        "{with} with the judge, {without} without"
    );
}

/// Draws (y, f) with y uniform around 0.01 (sd 0.2) and a judge that tracks y closely but
/// says 0.1 more: a biased judge in the regime where it helps (a small difference, many
/// judged targets).
fn biased_pair(rng: &mut ChaCha8Rng) -> (f64, f64) {
    let spread = 0.2 * 3f64.sqrt();
    let y = 0.01 + rng.random_range(-spread..spread);
    let f = y + 0.1 + rng.random_range(-0.08..0.08);
    (y, f)
}

/// The judged sequence itself at level 0.9, fed 20,000 judged targets and then 300 of them
/// rated, 200 times: it uses the judge (mean λ 0.56) and ends 10% narrower than the raters'
/// own sequence on average, and missed the raters' mean at some point in 2 of the 200 studies
/// (a sequence that forgot to add back λ times the judge's interval: 78). The gain is small
/// even here, where the judge tracks the raters closely: the rectified values range wider
/// than y, and the judge's interval adds to the rated targets' instead of in quadrature (with
/// 2,000 judged targets the sequence came out wider than the raters' in two studies of three).
#[test]
fn a_judged_sequence_covers_the_mean_with_a_biased_judge() {
    let mean = 0.01;
    let (mut missed, mut widths, mut weights) = (0, [0.0, 0.0], 0.0);
    for seed in 0..200 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let draws: Vec<(f64, f64)> = (0..20_000).map(|_| biased_pair(&mut rng)).collect();
        let mut sequence = JudgedSequence::new(0.01, 0.09, 0.5);
        let mut raters = ConfidenceSequence::new(Bounds::DIFFERENCE, 0.1);
        for &(_, f) in &draws {
            sequence.observe_judged(f);
        }
        let mut ever_missed = false;
        for &(y, f) in &draws[..300] {
            ever_missed |= !sequence.observe_rated(y, Some(f)).contains(mean);
            raters.observe(y);
        }
        missed += usize::from(ever_missed);
        widths[0] += sequence.interval().half_width();
        widths[1] += raters.interval().half_width();
        weights += sequence.weight();
    }
    assert!(missed <= 20, "{missed} of 200 missed the mean");
    assert!(
        widths[0] < 0.95 * widths[1],
        "half widths {widths:?} (sums)"
    );
    assert!(weights / 200.0 > 0.4, "mean weight {}", weights / 200.0);
}

/// A judge chosen among 20 prompts by its agreement with the raters on a tuning set of 10 of
/// 35 rated targets (`paperjudge::simulation::tuned_judge`, seeded): the tuning targets left
/// out of the rated ones that correct it keep the leader's NDCG covered as often as a judge
/// nobody chose (within a point), reused they do not, and leaving them out costs width. The
/// 4,000 studies behind docs/metrics.md are `cargo run --release --example tuned_judge`.
#[test]
fn a_judge_chosen_on_the_tuning_set_stays_honest_with_the_tuning_set_left_out() {
    use paperjudge::simulation::tuned_judge::{simulate, Rule, TunedSpec};
    let library = JudgedLibrary::new(&LibrarySpec {
        targets: 2_000,
        candidates: 30,
        skills: SKILLS.to_vec(),
        k: 8,
        judge: GOOD,
        seed: 31,
    });
    let spec = TunedSpec {
        judged: 300,
        rated: 35,
        tuning: 10,
        prompts: vec![1, 20],
        prompt_noise: 0.5,
        studies: 1_000,
        seed: 41,
    };
    let rows = simulate(&library, &spec, |v| v[0]);
    let row = |prompts: usize, rule: Rule| {
        *(rows.iter())
            .find(|row| row.prompts == prompts && row.rule == rule)
            .unwrap()
    };
    let unchosen = row(1, Rule::Reused);
    let (reused, left_out) = (row(20, Rule::Reused), row(20, Rule::LeftOut));
    assert_eq!(
        [unchosen.coverage, reused.coverage, left_out.coverage],
        [0.943, 0.925, 0.937]
    );
    assert!(left_out.coverage >= unchosen.coverage - 0.01);
    assert!(reused.coverage < unchosen.coverage - 0.01);
    assert!(left_out.mean_half_width > reused.mean_half_width);
    assert!(rows.iter().all(|row| row.unavailable == 0));
}
