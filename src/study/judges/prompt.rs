//! A machine judge's prompt: a template that a pair's texts fill in. The template holds the
//! target's and the candidate's title and abstract, and nothing else of the study: never a
//! model's name, a rank or a score, as the blind pool shows none to a rater.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use crate::domain::Stars;

/// The placeholders a template may hold, each replaced by a text of the pair.
pub const PLACEHOLDERS: [&str; 4] = [
    "target_title",
    "target_abstract",
    "candidate_title",
    "candidate_abstract",
];

/// The placeholders every template must hold: a judge that cannot read which papers it grades
/// grades nothing.
const REQUIRED: [&str; 2] = ["target_title", "candidate_title"];

/// The largest template accepted (the pair's texts come on top of it).
pub const MAX_TEMPLATE_BYTES: usize = 64 * 1024;

/// A prompt template, checked: it holds the titles' placeholders and no unknown one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    template: String,
}

/// The texts of a pair, as the prompt gives them to the judge.
#[derive(Debug, Clone, Copy)]
pub struct PairTexts<'a> {
    pub target_title: &'a str,
    pub target_abstract: &'a str,
    pub candidate_title: &'a str,
    pub candidate_abstract: &'a str,
}

impl Prompt {
    /// The prompt paperjudge grades with unless given another: the question a rater answers,
    /// with the rating page's words for each grade, and the answer asked for as JSON.
    pub fn default_prompt() -> Prompt {
        let mut template = String::from(
            "You help a researcher judge paper recommendations. The researcher is reading the \
             target paper below and is deciding whether the candidate paper is worth reading \
             or citing beside it.\n\n\
             Target paper\nTitle: {target_title}\nAbstract: {target_abstract}\n\n\
             Candidate paper\nTitle: {candidate_title}\nAbstract: {candidate_abstract}\n\n\
             How relevant is the candidate to the target? Grade it with 1 to 5 stars:\n",
        );
        for stars in Stars::all() {
            let _ = writeln!(
                template,
                "{stars} ({}): {}",
                stars.label(),
                stars.guidance()
            );
        }
        template.push_str(
            "\nJudge by what the two papers are about, not by how well they are written. \
             Answer with JSON only, in the form {\"stars\": N}, where N is 1, 2, 3, 4 or 5.",
        );
        Prompt { template }
    }

    /// A template as given (`--prompt FILE`, the form of `/judges`); the message says what is
    /// wrong with it.
    pub fn new(template: &str) -> Result<Prompt, String> {
        if template.len() > MAX_TEMPLATE_BYTES {
            return Err(format!(
                "the prompt holds {} bytes, more than the {MAX_TEMPLATE_BYTES} (64 KiB) it may",
                template.len()
            ));
        }
        let named = placeholders(template);
        if let Some(unknown) = named.iter().find(|name| !PLACEHOLDERS.contains(name)) {
            return Err(format!(
                "the prompt holds {{{unknown}}}, which is no placeholder: it may hold {}",
                listed()
            ));
        }
        let missing: Vec<String> = (REQUIRED.iter())
            .filter(|required| !named.contains(required))
            .map(|required| format!("{{{required}}}"))
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "the prompt lacks {}: a judge must read which papers it grades (placeholders: \
                 {})",
                missing.join(" and "),
                listed()
            ));
        }
        Ok(Prompt {
            template: template.to_owned(),
        })
    }

    /// The template, as stored with the judge.
    pub fn template(&self) -> &str {
        &self.template
    }

    /// The SHA-256 of the template, in hex: what tells two judges' prompts apart.
    pub fn sha256(&self) -> String {
        hex::encode(Sha256::digest(self.template.as_bytes()))
    }

    /// The prompt of one pair: each placeholder of the template replaced by its text, in one
    /// pass (a text that holds a placeholder's name is left as it is). An empty abstract reads
    /// "(none given)".
    pub fn render(&self, texts: PairTexts<'_>) -> String {
        fn or_none(text: &str) -> &str {
            if text.trim().is_empty() {
                "(none given)"
            } else {
                text
            }
        }
        let value = |name: &str| -> Option<&str> {
            Some(match name {
                "target_title" => texts.target_title,
                "target_abstract" => or_none(texts.target_abstract),
                "candidate_title" => texts.candidate_title,
                "candidate_abstract" => or_none(texts.candidate_abstract),
                _ => return None,
            })
        };
        let mut rendered = String::with_capacity(self.template.len() + 4096);
        let mut rest = self.template.as_str();
        while let Some(open) = rest.find('{') {
            rendered.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            match after
                .find('}')
                .and_then(|close| Some((value(&after[..close])?, close)))
            {
                Some((text, close)) => {
                    rendered.push_str(text);
                    rest = &after[close + 1..];
                }
                None => {
                    rendered.push('{');
                    rest = after;
                }
            }
        }
        rendered.push_str(rest);
        rendered
    }
}

/// The names of the `{name}` placeholders of a template: braces around a lowercase word
/// (letters and `_`). Other braces, such as a JSON example's, are text.
fn placeholders(template: &str) -> Vec<&str> {
    let mut named = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let word = after
            .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
            .unwrap_or(after.len());
        if word > 0 && after[word..].starts_with('}') {
            named.push(&after[..word]);
        }
        rest = after;
    }
    named
}

fn listed() -> String {
    let names: Vec<String> = PLACEHOLDERS
        .iter()
        .map(|name| format!("{{{name}}}"))
        .collect();
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXTS: PairTexts<'static> = PairTexts {
        target_title: "Neural topic models",
        target_abstract: "We model {candidate_title} topics.",
        candidate_title: "LDA revisited",
        candidate_abstract: "",
    };

    #[test]
    fn placeholders_are_filled_in_one_pass_and_other_braces_stay() {
        let prompt = Prompt::new(
            "T={target_title} A={target_abstract} C={candidate_title} J={\"stars\": N} {x",
        )
        .unwrap();
        assert_eq!(
            prompt.render(TEXTS),
            "T=Neural topic models A=We model {candidate_title} topics. C=LDA revisited \
             J={\"stars\": N} {x"
        );
    }

    #[test]
    fn the_default_prompt_holds_both_papers_the_scale_and_the_json_asked_for() {
        let prompt = Prompt::default_prompt();
        let rendered = prompt.render(TEXTS);
        for text in [
            "Neural topic models",
            "We model",
            "LDA revisited",
            "(none given)",
        ] {
            assert!(rendered.contains(text), "{text}");
        }
        assert!(rendered.contains("3 (moderately relevant): Related work worth knowing"));
        assert!(rendered.contains("{\"stars\": N}"));
        assert!(!rendered.contains("{target_"));
        assert_eq!(prompt.sha256().len(), 64);
    }

    #[test]
    fn a_template_without_the_titles_or_with_an_unknown_placeholder_is_refused() {
        let missing = Prompt::new("Grade {candidate_title}").unwrap_err();
        assert!(missing.contains("lacks {target_title}"), "{missing}");
        let unknown = Prompt::new("{target_title} {candidate_title} {model_name}").unwrap_err();
        assert!(
            unknown.contains("{model_name}, which is no placeholder"),
            "{unknown}"
        );
        assert!(Prompt::new("{target_title} vs {candidate_title}: {\"stars\": 3}").is_ok());
    }
}
