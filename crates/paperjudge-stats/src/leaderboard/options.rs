//! The leaderboard's options as a person gives them, named as in docs/metrics.md, defined once
//! in [`OPTIONS`]: the command line's flags (`--gain exponential`, the same for `leaderboard`,
//! `checks` and `simulate`), the leaderboard's address (`?gain=exponential`, the pages,
//! downloads and checks) and the links that keep them are all read and written from that
//! table.

use std::num::NonZeroUsize;

use clap::{Arg, ArgMatches, Args, FromArgMatches};

use crate::decision::Margin;
use crate::domain::{JudgeName, PoolDepth, Stars};
use crate::metrics::{ApDenominator, Empty, Gain, Ideal, Judgments, Relevance, Settings, Unjudged};

/// The leaderboard's options; each one left out takes its default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LeaderboardOptions {
    pub k: Option<NonZeroUsize>,
    pub gain: Option<Gain>,
    pub relevance: Option<Relevance>,
    pub ideal: Option<Ideal>,
    pub unjudged: Option<Unjudged>,
    pub empty: Option<Empty>,
    pub threshold: Option<Stars>,
    pub ap_denominator: Option<ApDenominator>,
    pub margin: Option<Margin>,
    pub judgments: Option<Judgments>,
    /// A machine judge whose grades make the estimates prediction-powered (docs/metrics.md,
    /// "Prediction-powered estimates"); the owner's alone.
    pub judge: Option<JudgeName>,
}

/// One option: its name (`--name` on the command line, `name=` in an address), what the
/// help says of it, how it is read and written, and how the leaderboard page offers it.
pub struct LeaderboardOption {
    pub name: &'static str,
    /// The name of its value in the command line's help.
    value_name: &'static str,
    help: &'static str,
    pub on_the_page: OnThePage,
    /// Reads the option's value into the options; the message says what it must be.
    read: fn(&mut LeaderboardOptions, &str) -> Result<(), String>,
    /// The value given, as it is read back.
    written: fn(&LeaderboardOptions) -> Option<String>,
}

