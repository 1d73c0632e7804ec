//! Numbers and counts as people read them: the one place that decides how each face writes a
//! number. Sentences are made where their subject is (the verdict's in `decision/words.rs`,
//! the checks' in `checks/text.rs`...), with the numbers written here.
//!
//! - A page ([`page`]): as many decimals as the page asks, a missing value as an en dash, a
//!   negative one with the minus sign (U+2212), as typeset text has it.
//! - The terminal ([`terminal`]): 4 decimals, a missing value as `-`, ASCII throughout, so that
//!   what a command prints can be searched and pasted.
//! - A CSV file ([`csv_number`]): the shortest text that reads back as the same number, empty
//!   when missing.
//! - Counts: [`thousands`], [`plural`], [`counted`].

/// A page's numbers.
pub mod page {
    use super::fixed;

    /// What a page shows for a value that is undefined.
    pub const MISSING: &str = "–";

    /// `value` with `places` decimals, or [`MISSING`].
    pub fn number(value: Option<f64>, places: usize) -> String {
        value.map_or_else(|| MISSING.to_owned(), |value| typeset(fixed(value, places)))
    }

    /// A difference, always signed (`+0.012`, `−0.034`; a −0 is 0), or [`MISSING`].
    pub fn signed(value: Option<f64>, places: usize) -> String {
        value.map_or_else(
            || MISSING.to_owned(),
            |value| typeset(super::signed(value, places)),
        )
    }

    /// A share as a percentage with `places` decimals (`0.25` → `25%`), or [`MISSING`].
    pub fn percent(share: Option<f64>, places: usize) -> String {
        share.map_or_else(
            || MISSING.to_owned(),
            |share| typeset(format!("{:.places$}%", share * 100.0)),
        )
    }

    /// An interval, `[low, high]` with `places` decimals each.
    pub fn interval([low, high]: [f64; 2], places: usize) -> String {
        typeset(format!("[{}, {}]", fixed(low, places), fixed(high, places)))
    }

    /// A p-value: three decimals, `< 0.001` below that, or [`MISSING`].
    pub fn p_value(p: Option<f64>) -> String {
        match p {
            Some(p) if p < 0.001 => "< 0.001".to_owned(),
            p => number(p, 3),
        }
    }

    /// [`interval`], or [`MISSING`].
    pub fn interval_or_missing(ends: Option<[f64; 2]>, places: usize) -> String {
        ends.map_or_else(|| MISSING.to_owned(), |ends| interval(ends, places))
    }

    /// A number's hyphen-minus as the minus sign.
    fn typeset(text: String) -> String {
        text.replace('-', "−")
    }
}

/// The terminal's numbers: tables and text reports of the command line.
pub mod terminal {
    /// What the terminal shows for a value that is undefined.
    pub const MISSING: &str = "-";

    /// Decimals of every number the terminal shows.
    pub const PLACES: usize = 4;

    /// `value` with [`PLACES`] decimals, or [`MISSING`].
    pub fn number(value: Option<f64>) -> String {
        value.map_or_else(|| MISSING.to_owned(), |value| super::fixed(value, PLACES))
    }

    /// A difference, always signed (`+0.0120`), or [`MISSING`].
    pub fn signed(value: Option<f64>) -> String {
        value.map_or_else(|| MISSING.to_owned(), |value| super::signed(value, PLACES))
    }

    /// An interval with `places` decimals each, or [`MISSING`].
    pub fn interval(ends: Option<[f64; 2]>, places: usize) -> String {
        ends.map_or_else(
            || MISSING.to_owned(),
            |[low, high]| {
                format!(
                    "[{}, {}]",
                    super::fixed(low, places),
                    super::fixed(high, places)
                )
            },
        )
    }
}

/// A number in a CSV file: the shortest text that reads back as the same `f64` (what ranx or
/// pandas read is the number computed), empty when undefined.
pub fn csv_number(value: Option<f64>) -> String {
    value.map_or_else(String::new, |value| value.to_string())
}

/// `value` with `places` decimals.
pub fn fixed(value: f64, places: usize) -> String {
    format!("{value:.places$}")
}

/// `value` with `places` decimals and its sign, `+` too; `+ 0.0` turns a −0 (the leader's
/// difference to itself) into 0.
pub fn signed(value: f64, places: usize) -> String {
    format!("{:+.places$}", value + 0.0)
}

/// A count with thousands separated by commas: 40,000.
pub fn thousands(count: i64) -> String {
    let digits = count.unsigned_abs().to_string();
    let mut text = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    if count < 0 {
        text.insert(0, '-');
    }
    text
}

/// `one` or `many`, as `count` (of any integer type) asks.
pub fn plural<N: PartialEq + From<u8>>(
    count: N,
    one: &'static str,
    many: &'static str,
) -> &'static str {
    if count == N::from(1) {
        one
    } else {
        many
    }
}

/// A count and its noun: `1 target`, `3 targets`.
pub fn counted<N>(count: N, one: &'static str, many: &'static str) -> String
where
    N: Copy + PartialEq + From<u8> + std::fmt::Display,
{
    format!("{count} {}", plural(count, one, many))
}

/// A sentence's first letter in upper case: "the judge ..." opening a sentence.
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentence_opens_with_a_capital() {
        assert_eq!(
            capitalized("the judge's 30 targets"),
            "The judge's 30 targets"
        );
        assert_eq!(capitalized("élan"), "Élan");
        assert_eq!(capitalized(""), "");
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(40000), "40,000");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(-1234), "-1,234");
    }

    #[test]
    fn counts_take_their_noun() {
        assert_eq!(counted(0, "target", "targets"), "0 targets");
        assert_eq!(counted(1, "target", "targets"), "1 target");
        assert_eq!(counted(2, "target", "targets"), "2 targets");
    }

    #[test]
    fn a_page_typesets_what_the_terminal_writes_plainly() {
        assert_eq!(page::number(Some(-0.25), 2), "−0.25");
        assert_eq!(terminal::number(Some(-0.25)), "-0.2500");
        assert_eq!(page::number(None, 3), "–");
        assert_eq!(terminal::number(None), "-");
        assert_eq!(page::signed(Some(-0.0), 3), "+0.000");
        assert_eq!(page::signed(Some(-0.0125), 3), "−0.013");
        assert_eq!(terminal::signed(Some(0.012)), "+0.0120");
        assert_eq!(page::p_value(Some(0.0004)), "< 0.001");
        assert_eq!(page::p_value(Some(0.0123)), "0.012");
        assert_eq!(page::p_value(None), "–");
        assert_eq!(page::percent(Some(0.256), 1), "25.6%");
        assert_eq!(page::percent(Some(0.256), 0), "26%");
        assert_eq!(page::interval([-0.1, 0.25], 2), "[−0.10, 0.25]");
        assert_eq!(page::interval_or_missing(None, 2), "–");
        assert_eq!(terminal::interval(Some([0.1, 0.25]), 4), "[0.1000, 0.2500]");
        assert_eq!(terminal::interval(None, 4), "-");
        assert_eq!(csv_number(Some(0.1)), "0.1");
        assert_eq!(csv_number(None), "");
    }
}
