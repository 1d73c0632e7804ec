//! paperjudge's integration tests, in one test binary: the library, the web app on a real
//! port and the real command-line binary, each over a real SQLite file in a temporary
//! directory. One binary links the library once instead of once per file.
//!
//! Helpers: `common` (a study in a temporary file), `web_support` (the app on port 0 and an
//! HTTP client), `process_support` (the binary as a child process).

mod common;
mod judge_support;
mod process_support;
mod web_support;

mod browser_import;
mod browser_lists;
mod browser_notes;
mod browser_pages;
mod browser_rating;
mod browser_recheck;
mod cannot_judge;
mod checks_cli;
mod checks_pool_bias;
mod checks_web;
mod cli;
mod cli_outputs;
mod decision;
mod durability;
mod evaluation;
mod evaluation_incremental;
mod guidelines;
mod import_attack;
mod import_order;
mod import_papers;
mod import_ratings;
mod import_recommendations;
mod judge_validity;
mod judges_attack;
mod judges_audit;
mod judges_cli;
mod judges_command;
mod judges_guidelines;
mod judges_leaderboard;
mod judges_run;
mod judges_trials;
mod judges_web;
mod layers;
mod leaderboard_blindness;
mod leaderboard_kept;
mod lists_cli;
mod lists_packed;
mod lists_reference;
mod lists_web;
mod metrics_agreement;
mod metrics_confidence_sequence;
mod metrics_prediction_powered;
mod metrics_properties;
mod metrics_reference;
mod metrics_resampling;
mod metrics_study_checks;
mod newcomer;
mod parser_properties;
mod pooling;
mod pruning;
mod raters_attack;
mod raters_cli;
mod raters_migration;
mod raters_web;
mod rating_notes;
mod rating_page_contract;
mod request_log;
mod schema;
mod security_access;
mod sign_in_attack;
mod targets_choice;
mod trec_agreement;
mod trec_agreement_cannot_judge;
mod trec_agreement_study;
mod unique_relevant;
mod upload_limits;
mod web_blind;
mod web_import;
mod web_leaderboard;
mod web_pages;
mod web_rating;
mod web_safety;
mod web_targets;
