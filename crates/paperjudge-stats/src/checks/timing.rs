//! Time and drift, from the rating history: how long a judgment takes, how much is rated per
//! sitting and per day, whether the stars drift over a long sitting, and whether re-checks
//! agree less with ratings made late in a sitting.
//!
//! A sitting is a run of one rater's judgments with no gap over [`SITTING_GAP_SECONDS`]; the
//! seconds of a judgment are the time since the previous judgment of its sitting (the first
//! judgment of a sitting has none). Raters rating at the same time sit apart.

use serde::Serialize;
use time::OffsetDateTime;

use crate::domain::{RaterId, Stars};
use crate::metrics::ConfusionMatrix;
use crate::words::plural;

/// A judgment as timing reads it: who made it, when (seconds since 1970), and its stars.
pub type TimedJudgment = (RaterId, i64, Stars);

/// A gap longer than this (10 minutes) starts a new sitting.
pub const SITTING_GAP_SECONDS: i64 = 600;

/// A sitting of at least this many judgments counts as long for the drift.
pub const LONG_SITTING: usize = 30;

/// The distribution's bins of seconds per judgment: each starts at its value and ends where
/// the next starts; the last is open (it holds at most the 600 s of a sitting gap).
const BINS: [i64; 8] = [0, 5, 10, 20, 40, 80, 160, 320];

