//! A whole study: every file in its turn, and what was written.

use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::Path;

use crate::config::{Config, CsvOrder, Ratings};
use crate::papers::{assign_topics, write_papers};
use crate::ratings::write_ratings;
use crate::recommendations::write_recommendations;
use crate::targets::{choose_targets, write_chosen};

/// What was written.
#[derive(Debug, Default)]
pub struct Summary {
    pub recommendations: usize,
    pub ratings: usize,
    pub rated_targets: usize,
    pub papers_bytes: u64,
    pub recommendations_bytes: u64,
    pub runs_bytes: u64,
    pub ratings_bytes: u64,
    pub retrained_bytes: Option<u64>,
    pub chosen_bytes: Option<u64>,
}

impl Summary {
    /// The counts and file sizes, for the summary line.
    pub fn describe(&self, config: &Config) -> String {
        let order = match config.csv_order {
            CsvOrder::Target => "",
            CsvOrder::Model => " model by model",
        };
        let mut text = format!(
            "{} papers (papers.csv {}), {} models x {} targets x {} = {} recommendations \
             (recommendations.csv {}{order}, runs/ {}), {} ratings over {} targets (ratings.csv {})",
            config.papers,
            megabytes(self.papers_bytes),
            config.models,
            config.targets,
            config.list_len,
            self.recommendations,
            megabytes(self.recommendations_bytes),
            megabytes(self.runs_bytes),
            self.ratings,
            self.rated_targets,
            megabytes(self.ratings_bytes),
        );
        if let (Some(retrained), Some(bytes)) = (config.retrained, self.retrained_bytes) {
            text.push_str(&format!(
                ", retrained/model-{}.run {} with {} of {} lists changed",
                retrained.model + 1,
                megabytes(bytes),
                retrained.changed_targets,
                config.targets
            ));
        }
        if let (Some(chosen), Some(bytes)) = (config.chosen, self.chosen_bytes) {
            text.push_str(&format!(
                ", {chosen} chosen targets (chosen-targets.txt {})",
                megabytes(bytes)
            ));
        }
        text
    }
}

fn megabytes(bytes: u64) -> String {
    if bytes < 1_000_000 {
        format!("{:.1} kB", bytes as f64 / 1e3)
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

/// Writes the whole study into `out`.
pub fn write_study(config: &Config, seed: u64, out: &Path) -> io::Result<Summary> {
    fs::create_dir_all(out.join("runs"))?;
    let mut summary = Summary::default();

    let topics = assign_topics(config.papers, seed);
    summary.papers_bytes = write_papers(&out.join("papers.csv"), &topics, seed)?;

    let targets = choose_targets(config, seed);
    let pools = write_recommendations(config, seed, &topics, &targets, out, &mut summary)?;

    write_ratings(config, seed, &pools, &out.join("ratings.csv"), &mut summary)?;
    if let Ratings::Count(wanted) = config.ratings {
        if summary.ratings < wanted {
            eprintln!(
                "paperjudge-synth: warning: the pools hold only {0} pairs, so only {0} of {wanted} ratings were written",
                summary.ratings
            );
        }
    }

    if let Some(chosen) = config.chosen {
        let path = out.join("chosen-targets.txt");
        summary.chosen_bytes = Some(write_chosen(seed, &targets, chosen, &path)?);
    }
    Ok(summary)
}

/// Flushes `writer`; returns the size of its file.
pub fn finish(writer: BufWriter<File>) -> io::Result<u64> {
    let file = writer.into_inner().map_err(|e| e.into_error())?;
    Ok(file.metadata()?.len())
}

#[cfg(test)]
mod tests;
