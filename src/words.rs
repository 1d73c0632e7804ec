//! Numbers as people read them, for every face: the one place a count gets its separators.

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
}
