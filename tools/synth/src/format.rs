//! Numbers as text: every number the generator writes goes through `push_number`, which is
//! fast enough for the millions of rows of size `l`.

/// Appends `n` in decimal, padded with zeros on the left to at least `width` digits.
pub fn push_number(out: &mut String, n: u64, width: usize) {
    let mut buffer = itoa::Buffer::new();
    let digits = buffer.format(n);
    for _ in digits.len()..width {
        out.push('0');
    }
    out.push_str(digits);
}

/// A paper's id: `P` and its 1-based index in six digits.
pub fn push_id(out: &mut String, index: u32) {
    out.push('P');
    push_number(out, u64::from(index) + 1, 6);
}

/// `micros` millionths as `0.dddddd`.
pub fn push_score(out: &mut String, micros: u32) {
    debug_assert!(micros < 1_000_000);
    out.push_str("0.");
    push_number(out, u64::from(micros), 6);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(write: impl FnOnce(&mut String)) -> String {
        let mut out = String::from(">");
        write(&mut out);
        out
    }

    #[test]
    fn numbers_ids_and_scores() {
        assert_eq!(text(|o| push_number(o, 0, 0)), ">0");
        assert_eq!(text(|o| push_number(o, 2024, 1)), ">2024");
        assert_eq!(
            text(|o| push_number(o, u64::MAX, 0)),
            ">18446744073709551615"
        );
        assert_eq!(text(|o| push_number(o, 42, 5)), ">00042");
        assert_eq!(text(|o| push_id(o, 0)), ">P000001");
        assert_eq!(text(|o| push_id(o, 999_998)), ">P999999");
        assert_eq!(text(|o| push_score(o, 7)), ">0.000007");
        assert_eq!(text(|o| push_score(o, 999_999)), ">0.999999");
    }
}
