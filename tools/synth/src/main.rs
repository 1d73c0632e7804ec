//! `paperjudge-synth`: a deterministic generator of synthetic paperjudge studies, for
//! benchmarks and load tests.
//!
//! It writes a complete study into a directory, every byte a function of the seed (and the
//! counts and options): the same command twice gives byte-identical files.
//!
//! - `papers.csv`: `id,title,abstract,authors,year,url`; ids `P000001`, `P000002`, ...;
//!   titles of 6-12 words (some with commas and double quotes, so RFC 4180 quoting is
//!   exercised), abstracts of 120-250 words made from a built-in NLP/ML vocabulary,
//!   1-5 authors as `First Last; First Last`, years 1995-2024, urls `https://example.org/p/ID`.
//! - `recommendations.csv`: `model,target,rank,paper,score`, grouped by target, then model,
//!   then rank 1..list-len; a list never holds its target nor the same paper twice, and its
//!   scores strictly decrease with rank. With `--csv-order model` the same rows come model by
//!   model instead (all of model-1's rows, targets ascending, then model-2's, ...), as a CSV
//!   that models wrote one after the other; only the order of the rows differs.
//! - `runs/<model>.run`: the same lists as TREC run files (`target Q0 paper rank score model`),
//!   one per model; as the scores strictly decrease, trec_eval's ordering (score descending,
//!   ties by docno descending) gives exactly the ranks written.
//! - `ratings.csv`: `target,paper,stars`: ratings of pooled pairs (the union of every model's
//!   top `--pool-depth`, default 8) of the first `--rated-targets` targets, `--ratings` in all,
//!   spread as evenly over those targets as their pools allow. `--ratings all` rates every
//!   pooled pair of those targets: they are fully rated.
//! - `retrained/<model>.run`, only with `--retrained-share F`: the run of model
//!   `--retrained-model` (default 1) after a retraining, with the same run tag, so importing it
//!   replaces that model's lists. A share F of the targets (rounded to whole targets, drawn at
//!   random) has a different list, ranked by the same model with fresh noise; every other
//!   list is byte for byte the one in `runs/`. The ratings are those of the original lists.
//! - `chosen-targets.txt`, only with `--chosen N`: N target ids drawn at random among the
//!   targets, ascending, one a line: the targets a researcher picks by hand to rate.
//!
//! Models are `model-1` ... `model-N`, from best to worst: every target has a hidden latent
//! relevance for each of its candidate papers (papers of the target's topic tend to be more
//! relevant), each model ranks the candidates by that relevance plus noise that grows with the
//! model's number, and stars are the latent relevance mapped to 1..5 plus a little noise. So
//! the ratings rank the models in a meaningful order: model-1 first, model-N last.
//!
//! Every part of the study draws from its own random stream, so an option changes only the
//! files it names: `--csv-order`, `--retrained-share` and `--chosen` leave every other byte
//! as it is without them, and `--ratings` touches only `ratings.csv`.
//!
//! Sizes (each count can be overridden):
//!
//! | size | papers | models | targets | list length | rated targets | ratings |
//! | ---- | ------ | ------ | ------- | ----------- | ------------- | ------- |
//! | `s`  | 2,000  | 8      | 65      | 20          | 65            | 1,300   |
//! | `l`  | 40,000 | 8      | 40,000 (every paper) | 20 | 5,000        | 100,000 |
//!
//! Size `l` has 6.4 million recommendation rows (about 230 MB of CSV plus as much again in run
//! files); writing it takes seconds in a release build.
//!
//! Run it from the repository's root with:
//!
//! ```text
//! cargo run --release -p paperjudge-synth -- --size l --seed 1 --out /tmp/study-l
//! cargo run --release -p paperjudge-synth -- --size s --seed 7 --out /tmp/study-s
//! cargo run --release -p paperjudge-synth -- --seed 3 --out /tmp/tiny \
//!     --papers 30 --models 3 --targets 10 --list-len 5 --rated-targets 4 --ratings 25
//! # Study L's rows model by model, and model-1 retrained on 10% of the targets:
//! cargo run --release -p paperjudge-synth -- --size l --seed 1 --out /tmp/study-l-by-model \
//!     --csv-order model --retrained-share 0.1
//! # Study S fully rated, with 20 targets chosen for rating:
//! cargo run --release -p paperjudge-synth -- --size s --seed 7 --out /tmp/study-s-full \
//!     --ratings all --chosen 20
//! ```
//!
//! `--size` defaults to `s` and `--seed` to 0. A count left to the preset shrinks to fit
//! explicit smaller ones (`--papers 10` gives 10 targets and lists of 9); an explicit count
//! that cannot fit is an error. If the pools hold fewer pairs than `--ratings`, every pooled
//! pair is rated and a warning says so. Files of a previous run in the same directory are
//! overwritten, but run files of models it no longer has are left in `runs/` (and
//! `retrained/`), and `chosen-targets.txt` is left when `--chosen` is not given.
//!
//! It ends with a one-line summary on stderr (counts, file sizes, elapsed time). Exit status
//! 0 on success, 2 on bad usage, 1 when a file cannot be written.
//!
//! This binary is standalone: it does not use the `paperjudge` library, so it keeps working
//! (and keeps producing the same bytes) whatever the library does.

#![forbid(unsafe_code)]

mod config;
mod format;
mod papers;
mod random;
mod ratings;
mod recommendations;
mod study;
mod targets;
mod text;

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;

use crate::config::{Args, Config};

fn main() -> ExitCode {
    let args = Args::parse();
    let config = match Config::resolve(&args) {
        Ok(config) => config,
        Err(message) => {
            eprintln!("paperjudge-synth: error: {message}");
            return ExitCode::from(2);
        }
    };
    let started = Instant::now();
    match study::write_study(&config, args.seed, &args.out) {
        Ok(summary) => {
            eprintln!(
                "paperjudge-synth: seed {}: {} in {} in {:.1} s",
                args.seed,
                summary.describe(&config),
                args.out.display(),
                started.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!(
                "paperjudge-synth: error: writing {}: {error}",
                args.out.display()
            );
            ExitCode::from(1)
        }
    }
}
