//! What the models' lists say before a single rating (docs/metrics.md, "The lists"): how much
//! the top k of every two models overlap, what each model brings to the pool that no other
//! does, and how widely each recommends across the library.
//!
//! Pure, like the checks: [`Lists::of`] the lists of the study's targets in memory
//! (`Study::lists` reads them). It reads lists only, never a rating nor the pool as stored.
//!
//! Which targets: a target's lists tell which models list each paper of its blind pool, so
//! the view speaks over the targets whose pools are no longer blind, the fully rated ones (the
//! leaderboard's), and leaves out every target still being rated, whatever a view shows of it
//! (a pair's Jaccard of 1 at k = 1 tells that both models' first pick is the same paper of a
//! pool being rated; the papers in most lists name it). A target not chosen is left out too:
//! nobody rates it now, but any may be chosen later (while the study rates every paper with
//! recommendations, every one is being rated already), and a view read before would then tell
//! its pool's provenance. [`Partial::Include`] (the owner's, for planning) adds the targets
//! still being rated, and the view then says so ([`Lists::unblinding`]).

mod csv;
mod overlap;
#[cfg(test)]
mod tests;
mod text;

use std::num::NonZeroUsize;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::domain::{PaperKey, PoolDepth};
use crate::leaderboard::Partial;
use crate::metrics;
use crate::words::plural;

pub use overlap::{Overlap, Persistence, Weights};

use overlap::{jaccard, rbo_ext_and_shared};

/// The most batches of targets an interval resamples. Up to this many targets each batch is
/// one target: the plain percentile bootstrap of drawn indices. Beyond, a resample costs
/// what it costs at this many: every pair of 8 models over 40,000 targets took 0.13 s so, and
/// 84 s target by target (`cargo run --release --example lists_intervals`).
pub const BATCHES: usize = 500;

/// The papers recommended most often that the view names.
pub const MOST_RECOMMENDED: usize = 10;

/// The pairs of models put in words, most alike first.
pub const MOST_ALIKE: usize = 3;

/// What the view reads, said by every face of it.
pub const READS_LISTS_ONLY: &str = "These numbers read the models' lists only, never a rating, \
    and only those of fully rated targets: a target still being rated is left out until every \
    pooled paper of it is rated, so that they name no paper's provenance on a target anyone \
    rates, and raters may read them too.";

/// One model's lists of the view's targets, best first, in the targets' order; an empty list
/// where the model recommends nothing for a target.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelLists {
    papers: Vec<PaperKey>,
    /// `ends[t]`: where target t's list ends in `papers` (it starts where t − 1's ends).
    ends: Vec<usize>,
}

impl ModelLists {
    /// Lists of `targets` targets, with room for `papers` papers each.
    pub fn with_capacity(targets: usize, papers: usize) -> ModelLists {
        ModelLists {
            papers: Vec::with_capacity(targets * papers),
            ends: Vec::with_capacity(targets),
        }
    }

    /// Adds a paper to the list being read.
    pub fn push(&mut self, paper: PaperKey) {
        self.papers.push(paper);
    }

    /// Ends the list of the next target: the papers pushed since the last end.
    pub fn end_list(&mut self) {
        self.ends.push(self.papers.len());
    }

    /// The targets whose lists are ended.
    pub fn targets(&self) -> usize {
        self.ends.len()
    }

    /// Target `target`'s list.
    pub fn list(&self, target: usize) -> &[PaperKey] {
        let start = target.checked_sub(1).map_or(0, |before| self.ends[before]);
        &self.papers[start..self.ends[target]]
    }
}

/// The lists of a study's targets, as the view reads them.
#[derive(Debug, Clone, PartialEq)]
pub struct ListsInput {
    /// Every model, by name.
    pub models: Vec<String>,
    /// Each model's lists, in the order of `models`, of the same targets; cut at the larger of
    /// k and the pool depth, or longer.
    pub lists: Vec<ModelLists>,
    /// The targets: the study's (see [`Scope`]).
    pub scope: Scope,
    /// Papers in the library.
    pub library: usize,
    pub pool_depth: PoolDepth,
}

/// Which targets the view speaks over (see the module): of the targets the study rates (the
/// chosen ones or, while none is chosen, every paper with recommendations), the fully rated
/// ones, and with [`Partial::Include`] those still being rated too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Scope {
    /// The targets the view speaks over.
    pub count: usize,
    /// `exclude`: the fully rated targets only; `include`: those still being rated too.
    pub partial: Partial,
    /// Targets being rated that are fully rated.
    pub fully_rated: usize,
    /// Targets being rated that are not fully rated yet: in the view with `include` only.
    pub still_being_rated: usize,
    /// `all` (no target chosen: every paper with recommendations) or `chosen`.
    pub choice: &'static str,
    /// Papers with recommendations.
    pub candidates: usize,
    /// Targets of the view for which no model recommends anything (chosen before any list
    /// came).
    pub without_lists: usize,
}

