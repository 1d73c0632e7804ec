//! The command line and the counts it resolves to, checked against each other.

use std::path::PathBuf;
use std::str::FromStr;

use clap::{Parser, ValueEnum};

/// Largest number of papers: ids are `P` and six digits.
const MAX_PAPERS: usize = 999_999;
/// Largest number of models.
const MAX_MODELS: usize = 9_999;
/// Default number of top-ranked papers of every model that enter a target's pool.
const DEFAULT_POOL_DEPTH: usize = 8;

#[derive(Parser, Debug)]
#[command(
    name = "paperjudge-synth",
    version,
    about = "Write a deterministic synthetic paperjudge study (papers, recommendations, TREC runs, ratings) into a directory.",
    after_help = "The same arguments give byte-identical files. --csv-order, --retrained-share and --chosen change no file but the ones they name, and --ratings only ratings.csv."
)]
pub struct Args {
    /// Preset scale: `s` (2,000 papers, 65 targets) or `l` (40,000 papers, all of them targets).
    #[arg(long, value_enum, ignore_case = true, default_value_t = Size::S)]
    pub size: Size,
    /// Seed of every random choice: the same seed gives byte-identical files.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Directory to write into (created if missing; existing files of the same names are replaced).
    #[arg(long)]
    pub out: PathBuf,
    /// Number of papers (overrides the preset).
    #[arg(long)]
    papers: Option<usize>,
    /// Number of models (overrides the preset).
    #[arg(long)]
    models: Option<usize>,
    /// Number of targets (overrides the preset; `l` makes every paper a target).
    #[arg(long)]
    targets: Option<usize>,
    /// Length of every recommendation list (overrides the preset).
    #[arg(long)]
    list_len: Option<usize>,
    /// Number of targets, from the first, whose pools get ratings (overrides the preset).
    #[arg(long)]
    rated_targets: Option<usize>,
    /// Total number of ratings (overrides the preset), or `all`: every pooled pair of the
    /// rated targets, so that they are fully rated.
    #[arg(long, value_name = "N|all")]
    ratings: Option<RatingsArg>,
    /// Number of top-ranked papers of every model that enter a target's pool.
    #[arg(long)]
    pool_depth: Option<usize>,
    /// Row order of recommendations.csv: `target` (every model's list of a target together,
    /// targets ascending) or `model` (all of model-1's rows, then model-2's, ..., as models
    /// write them one after the other). The rows are the same.
    #[arg(long, value_enum, ignore_case = true, default_value_t = CsvOrder::Target)]
    csv_order: CsvOrder,
    /// Also write retrained/model-K.run (K from --retrained-model): that model's run with the
    /// same run tag, in which this share of the targets (from 0 to 1, rounded to whole
    /// targets) has a different list and every other list is identical.
    #[arg(long, value_name = "SHARE")]
    retrained_share: Option<f64>,
    /// The model whose run --retrained-share retrains, from 1 to the number of models.
    #[arg(
        long,
        value_name = "K",
        default_value_t = 1,
        requires = "retrained_share"
    )]
    retrained_model: usize,
    /// Also write chosen-targets.txt: N target ids drawn at random among the targets,
    /// ascending, one a line (the targets a researcher picks by hand to rate).
    #[arg(long, value_name = "N")]
    chosen: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Size {
    /// The scale of a real personal study: 2,000 papers, 8 models, 65 targets.
    S,
    /// A large study: 40,000 papers, 8 models, every paper a target.
    L,
}

/// The row order of `recommendations.csv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CsvOrder {
    /// Target by target, every model's list of a target together.
    Target,
    /// Model by model, each model's lists by target.
    Model,
}

/// `--ratings` as typed: a count or `all`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RatingsArg {
    Count(usize),
    All,
}

impl FromStr for RatingsArg {
    type Err = String;

    fn from_str(text: &str) -> Result<RatingsArg, String> {
        if text.eq_ignore_ascii_case("all") {
            return Ok(RatingsArg::All);
        }
        text.parse()
            .map(RatingsArg::Count)
            .map_err(|_| format!("expected a whole number or `all`, got {text:?}"))
    }
}

/// How many ratings to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ratings {
    /// This many, spread as evenly as the pools allow.
    Count(usize),
    /// Every pooled pair of the rated targets.
    AllPooled,
}

