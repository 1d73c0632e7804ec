//! Text bound for a terminal. A model name or a line of an input file may hold control or
//! format characters: ESC starts a sequence that moves the cursor, recolours or rewrites the
//! screen, and a bidi override reorders what follows. Printed as they are, they would let a
//! file make the terminal show something other than what paperjudge wrote, so everything
//! paperjudge prints as text goes through [`escape`]: every line on standard error (the
//! app's `tell!`), and every text output of a command (`targets list`, the tables).
//! The CSV and JSON outputs are data, kept exact: JSON writes control characters as escapes
//! of its own, and a CSV field holds the value as imported.

use std::borrow::Cow;

use crate::domain::is_control_or_format;

/// The most characters a cell of a text table shows: more than any real title (the longest
/// of the 8,370 papers of the ACL Anthology has 185), far less than a field of an imported file
/// may hold (64 KiB), and than the widest column `format!` pads to (65,535).
pub const TABLE_CELL_CHARS: usize = 200;

/// `text` with each control or format character written as a Rust escape (`\u{1b}` for ESC,
/// `\t` for a tab); other text as it is.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_control_or_format) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| {
                if is_control_or_format(c) {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// `text` as a cell of a text table shows it: [escaped](escape), and when longer than
/// [`TABLE_CELL_CHARS`] characters, its first `TABLE_CELL_CHARS - 1` and an ellipsis (`…`), cut
/// between characters. Every table of a command's text output makes its cells of names, ids and
/// titles here, so that a name as long as an import takes neither stretches a table past any
/// screen nor makes its padding fail; the CSV and JSON outputs hold the text whole.
pub fn cell(text: &str) -> Cow<'_, str> {
    let escaped = escape(text);
    let mut ends = escaped.char_indices().map(|(at, _)| at);
    match (ends.nth(TABLE_CELL_CHARS - 1), ends.next()) {
        (Some(cut), Some(_)) => Cow::Owned(format!("{}…", &escaped[..cut])),
        _ => escaped,
    }
}

/// `text` of several lines with each line [escaped](escape): its line breaks (`\n`) kept,
/// every other control or format character written as an escape.
pub fn escape_lines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && is_control_or_format(c)) {
        return Cow::Borrowed(text);
    }
    let lines: Vec<Cow<'_, str>> = text.split('\n').map(escape).collect();
    Cow::Owned(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_format_characters_are_escaped_and_nothing_else() {
        assert_eq!(escape("LDA 300 · ü"), "LDA 300 · ü");
        assert_eq!(escape("a\u{1b}[31mred"), "a\\u{1b}[31mred");
        assert_eq!(escape("tab\there"), "tab\\there");
        assert_eq!(escape("zero\u{200b}width"), "zero\\u{200b}width");
        assert_eq!(escape("\u{202e}evil"), "\\u{202e}evil");
        assert_eq!(escape("nul\0"), "nul\\u{0}");
        assert_eq!(escape_lines("one\ntwo\n"), "one\ntwo\n");
        assert_eq!(
            escape_lines("a title\u{1b}]0;pwned\u{7}\n\u{1b}[2J\n"),
            "a title\\u{1b}]0;pwned\\u{7}\n\\u{1b}[2J\n"
        );
    }

    #[test]
    fn a_long_cell_is_cut_between_characters_with_an_ellipsis() {
        let fits = "é".repeat(TABLE_CELL_CHARS);
        assert_eq!(cell(&fits), fits);
        let long = format!("{fits}ü");
        let shown = cell(&long);
        assert_eq!(shown.chars().count(), TABLE_CELL_CHARS);
        assert_eq!(shown, format!("{}…", "é".repeat(TABLE_CELL_CHARS - 1)));
        assert_eq!(cell("a\u{1b}b"), "a\\u{1b}b");
        let escapes = "\u{1b}".repeat(TABLE_CELL_CHARS);
        assert_eq!(cell(&escapes).chars().count(), TABLE_CELL_CHARS);
    }
}