/// The options of the view: `--k`, `--rbo-p`, `--include-partial` (`k=`, `rbo-p=`,
/// `partial=include` in an address).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ListsOptions {
    pub k: Option<NonZeroUsize>,
    pub rbo_p: Option<Persistence>,
    /// Whether the targets still being rated are in the view: the owner's choice, for
    /// planning; never a rater's.
    pub partial: Partial,
}

impl ListsOptions {
    /// The settings in a study of this pool depth (k defaults to it).
    pub fn settings(&self, pool_depth: PoolDepth) -> ListsSettings {
        ListsSettings {
            k: self.k.map_or(pool_depth.get() as usize, NonZeroUsize::get),
            rbo_p: self.rbo_p.unwrap_or_default(),
            pool_depth: pool_depth.get(),
        }
    }

    /// The parameters of an address, as [`ListsOptions::read`] reads them.
    pub const PARAMETERS: &str = "k, rbo-p, partial";

    /// Reads the option named `name` (`rbo_p` for `rbo-p` too); `None` when no option has
    /// that name.
    pub fn read(&mut self, name: &str, value: &str) -> Option<Result<(), String>> {
        match name {
            "k" => Some(parse_k(value).map(|k| self.k = Some(k))),
            "rbo-p" | "rbo_p" => Some(value.parse().map(|p| self.rbo_p = Some(p))),
            "partial" => Some(value.parse().map(|partial| self.partial = partial)),
            _ => None,
        }
    }

    /// The options given, as an address's query (`k=5&rbo-p=0.8&partial=include`); empty when
    /// none is.
    pub fn query(&self) -> String {
        let k = self.k.map(|k| format!("k={k}"));
        let p = self.rbo_p.map(|p| format!("rbo-p={p}"));
        let partial = (self.partial == Partial::Include).then(|| "partial=include".to_owned());
        (k.into_iter().chain(p).chain(partial))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// k as the command line and the address take it.
pub fn parse_k(text: &str) -> Result<NonZeroUsize, String> {
    text.parse()
        .map_err(|_| format!("k must be a whole number from 1 up (got {text:?})"))
}

/// The settings a view was computed with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ListsSettings {
    /// Each list's top k is compared and counted.
    pub k: usize,
    pub rbo_p: Persistence,
    /// The study's: the depth of the pool whose cost `pairs_saved_without` counts.
    pub pool_depth: u32,
}

/// Everything the view says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lists {
    pub settings: ListsSettings,
    pub targets: Scope,
    /// Papers in the library.
    pub library: usize,
    /// Every model, by name.
    pub models: Vec<String>,
    /// Every two models, in the order of `models`.
    pub pairs: Vec<Pair>,
    pub pool: Pool,
    /// Each model, in the order of `models`.
    pub contribution: Vec<Contribution>,
    /// Each model, in the order of `models`.
    pub coverage: Vec<Coverage>,
    /// The papers in the most lists, most first.
    pub most_recommended: Vec<Recommended>,
    pub sentences: Sentences,
}

/// How much two models' top k overlap, on the targets where either has a list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pair {
    pub a: String,
    pub b: String,
    /// Targets compared: where at least one of the two has a list.
    pub targets: usize,
    /// Papers both lists hold, on average.
    pub shared: Option<f64>,
    pub jaccard: Option<f64>,
    pub jaccard_ci95: Option<[f64; 2]>,
    pub rbo: Option<f64>,
    pub rbo_ci95: Option<[f64; 2]>,
}

/// The pool of the lists: every target's union of every model's top k.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Pool {
    /// (target, paper) pairs of the union of every model's top k.
    pub pairs: u64,
    /// The same at the study's pool depth: the pairs to rate.
    pub pairs_at_pool_depth: u64,
}

/// What one model brings to the pool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Contribution {
    pub model: String,
    /// Pairs of the pool that only this model has in its top k.
    pub unique_pairs: u64,
    /// `unique_pairs` as a share of the pool's pairs.
    pub unique_share: Option<f64>,
    /// Pairs to rate the pool at the study's pool depth would lose without this model.
    pub pairs_saved_without: u64,
}

/// How widely one model recommends.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coverage {
    pub model: String,
    /// Targets for which it has a list.
    pub targets: usize,
    /// Papers in its top k over all targets, counted with repetition.
    pub recommendations: u64,
    /// Distinct papers in its top k over all targets.
    pub distinct_papers: u64,
    /// `distinct_papers` as a share of the library.
    pub library_share: Option<f64>,
    /// The Gini index of how often each paper of the library is in its top k.
    pub gini: Option<f64>,
}

/// A paper in many lists.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recommended {
    #[serde(skip)]
    pub key: PaperKey,
    /// Its id and title, as the library has them (filled in by the study).
    pub paper: String,
    pub title: String,
    /// Lists (model, target) that have it in their top k.
    pub lists: u64,
    /// Targets for which some model has it in its top k.
    pub targets: u64,
}

