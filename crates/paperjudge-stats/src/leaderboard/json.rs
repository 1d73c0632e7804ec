//! The leaderboard as JSON (`--format json`, `/leaderboard.json`): the settings with the pool
//! depth, the target counts, the verdict, the model rows, and the per-target rows when asked for. The keys
//! are the names of `docs/metrics.md`.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::columns::{self, Value, COLUMNS};
use super::{
    JudgeBoard, JudgePair, Leaderboard, ModelRow, Partial, RaterLeader, RatersOnly, TargetCounts,
    TargetRow, VERDICT_WITH_A_JUDGE,
};
use crate::decision::Decision;
use crate::domain::JudgeName;
use crate::metrics::{Judgments, Settings};

impl Leaderboard {
    /// The leaderboard as pretty-printed JSON, ending in a newline; with `per_target`, every
    /// model's values on every evaluated target too.
    pub fn to_json(&self, per_target: bool) -> String {
        let json = LeaderboardJson {
            settings: SettingsJson {
                metrics: &self.settings,
                pool_depth: self.pool_depth.get(),
                partial: self.partial,
                judgments: self.judgments.as_ref(),
                judge: self.judge.as_ref().map(|judge| &judge.name),
            },
            targets: &self.targets,
            decision: self.decision.as_ref(),
            leader_by_rater: self.by_rater.as_deref(),
            models: ModelsJson(&self.models),
            judge: self.judge.as_ref().map(JudgeJson),
            per_target: per_target.then_some(PerTargetJson(self)),
        };
        let mut text = serde_json::to_string_pretty(&json).expect("a leaderboard serializes");
        text.push('\n');
        text
    }
}

#[derive(Serialize)]
struct LeaderboardJson<'a> {
    settings: SettingsJson<'a>,
    targets: &'a TargetCounts,
    /// `null` where there is no verdict (fewer than two models).
    decision: Option<&'a Decision>,
    /// With raters only: the leader on each rater's stars alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    leader_by_rater: Option<&'a [RaterLeader]>,
    models: ModelsJson<'a>,
    /// With a judge only.
    #[serde(skip_serializing_if = "Option::is_none")]
    judge: Option<JudgeJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    per_target: Option<PerTargetJson<'a>>,
}

#[derive(Serialize)]
struct SettingsJson<'a> {
    #[serde(flatten)]
    metrics: &'a Settings,
    pool_depth: u32,
    partial: Partial,
    /// With raters only: how one judgment per pair came from their stars.
    #[serde(skip_serializing_if = "Option::is_none")]
    judgments: Option<&'a Judgments>,
    /// With a judge only: its name.
    #[serde(skip_serializing_if = "Option::is_none")]
    judge: Option<&'a JudgeName>,
}

/// Each row as an object: the model's name and rank, then a key per column.
struct ModelsJson<'a>(&'a [ModelRow]);

impl Serialize for ModelsJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(RowJson))
    }
}

struct RowJson<'a>(&'a ModelRow);

impl Serialize for RowJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let row = self.0;
        let mut map = serializer.serialize_map(Some(2 + COLUMNS.len()))?;
        map.serialize_entry("model", &row.model)?;
        map.serialize_entry("rank", &row.rank)?;
        for column in COLUMNS {
            match column.value {
                Value::Interval => map.serialize_entry(column.key, &row.ci95)?,
                Value::Targets => map.serialize_entry(column.key, &row.targets)?,
                _ => map.serialize_entry(column.key, &row.number(column))?,
            }
        }
        if let Some(raters) = &row.human_only {
            map.serialize_entry("human_only", &RatersOnlyJson(raters))?;
        }
        map.end()
    }
}

struct RatersOnlyJson<'a>(&'a RatersOnly);

impl Serialize for RatersOnlyJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("ndcg", &self.0.ndcg)?;
        map.serialize_entry("ci95", &self.0.ci95)?;
        map.serialize_entry("targets", &self.0.targets)?;
        map.end()
    }
}

/// The judge's part: the interface's keys, then whether the NDCG is prediction-powered (and
/// why not), the order warning's count, and why the verdict is the raters' own.
struct JudgeJson<'a>(&'a JudgeBoard);

impl Serialize for JudgeJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let judge = self.0;
        let mut map = serializer.serialize_map(Some(10))?;
        map.serialize_entry("name", &judge.name)?;
        map.serialize_entry("targets_judged", &judge.targets_judged)?;
        map.serialize_entry("targets_rated", &judge.targets_rated)?;
        map.serialize_entry("worth_rated_targets", &judge.worth_rated_targets)?;
        map.serialize_entry("pairs", &PairsJson(&judge.pairs))?;
        map.serialize_entry("tuning_targets_left_out", &judge.tuning_targets_left_out)?;
        map.serialize_entry("prediction_powered", &judge.prediction_powered())?;
        map.serialize_entry("unavailable", &judge.unavailable)?;
        map.serialize_entry("rated_out_of_order", &judge.rated_out_of_order)?;
        map.serialize_entry("verdict", VERDICT_WITH_A_JUDGE)?;
        map.end()
    }
}

struct PairsJson<'a>(&'a [JudgePair]);

impl Serialize for PairsJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|pair| {
            serde_json::json!({
                "a": pair.a,
                "b": pair.b,
                "rho": pair.rho,
                "lambda": pair.lambda,
                "half_width": pair.half_width,
                "half_width_human_only": pair.half_width_human_only,
            })
        }))
    }
}

/// One object per evaluated target and model: target, model, then a key per per-target
/// column.
struct PerTargetJson<'a>(&'a Leaderboard);

impl Serialize for PerTargetJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let board = self.0;
        serializer.collect_seq(board.per_target.iter().flat_map(|target| {
            (board.models.iter().enumerate()).map(move |(row, model)| TargetJson {
                target,
                model: &model.model,
                row,
            })
        }))
    }
}

struct TargetJson<'a> {
    target: &'a TargetRow,
    model: &'a str,
    row: usize,
}

impl Serialize for TargetJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("target", &self.target.target)?;
        map.serialize_entry("model", self.model)?;
        for (column, value) in columns::per_target().zip(self.target.values(self.row)) {
            map.serialize_entry(column.key, value)?;
        }
        map.end()
    }
}
