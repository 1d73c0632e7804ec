//! TEMPORARY until the metrics module lands.
use crate::domain::Stars;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Relevance {
    #[default]
    StarsMinusOne,
    Stars,
}

impl Relevance {
    pub fn of(self, stars: Stars) -> u8 {
        match self {
            Relevance::StarsMinusOne => stars.get() - 1,
            Relevance::Stars => stars.get(),
        }
    }
}