/// The view in words.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sentences {
    /// The pairs most alike, most alike first.
    pub most_alike: Vec<String>,
    pub contribution: String,
    pub coverage: String,
}

impl Lists {
    /// The view of `input` under `settings`.
    pub fn of(input: &ListsInput, settings: ListsSettings) -> Lists {
        let k = settings.k;
        let targets = input.scope.count;
        let pairs: Vec<(usize, usize)> = (0..input.models.len())
            .flat_map(|a| (a + 1..input.models.len()).map(move |b| (a, b)))
            .collect();
        let walked = walk_targets(input, &pairs, settings);
        let pair_rows = pair_rows(input, &pairs, &walked);
        let pool = Pool {
            pairs: walked.pool_at_k,
            pairs_at_pool_depth: walked.pool_at_depth,
        };
        let contribution: Vec<Contribution> = (input.models.iter().enumerate())
            .map(|(model, name)| Contribution {
                model: name.clone(),
                unique_pairs: walked.unique_at_k[model],
                unique_share: share(walked.unique_at_k[model], pool.pairs),
                pairs_saved_without: walked.unique_at_depth[model],
            })
            .collect();
        let span = span(input, k);
        let frequencies: Vec<Tally> = (input.lists.par_iter())
            .map(|lists| frequencies(lists, targets, k, span, input.library))
            .collect();
        let coverage: Vec<Coverage> = (input.models.iter().zip(&input.lists))
            .zip(&frequencies)
            .map(|((name, lists), frequencies)| {
                coverage(name, lists, targets, frequencies, input.library)
            })
            .collect();
        let most_recommended = most_recommended(input, &frequencies, k, span);
        let sentences = Sentences {
            most_alike: most_alike(&pair_rows, k),
            contribution: contribution_in_words(&contribution, pool, settings),
            coverage: coverage_in_words(&coverage),
        };
        Lists {
            settings,
            targets: input.scope.clone(),
            library: input.library,
            models: input.models.clone(),
            pairs: pair_rows,
            pool,
            contribution,
            coverage,
            most_recommended,
            sentences,
        }
    }

    /// Pretty-printed JSON, ending in a newline; undefined values are `null`.
    pub fn to_json(&self) -> String {
        let mut json = serde_json::to_string_pretty(self).expect("the lists serialize");
        json.push('\n');
        json
    }

    /// What to say instead of the numbers when there are none; `None` when there are.
    pub fn emptiness(&self) -> Option<&'static str> {
        let targets = &self.targets;
        if self.models.is_empty() {
            Some("No lists yet: import your models' recommendations.")
        } else if targets.fully_rated + targets.still_being_rated == 0 {
            Some("The study rates no target now: choose targets to see what their lists say.")
        } else if targets.count == 0 {
            Some(
                "No target is fully rated yet: the lists of a target are shown once every \
                 pooled paper of it is rated, since before they would tell which models list \
                 the papers still to rate.",
            )
        } else if targets.count == targets.without_lists {
            Some(
                "No model has recommended anything for these targets yet: import your models' \
                 recommendations for them.",
            )
        } else {
            None
        }
    }

    /// Which targets the view speaks over, in words: "the 2 fully rated targets of the 65
    /// chosen (of 40,000 with recommendations); the 63 still being rated are left out until
    /// fully rated".
    pub fn scope_in_words(&self) -> String {
        let Scope {
            count,
            partial,
            fully_rated,
            still_being_rated,
            choice,
            candidates,
            ..
        } = self.targets;
        let thousands = |n: usize| crate::words::thousands(n as i64);
        let rated = fully_rated + still_being_rated;
        let being_rated = match choice {
            "chosen" => format!("chosen (of {} with recommendations)", thousands(candidates)),
            _ => "being rated (every paper with recommendations, none chosen)".to_owned(),
        };
        if rated == 0 {
            return "no target (none is being rated)".to_owned();
        }
        match partial {
            Partial::Include => format!(
                "the {} {} {being_rated}, the {} still being rated included",
                thousands(count),
                plural(count, "target", "targets"),
                thousands(still_being_rated),
            ),
            Partial::Exclude => {
                let left_out = match still_being_rated {
                    0 => String::new(),
                    n => format!(
                        "; the {} still being rated {} left out until fully rated",
                        thousands(n),
                        plural(n, "is", "are"),
                    ),
                };
                format!(
                    "{} fully rated {} of the {} {being_rated}{left_out}",
                    match count {
                        0 => "no".to_owned(),
                        n => format!("the {}", thousands(n)),
                    },
                    // "no fully rated target", "the 1 fully rated target", "the 2 ... targets"
                    plural(count.max(1), "target", "targets"),
                    thousands(rated),
                )
            }
        }
    }

    /// With the targets still being rated included: what that gives away, in words.
    pub fn unblinding(&self) -> Option<String> {
        let still = self.targets.still_being_rated;
        (self.targets.partial == Partial::Include).then(|| {
            format!(
                "The targets still being rated are included ({} now), for planning: these \
                 numbers show which models list the papers still to rate, so rating {} after \
                 reading them is no longer blind, and nothing records that they were read. \
                 Raters never see them.",
                crate::words::thousands(still as i64),
                plural(still, "that target", "those targets"),
            )
        })
    }
}

