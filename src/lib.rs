//! paperjudge: rate the papers your recommendation models suggest, blind, and find out which
//! model recommends best.
//!
//! The library holds everything; `main.rs` only parses the command line and calls [`cli::run`].
//! Both faces, the command line ([`cli`]) and the web app ([`web::run`], which the tests build
//! on any port), work on a study through one handle, [`study::Study`].

// No unsafe code anywhere in the app: the compiler keeps it so.
#![forbid(unsafe_code)]

pub mod blocking;
pub mod checks;
pub mod cli;
pub mod decision;
pub mod demo;
pub mod domain;
pub mod export;
pub mod formats;
pub mod leaderboard;
pub mod lists;
pub mod metrics;
pub mod output;
pub mod password;
pub mod simulation;
pub mod study;
pub mod terminal;
pub mod web;
pub mod words;