/// How the leaderboard page's form offers an option: the page's form is made from [`OPTIONS`]
/// alone, so that a new option is added in one place.
pub enum OnThePage {
    /// The cutoff: a number, the study's pool depth by default.
    Cutoff,
    /// One of fixed values, the one in force selected.
    Choice {
        help: &'static str,
        values: fn() -> Vec<String>,
        /// The value in force under these settings.
        current: fn(&Settings) -> String,
    },
    /// In a study with raters: how one judgment per pair comes from their stars, offered
    /// first (it says whose stars the rest is computed on).
    Judgments { help: &'static str },
    /// For the owner of a study with machine judges: none, or one of them.
    Judge { help: &'static str },
    /// Given in the address alone (`?margin=`): a setting of the verdict, not of the table.
    AddressOnly,
}

/// The values of an option's type named as the option's values are written.
fn names(names: &'static [&'static str]) -> Vec<String> {
    names.iter().map(|&name| name.to_owned()).collect()
}

/// An entry of [`OPTIONS`]: the option's field, name, value name and help, the function that
/// reads its value (one that answers what a wrong value should be), and how the page offers it.
macro_rules! option {
    ($field:ident, $name:literal, $value_name:literal, $help:expr, $parse:expr, $page:expr) => {
        LeaderboardOption {
            name: $name,
            value_name: $value_name,
            help: $help,
            on_the_page: $page,
            read: |options, text| {
                options.$field = Some($parse(text)?);
                Ok(())
            },
            written: |options| options.$field.as_ref().map(|value| value.to_string()),
        }
    };
}

/// Every option, in the order the help lists them and links write them.
pub static OPTIONS: [LeaderboardOption; 11] = [
    option!(
        k,
        "k",
        "K",
        "Cutoff of every metric [default: the pool depth]",
        |text: &str| {
            (text.parse::<NonZeroUsize>())
                .map_err(|_| format!("k must be a whole number from 1 up (got {text:?})"))
        },
        OnThePage::Cutoff
    ),
    option!(
        gain,
        "gain",
        "GAIN",
        "linear (gain = rel) or exponential (2^rel - 1) [default: linear]",
        named,
        OnThePage::Choice {
            help: "linear: gain = rel; exponential: 2^rel − 1",
            values: || names(Gain::NAMES),
            current: |settings| settings.gain.as_str().to_owned(),
        }
    ),
    option!(
        relevance,
        "relevance",
        "RELEVANCE",
        "stars-minus-one or stars [default: stars-minus-one]",
        named,
        OnThePage::Choice {
            help: "rel = stars − 1 (1 star is worth nothing), or rel = stars",
            values: || names(Relevance::NAMES),
            current: |settings| settings.relevance.as_str().to_owned(),
        }
    ),
    option!(
        ideal,
        "ideal",
        "IDEAL",
        "judged (all judged papers of the target) or list (the list's own top k) \
         [default: judged]",
        named,
        OnThePage::Choice {
            help: "judged: all judged papers of the target; list: the list's own top k",
            values: || names(Ideal::NAMES),
            current: |settings| settings.ideal.as_str().to_owned(),
        }
    ),
    option!(
        unjudged,
        "unjudged",
        "UNJUDGED",
        "zero (unrated papers count 0) or skip (removed before the cutoff) [default: zero]",
        named,
        OnThePage::Choice {
            help: "zero: unrated papers count 0; skip: removed before the cutoff",
            values: || names(Unjudged::NAMES),
            current: |settings| settings.unjudged.as_str().to_owned(),
        }
    ),
    option!(
        empty,
        "empty",
        "EMPTY",
        "skip or zero: targets where a metric is undefined [default: skip]",
        named,
        OnThePage::Choice {
            help: "a target with nothing relevant: left out (skip) or 0 (zero)",
            values: || names(Empty::NAMES),
            current: |settings| settings.empty.as_str().to_owned(),
        }
    ),
    option!(
        threshold,
        "threshold",
        "THRESHOLD",
        "Least stars that count as relevant for P, R, F1, AP, RR, unique relevant [default: 4]",
        |text: &str| {
            (text.parse::<Stars>()).map_err(|_| {
                format!("threshold must be a number of stars from 1 to 5 (got {text:?})")
            })
        },
        OnThePage::Choice {
            help: "least stars that count as relevant for P, R, F1, AP, RR and unique relevant",
            values: || (1..=5).map(|stars: u8| stars.to_string()).collect(),
            current: |settings| settings.threshold.to_string(),
        }
    ),
    option!(
        ap_denominator,
        "ap-denominator",
        "AP_DENOMINATOR",
        "relevant, hits or min-k-relevant [default: relevant]",
        named,
        OnThePage::Choice {
            help: "AP over all relevant papers, the hits in the top k, or min(k, relevant)",
            values: || names(ApDenominator::NAMES),
            current: |settings| settings.ap_denominator.as_str().to_owned(),
        }
    ),
    option!(
        margin,
        "margin",
        "MARGIN",
        "The verdict counts a model whose difference from the leader lies within ±this (in \
         NDCG, at the verdict's confidence) as equivalent to it [default: none]",
        |text: &str| text.parse::<Margin>(),
        OnThePage::AddressOnly
    ),
    option!(
        judgments,
        "judgments",
        "JUDGMENTS",
        "One judgment per pair from its raters' stars: lower-median, upper-median, mean or \
         rater:NAME (that rater's stars alone) [default: lower-median]",
        |text: &str| text.parse::<Judgments>(),
        OnThePage::Judgments {
            help: "one judgment per pair from its raters' stars: their median (the lower or the \
                   higher of two middle ones), their mean, or one rater's stars alone",
        }
    ),
    option!(
        judge,
        "judge",
        "NAME",
        "A machine judge whose grades of the targets nobody rated narrow the NDCG's intervals \
         (prediction-powered; the raters' figures alone are shown beside; the verdict stays \
         the raters') [default: none]",
        |text: &str| text
            .parse::<JudgeName>()
            .map_err(|invalid| invalid.to_string()),
        OnThePage::Judge {
            help: "a machine judge whose grades of the targets nobody rated narrow the NDCG's \
                   intervals (prediction-powered; the raters' figures shown beside; the verdict \
                   stays the raters')",
        }
    ),
];

/// A value of one of the metric options' names (`gain`'s `linear`, ...).
fn named<T: std::str::FromStr<Err: std::fmt::Display>>(text: &str) -> Result<T, String> {
    text.parse().map_err(|error: T::Err| error.to_string())
}

impl LeaderboardOptions {
    /// Reads the value of the option named `name` (an address may write `_` for `-`);
    /// `None` when no option has that name.
    pub fn read(&mut self, name: &str, value: &str) -> Option<Result<(), String>> {
        let option = OPTIONS
            .iter()
            .find(|option| option.name == name || option.name.replace('-', "_") == name)?;
        Some((option.read)(self, value))
    }