/// What one walk over the targets finds: each pair's values on the targets where it is
/// defined, in the targets' order, and the pool's counts.
struct Walked {
    /// Per pair: its Jaccard on each target compared, its RBO, and the papers shared on all of
    /// them.
    overlaps: Vec<PairValues>,
    pool_at_k: u64,
    pool_at_depth: u64,
    unique_at_k: Vec<u64>,
    unique_at_depth: Vec<u64>,
}

#[derive(Clone, Default)]
struct PairValues {
    jaccard: Vec<f64>,
    rbo: Vec<f64>,
    shared: u64,
}

impl Walked {
    /// Room for `targets` targets' values.
    fn new(pairs: usize, models: usize, targets: usize) -> Walked {
        let values = PairValues {
            jaccard: Vec::with_capacity(targets),
            rbo: Vec::with_capacity(targets),
            shared: 0,
        };
        Walked {
            overlaps: vec![values; pairs],
            pool_at_k: 0,
            pool_at_depth: 0,
            unique_at_k: vec![0; models],
            unique_at_depth: vec![0; models],
        }
    }

    /// Adds `later`'s targets after this one's.
    fn append(&mut self, later: Walked) {
        for (values, more) in self.overlaps.iter_mut().zip(later.overlaps) {
            values.jaccard.extend(more.jaccard);
            values.rbo.extend(more.rbo);
            values.shared += more.shared;
        }
        self.pool_at_k += later.pool_at_k;
        self.pool_at_depth += later.pool_at_depth;
        for (unique, more) in (self.unique_at_k.iter_mut()).zip(later.unique_at_k) {
            *unique += more;
        }
        for (unique, more) in (self.unique_at_depth.iter_mut()).zip(later.unique_at_depth) {
            *unique += more;
        }
    }
}

/// Targets walked by one task: enough that a task's set-up is nothing beside its work.
const TARGETS_PER_TASK: usize = 1024;

/// Walks every target, in parallel and in order: each pair's overlap, and the pool at k and
/// at the pool depth.
fn walk_targets(input: &ListsInput, pairs: &[(usize, usize)], settings: ListsSettings) -> Walked {
    let models = input.models.len();
    let tasks: Vec<Walked> = (0..input.scope.count.div_ceil(TARGETS_PER_TASK))
        .into_par_iter()
        .map(|task| {
            let first = task * TARGETS_PER_TASK;
            let last = (first + TARGETS_PER_TASK).min(input.scope.count);
            let mut walked = Walked::new(pairs.len(), models, last - first);
            let mut target = Target::default();
            let mut weights = Weights::new(settings.rbo_p);
            for position in first..last {
                target.read(input, position, settings);
                target.count_pool(&mut walked);
                for (values, &(a, b)) in walked.overlaps.iter_mut().zip(pairs) {
                    let lengths = (target.top_k(a).len(), target.top_k(b).len());
                    let found = match target.has_prefixes() {
                        true => rbo_ext_and_shared(
                            lengths,
                            target.shared_by_prefixes(a, b),
                            &mut weights,
                        ),
                        false => {
                            rbo_ext_and_shared(lengths, target.shared_by_ranks(a, b), &mut weights)
                        }
                    };
                    if let Some((rbo, shared)) = found {
                        values.jaccard.extend(jaccard(lengths, shared as usize));
                        values.rbo.push(rbo);
                        values.shared += u64::from(shared);
                    }
                }
            }
            walked
        })
        .collect();
    let mut all = Walked::new(pairs.len(), models, input.scope.count);
    for task in tasks {
        all.append(task);
    }
    all
}

/// One target's lists as the walk reads them: each paper of any list (cut at the larger of k
/// and the pool depth) numbered 0, 1, … as first met, and each model's rank of each (0 where
/// it does not list it).
#[derive(Default)]
struct Target {
    numbers: Numbers,
    /// The paper numbers of every model's list (cut), best first, one model after the other.
    listed_papers: Vec<u32>,
    /// `starts[model]..starts[model + 1]`: the model's list in `listed_papers`.
    starts: Vec<usize>,
    /// `ranks[model * papers + paper]`.
    ranks: Vec<u32>,
    /// Per paper number: the models that list it in their top k and at the pool depth, the
    /// first of them.
    listed: Vec<[Listed; 2]>,
    papers: usize,
    /// With [`PREFIX_BITS`] papers or fewer: `prefixes[model * depths + d]`, the paper numbers
    /// of the model's top d + 1 (of its whole top k from its length on) as bits, for d below
    /// `depths`, the longest top k's length.
    prefixes: Vec<u64>,
    depths: usize,
    k: u32,
    depth: u32,
}