/// A re-check as timing needs it: whose, the stars then and now, and when the rating
/// re-checked was made (seconds since 1970; `None` when unreadable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimedRecheck {
    pub rater: RaterId,
    pub then: Stars,
    pub now: Stars,
    pub rated_at: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timing {
    /// Ratings set or changed in the browser.
    pub judgments: usize,
    pub sittings: usize,
    pub seconds_per_judgment: SecondsPerJudgment,
    pub ratings_per_sitting: RatingsPerSitting,
    pub ratings_per_day: Vec<Day>,
    pub drift: Drift,
    /// Re-check agreement by the third of its sitting the rating re-checked was made in; a
    /// rating made outside the browser's history (imported) has no place and is left out.
    pub recheck_by_position: Vec<PositionAgreement>,
    pub sentence: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SecondsPerJudgment {
    /// How many judgments have a time (all but the first of each sitting).
    pub timed: usize,
    pub median: Option<f64>,
    /// The 25% and 75% quantiles (linear between neighbours).
    pub quartiles: Option<[f64; 2]>,
    pub distribution: Vec<Bin>,
}

/// Judgments that took from `from_seconds` up to (not including) `to_seconds`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Bin {
    pub from_seconds: i64,
    /// `None` for the last, open bin.
    pub to_seconds: Option<i64>,
    pub judgments: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatingsPerSitting {
    pub median: Option<f64>,
    pub largest: Option<usize>,
    /// Each sitting's judgments, in time order.
    pub sittings: Vec<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Day {
    /// The UTC date, `YYYY-MM-DD`.
    pub day: String,
    pub ratings: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Drift {
    /// Sittings of at least [`LONG_SITTING`] judgments.
    pub long_sittings: usize,
    pub long_sitting_judgments: usize,
    /// Mean stars of the first and the last third of every long sitting, pooled.
    pub first_third_mean_stars: Option<f64>,
    pub last_third_mean_stars: Option<f64>,
    /// Last third minus first third.
    pub difference: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PositionAgreement {
    /// `first third`, `middle third` or `last third` of the sitting.
    pub part: &'static str,
    pub rechecked: u64,
    pub exact_agreement: Option<f64>,
    pub within_one_star: Option<f64>,
}

const PARTS: [&str; 3] = ["first third", "middle third", "last third"];

/// The timing of `judgments` (in the order they were made) and of `rechecks`.
pub fn timing(judgments: &[TimedJudgment], rechecks: &[TimedRecheck]) -> Timing {
    let mut judgments = judgments.to_vec();
    judgments.sort_by_key(|&(rater, at, _)| (rater, at));
    let sittings = sittings(&judgments);
    let mut seconds: Vec<f64> = (sittings.iter())
        .flat_map(|sitting| {
            sitting
                .windows(2)
                .map(|pair| (pair[1].1 - pair[0].1) as f64)
        })
        .collect();
    seconds.sort_unstable_by(f64::total_cmp);
    let distribution = (BINS.iter().enumerate())
        .map(|(index, &from)| {
            let to = BINS.get(index + 1).copied();
            Bin {
                from_seconds: from,
                to_seconds: to,
                judgments: (seconds.iter())
                    .filter(|&&s| s >= from as f64 && to.is_none_or(|to| s < to as f64))
                    .count(),
            }
        })
        .collect();
    let mut sizes: Vec<usize> = sittings.iter().map(|sitting| sitting.len()).collect();
    let sizes_in_order = sizes.clone();
    sizes.sort_unstable();
    let sizes_f64: Vec<f64> = sizes.iter().map(|&size| size as f64).collect();
    let seconds_per_judgment = SecondsPerJudgment {
        timed: seconds.len(),
        median: quantile(&seconds, 0.5),
        quartiles: quantile(&seconds, 0.25)
            .zip(quantile(&seconds, 0.75))
            .map(|(a, b)| [a, b]),
        distribution,
    };
    let drift = drift(&sittings);
    let timing_sentence = sentence(&seconds_per_judgment, &sittings, judgments.len(), &drift);
    Timing {
        judgments: judgments.len(),
        sittings: sittings.len(),
        seconds_per_judgment,
        ratings_per_sitting: RatingsPerSitting {
            median: quantile(&sizes_f64, 0.5),
            largest: sizes.last().copied(),
            sittings: sizes_in_order,
        },
        ratings_per_day: per_day(&judgments),
        drift,
        recheck_by_position: by_position(&sittings, rechecks),
        sentence: timing_sentence,
    }
}

/// The sittings of `judgments`, sorted by rater and time.
fn sittings(judgments: &[TimedJudgment]) -> Vec<&[TimedJudgment]> {
    let mut sittings = Vec::new();
    let mut start = 0;
    for index in 1..=judgments.len() {
        let ends = index == judgments.len()
            || judgments[index].0 != judgments[index - 1].0
            || judgments[index].1 - judgments[index - 1].1 > SITTING_GAP_SECONDS;
        if ends {
            sittings.push(&judgments[start..index]);
            start = index;
        }
    }
    sittings
}

/// The third (0, 1 or 2) of a sitting of `size` judgments that its `index`-th falls in.
fn third(index: usize, size: usize) -> usize {
    (3 * index / size).min(2)
}

fn drift(sittings: &[&[TimedJudgment]]) -> Drift {
    let long: Vec<&&[TimedJudgment]> = (sittings.iter())
        .filter(|sitting| sitting.len() >= LONG_SITTING)
        .collect();
    let mean_of_third = |wanted: usize| {
        let stars: Vec<f64> = (long.iter())
            .flat_map(|sitting| {
                (sitting.iter().enumerate())
                    .filter(move |(index, _)| third(*index, sitting.len()) == wanted)
                    .map(|(_, (_, _, stars))| f64::from(stars.get()))
            })
            .collect();
        (!stars.is_empty()).then(|| stars.iter().sum::<f64>() / stars.len() as f64)
    };
    let (first, last) = (mean_of_third(0), mean_of_third(2));
    Drift {
        long_sittings: long.len(),
        long_sitting_judgments: long.iter().map(|sitting| sitting.len()).sum(),
        first_third_mean_stars: first,
        last_third_mean_stars: last,
        difference: first.zip(last).map(|(first, last)| last - first),
    }
}

fn per_day(judgments: &[TimedJudgment]) -> Vec<Day> {
    let mut times: Vec<i64> = judgments.iter().map(|&(_, at, _)| at).collect();
    times.sort_unstable();
    let mut days: Vec<Day> = Vec::new();
    for at in &times {
        let day = OffsetDateTime::from_unix_timestamp(*at)
            .map(|time| time.date().to_string())
            .unwrap_or_else(|_| "unknown".to_owned());
        match days.last_mut() {
            Some(last) if last.day == day => last.ratings += 1,
            _ => days.push(Day { day, ratings: 1 }),
        }
    }
    days
}

/// Agreement of the re-checks by where in its sitting the rating re-checked was made: the
/// sitting of its rater whose span holds its time, and its place among the judgments made by
/// then.
fn by_position(sittings: &[&[TimedJudgment]], rechecks: &[TimedRecheck]) -> Vec<PositionAgreement> {
    let mut pairs: [Vec<(Stars, Stars)>; 3] = Default::default();
    for recheck in rechecks {
        let Some(at) = recheck.rated_at else { continue };
        let sitting = (sittings.iter()).find(|sitting| {
            sitting
                .first()
                .is_some_and(|first| first.0 == recheck.rater && first.1 <= at)
                && sitting.last().is_some_and(|last| at <= last.1)
        });
        if let Some(sitting) = sitting {
            let index = sitting
                .iter()
                .rposition(|(_, time, _)| *time <= at)
                .unwrap_or(0);
            pairs[third(index, sitting.len())].push((recheck.then, recheck.now));
        }
    }
    (PARTS.iter().zip(pairs))
        .map(|(part, pairs)| {
            let confusion = ConfusionMatrix::of(&pairs);
            PositionAgreement {
                part,
                rechecked: confusion.pairs(),
                exact_agreement: confusion.agreement_within(0),
                within_one_star: confusion.agreement_within(1),
            }
        })
        .collect()
}

/// The `q` quantile of sorted `values`, linear between neighbours (NumPy's default).
fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let position = q * last as f64;
    let (below, fraction) = (position.floor() as usize, position.fract());
    let above = (below + 1).min(last);
    Some(sorted[below] + (sorted[above] - sorted[below]) * fraction)
}

fn sentence(
    seconds: &SecondsPerJudgment,
    sittings: &[&[TimedJudgment]],
    judgments: usize,
    drift: &Drift,
) -> String {
    let Some(median) = seconds.median else {
        return if judgments == 0 {
            "No rating made in the browser yet: timing reads the rating history, and imported \
             ratings carry no time of judgment."
                .to_owned()
        } else {
            format!("{judgments} ratings in the browser, too few in one sitting to time.")
        };
    };
    let mut sentence = format!(
        "A judgment took {median:.0} s (median) over {judgments} ratings in {} {}.",
        sittings.len(),
        plural(sittings.len(), "sitting", "sittings")
    );
    if let (Some(first), Some(last)) = (drift.first_third_mean_stars, drift.last_third_mean_stars) {
        sentence.push_str(&format!(
            " In long sittings the mean stars went from {first:.2} in the first third to \
             {last:.2} in the last."
        ));
    }
    sentence
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stars(value: i64) -> Stars {
        Stars::new(value).unwrap()
    }

    /// The owner's judgments at these times.
    fn owner(judgments: &[(i64, Stars)]) -> Vec<TimedJudgment> {
        (judgments.iter())
            .map(|&(at, stars)| (RaterId::OWNER, at, stars))
            .collect()
    }

    /// Two sittings: 0, 10, 40 s (gaps 10 and 30), then after 11 minutes 700 and 705 s (gap 5).
    #[test]
    fn sittings_split_at_gaps_over_ten_minutes() {
        let judgments = [
            (0, stars(1)),
            (10, stars(2)),
            (40, stars(3)),
            (740, stars(4)),
            (745, stars(5)),
        ];
        let timing = timing(&owner(&judgments), &[]);
        assert_eq!(timing.sittings, 2);
        assert_eq!(timing.ratings_per_sitting.sittings, vec![3, 2]);
        assert_eq!(timing.seconds_per_judgment.timed, 3);
        // Seconds 5, 10, 30: median 10, quartiles 7.5 and 20.
        assert_eq!(timing.seconds_per_judgment.median, Some(10.0));
        assert_eq!(timing.seconds_per_judgment.quartiles, Some([7.5, 20.0]));
        let counts: Vec<usize> = (timing.seconds_per_judgment.distribution.iter())
            .map(|bin| bin.judgments)
            .collect();
        assert_eq!(counts, vec![0, 1, 1, 1, 0, 0, 0, 0]);
        assert_eq!(
            timing.ratings_per_day,
            vec![Day {
                day: "1970-01-01".into(),
                ratings: 5
            }]
        );
        assert_eq!(timing.drift.long_sittings, 0);
    }

    /// A gap of exactly 600 s stays in the sitting.
    #[test]
    fn a_gap_of_ten_minutes_exactly_continues_the_sitting() {
        let timing = timing(&owner(&[(0, stars(1)), (600, stars(1))]), &[]);
        assert_eq!(timing.sittings, 1);
        assert_eq!(timing.seconds_per_judgment.median, Some(600.0));
    }

    /// A long sitting of 30: first third 10 × 4 stars, last third 10 × 2 stars.
    #[test]
    fn drift_compares_the_first_and_last_thirds_of_long_sittings() {
        let judgments: Vec<(i64, Stars)> = (0..30)
            .map(|i| {
                (
                    i * 20,
                    stars(if i < 10 {
                        4
                    } else if i < 20 {
                        3
                    } else {
                        2
                    }),
                )
            })
            .collect();
        let rechecks = [
            // Made at 0 s (first third), 400 s (index 20, last third), and before any sitting.
            TimedRecheck {
                rater: RaterId::OWNER,
                then: stars(4),
                now: stars(4),
                rated_at: Some(0),
            },
            TimedRecheck {
                rater: RaterId::OWNER,
                then: stars(2),
                now: stars(4),
                rated_at: Some(400),
            },
            TimedRecheck {
                rater: RaterId::OWNER,
                then: stars(2),
                now: stars(2),
                rated_at: Some(-5),
            },
        ];
        let timing = timing(&owner(&judgments), &rechecks);
        assert_eq!(timing.drift.long_sittings, 1);
        assert_eq!(timing.drift.first_third_mean_stars, Some(4.0));
        assert_eq!(timing.drift.last_third_mean_stars, Some(2.0));
        assert_eq!(timing.drift.difference, Some(-2.0));
        let by_part: Vec<(u64, Option<f64>)> = (timing.recheck_by_position.iter())
            .map(|part| (part.rechecked, part.exact_agreement))
            .collect();
        assert_eq!(by_part, vec![(1, Some(1.0)), (0, None), (1, Some(0.0))]);
    }

    /// Two raters at the same time sit apart: each one's gaps are timed, never the time
    /// between one's judgment and the other's.
    #[test]
    fn raters_rating_at_once_sit_apart() {
        let ann = RaterId(2);
        let judgments = [
            (RaterId::OWNER, 0, stars(1)),
            (ann, 3, stars(2)),
            (RaterId::OWNER, 20, stars(3)),
            (ann, 33, stars(4)),
        ];
        let timing = timing(&judgments, &[]);
        assert_eq!(timing.sittings, 2);
        assert_eq!(timing.seconds_per_judgment.median, Some(25.0));
        assert_eq!(timing.ratings_per_day[0].ratings, 4);
    }

    #[test]
    fn nothing_to_time_is_said_so() {
        let timing = timing(&[], &[]);
        assert_eq!(timing.seconds_per_judgment.median, None);
        assert_eq!(timing.ratings_per_sitting.largest, None);
        assert!(timing
            .sentence
            .starts_with("No rating made in the browser yet"));
    }
}
