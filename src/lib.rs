//! paperjudge: rate the papers your recommendation models suggest, blind, and find out which
//! model recommends best.
//!
//! The library holds everything; `main.rs` only parses the command line and calls [`cli::run`].
//! Tests build the same web app with [`web::run`] on any port.

pub mod blocking;
pub mod checks;
pub mod choice;
pub mod cli;
pub mod db;
pub mod decision;
pub mod demo;
pub mod domain;
pub mod evaluation;
pub mod export;
pub mod import;
pub mod leaderboard;
pub mod metrics;
pub mod pruning;
pub mod rating;
pub mod simulation;
pub mod terminal;
pub mod web;
