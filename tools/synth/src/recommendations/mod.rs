//! `recommendations.csv`, `runs/*.run` and the optional retrained run: every model's ranked
//! list of every target.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

mod output;
mod retrained;

use crate::config::Config;
use crate::format::push_id;
use crate::random::{gauss, rng_for, Stream};
use crate::study::{finish, Summary};
use crate::text::TOPIC_COUNT;
use output::{ListFormatter, RecommendationsCsv};
use retrained::RetrainedRun;

/// A candidate paper of a target with its hidden relevance in [0, 1].
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    pub paper: u32,
    pub relevance: f64,
}

/// The pooled pairs of the rated targets, with their hidden relevance.
#[derive(Debug, Default)]
pub struct Pools {
    /// The rated targets, in order.
    pub targets: Vec<u32>,
    /// `entries[offsets[i]..offsets[i + 1]]` is the pool of `targets[i]`, by paper index.
    pub offsets: Vec<usize>,
    pub entries: Vec<Candidate>,
}

/// The noise a model adds to the hidden relevance before ranking: model-1 has the least.
/// The correlation of a model's scores with the relevance falls evenly from 0.98 (model-1)
/// to 0.28 (the last model), so neighbouring models are about equally far apart.
fn model_noise(model: usize, models: usize) -> f64 {
    /// Roughly the standard deviation of the hidden relevance of a target's candidates.
    const RELEVANCE_SD: f64 = 0.28;
    let step = if models == 1 {
        0.0
    } else {
        model as f64 / (models - 1) as f64
    };
    let correlation = 0.98 - 0.70 * step;
    RELEVANCE_SD * (1.0 / (correlation * correlation) - 1.0).sqrt()
}

/// Maps a model's raw score onto (0, 1) in millionths.
fn score_micros(raw: f64) -> u32 {
    let squashed = 0.5 + raw / (2.0 * (1.0 + raw.abs()));
    (squashed * 1e6) as u32
}

/// Draws the candidate papers of target `target` into `candidates`.
struct CandidateDrawer<'a> {
    topics: &'a [u8],
    by_topic: Vec<Vec<u32>>,
    /// `mark[p] == stamp` when paper `p` is already drawn for the current target.
    mark: Vec<u32>,
    stamp: u32,
    /// Scratch for drawing most of the papers: all paper indices.
    all: Vec<u32>,
}