    /// The options given, as `(name, value)` in the order of [`OPTIONS`].
    pub fn given(&self) -> impl Iterator<Item = (&'static str, String)> + '_ {
        (OPTIONS.iter()).filter_map(|option| Some((option.name, (option.written)(self)?)))
    }

    /// The settings these options ask for in a study of this pool depth (k defaults to it).
    pub fn settings(&self, pool_depth: PoolDepth) -> Settings {
        let defaults = Settings::for_pool_depth(pool_depth);
        Settings {
            k: self.k.unwrap_or(defaults.k),
            gain: self.gain.unwrap_or(defaults.gain),
            relevance: self.relevance.unwrap_or(defaults.relevance),
            ideal: self.ideal.unwrap_or(defaults.ideal),
            unjudged: self.unjudged.unwrap_or(defaults.unjudged),
            empty: self.empty.unwrap_or(defaults.empty),
            threshold: self.threshold.unwrap_or(defaults.threshold),
            ap_denominator: self.ap_denominator.unwrap_or(defaults.ap_denominator),
        }
    }

    /// The verdict's margin these options ask for (none by default): it changes no metric.
    pub fn margin(&self) -> Margin {
        self.margin.unwrap_or(Margin::NONE)
    }

    /// The judgments these options ask for.
    pub fn judgments(&self) -> Judgments {
        self.judgments.clone().unwrap_or_default()
    }

    /// How much of each list these options read: the top k (the pool depth when k is left
    /// out, which the loader reads anyway), or whole lists when unjudged papers are skipped
    /// before the cutoff.
    pub fn list_depth(&self) -> usize {
        match self.unjudged.unwrap_or_default() {
            Unjudged::Zero => self.k.map_or(0, NonZeroUsize::get),
            Unjudged::Skip => usize::MAX,
        }
    }
}

/// The options as command-line flags, one per entry of [`OPTIONS`]; a wrong value is refused
/// by clap with the option's message.
impl Args for LeaderboardOptions {
    fn augment_args(command: clap::Command) -> clap::Command {
        OPTIONS.iter().fold(command, |command, option| {
            command.arg(
                Arg::new(option.name)
                    .long(option.name)
                    .value_name(option.value_name)
                    .help(option.help)
                    .value_parser(move |text: &str| {
                        (option.read)(&mut LeaderboardOptions::default(), text)
                            .map(|()| text.to_owned())
                    }),
            )
        })
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

impl FromArgMatches for LeaderboardOptions {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut options = LeaderboardOptions::default();
        options.update_from_arg_matches(matches)?;
        Ok(options)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        for option in &OPTIONS {
            if let Some(text) = matches.get_one::<String>(option.name) {
                (option.read)(self, text).map_err(|message| {
                    clap::Error::raw(clap::error::ErrorKind::InvalidValue, message)
                })?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_is_read_and_written_back() {
        let mut options = LeaderboardOptions::default();
        for (name, value) in [
            ("k", "5"),
            ("gain", "exponential"),
            ("relevance", "stars"),
            ("ideal", "list"),
            ("unjudged", "skip"),
            ("empty", "zero"),
            ("threshold", "3"),
            ("ap_denominator", "hits"),
            ("margin", "0.02"),
            ("judgments", "rater:Ann"),
            ("judge", "smollm2"),
        ] {
            assert_eq!(options.read(name, value), Some(Ok(())), "{name}");
        }
        let given: Vec<(&str, String)> = options.given().collect();
        assert_eq!(given.len(), OPTIONS.len());
        assert_eq!(given[7], ("ap-denominator", "hits".to_owned()));
        assert_eq!(options.read("colour", "red"), None);
    }
}