/// A retrained run of one model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retrained {
    /// The model, from 0.
    pub model: usize,
    /// How many targets get a different list.
    pub changed_targets: usize,
}

/// The counts of one study, checked against each other, and the optional outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub papers: usize,
    pub models: usize,
    pub targets: usize,
    pub list_len: usize,
    pub rated_targets: usize,
    pub ratings: Ratings,
    pub pool_depth: usize,
    pub csv_order: CsvOrder,
    pub retrained: Option<Retrained>,
    pub chosen: Option<usize>,
}

impl Config {
    /// The preset's counts with the given overrides. A preset count that does not fit is
    /// lowered to fit; an explicit count that does not fit is an error.
    pub fn resolve(args: &Args) -> Result<Config, String> {
        let (papers, targets, rated_targets, ratings) = match args.size {
            Size::S => (2_000, Some(65), None, 1_300),
            Size::L => (40_000, None, Some(5_000), 100_000),
        };
        let papers = args.papers.unwrap_or(papers);
        if !(2..=MAX_PAPERS).contains(&papers) {
            return Err(format!(
                "--papers must be from 2 to {MAX_PAPERS}, got {papers}"
            ));
        }
        let models = args.models.unwrap_or(8);
        if !(1..=MAX_MODELS).contains(&models) {
            return Err(format!(
                "--models must be from 1 to {MAX_MODELS}, got {models}"
            ));
        }
        let list_len = match args.list_len {
            Some(n) if n == 0 || n >= papers => {
                return Err(format!(
                    "--list-len must be from 1 to papers - 1 = {}, got {n}",
                    papers - 1
                ))
            }
            Some(n) => n,
            None => 20.min(papers - 1),
        };
        let targets = match args.targets {
            Some(n) if n == 0 || n > papers => {
                return Err(format!(
                    "--targets must be from 1 to papers = {papers}, got {n}"
                ))
            }
            Some(n) => n,
            None => targets.map_or(papers, |n: usize| n.min(papers)),
        };
        let rated_targets = match args.rated_targets {
            Some(n) if n > targets => {
                return Err(format!(
                    "--rated-targets must be from 0 to targets = {targets}, got {n}"
                ))
            }
            Some(n) => n,
            None => rated_targets.map_or(targets, |n: usize| n.min(targets)),
        };
        let pool_depth = match args.pool_depth {
            Some(0) => return Err("--pool-depth must be at least 1, got 0".to_owned()),
            Some(n) => n.min(list_len),
            None => DEFAULT_POOL_DEPTH.min(list_len),
        };
        // No pool can hold more than this many pairs.
        let pool_bound = (models.saturating_mul(pool_depth)).min(papers - 1);
        let most_ratings = rated_targets.saturating_mul(pool_bound);
        let ratings = match args.ratings {
            Some(RatingsArg::Count(n)) if n > most_ratings => {
                return Err(format!(
                    "--ratings {n} is more than the {rated_targets} rated targets' pools can hold \
                     (at most {most_ratings} pairs)"
                ))
            }
            Some(RatingsArg::Count(n)) => Ratings::Count(n),
            Some(RatingsArg::All) => Ratings::AllPooled,
            None => Ratings::Count(ratings.min(most_ratings)),
        };
        let retrained = match args.retrained_share {
            None => None,
            Some(share) if !(0.0..=1.0).contains(&share) => {
                return Err(format!(
                    "--retrained-share must be from 0 to 1, got {share}"
                ))
            }
            Some(_) if !(1..=models).contains(&args.retrained_model) => {
                return Err(format!(
                    "--retrained-model must be from 1 to models = {models}, got {}",
                    args.retrained_model
                ))
            }
            Some(_) if candidates(papers, list_len) < 2 => {
                return Err(format!(
                    "--retrained-share needs lists that can change, but with {papers} papers \
                     every list is the same"
                ))
            }
            Some(share) => Some(Retrained {
                model: args.retrained_model - 1,
                changed_targets: (share * targets as f64).round() as usize,
            }),
        };
        let chosen = match args.chosen {
            Some(n) if n == 0 || n > targets => {
                return Err(format!(
                    "--chosen must be from 1 to targets = {targets}, got {n}"
                ))
            }
            chosen => chosen,
        };
        Ok(Config {
            papers,
            models,
            targets,
            list_len,
            rated_targets,
            ratings,
            pool_depth,
            csv_order: args.csv_order,
            retrained,
            chosen,
        })
    }

