//! The bundled demo study: 48 papers with abstracts written for paperjudge, 5 models of
//! plausibly different quality, 8 targets and no ratings (loaded by
//! `Study::load_demo_if_empty`).

pub const PAPERS_CSV: &str = include_str!("papers.csv");
pub const RECOMMENDATIONS_CSV: &str = include_str!("recommendations.csv");
