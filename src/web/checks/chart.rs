//! The small charts of the timing check: ratings per day, and the distribution of seconds per
//! judgment. Only the geometry is computed here; the template draws the bars as inline SVG,
//! as the leaderboard's chart is drawn.

use crate::checks::Timing;

const WIDTH: f64 = 400.0;
const PLOT_HEIGHT: f64 = 120.0;
const TOP: f64 = 16.0;
/// Room below the bars for their labels.
const LABELS: f64 = 22.0;
const GAP: f64 = 4.0;
/// At most this many days are drawn: the last ones.
const DAYS_SHOWN: usize = 14;

/// A bar chart: one bar a category, heights scaled to the largest.
pub struct BarChart {
    pub title: String,
    pub width: f64,
    pub height: f64,
    /// Where the bars stand.
    pub baseline: f64,
    pub label_y: f64,
    pub bars: Vec<ChartBar>,
}

pub struct ChartBar {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    /// The middle of the bar, where its labels are centred.
    pub middle: f64,
    pub label: String,
    pub value: usize,
    /// Where the value is written, above the bar.
    pub value_y: f64,
}

impl BarChart {
    fn new(title: String, values: Vec<(String, usize)>) -> BarChart {
        let largest = values
            .iter()
            .map(|(_, value)| *value)
            .max()
            .unwrap_or(0)
            .max(1);
        let slot = WIDTH / values.len().max(1) as f64;
        let baseline = TOP + PLOT_HEIGHT;
        let bars = (values.into_iter().enumerate())
            .map(|(index, (label, value))| {
                let height = round(PLOT_HEIGHT * value as f64 / largest as f64);
                let x = round(slot * index as f64 + GAP / 2.0);
                ChartBar {
                    x,
                    y: round(baseline - height),
                    width: round(slot - GAP),
                    height,
                    middle: round(x + (slot - GAP) / 2.0),
                    label,
                    value,
                    value_y: round(baseline - height - 4.0),
                }
            })
            .collect();
        BarChart {
            title,
            width: WIDTH,
            height: baseline + LABELS,
            baseline,
            label_y: baseline + 16.0,
            bars,
        }
    }

    /// Ratings per day, the last [`DAYS_SHOWN`] days with ratings; `None` without any.
    pub fn per_day(timing: &Timing) -> Option<BarChart> {
        let days = &timing.ratings_per_day;
        let shown = &days[days.len().saturating_sub(DAYS_SHOWN)..];
        (!shown.is_empty()).then(|| {
            let values = (shown.iter())
                // `11-23` of `2026-11-23`: the year would not fit under a bar.
                .map(|day| (day.day.get(5..).unwrap_or(&day.day).to_owned(), day.ratings))
                .collect();
            BarChart::new("Ratings per day".to_owned(), values)
        })
    }

    /// Judgments by seconds taken; `None` when none is timed.
    pub fn seconds(timing: &Timing) -> Option<BarChart> {
        let seconds = &timing.seconds_per_judgment;
        (seconds.timed > 0).then(|| {
            let values = (seconds.distribution.iter())
                .map(|bin| {
                    let label = match bin.to_seconds {
                        Some(to) => format!("{}–{to}", bin.from_seconds),
                        None => format!("{}+", bin.from_seconds),
                    };
                    (label, bin.judgments)
                })
                .collect();
            BarChart::new("Judgments by seconds taken".to_owned(), values)
        })
    }
}

fn round(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_largest() {
        let chart = BarChart::new(
            "t".to_owned(),
            vec![("a".to_owned(), 2), ("b".to_owned(), 4)],
        );
        assert_eq!(chart.bars.len(), 2);
        let [a, b] = &chart.bars[..] else {
            panic!("two bars")
        };
        assert_eq!((a.height, b.height), (60.0, 120.0));
        assert_eq!((a.x, a.width), (2.0, 196.0));
        assert_eq!((b.x, b.y), (202.0, 16.0));
        assert_eq!(a.middle, 100.0);
        assert_eq!(chart.height, 16.0 + 120.0 + 22.0);
    }
}
