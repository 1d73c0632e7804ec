//! The pruning control beside the verdict, which the dashboard and the leaderboard both show
//! (`macros::pruning_control`): shown while pruning is on, or while it is off and the verdict
//! rules a model out. It posts to `/prune` (`web/pruning.rs`).

use crate::decision::Decision;
use crate::study::pruning::Pruning;
use crate::words::capitalized;

pub struct PruningControl {
    pub on: bool,
    pub words: String,
}

impl PruningControl {
    /// The control for pruning in `state` beside the verdict `decision`; `None` where there is
    /// nothing to offer (pruning off, and no model out).
    pub fn new(state: &Pruning, decision: Option<&Decision>) -> Option<PruningControl> {
        let out = decision.map_or(&[][..], |decision| &decision.out[..]);
        if state.on {
            return Some(PruningControl {
                on: true,
                words: format!("{}.", capitalized(&state.to_string())),
            });
        }
        (!out.is_empty()).then(|| PruningControl {
            on: false,
            words: format!(
                "With pruning on, the pools built from now on leave out the models that are out \
                 ({}), so that the papers only they recommend stop costing ratings (a target with \
                 a rating keeps its pool; no rating is removed).",
                out.join(", ")
            ),
        })
    }
}
