//! paperjudge's pure core: the domain types, the metrics and what is made of them (the
//! verdict, the leaderboard, the study checks, the lists, the simulations), the file formats
//! and how numbers and text are written. No I/O of a study, no web, no database: the app
//! (`paperjudge`) reads and writes, and calls these.

// No unsafe code here either: the compiler keeps it so.
#![forbid(unsafe_code)]

pub mod checks;
pub mod decision;
pub mod domain;
pub mod formats;
pub mod leaderboard;
pub mod lists;
pub mod metrics;
pub mod simulation;
pub mod terminal;
pub mod words;
