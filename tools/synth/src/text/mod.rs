//! Titles, abstracts and author lists from templates and word lists.

mod vocabulary;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::format::push_number;
use vocabulary::{
    ADJECTIVES, FIRST_NAMES, LAST_NAMES, METHOD_HEADS, METHOD_TAILS, NOUNS, QUOTE_COMMA_TITLE,
    SENTENCE_TEMPLATES, TITLE_TEMPLATES, TOPICS, VERBS,
};

/// How many research topics there are; a paper belongs to one, and its title and abstract
/// lean on its words.
pub const TOPIC_COUNT: usize = TOPICS.len();

/// One piece of a title or sentence template: literal text, or a slot filled with a random
/// word of a kind, wrapped in `pre` and `post` (punctuation, quotes).
#[derive(Clone, Copy, Debug)]
enum Piece {
    Literal(&'static str),
    Slot {
        kind: Kind,
        pre: &'static str,
        post: &'static str,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `{A}`: an adjective.
    Adjective,
    /// `{N}`: a general noun.
    Noun,
    /// `{T}`: a word of the paper's topic.
    Topic,
    /// `{V}`: a verb, third person singular.
    Verb,
    /// `{X}`: a small decimal number.
    Number,
    /// `{K}`: a small whole number.
    Count,
    /// `{M}`: a method name.
    Method,
}

fn parse_template(template: &'static str) -> Vec<Piece> {
    template
        .split(' ')
        .map(|word| match (word.find('{'), word.find('}')) {
            (Some(open), Some(close)) if close == open + 2 => {
                let kind = match &word[open + 1..close] {
                    "A" => Kind::Adjective,
                    "N" => Kind::Noun,
                    "T" => Kind::Topic,
                    "V" => Kind::Verb,
                    "X" => Kind::Number,
                    "K" => Kind::Count,
                    "M" => Kind::Method,
                    other => panic!("unknown slot {{{other}}} in template {template:?}"),
                };
                Piece::Slot {
                    kind,
                    pre: &word[..open],
                    post: &word[close + 1..],
                }
            }
            _ => Piece::Literal(word),
        })
        .collect()
}

/// Writes titles, abstracts and authors from the templates and word lists.
pub struct TextGen {
    titles: Vec<Vec<Piece>>,
    quote_comma_title: Vec<Piece>,
    sentences: Vec<Vec<Piece>>,
    topics: Vec<Vec<&'static str>>,
    nouns: Vec<&'static str>,
    adjectives: Vec<&'static str>,
    verbs: Vec<&'static str>,
    method_heads: Vec<&'static str>,
    method_tails: Vec<&'static str>,
    first_names: Vec<&'static str>,
    last_names: Vec<&'static str>,
}

fn words(list: &'static str) -> Vec<&'static str> {
    list.split_whitespace().collect()
}

/// A random element of `list`.
fn pick<'a>(list: &[&'a str], rng: &mut ChaCha8Rng) -> &'a str {
    list[rng.random_range(0..list.len())]
}

impl TextGen {
    pub fn new() -> TextGen {
        TextGen {
            titles: TITLE_TEMPLATES.iter().map(|t| parse_template(t)).collect(),
            quote_comma_title: parse_template(QUOTE_COMMA_TITLE),
            sentences: SENTENCE_TEMPLATES
                .iter()
                .map(|t| parse_template(t))
                .collect(),
            topics: TOPICS.iter().map(|t| words(t)).collect(),
            nouns: words(NOUNS),
            adjectives: words(ADJECTIVES),
            verbs: words(VERBS),
            method_heads: words(METHOD_HEADS),
            method_tails: words(METHOD_TAILS),
            first_names: words(FIRST_NAMES),
            last_names: words(LAST_NAMES),
        }
    }

    /// Appends a random word of `kind` to `out`.
    fn push_word(&self, out: &mut String, kind: Kind, topic: usize, rng: &mut ChaCha8Rng) {
        match kind {
            Kind::Adjective => out.push_str(pick(&self.adjectives, rng)),
            Kind::Noun => out.push_str(pick(&self.nouns, rng)),
            Kind::Topic => {
                // Mostly the paper's own topic, now and then a neighbouring one.
                let topic = if rng.random_ratio(1, 6) {
                    (topic + 1) % self.topics.len()
                } else {
                    topic
                };
                out.push_str(pick(&self.topics[topic], rng));
            }
            Kind::Verb => out.push_str(pick(&self.verbs, rng)),
            Kind::Number => {
                let tenths: u32 = rng.random_range(11..100);
                push_number(out, u64::from(tenths / 10), 1);
                out.push('.');
                push_number(out, u64::from(tenths % 10), 1);
            }
            Kind::Count => push_number(out, rng.random_range(2..=12), 1),
            Kind::Method => {
                out.push_str(pick(&self.method_heads, rng));
                out.push_str(pick(&self.method_tails, rng));
            }
        }
    }

