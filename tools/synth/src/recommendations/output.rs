//! The text of lists: CSV rows and TREC run lines, and `recommendations.csv` in either order.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::Listed;
use crate::config::CsvOrder;
use crate::format::{push_id, push_number, push_score};
use crate::study::finish;

/// Formats lists as CSV rows and TREC run lines; the scratch text of one row is kept between
/// calls.
#[derive(Default)]
pub struct ListFormatter {
    paper: String,
    rank: String,
    score: String,
}

impl ListFormatter {
    /// Appends `list` as `model,target,rank,paper,score` rows to `csv`, if given, and as
    /// `target Q0 paper rank score model` lines to `run`.
    pub fn push(
        &mut self,
        list: &[Listed],
        model: &str,
        target: &str,
        mut csv: Option<&mut String>,
        run: &mut String,
    ) {
        for (rank0, listed) in list.iter().enumerate() {
            self.paper.clear();
            push_id(&mut self.paper, listed.paper);
            self.rank.clear();
            push_number(&mut self.rank, rank0 as u64 + 1, 1);
            self.score.clear();
            push_score(&mut self.score, listed.micros);
            let (paper, rank, score) = (&self.paper, &self.rank, &self.score);
            if let Some(csv) = csv.as_deref_mut() {
                for part in [model, ",", target, ",", rank, ",", paper, ",", score, "\n"] {
                    csv.push_str(part);
                }
            }
            for part in [
                target, " Q0 ", paper, " ", rank, " ", score, " ", model, "\n",
            ] {
                run.push_str(part);
            }
        }
    }
}

/// `recommendations.csv` in either row order.
pub enum RecommendationsCsv {
    /// Rows go straight into the file, target by target.
    ByTarget(BufWriter<File>),
    /// Every model's rows go into a part file of its own in `dir`, and the parts are joined
    /// into `file` at the end.
    ByModel {
        file: BufWriter<File>,
        dir: PathBuf,
        parts: Vec<BufWriter<File>>,
    },
}

impl RecommendationsCsv {
    pub fn create(
        out: &Path,
        order: CsvOrder,
        models: usize,
        part_capacity: usize,
    ) -> io::Result<RecommendationsCsv> {
        let mut file =
            BufWriter::with_capacity(4 << 20, File::create(out.join("recommendations.csv"))?);
        file.write_all(b"model,target,rank,paper,score\n")?;
        match order {
            CsvOrder::Target => Ok(RecommendationsCsv::ByTarget(file)),
            CsvOrder::Model => {
                let dir = out.join(".recommendations-by-model");
                fs::create_dir_all(&dir)?;
                let parts = (0..models)
                    .map(|model| {
                        File::create(part_path(&dir, model))
                            .map(|part| BufWriter::with_capacity(part_capacity, part))
                    })
                    .collect::<io::Result<_>>()?;
                Ok(RecommendationsCsv::ByModel { file, dir, parts })
            }
        }
    }

    /// Writes rows of `model`.
    pub fn write_rows(&mut self, model: usize, rows: &str) -> io::Result<()> {
        match self {
            RecommendationsCsv::ByTarget(file) => file.write_all(rows.as_bytes()),
            RecommendationsCsv::ByModel { parts, .. } => parts[model].write_all(rows.as_bytes()),
        }
    }

    /// Completes the file; returns its size.
    pub fn finish(self) -> io::Result<u64> {
        match self {
            RecommendationsCsv::ByTarget(file) => finish(file),
            RecommendationsCsv::ByModel {
                mut file,
                dir,
                parts,
            } => {
                for (model, part) in parts.into_iter().enumerate() {
                    finish(part)?;
                    io::copy(&mut File::open(part_path(&dir, model))?, &mut file)?;
                }
                fs::remove_dir_all(&dir)?;
                finish(file)
            }
        }
    }
}

fn part_path(dir: &Path, model: usize) -> PathBuf {
    dir.join(format!("model-{}.csv", model + 1))
}
