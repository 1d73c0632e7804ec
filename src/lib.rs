//! paperjudge: rate the papers your recommendation models suggest, blind, and find out which
//! model recommends best.
//!
//! The library holds everything but the pure core, `paperjudge-stats` (re-exported below
//! under the same paths); `main.rs` only parses the command line and calls [`cli::run`].
//! Both faces, the command line ([`cli`]) and the web app ([`web::run`], which the tests build
//! on any port), work on a study through one handle, [`study::Study`].

// No unsafe code anywhere in the app: the compiler keeps it so.
#![forbid(unsafe_code)]

pub mod blocking;
pub mod cli;
pub mod demo;
pub mod export;
pub mod output;
pub mod password;
pub mod study;
pub mod web;

// The pure core is a crate of its own (`crates/paperjudge-stats`), under the same paths.
pub use paperjudge_stats::{
    checks, decision, domain, formats, leaderboard, lists, metrics, simulation, terminal, words,
};
