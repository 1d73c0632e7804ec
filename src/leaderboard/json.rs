//! The leaderboard as JSON (`--format json`, `/leaderboard.json`): the settings with the pool
//! depth, the target counts, the verdict, the model rows, and the per-target rows when asked for. The keys
//! are the names of `docs/metrics.md`.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::columns::{self, Value, COLUMNS};
use super::{Leaderboard, ModelRow, Partial, RaterLeader, TargetCounts, TargetRow};
use crate::decision::Decision;
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
            },
            targets: &self.targets,
            decision: self.decision.as_ref(),
            leader_by_rater: self.by_rater.as_deref(),
            models: ModelsJson(&self.models),
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
        map.end()
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
