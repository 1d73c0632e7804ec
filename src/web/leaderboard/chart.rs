//! The chart of the leaderboard: one horizontal bar of NDCG@k per model with its 95% interval
//! as whiskers, on a fixed 0–1 axis. Only the geometry is computed here; the template draws it
//! as inline SVG, so that every name in it is escaped like the rest of the page.

use crate::leaderboard::ModelRow;
use crate::words::page;

/// The drawing's width in SVG units; it scales to the page.
const WIDTH: f64 = 820.0;
/// Model names end here, right-aligned.
const NAME_END: f64 = 210.0;
/// The axis: NDCG 0 at `PLOT_START`, 1 at `PLOT_START + PLOT_WIDTH`.
const PLOT_START: f64 = 222.0;
const PLOT_WIDTH: f64 = 440.0;
const ROW_HEIGHT: f64 = 34.0;
const BAR_HEIGHT: f64 = 20.0;
const TOP: f64 = 8.0;
/// The whiskers' end caps.
const CAP_HEIGHT: f64 = 12.0;
/// Room below the rows for the tick labels.
const AXIS_HEIGHT: f64 = 30.0;
/// Names longer than this are shortened in the drawing (the table has them in full).
const NAME_CHARS: usize = 30;

/// The chart's geometry, in SVG units rounded to a tenth.
pub struct Chart {
    pub width: f64,
    pub height: f64,
    pub plot_start: f64,
    pub plot_end: f64,
    pub name_end: f64,
    /// Where the rows end and the tick labels begin.
    pub axis_y: f64,
    /// The baseline of the tick labels.
    pub tick_label_y: f64,
    pub ticks: Vec<Tick>,
    pub bars: Vec<Bar>,
}

/// A grid line with its label.
pub struct Tick {
    pub x: f64,
    pub label: &'static str,
}

/// One model's row of the chart.
pub struct Bar {
    pub model: String,
    /// The name as drawn: shortened when long.
    pub label: String,
    /// The vertical middle of the row, where the name and the whiskers sit.
    pub middle: f64,
    pub top: f64,
    pub height: f64,
    /// The bar's length; `None` when the model's NDCG is undefined (no bar is drawn).
    pub length: Option<f64>,
    /// The 95% interval as an SVG path: a line at the row's middle between two end caps;
    /// `None` when undefined.
    pub whisker: Option<String>,
    /// The value as written beside the bar, e.g. `0.754 [0.701, 0.802]`.
    pub value_label: String,
    pub value_x: f64,
    /// The leader or a model tied with it.
    pub with_leader: bool,
}

impl Chart {
    /// The chart of `rows`, in the order given (the leaderboard's).
    pub fn new(rows: &[ModelRow]) -> Chart {
        let axis_y = TOP + ROW_HEIGHT * rows.len() as f64;
        let ticks = [
            (0.0, "0"),
            (0.25, "0.25"),
            (0.5, "0.5"),
            (0.75, "0.75"),
            (1.0, "1"),
        ]
        .map(|(value, label)| Tick {
            x: x_of(value),
            label,
        })
        .into();
        Chart {
            width: WIDTH,
            height: axis_y + AXIS_HEIGHT,
            plot_start: PLOT_START,
            plot_end: x_of(1.0),
            name_end: NAME_END,
            axis_y,
            tick_label_y: axis_y + 18.0,
            ticks,
            bars: rows.iter().enumerate().map(Bar::new).collect(),
        }
    }
}

impl Bar {
    fn new((index, row): (usize, &ModelRow)) -> Bar {
        let top = TOP + ROW_HEIGHT * index as f64 + (ROW_HEIGHT - BAR_HEIGHT) / 2.0;
        let middle = round(top + BAR_HEIGHT / 2.0);
        let (cap_top, cap_bottom) = (middle - CAP_HEIGHT / 2.0, middle + CAP_HEIGHT / 2.0);
        let whisker = row.ci95.map(|[low, high]| {
            let (low, high) = (x_of(low), x_of(high));
            format!(
                "M{low} {middle}H{high}M{low} {cap_top}V{cap_bottom}M{high} {cap_top}V{cap_bottom}"
            )
        });
        let rightmost = [row.ndcg(), row.ci95.map(|[_, high]| high)]
            .into_iter()
            .flatten()
            .fold(0.0, f64::max);
        let value_label = match (row.ndcg(), row.ci95) {
            (Some(ndcg), Some(ends)) => {
                format!(
                    "{} {}",
                    page::number(Some(ndcg), 3),
                    page::interval(ends, 3)
                )
            }
            (Some(ndcg), None) => page::number(Some(ndcg), 3),
            (None, _) => "undefined".to_owned(),
        };
        Bar {
            model: row.model.clone(),
            label: shortened(&row.model),
            middle,
            top: round(top),
            height: BAR_HEIGHT,
            length: row.ndcg().map(|ndcg| round(x_of(ndcg) - PLOT_START)),
            whisker,
            value_label,
            value_x: x_of(rightmost) + 6.0,
            with_leader: row.rank == 1 || row.tied_with_leader(),
        }
    }
}

/// The x position of an NDCG value, clamped to the axis.
fn x_of(value: f64) -> f64 {
    round(PLOT_START + PLOT_WIDTH * value.clamp(0.0, 1.0))
}

fn round(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

fn shortened(name: &str) -> String {
    if name.chars().count() <= NAME_CHARS {
        name.to_owned()
    } else {
        let head: String = name.chars().take(NAME_CHARS - 1).collect();
        format!("{}…", head.trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(model: &str, rank: usize, ndcg: Option<f64>, ci95: Option<[f64; 2]>) -> ModelRow {
        ModelRow {
            ci95,
            targets: 2,
            p_value_holm: Some(0.01),
            ..ModelRow::undefined(model, rank).with("ndcg", ndcg)
        }
    }

    #[test]
    fn bars_and_whiskers_sit_on_a_zero_to_one_axis() {
        let chart = Chart::new(&[
            row("a", 1, Some(0.5), Some([0.25, 0.75])),
            row(&"x".repeat(40), 2, None, None),
        ]);
        assert_eq!(chart.height, 8.0 + 2.0 * 34.0 + 30.0);
        assert_eq!(chart.ticks[2].x, 222.0 + 220.0);
        let [a, long] = &chart.bars[..] else {
            panic!("two bars")
        };
        assert_eq!(a.length, Some(220.0));
        assert_eq!(
            a.whisker.as_deref(),
            Some("M332 25H552M332 19V31M552 19V31")
        );
        assert_eq!((a.top, a.middle), (15.0, 25.0));
        assert_eq!(a.value_label, "0.500 [0.250, 0.750]");
        assert_eq!(a.value_x, 558.0);
        assert!(a.with_leader);
        assert_eq!(long.length, None);
        assert_eq!(long.label, format!("{}…", "x".repeat(29)));
        assert_eq!(long.value_label, "undefined");
        assert!(!long.with_leader, "p = 0.01 separates it from the leader");
    }
}