/// The most papers of a target whose models' top k are compared as bits (a paper a bit; 8
/// models' top 8 hold 64 papers at most): the papers two models both hold within each depth
/// are then their prefixes' common bits, one instruction a depth where the ranks take two
/// lookups.
const PREFIX_BITS: usize = 64;

/// The models that list a paper within a cut, and the first of them.
#[derive(Debug, Clone, Copy, Default)]
struct Listed {
    models: u32,
    first: u32,
}

impl Listed {
    fn add(&mut self, model: u32) {
        if self.models == 0 {
            self.first = model;
        }
        self.models += 1;
    }
}

impl Target {
    fn read(&mut self, input: &ListsInput, target: usize, settings: ListsSettings) {
        let models = input.lists.len();
        self.k = u32::try_from(settings.k).unwrap_or(u32::MAX);
        self.depth = settings.pool_depth;
        let cut = settings.k.max(settings.pool_depth as usize);
        self.listed_papers.clear();
        self.starts.clear();
        self.numbers.start(
            (input.lists.iter())
                .map(|lists| lists.list(target).len().min(cut))
                .sum(),
        );
        for lists in &input.lists {
            self.starts.push(self.listed_papers.len());
            let list = lists.list(target);
            for &paper in &list[..list.len().min(cut)] {
                self.listed_papers.push(self.numbers.of(paper));
            }
        }
        self.starts.push(self.listed_papers.len());
        self.papers = self.numbers.met();
        self.ranks.clear();
        self.ranks.resize(models * self.papers, 0);
        self.listed.clear();
        self.listed.resize(self.papers, [Listed::default(); 2]);
        for model in 0..models {
            let ranks = &mut self.ranks[model * self.papers..(model + 1) * self.papers];
            let list = &self.listed_papers[self.starts[model]..self.starts[model + 1]];
            for (&number, rank) in list.iter().zip(1..) {
                ranks[number as usize] = rank;
                let listed = &mut self.listed[number as usize];
                if rank <= self.k {
                    listed[0].add(model as u32);
                }
                if rank <= self.depth {
                    listed[1].add(model as u32);
                }
            }
        }
        self.prefixes.clear();
        self.depths = (0..models)
            .map(|model| self.top_k(model).len())
            .max()
            .unwrap_or(0);
        if self.has_prefixes() {
            for model in 0..models {
                let top_k = &self.listed_papers[self.starts[model]..][..self.top_k(model).len()];
                let mut bits = 0;
                for d in 0..self.depths {
                    if let Some(&number) = top_k.get(d) {
                        bits |= 1 << number;
                    }
                    self.prefixes.push(bits);
                }
            }
        }
    }

    /// Whether the models' top k are compared as bits (see [`PREFIX_BITS`]).
    fn has_prefixes(&self) -> bool {
        self.papers <= PREFIX_BITS
    }

    /// Adds the target's pool at k and at the pool depth, and each model's papers that no other
    /// model lists there, to `walked`.
    fn count_pool(&self, walked: &mut Walked) {
        for [at_k, at_depth] in &self.listed {
            for (listed, pool, unique) in [
                (at_k, &mut walked.pool_at_k, &mut walked.unique_at_k),
                (
                    at_depth,
                    &mut walked.pool_at_depth,
                    &mut walked.unique_at_depth,
                ),
            ] {
                if listed.models > 0 {
                    *pool += 1;
                }
                if listed.models == 1 {
                    unique[listed.first as usize] += 1;
                }
            }
        }
    }

    /// Model `model`'s top k, as paper numbers, best first.
    fn top_k(&self, model: usize) -> &[u32] {
        let list = &self.listed_papers[self.starts[model]..self.starts[model + 1]];
        &list[..list.len().min(self.k as usize)]
    }

    /// Model `model`'s rank of each paper number.
    fn ranks(&self, model: usize) -> &[u32] {
        &self.ranks[model * self.papers..(model + 1) * self.papers]
    }

    /// X_d of models `a` and `b` (their top k), d = 1, 2, … up to the longer top k: their
    /// prefixes' common bits (see [`Target::has_prefixes`]).
    fn shared_by_prefixes(&self, a: usize, b: usize) -> impl Iterator<Item = u32> + '_ {
        let depths = self.top_k(a).len().max(self.top_k(b).len());
        let prefixes = |model: usize| &self.prefixes[model * self.depths..][..depths];
        (prefixes(a).iter())
            .zip(prefixes(b))
            .map(|(in_a, in_b)| (in_a & in_b).count_ones())
    }

    /// X_d of models `a` and `b` (their top k), d = 1, 2, … up to the longer top k, from their
    /// ranks: the papers first shared at depth d are a's d-th when b holds it within d, and
    /// b's d-th when a holds it above d.
    fn shared_by_ranks(&self, a: usize, b: usize) -> impl Iterator<Item = u32> + '_ {
        let (top_a, top_b) = (self.top_k(a), self.top_k(b));
        let (in_a, in_b) = (self.ranks(a), self.ranks(b));
        (0..top_a.len().max(top_b.len())).scan(0, move |shared, d| {
            let depth = d as u32 + 1;
            let from_a =
                (top_a.get(d)).is_some_and(|&paper| (1..=depth).contains(&in_b[paper as usize]));
            let from_b =
                (top_b.get(d)).is_some_and(|&paper| (1..depth).contains(&in_a[paper as usize]));
            *shared += u32::from(from_a) + u32::from(from_b);
            Some(*shared)
        })
    }
}

