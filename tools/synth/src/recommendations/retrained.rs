//! The retrained run of one model: the same run tag, a share of the targets' lists changed.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::Path;

use rand_chacha::ChaCha8Rng;

use super::output::ListFormatter;
use super::{list_from, rank, Candidate, Listed};
use crate::config::Retrained;
use crate::random::{rng_for, Stream};
use crate::study::finish;

/// The retrained run of one model: the model's lists, with those of a random share of the
/// targets ranked anew.
pub struct RetrainedRun {
    pub model: usize,
    /// By target index: whether the target's list changes.
    changed: Vec<bool>,
    /// Picks the changed targets, then draws the noise of their new lists.
    rng: ChaCha8Rng,
    file: BufWriter<File>,
    scored: Vec<(f64, u32)>,
    list: Vec<Listed>,
    lines: String,
}

impl RetrainedRun {
    pub fn create(
        retrained: Retrained,
        seed: u64,
        targets: usize,
        path: &Path,
    ) -> io::Result<RetrainedRun> {
        let mut rng = rng_for(seed, Stream::Retrained);
        let mut changed = vec![false; targets];
        for index in rand::seq::index::sample(&mut rng, targets, retrained.changed_targets) {
            changed[index] = true;
        }
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        Ok(RetrainedRun {
            model: retrained.model,
            changed,
            rng,
            file: BufWriter::with_capacity(1 << 20, File::create(path)?),
            scored: Vec::new(),
            list: Vec::new(),
            lines: String::new(),
        })
    }

    /// Writes the retrained list of the target at `target_index`: the `original` list's run
    /// lines as they are, or, for a changed target, the candidates ranked with fresh noise of
    /// the same model, made to differ from the original if the fresh ranking happens not to.
    pub fn write_target(
        &mut self,
        target_index: usize,
        candidates: &[Candidate],
        noise: f64,
        (original, original_lines): (&[Listed], &str),
        (model, target): (&str, &str),
        formatter: &mut ListFormatter,
    ) -> io::Result<()> {
        if !self.changed[target_index] {
            return self.file.write_all(original_lines.as_bytes());
        }
        rank(candidates, noise, &mut self.rng, &mut self.scored);
        let len = original.len();
        let same = self.scored[..len]
            .iter()
            .map(|&(_, index)| candidates[index as usize].paper)
            .eq(original.iter().map(|listed| listed.paper));
        if same {
            // Bring in the next candidate at the last rank or, when the list holds every
            // candidate, swap the last two (the configuration makes sure there are two).
            if self.scored.len() > len {
                self.scored.swap(len - 1, len);
            } else {
                self.scored.swap(len - 2, len - 1);
            }
        }
        list_from(candidates, &self.scored[..len], &mut self.list);
        self.lines.clear();
        formatter.push(&self.list, model, target, None, &mut self.lines);
        self.file.write_all(self.lines.as_bytes())
    }

    /// Flushes the file; returns its size.
    pub fn finish(self) -> io::Result<u64> {
        finish(self.file)
    }
}
