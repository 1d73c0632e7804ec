//! A model's standing on the board as the dashboard's summary and the leaderboard's table both
//! show it (the badges of `macros.html`).

use crate::leaderboard::ModelRow;

/// A model's place on the board: its rank and name, and the badges beside the name.
pub struct Standing {
    pub rank: usize,
    pub model: String,
    pub is_leader: bool,
    pub tied_with_leader: bool,
    /// For a model pruned: the pools that left it out, and what it is scored over.
    pub pruned: Option<String>,
}

impl Standing {
    pub fn of(row: &ModelRow) -> Standing {
        Standing {
            rank: row.rank,
            model: row.model.clone(),
            is_leader: row.rank == 1 && row.ndcg().is_some(),
            tied_with_leader: row.tied_with_leader(),
            pruned: row.pruned_in_words(),
        }
    }
}