/// The numbers of one target's papers, 0, 1, … as first met: an open-addressed table of the
/// papers met, the slots taken cleared for each target (sorting a target's entries took twice
/// as long).
#[derive(Default)]
struct Numbers {
    /// (paper, number) of each slot; `number` is `u32::MAX` in an empty slot.
    slots: Vec<(PaperKey, u32)>,
    /// The slots taken, by number.
    taken: Vec<usize>,
}

impl Numbers {
    /// Empties the table, with room for `papers` papers.
    fn start(&mut self, papers: usize) {
        let room = (2 * papers).next_power_of_two().max(16);
        if self.slots.len() < room {
            self.slots.clear();
            self.slots.resize(room, (PaperKey(0), u32::MAX));
        } else {
            for &slot in &self.taken {
                self.slots[slot].1 = u32::MAX;
            }
        }
        self.taken.clear();
    }

    /// The papers met.
    fn met(&self) -> usize {
        self.taken.len()
    }

    /// The number of `paper`: a new one if it was not met.
    fn of(&mut self, paper: PaperKey) -> u32 {
        let mask = self.slots.len() - 1;
        // Fibonacci hashing, the product's high bits: keys are mostly close row numbers.
        let bits = self.slots.len().trailing_zeros();
        let mut slot =
            ((paper.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize;
        loop {
            match self.slots[slot] {
                (_, u32::MAX) => {
                    let number = self.taken.len() as u32;
                    self.slots[slot] = (paper, number);
                    self.taken.push(slot);
                    return number;
                }
                (met, number) if met == paper => return number,
                _ => slot = (slot + 1) & mask,
            }
        }
    }
}

/// Each pair's means over the targets compared, with their intervals.
fn pair_rows(input: &ListsInput, pairs: &[(usize, usize)], walked: &Walked) -> Vec<Pair> {
    let samples: Vec<&[f64]> = (walked.overlaps.iter())
        .flat_map(|values| [values.jaccard.as_slice(), values.rbo.as_slice()])
        .collect();
    let intervals = intervals(&samples, BATCHES);
    (pairs.iter().zip(&walked.overlaps).enumerate())
        .map(|(pair, (&(a, b), values))| {
            let mean = |values: &[f64]| metrics::mean(values.iter().map(|&v| Some(v))).value;
            let targets = values.jaccard.len();
            Pair {
                a: input.models[a].clone(),
                b: input.models[b].clone(),
                targets,
                shared: (targets > 0).then(|| values.shared as f64 / targets as f64),
                jaccard: mean(&values.jaccard),
                jaccard_ci95: intervals[2 * pair],
                rbo: mean(&values.rbo),
                rbo_ci95: intervals[2 * pair + 1],
            }
        })
        .collect()
}

/// The 95% percentile-bootstrap interval of the mean of each sample (values of targets, in
/// their order), the targets resampled in at most `batches` batches: the targets are dealt in
/// turn into the batches, and each resample draws as many batches with replacement (the
/// draws of [`metrics::bootstrap_ci95_each`]); its mean is the sum of the values
/// of the batches drawn over the number of targets. With `batches` targets or fewer, each batch
/// is one target: the plain bootstrap.
fn intervals(samples: &[&[f64]], batches: usize) -> Vec<Option<[f64; 2]>> {
    let columns: Vec<Vec<f64>> = (samples.iter())
        .map(|values| {
            let batches = values.len().min(batches);
            // Target after target into batch after batch, in turn (without a division each).
            let mut sums = vec![0.0; batches];
            for dealt in values.chunks(batches.max(1)) {
                for (sum, value) in sums.iter_mut().zip(dealt) {
                    *sum += value;
                }
            }
            // Each batch's sum × batches / targets: the mean of these is the sample's mean, and
            // with a batch per target they are the values themselves (× 1, exactly).
            let scale = batches as f64 / values.len() as f64;
            sums.into_iter().map(|sum| sum * scale).collect()
        })
        .collect();
    let columns: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
    metrics::bootstrap_ci95_each(&columns)
}

/// A count per paper: in a flat array by key where the keys counted span not much more than
/// the library (they are its row numbers; coverage and the most recommended papers of 8
/// models' lists over 40,000 targets took 29 ms of CPU with hash maps, 13 ms so), else in a
/// hash map.
enum Tally {
    Flat { first: i64, counts: Vec<u64> },
    Map(FxHashMap<PaperKey, u64>),
}

impl Tally {
    /// An empty tally of the keys in `span` (first, last), in a library of `library` papers.
    fn new(span: Option<(i64, i64)>, library: usize) -> Tally {
        let room = |(first, last): (i64, i64)| usize::try_from(last.abs_diff(first)).ok();
        match span.and_then(room) {
            Some(room) if room <= 2 * library + 1024 => Tally::Flat {
                first: span.map_or(0, |(first, _)| first),
                counts: vec![0; room + 1],
            },
            _ => Tally::Map(FxHashMap::default()),
        }
    }

    /// Adds `count` to `paper`'s, a paper of the span.
    fn add(&mut self, paper: PaperKey, count: u64) {
        match self {
            Tally::Flat { first, counts } => counts[paper.0.abs_diff(*first) as usize] += count,
            Tally::Map(counts) => *counts.entry(paper).or_insert(0) += count,
        }
    }

    /// `paper`'s count, a paper of the span.
    fn get(&self, paper: PaperKey) -> u64 {
        match self {
            Tally::Flat { first, counts } => counts[paper.0.abs_diff(*first) as usize],
            Tally::Map(counts) => counts.get(&paper).copied().unwrap_or(0),
        }
    }

    /// The papers counted, with their counts, in no particular order.
    fn counted(&self) -> Vec<(PaperKey, u64)> {
        match self {
            Tally::Flat { first, counts } => (counts.iter().zip(0..))
                .filter(|&(&count, _)| count > 0)
                .map(|(&count, at)| (PaperKey(first + at), count))
                .collect(),
            Tally::Map(counts) => counts
                .iter()
                .map(|(&paper, &count)| (paper, count))
                .collect(),
        }
    }
}

/// The first and the last key of the papers in the top k of any list; `None` without one.
fn span(input: &ListsInput, k: usize) -> Option<(i64, i64)> {
    (input.lists.par_iter())
        .flat_map_iter(|lists| {
            (0..input.scope.count).flat_map(move |target| {
                let list = lists.list(target);
                list[..list.len().min(k)].iter().map(|paper| paper.0)
            })
        })
        .fold(
            || None,
            |span: Option<(i64, i64)>, key| {
                Some(span.map_or((key, key), |(first, last)| (first.min(key), last.max(key))))
            },
        )
        .reduce(
            || None,
            |x, y| match (x, y) {
                (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
                (one, None) | (None, one) => one,
            },
        )
}

/// How many of one model's top-k lists each paper is in.
fn frequencies(
    lists: &ModelLists,
    targets: usize,
    k: usize,
    span: Option<(i64, i64)>,
    library: usize,
) -> Tally {
    let mut counts = Tally::new(span, library);
    for target in 0..targets {
        let list = lists.list(target);
        for &paper in &list[..list.len().min(k)] {
            counts.add(paper, 1);
        }
    }
    counts
}

fn coverage(
    name: &str,
    lists: &ModelLists,
    targets: usize,
    frequencies: &Tally,
    library: usize,
) -> Coverage {
    let mut counts: Vec<u64> = (frequencies.counted().into_iter())
        .map(|(_, count)| count)
        .collect();
    let distinct = counts.len() as u64;
    counts.sort_unstable();
    Coverage {
        model: name.to_owned(),
        targets: (0..targets)
            .filter(|&target| !lists.list(target).is_empty())
            .count(),
        recommendations: counts.iter().sum(),
        distinct_papers: distinct,
        library_share: share(distinct, library as u64),
        gini: gini(&counts, library),
    }
}

/// The Gini index of the frequencies of a library of `library` papers, `counts` those of the
/// papers recommended at least once (the others' are 0), in increasing order:
/// G = Σ_j (2j − N − 1) f_(j) / ((N − 1) Σ f), j = 1..N over all N papers in increasing order
/// of frequency; 0 when every paper is recommended as often, 1 when one paper takes every
/// recommendation. Computed in whole numbers, exactly, then divided once. `None` for a library
/// of one paper or none, or without a recommendation.
pub fn gini(counts: &[u64], library: usize) -> Option<f64> {
    let n = i128::try_from(library).ok()?;
    let total: u64 = counts.iter().sum();
    if n < 2 || total == 0 || counts.len() > library {
        return None;
    }
    // The recommended papers come last, after the N − distinct papers never recommended.
    let first = n - counts.len() as i128 + 1;
    let weighted: i128 = (first..)
        .zip(counts)
        .map(|(j, &count)| (2 * j - n - 1) * i128::from(count))
        .sum();
    Some(weighted as f64 / ((n - 1) as f64 * total as f64))
}

/// The papers in the most lists (ties in the library's order), with the targets they are
/// recommended for.
fn most_recommended(
    input: &ListsInput,
    frequencies: &[Tally],
    k: usize,
    span: Option<(i64, i64)>,
) -> Vec<Recommended> {
    let mut lists = Tally::new(span, input.library);
    for model in frequencies {
        for (paper, count) in model.counted() {
            lists.add(paper, count);
        }
    }
    let mut lists = lists.counted();
    lists.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    lists.truncate(MOST_RECOMMENDED);
    // Each of them marked by its place, from 1 (a bit each in a target's `found`, and 0 for the
    // papers not marked): a target's lists are looked up in the marks.
    const _: () = assert!(MOST_RECOMMENDED < 32);
    let mut marks = Tally::new(span, input.library);
    for (place, &(paper, _)) in (1..).zip(&lists) {
        marks.add(paper, place);
    }
    let targets: Vec<u64> = (0..input.scope.count)
        .into_par_iter()
        .fold(
            || vec![0; lists.len()],
            |mut sums, target| {
                let mut found = 0u32;
                for model in &input.lists {
                    let list = model.list(target);
                    for &paper in &list[..list.len().min(k)] {
                        found |= (1 << marks.get(paper)) >> 1;
                    }
                }
                for (place, sum) in sums.iter_mut().enumerate() {
                    *sum += u64::from(found >> place & 1);
                }
                sums
            },
        )
        .reduce(
            || vec![0; lists.len()],
            |mut sums, more| {
                sums.iter_mut()
                    .zip(more)
                    .for_each(|(sum, more)| *sum += more);
                sums
            },
        );
    (lists.into_iter().zip(targets))
        .map(|((key, lists), targets)| Recommended {
            key,
            paper: String::new(),
            title: String::new(),
            lists,
            targets,
        })
        .collect()
}

/// `part` of `whole`; `None` of nothing.
fn share(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// The pairs most alike by Jaccard (then RBO), in words.
fn most_alike(pairs: &[Pair], k: usize) -> Vec<String> {
    let mut alike: Vec<&Pair> = pairs.iter().filter(|pair| pair.jaccard.is_some()).collect();
    alike.sort_by(|x, y| {
        (y.jaccard.partial_cmp(&x.jaccard))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(
                y.rbo
                    .partial_cmp(&x.rbo)
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
    });
    (alike.iter().take(MOST_ALIKE))
        .map(|pair| {
            format!(
                "{} and {} share {:.1} of their top {k} papers on average (Jaccard {:.2}, \
                 RBO {:.2}).",
                pair.a,
                pair.b,
                pair.shared.unwrap_or_default(),
                pair.jaccard.unwrap_or_default(),
                pair.rbo.unwrap_or_default(),
            )
        })
        .collect()
}

fn contribution_in_words(
    contribution: &[Contribution],
    pool: Pool,
    settings: ListsSettings,
) -> String {
    let thousands = |n: u64| crate::words::thousands(n as i64);
    let percent = |model: &Contribution| model.unique_share.unwrap_or_default() * 100.0;
    // Most unique pairs first, then by name.
    let mut ranked: Vec<&Contribution> = contribution.iter().collect();
    ranked.sort_by(|x, y| {
        y.unique_pairs
            .cmp(&x.unique_pairs)
            .then(x.model.cmp(&y.model))
    });
    let (Some(most), Some(least)) = (ranked.first(), ranked.last()) else {
        return "No model has a list yet.".to_owned();
    };
    let depth = if settings.k == settings.pool_depth as usize {
        String::new()
    } else {
        format!(" at pool depth {}", settings.pool_depth)
    };
    let mut words = format!(
        "{} brings the most papers that no other model lists: {} of the pool's {} pairs \
         ({:.0}%); without it, the pool{depth} would hold {} pairs to rate instead of {}.",
        most.model,
        thousands(most.unique_pairs),
        thousands(pool.pairs),
        percent(most),
        thousands(pool.pairs_at_pool_depth - most.pairs_saved_without),
        thousands(pool.pairs_at_pool_depth),
    );
    if ranked.len() > 1 {
        words.push_str(&format!(
            " {} brings the fewest: {} ({:.0}%).",
            least.model,
            thousands(least.unique_pairs),
            percent(least)
        ));
    }
    words
}

fn coverage_in_words(coverage: &[Coverage]) -> String {
    let concentrated = (coverage.iter())
        .filter(|model| model.gini.is_some())
        .max_by(|x, y| {
            (x.gini.partial_cmp(&y.gini))
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(y.model.cmp(&x.model))
        });
    match concentrated {
        None => "No model has recommended anything yet.".to_owned(),
        Some(model) => format!(
            "{} concentrates its recommendations most: Gini {:.2} over the library, {} \
             distinct papers ({:.1}% of the library).",
            model.model,
            model.gini.unwrap_or_default(),
            crate::words::thousands(model.distinct_papers as i64),
            model.library_share.unwrap_or_default() * 100.0,
        ),
    }
}