    /// Appends one piece of a template. `article_end` is where an `a` just written ends, so
    /// that a word said with a vowel first turns it into `an`; `title` capitalises the word.
    fn push_piece(
        &self,
        out: &mut String,
        piece: Piece,
        article_end: &mut Option<usize>,
        title: bool,
        topic: usize,
        rng: &mut ChaCha8Rng,
    ) {
        match piece {
            Piece::Literal(text) => {
                out.push_str(text);
                *article_end = text.eq_ignore_ascii_case("a").then_some(out.len());
            }
            Piece::Slot { kind, pre, post } => {
                out.push_str(pre);
                let word = out.len();
                self.push_word(out, kind, topic, rng);
                if title {
                    title_case(out, word);
                }
                fix_article(out, article_end.filter(|_| pre.is_empty()), word);
                out.push_str(post);
                *article_end = None;
            }
        }
    }

    /// A title of 6-12 words in title case.
    pub fn title(&self, out: &mut String, first: bool, topic: usize, rng: &mut ChaCha8Rng) {
        out.clear();
        let template = if first {
            &self.quote_comma_title
        } else {
            &self.titles[rng.random_range(0..self.titles.len())]
        };
        let mut article_end = None;
        for (i, piece) in template.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            self.push_piece(out, *piece, &mut article_end, true, topic, rng);
        }
    }

    /// An abstract of 120-250 words and about 1,000-1,500 characters.
    pub fn abstract_text(&self, out: &mut String, topic: usize, rng: &mut ChaCha8Rng) {
        const MIN_WORDS: usize = 120;
        const MAX_WORDS: usize = 250;
        out.clear();
        let target_chars = rng.random_range(1_000..=1_500);
        let mut words = 0;
        let mut article_end = None;
        while words < MIN_WORDS || out.len() < target_chars {
            let template = &self.sentences[rng.random_range(0..self.sentences.len())];
            // The last sentence is cut short to stay within MAX_WORDS.
            let take = template.len().min(MAX_WORDS - words);
            if take < 3 {
                break;
            }
            for (i, piece) in template[..take].iter().enumerate() {
                if words > 0 {
                    out.push(' ');
                }
                let start = out.len();
                self.push_piece(out, *piece, &mut article_end, false, topic, rng);
                if i == 0 {
                    capitalize_at(out, start);
                }
                words += 1;
            }
            if take < template.len() {
                // Cut sentence: drop any trailing punctuation and end it properly.
                while out.ends_with([',', ':', '.', '?']) {
                    out.pop();
                }
                out.push('.');
            }
        }
    }

    /// 1-5 authors, `First Last; First Last`.
    pub fn authors(&self, out: &mut String, rng: &mut ChaCha8Rng) {
        out.clear();
        let count = match rng.random_range(0..20) {
            0..=2 => 1,
            3..=8 => 2,
            9..=13 => 3,
            14..=17 => 4,
            _ => 5,
        };
        for i in 0..count {
            if i > 0 {
                out.push_str("; ");
            }
            out.push_str(pick(&self.first_names, rng));
            out.push(' ');
            out.push_str(pick(&self.last_names, rng));
        }
    }
}

/// Turns the article `a` ending at `article_end` into `an` when the word at `out[word..]`
/// is said with a vowel first (`an adaptive`, `an LDA`, but `a BLEU`, `a unified`).
fn fix_article(out: &mut String, article_end: Option<usize>, word: usize) {
    let Some(end) = article_end else {
        return;
    };
    let bytes = &out.as_bytes()[word..];
    let acronym = bytes.len() > 1 && bytes[..2].iter().all(u8::is_ascii_uppercase);
    let vowel_sound = match bytes.first() {
        Some(&b) if acronym => b"AEFHILMNORSX".contains(&b),
        // `a unified`, `a user`: a `u` said as `you`.
        Some(_) if bytes.len() > 2 && matches!(&bytes[..3], b"uni" | b"Uni" | b"use" | b"Use") => {
            false
        }
        Some(&b) => b"aeiouAEIOU".contains(&b),
        None => false,
    };
    if vowel_sound {
        out.insert(end, 'n');
    }
}

/// Upper-cases the first letter of `out[start..]` and every letter after a hyphen there
/// (`low-resource` becomes `Low-Resource`); acronyms stay as they are.
fn title_case(out: &mut String, start: usize) {
    let tail: String = out[start..]
        .split('-')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(c) => c.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join("-");
    out.truncate(start);
    out.push_str(&tail);
}

/// Upper-cases the ASCII letter at `out[start]`, if it is one.
fn capitalize_at(out: &mut String, start: usize) {
    if let Some(c) = out[start..].chars().next() {
        if c.is_ascii_lowercase() {
            out.replace_range(start..start + 1, &c.to_ascii_uppercase().to_string());
        }
    }
}