    /// How many candidate papers every target draws; the models rank these.
    pub fn candidates(&self) -> usize {
        candidates(self.papers, self.list_len)
    }
}

fn candidates(papers: usize, list_len: usize) -> usize {
    (3 * list_len).max(24).min(papers - 1)
}

#[cfg(test)]
pub mod tests {
    use super::*;

    pub fn args(extra: &[&str]) -> Args {
        let mut argv = vec!["paperjudge-synth", "--out", "unused"];
        argv.extend_from_slice(extra);
        Args::try_parse_from(argv).expect("valid arguments")
    }

    pub fn config(extra: &[&str]) -> Config {
        Config::resolve(&args(extra)).expect("valid config")
    }

    #[test]
    fn presets_resolve() {
        let s = config(&["--size", "s"]);
        assert_eq!(
            s,
            Config {
                papers: 2_000,
                models: 8,
                targets: 65,
                list_len: 20,
                rated_targets: 65,
                ratings: Ratings::Count(1_300),
                pool_depth: 8,
                csv_order: CsvOrder::Target,
                retrained: None,
                chosen: None,
            }
        );
        let l = config(&["--size", "L"]);
        assert_eq!(
            (l.papers, l.targets, l.rated_targets, l.ratings),
            (40_000, 40_000, 5_000, Ratings::Count(100_000))
        );
        // Preset counts shrink to fit explicit small ones.
        let small = config(&["--size", "l", "--papers", "10"]);
        assert_eq!(
            (small.targets, small.list_len, small.rated_targets),
            (10, 9, 10)
        );
        assert!(matches!(small.ratings, Ratings::Count(n) if n <= 10 * 9));
    }

    #[test]
    fn options_resolve() {
        let options = config(&[
            "--size",
            "l",
            "--csv-order",
            "model",
            "--retrained-share",
            "0.1",
            "--retrained-model",
            "3",
            "--ratings",
            "ALL",
            "--chosen",
            "65",
        ]);
        assert_eq!(options.csv_order, CsvOrder::Model);
        assert_eq!(
            options.retrained,
            Some(Retrained {
                model: 2,
                changed_targets: 4_000
            })
        );
        assert_eq!(options.ratings, Ratings::AllPooled);
        assert_eq!(options.chosen, Some(65));
        // A share rounds to whole targets.
        let rounded = config(&["--targets", "65", "--retrained-share", "0.1"]);
        assert_eq!(rounded.retrained.map(|r| r.changed_targets), Some(7));
    }

    #[test]
    fn explicit_counts_that_do_not_fit_are_errors() {
        for bad in [
            &["--papers", "1"][..],
            &["--papers", "10", "--list-len", "10"],
            &["--papers", "10", "--targets", "11"],
            &["--targets", "5", "--rated-targets", "6"],
            &["--models", "0"],
            &["--pool-depth", "0"],
            &["--papers", "10", "--targets", "2", "--ratings", "19"],
            &["--retrained-share", "1.5"],
            &["--retrained-share=-0.1"],
            &["--retrained-share", "NaN"],
            &[
                "--models",
                "3",
                "--retrained-share",
                "0.1",
                "--retrained-model",
                "4",
            ],
            &["--retrained-share", "0.1", "--retrained-model", "0"],
            &["--papers", "2", "--retrained-share", "0.5"],
            &["--targets", "10", "--chosen", "11"],
            &["--chosen", "0"],
        ] {
            assert!(Config::resolve(&args(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn malformed_options_are_usage_errors() {
        for bad in [
            &["--ratings", "some"][..],
            &["--csv-order", "paper"],
            // A retrained model without a share to retrain.
            &["--retrained-model", "2"],
        ] {
            let mut argv = vec!["paperjudge-synth", "--out", "unused"];
            argv.extend_from_slice(bad);
            assert!(Args::try_parse_from(argv).is_err(), "{bad:?}");
        }
    }
}