impl<'a> CandidateDrawer<'a> {
    fn new(topics: &'a [u8]) -> CandidateDrawer<'a> {
        let mut by_topic = vec![Vec::new(); TOPIC_COUNT];
        for (paper, &topic) in topics.iter().enumerate() {
            by_topic[usize::from(topic)].push(paper as u32);
        }
        CandidateDrawer {
            topics,
            by_topic,
            mark: vec![0; topics.len()],
            stamp: 0,
            all: Vec::new(),
        }
    }

    fn relevance(&self, target: u32, paper: u32, rng: &mut ChaCha8Rng) -> f64 {
        let u: f64 = rng.random();
        if self.topics[target as usize] == self.topics[paper as usize] {
            0.15 + 0.85 * u * u
        } else {
            0.3 * u * u
        }
    }

    fn draw(&mut self, target: u32, want: usize, rng: &mut ChaCha8Rng, out: &mut Vec<Candidate>) {
        out.clear();
        let papers = self.topics.len();
        if want * 2 > papers {
            // Most papers are wanted: a partial shuffle of all of them.
            self.all.clear();
            self.all.extend((0..papers as u32).filter(|&p| p != target));
            for i in 0..want {
                let j = rng.random_range(i..self.all.len());
                self.all.swap(i, j);
                let paper = self.all[i];
                let relevance = self.relevance(target, paper, rng);
                out.push(Candidate { paper, relevance });
            }
            return;
        }
        self.stamp += 1;
        self.mark[target as usize] = self.stamp;
        let same_topic = &self.by_topic[usize::from(self.topics[target as usize])];
        while out.len() < want {
            // About 60% from the target's topic, the rest from anywhere.
            let paper = if same_topic.len() > 1 && rng.random_ratio(3, 5) {
                same_topic[rng.random_range(0..same_topic.len())]
            } else {
                rng.random_range(0..papers as u32)
            };
            if self.mark[paper as usize] == self.stamp {
                continue;
            }
            self.mark[paper as usize] = self.stamp;
            let relevance = self.relevance(target, paper, rng);
            out.push(Candidate { paper, relevance });
        }
    }
}

/// Writes `recommendations.csv`, `runs/*.run` and, if asked for, the retrained run; returns
/// the pools of the rated targets.
pub fn write_recommendations(
    config: &Config,
    seed: u64,
    topics: &[u8],
    targets: &[u32],
    out: &Path,
    summary: &mut Summary,
) -> io::Result<Pools> {
    let mut rng = rng_for(seed, Stream::Recommendations);
    let mut drawer = CandidateDrawer::new(topics);

    let names: Vec<String> = (1..=config.models).map(|m| format!("model-{m}")).collect();
    let file_capacity = ((8 << 20) / config.models).clamp(64 << 10, 1 << 20);
    let mut csv = RecommendationsCsv::create(out, config.csv_order, config.models, file_capacity)?;
    let mut runs = Vec::with_capacity(config.models);
    for name in &names {
        let path = out.join("runs").join(format!("{name}.run"));
        runs.push(BufWriter::with_capacity(file_capacity, File::create(path)?));
    }
    let mut retrained = match config.retrained {
        Some(retrained) => Some(RetrainedRun::create(
            retrained,
            seed,
            targets.len(),
            &out.join("retrained")
                .join(format!("{}.run", names[retrained.model])),
        )?),
        None => None,
    };
    let noise: Vec<f64> = (0..config.models)
        .map(|m| model_noise(m, config.models))
        .collect();

    let want = config.candidates();
    let list_len = config.list_len;
    let mut candidates = Vec::with_capacity(want);
    let mut scored: Vec<(f64, u32)> = Vec::with_capacity(want);
    let mut list: Vec<Listed> = Vec::with_capacity(list_len);
    let mut in_pool: Vec<bool> = Vec::with_capacity(want);
    let mut formatter = ListFormatter::default();
    let mut csv_rows = String::with_capacity(list_len * 40);
    let mut run_lines = String::with_capacity(list_len * 48);
    let mut target_id = String::with_capacity(7);
    let mut pools = Pools::default();
    pools.offsets.push(0);

    for (target_index, &target) in targets.iter().enumerate() {
        drawer.draw(target, want, &mut rng, &mut candidates);
        target_id.clear();
        push_id(&mut target_id, target);
        let pooled = target_index < config.rated_targets;
        in_pool.clear();
        in_pool.resize(candidates.len(), false);
        for (model, run) in runs.iter_mut().enumerate() {
            rank(&candidates, noise[model], &mut rng, &mut scored);
            if pooled {
                for &(_, index) in &scored[..config.pool_depth] {
                    in_pool[index as usize] = true;
                }
            }
            list_from(&candidates, &scored[..list_len], &mut list);
            csv_rows.clear();
            run_lines.clear();
            formatter.push(
                &list,
                &names[model],
                &target_id,
                Some(&mut csv_rows),
                &mut run_lines,
            );
            csv.write_rows(model, &csv_rows)?;
            run.write_all(run_lines.as_bytes())?;
            if let Some(retrained) = retrained.as_mut().filter(|r| r.model == model) {
                retrained.write_target(
                    target_index,
                    &candidates,
                    noise[model],
                    (&list, &run_lines),
                    (&names[model], &target_id),
                    &mut formatter,
                )?;
            }
        }
        if pooled {
            pools.targets.push(target);
            let start = pools.entries.len();
            pools.entries.extend(
                candidates
                    .iter()
                    .zip(&in_pool)
                    .filter(|(_, &pooled)| pooled)
                    .map(|(c, _)| *c),
            );
            pools.entries[start..].sort_unstable_by_key(|c| c.paper);
            pools.offsets.push(pools.entries.len());
        }
    }

    summary.recommendations = targets.len() * config.models * list_len;
    summary.recommendations_bytes = csv.finish()?;
    for run in runs {
        summary.runs_bytes += finish(run)?;
    }
    if let Some(retrained) = retrained {
        summary.retrained_bytes = Some(retrained.finish()?);
    }
    Ok(pools)
}

/// Orders the candidates by one model's scores, best first: the hidden relevance plus the
/// model's noise (ties by paper). `scored` holds (score, index into `candidates`).
fn rank(candidates: &[Candidate], noise: f64, rng: &mut ChaCha8Rng, scored: &mut Vec<(f64, u32)>) {
    scored.clear();
    scored.extend(
        candidates
            .iter()
            .enumerate()
            .map(|(i, c)| (c.relevance + noise * gauss(rng), i as u32)),
    );
    scored.sort_unstable_by(|a, b| {
        b.0.total_cmp(&a.0).then_with(|| {
            candidates[a.1 as usize]
                .paper
                .cmp(&candidates[b.1 as usize].paper)
        })
    });
}

/// A paper of a written list and its score in millionths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Listed {
    paper: u32,
    micros: u32,
}

/// The list of the `ranked` candidates with their scores: the raw scores mapped onto (0, 1),
/// then made strictly decreasing and positive down to the last rank.
fn list_from(candidates: &[Candidate], ranked: &[(f64, u32)], list: &mut Vec<Listed>) {
    list.clear();
    let mut previous = 0u32;
    for (rank0, &(raw, index)) in ranked.iter().enumerate() {
        let floor = (ranked.len() - rank0) as u32;
        let mut micros = score_micros(raw).min(999_999);
        if rank0 > 0 {
            micros = micros.min(previous - 1);
        }
        micros = micros.max(floor);
        previous = micros;
        list.push(Listed {
            paper: candidates[index as usize].paper,
            micros,
        });
    }
}
