//! Domain types that validate at the boundary: once a value of these types exists it is valid.

use std::fmt;
use std::str::FromStr;

use unicode_normalization::UnicodeNormalization;

/// A graded judgment: 1 (irrelevant) to 5 (highly relevant) stars.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Deserialize)]
#[serde(try_from = "i64")]
pub struct Stars(u8);

impl Stars {
    pub const MIN: Stars = Stars(1);

    /// `None` unless `value` is in 1..=5.
    pub fn new(value: i64) -> Option<Stars> {
        (1..=5).contains(&value).then_some(Stars(value as u8))
    }

    pub fn get(self) -> u8 {
        self.0
    }

    /// The label the rating page shows next to this many stars.
    pub fn label(self) -> &'static str {
        match self.0 {
            1 => "irrelevant",
            2 => "marginally relevant",
            3 => "moderately relevant",
            4 => "relevant",
            _ => "highly relevant",
        }
    }

    /// What this many stars means, in the words the rating page shows beside them and a
    /// machine judge's prompt gives it.
    pub fn guidance(self) -> &'static str {
        match self.0 {
            1 => "Not about the target's problem; no use to a reader of the target.",
            2 => "Shares a broad topic or a method in passing; you would not follow it up.",
            3 => "Related work worth knowing; you might cite it.",
            4 => "Closely related; you would read it after the target.",
            _ => "Essential next to the target; you would certainly read and cite it.",
        }
    }

    pub fn all() -> impl Iterator<Item = Stars> {
        (1..=5).map(Stars)
    }
}

impl fmt::Display for Stars {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Why a text is not a valid number of stars.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("stars must be an integer from 1 to 5, got {0:?}")]
pub struct InvalidStars(pub String);

/// A stored or given number that is not a valid number of stars.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("stars must be from 1 to 5, got {0}")]
pub struct StarsOutOfRange(pub i64);

impl TryFrom<i64> for Stars {
    type Error = StarsOutOfRange;

    fn try_from(value: i64) -> Result<Self, Self::Error> {
        Stars::new(value).ok_or(StarsOutOfRange(value))
    }
}

/// Stars are written as one digit from 1 to 5 and nothing else: ` 3`, `+3`, `03` and `3.0`
/// are refused, not read as 3, so that what is stored is what was written. (The CSV importer
/// trims its fields first, as it trims every field.)
impl FromStr for Stars {
    type Err = InvalidStars;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.as_bytes() {
            [digit @ b'1'..=b'5'] => Ok(Stars(digit - b'0')),
            _ => Err(InvalidStars(text.to_owned())),
        }
    }
}

/// A rater's answer for a pair: stars, or "I can't judge this" (the rater does not know the
/// field, the abstract is empty...). Either one handles the pair: it counts for finishing the
/// target. "Can't judge" is no judgment: the pair is unjudged in every metric, left out of the
/// qrels and of the agreement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Answer {
    Stars(Stars),
    CannotJudge,
}

impl Answer {
    /// How "can't judge" is written: in the ratings CSV's `stars` column and the rating form.
    pub const CANNOT_JUDGE: &'static str = "cannot-judge";

    /// The stars; `None` for "can't judge".
    pub fn stars(self) -> Option<Stars> {
        match self {
            Answer::Stars(stars) => Some(stars),
            Answer::CannotJudge => None,
        }
    }

    /// The answer as stored: `stars` NULL is "can't judge" (a row of `ratings` is a pair
    /// handled). `None` for stars out of range.
    pub fn stored(stars: Option<i64>) -> Option<Answer> {
        match stars {
            None => Some(Answer::CannotJudge),
            Some(stars) => Stars::new(stars).map(Answer::Stars),
        }
    }

    /// What the rating page says of it: "4 relevant", "can't judge".
    pub fn label(self) -> String {
        match self {
            Answer::Stars(stars) => format!("{stars} {}", stars.label()),
            Answer::CannotJudge => "can't judge".to_owned(),
        }
    }
}

impl From<Stars> for Answer {
    fn from(stars: Stars) -> Answer {
        Answer::Stars(stars)
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Stars(stars) => stars.fmt(f),
            Answer::CannotJudge => f.write_str(Answer::CANNOT_JUDGE),
        }
    }
}

/// Why a text is no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("stars must be an integer from 1 to 5, or cannot-judge, got {0:?}")]
pub struct InvalidAnswer(pub String);

/// One digit from 1 to 5 as [`Stars`] reads it, or `cannot-judge`.
impl FromStr for Answer {
    type Err = InvalidAnswer;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text == Answer::CANNOT_JUDGE {
            return Ok(Answer::CannotJudge);
        }
        text.parse()
            .map(Answer::Stars)
            .map_err(|_| InvalidAnswer(text.to_owned()))
    }
}

/// The first control or format character of `text` other than the line break and the tab.
fn unwritable_character(text: &str) -> Option<char> {
    text.chars()
        .find(|&c| c != '\n' && c != '\t' && is_control_or_format(c))
}

/// A rater's note on their rating of a pair ("same task, different modality"): the words the
/// owner reads where raters, or a rater and a judge, disagree. Trimmed, 1 to 2,000 characters
/// ([`Note::MAX_CHARS`]), line breaks as `\n`; no control or format character but the line
/// break and the tab.
#[derive(Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct Note(String);

impl Note {
    pub const MAX_CHARS: usize = 2000;

    /// The note of `text`; `None` for a blank text, which removes a note. Line breaks written
    /// `\r\n` (as browsers send a text area's) become `\n`.
    pub fn new(text: &str) -> Result<Option<Note>, InvalidNote> {
        let text = text.replace("\r\n", "\n");
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        let length = text.chars().count();
        if length > Note::MAX_CHARS {
            return Err(InvalidNote(format!(
                "is {length} characters long; a note holds at most 2,000"
            )));
        }
        if let Some(c) = unwritable_character(text) {
            return Err(InvalidNote(format!(
                "contains the control or format character U+{:04X}",
                u32::from(c)
            )));
        }
        Ok(Some(Note(text.to_owned())))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// Why a text is no note.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the note {0}")]
pub struct InvalidNote(String);

/// The study's guidelines for rating: Markdown the owner writes, shown on every rating page.
/// Trimmed (a byte order mark too), 1 to 20,000 characters ([`Guidelines::MAX_CHARS`]), line
/// breaks as `\n`; no control or format character but the line break and the tab.
#[derive(Clone, PartialEq, Eq)]
pub struct Guidelines(String);

impl Guidelines {
    /// About ten pages of text: guidelines a rater reads beside every pair, not a manual.
    pub const MAX_CHARS: usize = 20_000;

    pub fn new(markdown: &str) -> Result<Guidelines, InvalidGuidelines> {
        let markdown = markdown.strip_prefix('\u{feff}').unwrap_or(markdown);
        let markdown = markdown.replace("\r\n", "\n");
        let markdown = markdown.trim();
        if markdown.is_empty() {
            return Err(InvalidGuidelines(
                "are empty; to remove them, clear them instead".to_owned(),
            ));
        }
        let length = markdown.chars().count();
        if length > Guidelines::MAX_CHARS {
            return Err(InvalidGuidelines(format!(
                "are {length} characters long; they may be at most 20,000"
            )));
        }
        if let Some(c) = unwritable_character(markdown) {
            let line = 1 + markdown
                .split(c)
                .next()
                .map_or(0, |before| before.matches('\n').count());
            return Err(InvalidGuidelines(format!(
                "contain the control or format character U+{:04X} on line {line}",
                u32::from(c)
            )));
        }
        Ok(Guidelines(markdown.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Guidelines {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// Why a text cannot be the guidelines.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the guidelines {0}")]
pub struct InvalidGuidelines(String);

/// The id a person knows a paper by (`papers.external_id`): the `id` of the papers file, the
/// id that the pages, the exports, TREC files and the command line show and take. Not the row
/// key the pages' addresses use ([`PaperKey`]): the two cannot be swapped.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct PaperId(String);

impl PaperId {
    /// An id a file brings into the study: usable in TREC files, which separate fields by
    /// whitespace, and holding no control or format character (see [`is_control_or_format`]).
    /// Every id a study holds is one.
    pub fn new(text: &str) -> Result<PaperId, InvalidPaperId> {
        if text.is_empty() {
            Err(InvalidPaperId("is empty".to_owned()))
        } else if text.chars().any(char::is_whitespace) {
            Err(InvalidPaperId(format!(
                "{} contains whitespace, which TREC files cannot hold",
                quoted(text)
            )))
        } else if let Some(why) = invisible_character(text) {
            Err(InvalidPaperId(format!("{} {why}", quoted(text))))
        } else {
            Ok(PaperId(text.to_owned()))
        }
    }

    /// An id as a person or a form gives it, to look a paper up by. It is not checked: one
    /// that no paper can have is found nowhere, and the command that looks it up says so.
    pub fn given(text: &str) -> PaperId {
        PaperId(text.to_owned())
    }

    /// An id as the study file holds it, checked by [`PaperId::new`] when it came in.
    pub fn stored(text: String) -> PaperId {
        PaperId(text)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PaperId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.0)
    }
}

/// As a string: messages quote ids with `{:?}`.
impl fmt::Debug for PaperId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// Why a text is no paper id a study can hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidPaperId(String);

/// `text` quoted for a message, cut after [`QUOTED_CHARS`] characters with an ellipsis: a
/// refused value may be as long as the field that brought it (64 KiB), and the message says
/// how long it is where that is the problem.
fn quoted(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((cut, _)) => format!("{:?}…", &text[..cut]),
        None => format!("{text:?}"),
    }
}

/// The characters of a refused value that its message quotes.
const QUOTED_CHARS: usize = 60;

/// What is wrong with a name a person gives (`whose`: "a rater's"), if anything: empty, an
/// invisible character, white space at an end, or more than `max_characters` characters.
fn name_problem(text: &str, max_characters: usize, whose: &str) -> Option<String> {
    let characters = text.chars().count();
    if text.trim().is_empty() {
        Some("is empty".to_owned())
    } else if let Some(invisible) = invisible_character(text) {
        Some(invisible)
    } else if text.trim() != text {
        Some("starts or ends with white space".to_owned())
    } else if characters > max_characters {
        Some(format!(
            "has {characters} characters; {whose} name has at most {max_characters}"
        ))
    } else {
        None
    }
}

/// What is wrong with a name holding a control or format character, if it holds one.
pub fn invisible_character(name: &str) -> Option<String> {
    let c = name.chars().find(|c| is_control_or_format(*c))?;
    Some(format!(
        "contains the control or format character U+{:04X}, which is invisible or acts on the \
         text around it",
        u32::from(c)
    ))
}

/// The internal row key of a paper (`papers.id`): what the pages' addresses hold, never shown
/// as the paper's name.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct PaperKey(pub i64);

/// Internal row id of a model (`models.id`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Deserialize)]
pub struct ModelId(pub i64);

/// Number of top-ranked papers of every model that enter a target's pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolDepth(u32);

impl PoolDepth {
    pub const DEFAULT: PoolDepth = PoolDepth(8);
    pub const MAX: u32 = 1000;

    pub fn new(value: i64) -> Option<PoolDepth> {
        (1..=i64::from(Self::MAX))
            .contains(&value)
            .then_some(PoolDepth(value as u32))
    }

    pub fn get(self) -> u32 {
        self.0
    }
}

impl fmt::Display for PoolDepth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A number of bytes, as `serve --max-upload` takes it (`1024`, `500M`, `2G`, `1GiB`: K, M, G
/// and T count 1024 each, with or without `B` or `iB`) and as the pages say it (`1 GiB`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ByteSize(u64);

impl ByteSize {
    /// `serve --max-upload`'s default.
    pub const GIB: ByteSize = ByteSize(1 << 30);

    /// `kib` KiB.
    pub const fn kib(kib: u64) -> ByteSize {
        ByteSize(kib << 10)
    }

    pub fn bytes(self) -> u64 {
        self.0
    }
}

impl Default for ByteSize {
    fn default() -> ByteSize {
        ByteSize::GIB
    }
}

/// The units, largest first, with the power of 1024 each counts.
const BYTE_UNITS: [(&str, u32); 4] = [("T", 4), ("G", 3), ("M", 2), ("K", 1)];

/// A size as `serve --max-upload` takes it: a whole number of bytes, alone or followed at once
/// by `K`, `M`, `G` or `T` (or `KiB`, `MiB`, `GiB`, `TiB`), each 1024 of the one before:
/// `1073741824`, `500M`, `2G`, `1GiB`. Nothing else: `KB` and `GB` mean 1000s to some and
/// 1024s to others, and a space or a lowercase unit is taken for a typo rather than guessed
/// at.
impl FromStr for ByteSize {
    type Err = String;

    fn from_str(text: &str) -> Result<ByteSize, String> {
        let invalid = |why: &str| {
            format!(
                "{why}: a size is a whole number of bytes, alone or followed by K, M, G or T \
                 (or KiB, MiB, GiB, TiB: 1024 of the one before), such as 500M or 2G; got \
                 {text:?}"
            )
        };
        let digits = text
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len());
        let (number, unit) = text.split_at(digits);
        if number.is_empty() {
            return Err(invalid("no number"));
        }
        let number: u64 = number.parse().map_err(|_| invalid("too large"))?;
        let power = match unit {
            "" => 0,
            unit => {
                let named = unit.strip_suffix("iB").unwrap_or(unit);
                let known = (BYTE_UNITS.iter()).find(|(name, _)| *name == named);
                match known {
                    Some(&(_, power)) => power,
                    None if unit.ends_with(['B', 'b']) && unit.len() == 2 => {
                        return Err(invalid(&format!(
                            "{unit} is ambiguous (1000 or 1024 bytes?); write {} or {}iB",
                            unit[..1].to_ascii_uppercase(),
                            unit[..1].to_ascii_uppercase()
                        )))
                    }
                    None if unit.starts_with(char::is_whitespace) => {
                        return Err(invalid("no space between the number and its unit"))
                    }
                    None => return Err(invalid(&format!("{unit:?} is no unit"))),
                }
            }
        };
        let bytes = (number.checked_mul(1024u64.pow(power))).ok_or_else(|| invalid("too large"))?;
        match bytes {
            0 => Err(invalid("at least 1 byte")),
            bytes => Ok(ByteSize(bytes)),
        }
    }
}

/// In the largest unit that counts it whole: `1 GiB`, `500 MiB`, `1500 bytes`.
impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (unit, power) in BYTE_UNITS {
            let size = 1024u64.pow(power);
            if self.0.is_multiple_of(size) {
                return write!(f, "{} {unit}iB", self.0 / size);
            }
        }
        match self.0 {
            1 => f.write_str("1 byte"),
            bytes => write!(f, "{bytes} bytes"),
        }
    }
}

/// A rater's row key (`raters.id`); the study's owner is [`RaterId::OWNER`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct RaterId(pub i64);

impl RaterId {
    /// The study's owner: the one rater of a study without raters, who signs in with the
    /// password given to `serve`.
    pub const OWNER: RaterId = RaterId(1);
}

/// A version of the study's guidelines (`guidelines.version`): 1 for the first guidelines set,
/// one more for every later change (a clear too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct GuidelinesVersion(pub i64);

impl fmt::Display for GuidelinesVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// One rater's answer for one pair of a target, as the statistics read it: the paper, the
/// rater, their stars or "can't judge", and the version of the guidelines it was made under
/// (`None`: before the study had guidelines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RaterAnswer {
    pub paper: PaperKey,
    pub rater: RaterId,
    pub answer: Answer,
    pub guidelines: Option<GuidelinesVersion>,
}

impl RaterAnswer {
    /// The stars; `None` for "can't judge".
    pub fn stars(&self) -> Option<Stars> {
        self.answer.stars()
    }
}

/// A rater's name as people see it: on the sign-in form, in `raters list`, in the ratings
/// CSV's `rater` column, in `--judgments rater:NAME` and in the agreement among raters. One
/// to [`RaterName::MAX_CHARACTERS`] characters, no control or format character, no white
/// space at either end, in Unicode's composed form (NFC, as browsers send what is typed: `é`
/// one character, not `e` and an accent, so that a name given either way is one name). The
/// owner's name, `owner`, is the owner's alone.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct RaterName(String);

impl RaterName {
    pub const MAX_CHARACTERS: usize = 64;

    /// The owner's name.
    pub fn owner() -> RaterName {
        RaterName("owner".to_owned())
    }

    /// A name as the study file holds it, checked by [`RaterName::new`] when it was given.
    pub fn stored(text: String) -> RaterName {
        RaterName(text)
    }

    /// A name as given; the message says what is wrong with it.
    pub fn new(text: &str) -> Result<RaterName, InvalidRaterName> {
        match name_problem(text, Self::MAX_CHARACTERS, "a rater's") {
            None => Ok(RaterName(text.nfc().collect())),
            Some(problem) => Err(InvalidRaterName(format!(
                "the rater's name {} {problem}",
                quoted(text)
            ))),
        }
    }

    /// What a person sees of the name: equal for two names a person would take for one another.
    /// The name's compatibility form (NFKC: `ﬁ` is `fi`) in capitals (`Straße` is `STRASSE`),
    /// each letter replaced by the one it is confusable with (UTS #39's skeleton), in small
    /// letters, and the skeleton again.
    ///
    /// The skeleton is taken in both cases because confusables depend on case: a capital `I`,
    /// a `1` and a small `l` look alike (`Ian` and `lan`), as do a `0` and a capital `O`
    /// (`B0B` and `BOB`), while a small `i` and `o` look like neither; and `rn` looks like `m`
    /// in small letters only. Taking it on the small letters alone missed the first kind.
    /// Folding case after the first skeleton keeps two names that differ only in case alike,
    /// so that likeness is a property of the name whatever its case: `Ian` is `ian` and `lan`,
    /// and so also `Lan` (a person who may type `lan` for `Lan` may read `Ian` as either).
    pub fn likeness(&self) -> String {
        let capitals = self.0.nfkc().collect::<String>().to_uppercase();
        let small = unicode_security::skeleton(&capitals)
            .collect::<String>()
            .to_lowercase();
        unicode_security::skeleton(&small).collect()
    }

    /// The scripts the name mixes, when its letters are not of one script (UTS #39's
    /// single-script test, where digits and punctuation go with any script, and Han with the
    /// kana of Japanese or the Hangul of Korean): `Аnn` mixes Cyrillic and Latin, and a name
    /// that does can pass for another's letter by letter. `None` for a name of one script.
    pub fn mixed_scripts(&self) -> Option<Vec<String>> {
        use unicode_security::mixed_script::AugmentedScriptSet;
        use unicode_security::MixedScript;
        if self.0.as_str().is_single_script() {
            return None;
        }
        let mut scripts: Vec<String> = Vec::new();
        for c in self.0.chars() {
            let set = AugmentedScriptSet::for_char(c);
            let script = set.to_string();
            if !set.is_all() && !scripts.contains(&script) {
                scripts.push(script);
            }
        }
        Some(scripts)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_owner(&self) -> bool {
        self.0 == "owner"
    }
}

impl fmt::Display for RaterName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for RaterName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// Why a text is no rater's name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidRaterName(String);

/// A machine judge's name (`paperjudge judge --name`, `import judgments --judge`): 1 to
/// [`JudgeName::MAX_CHARACTERS`] characters, no control or format character (it is printed on
/// terminals and pages), no white space at either end. Names compare exactly, as models'.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct JudgeName(String);

impl JudgeName {
    pub const MAX_CHARACTERS: usize = 100;

    /// A name as the study file holds it, checked by [`JudgeName::new`] when it was given.
    pub fn stored(text: String) -> JudgeName {
        JudgeName(text)
    }

    /// A name as given; the message says what is wrong with it.
    pub fn new(text: &str) -> Result<JudgeName, InvalidJudgeName> {
        match name_problem(text, Self::MAX_CHARACTERS, "a judge's") {
            None => Ok(JudgeName(text.to_owned())),
            Some(problem) => Err(InvalidJudgeName(format!(
                "the judge's name {} {problem}",
                quoted(text)
            ))),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for JudgeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for JudgeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl FromStr for JudgeName {
    type Err = InvalidJudgeName;

    fn from_str(text: &str) -> Result<JudgeName, InvalidJudgeName> {
        JudgeName::new(text)
    }
}

/// Why a text is no judge's name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidJudgeName(String);

/// The model a machine judge grades with, as its endpoint names it (`paperjudge judge
/// --model`): 1 to [`JudgeModel::MAX_CHARACTERS`] characters, no control or format character
/// (it is stored, printed on terminals and pages, and sent), no white space at either end.
#[derive(Clone, PartialEq, Eq)]
pub struct JudgeModel(String);

impl JudgeModel {
    /// Long enough for a path to a model file, which some servers take as the model's name.
    pub const MAX_CHARACTERS: usize = 1000;

    /// A model as given; the message says what is wrong with it.
    pub fn new(text: &str) -> Result<JudgeModel, InvalidJudgeModel> {
        match name_problem(text, Self::MAX_CHARACTERS, "a model's") {
            None => Ok(JudgeModel(text.to_owned())),
            Some(problem) => Err(InvalidJudgeModel(format!(
                "the model {} {problem}",
                quoted(text)
            ))),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for JudgeModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for JudgeModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// Why a text is no model's name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidJudgeModel(String);

/// A judgment's grade on the scale of stars: a number of stars, or with several raters and
/// `--judgments mean` the mean of their stars, which may lie between two (docs/metrics.md,
/// "Several raters"). Always within 1..=5.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Grade(f64);

impl Grade {
    /// The mean of `stars`; `None` for none.
    pub fn mean(stars: &[Stars]) -> Option<Grade> {
        let sum: u32 = stars.iter().map(|stars| u32::from(stars.get())).sum();
        (!stars.is_empty()).then(|| Grade(f64::from(sum) / stars.len() as f64))
    }

    pub fn get(self) -> f64 {
        self.0
    }

    /// What the grade means: the label of its stars, or for a mean between two whole numbers
    /// of stars, that it is one.
    pub fn label(self) -> String {
        match self.as_stars() {
            Some(stars) => stars.label().to_owned(),
            None => "the mean of the raters' stars".to_owned(),
        }
    }

    /// The whole number of stars this grade is, if it is one.
    pub fn as_stars(self) -> Option<Stars> {
        (self.0.fract() == 0.0)
            .then(|| Stars::new(self.0 as i64))
            .flatten()
    }
}

impl From<Stars> for Grade {
    fn from(stars: Stars) -> Grade {
        Grade(f64::from(stars.get()))
    }
}

impl fmt::Display for Grade {
    /// Whole stars as a digit, a mean with two decimals at most: `4`, `3.5`, `3.67`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_stars() {
            Some(stars) => write!(f, "{stars}"),
            None => {
                let text = format!("{:.2}", self.0);
                f.write_str(text.trim_end_matches('0').trim_end_matches('.'))
            }
        }
    }
}

/// Whether a character is a control character (Unicode category Cc: NUL, ESC, line breaks,
/// ...) or a format character (Cf: zero-width space, byte order mark, bidi overrides, ...):
/// invisible, or acting on the text around it. Paper ids and model names may hold none, so
/// that two names that look alike are alike, and none can rewrite a terminal's screen.
pub fn is_control_or_format(c: char) -> bool {
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    matches!(
        c.general_category(),
        GeneralCategory::Control | GeneralCategory::Format
    )
}

/// How the study decides which targets it rates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetChoice {
    /// Every paper with recommendations (today's default, and the demo's).
    All,
    /// Only the targets chosen explicitly.
    Chosen,
}

impl TargetChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            TargetChoice::All => "all",
            TargetChoice::Chosen => "chosen",
        }
    }
}

impl fmt::Display for TargetChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How much of a pool is rated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Progress {
    pub rated: i64,
    pub total: i64,
}

impl Progress {
    /// Something to rate, and all of it rated.
    pub fn is_finished(&self) -> bool {
        self.total > 0 && self.rated == self.total
    }

    /// Whole percent rated, rounded down so that 100 means every pair.
    pub fn percent(&self) -> i64 {
        if self.total == 0 {
            0
        } else {
            self.rated * 100 / self.total
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_accept_only_one_to_five() {
        assert_eq!(Stars::new(0), None);
        assert_eq!(Stars::new(6), None);
        assert_eq!(Stars::new(1).map(Stars::get), Some(1));
        assert_eq!(Stars::new(5).map(Stars::get), Some(5));
        assert_eq!("3".parse::<Stars>().map(Stars::get), Ok(3));
        assert!("3.5".parse::<Stars>().is_err());
        assert!("".parse::<Stars>().is_err());
        assert!("7".parse::<Stars>().is_err());
        for loose in [" 3", "3 ", "+3", "03", "3.0", "-0"] {
            assert_eq!(loose.parse::<Stars>(), Err(InvalidStars(loose.to_owned())));
        }
    }

    #[test]
    fn rater_names_are_visible_trimmed_and_short() {
        assert_eq!(
            RaterName::new("Ann Lee").map(|n| n.to_string()),
            Ok("Ann Lee".into())
        );
        assert!(RaterName::new("").is_err());
        assert!(RaterName::new("   ").is_err());
        assert!(RaterName::new(" Ann").is_err());
        assert!(RaterName::new("Ann\u{202e}").is_err());
        assert!(RaterName::new("Ann\nBo").is_err());
        assert!(RaterName::new(&"x".repeat(64)).is_ok());
        let long = RaterName::new(&"x".repeat(65)).unwrap_err().to_string();
        assert!(
            long.ends_with("has 65 characters; a rater's name has at most 64"),
            "{long}"
        );
        assert!(RaterName::owner().is_owner());
        // Stored as browsers send it: composed.
        assert_eq!(RaterName::new("Jose\u{301}").unwrap().as_str(), "Jos\u{e9}");
    }

    #[test]
    fn a_refused_value_is_quoted_short_whatever_its_length() {
        let model = JudgeModel::new(&"x".repeat(100_000))
            .unwrap_err()
            .to_string();
        assert_eq!(
            model,
            format!(
                "the model \"{}\"… has 100000 characters; a model's name has at most 1000",
                "x".repeat(60)
            )
        );
        let id = PaperId::new(&format!("{} y", "x".repeat(70))).unwrap_err();
        assert_eq!(
            id.to_string(),
            format!(
                "\"{}\"… contains whitespace, which TREC files cannot hold",
                "x".repeat(60)
            )
        );
        assert_eq!(
            JudgeName::new("a\nb").unwrap_err().to_string(),
            "the judge's name \"a\\nb\" contains the control or format character U+000A, \
             which is invisible or acts on the text around it"
        );
    }

    #[test]
    fn names_a_person_takes_for_one_another_are_alike() {
        let likeness = |name: &str| RaterName::new(name).unwrap().likeness();
        assert_eq!(likeness("Ann"), likeness("ann"));
        assert_eq!(likeness("Straße"), likeness("STRASSE"));
        assert_eq!(likeness("Jos\u{e9}"), likeness("Jose\u{301}"));
        assert_eq!(likeness("\u{410}nn"), likeness("Ann"));
        assert_eq!(likeness("ﬁona"), likeness("Fiona"));
        assert_ne!(likeness("Ann"), likeness("Anna"));
        assert_ne!(likeness("Jos\u{e9}"), likeness("Jose"));
        assert_eq!(likeness("rnary"), likeness("Mary"));
        for (a, b) in [
            ("Ian", "lan"),
            ("Ian", "ian"),
            ("Al", "AI"),
            ("BOB", "B0B"),
            ("Olga", "0lga"),
            ("0wner", "owner"),
            ("Ann1", "ANNl"),
        ] {
            assert_eq!(likeness(a), likeness(b), "{a} {b}");
        }
        for (a, b) in [
            ("Ian", "Ivan"),
            ("Al", "Ali"),
            ("Bob", "Rob"),
            ("Olga", "Olya"),
        ] {
            assert_ne!(likeness(a), likeness(b), "{a} {b}");
        }
        let mixed = |name: &str| RaterName::new(name).unwrap().mixed_scripts();
        assert_eq!(
            mixed("\u{410}nn"),
            Some(vec!["Cyrillic".to_owned(), "Latin".to_owned()])
        );
        for single in ["Ann Lee", "Анна", "Ann-Marie 2", "山田 はなこ", "José"] {
            assert_eq!(mixed(single), None, "{single}");
        }
    }

    #[test]
    fn grades_are_stars_or_their_mean() {
        let stars = |values: &[i64]| -> Vec<Stars> {
            values.iter().map(|&v| Stars::new(v).unwrap()).collect()
        };
        assert_eq!(Grade::mean(&stars(&[3, 4])).map(Grade::get), Some(3.5));
        assert_eq!(
            Grade::mean(&stars(&[4, 4])).and_then(Grade::as_stars),
            Stars::new(4)
        );
        assert_eq!(Grade::mean(&[]), None);
        assert_eq!(Grade::mean(&stars(&[3, 4, 4])).unwrap().to_string(), "3.67");
        assert_eq!(Grade::mean(&stars(&[3, 4])).unwrap().to_string(), "3.5");
        assert_eq!(Grade::from(Stars::new(2).unwrap()).to_string(), "2");
    }

    #[test]
    fn pool_depth_is_positive_and_bounded() {
        assert_eq!(PoolDepth::new(0), None);
        assert_eq!(PoolDepth::new(8).map(PoolDepth::get), Some(8));
        assert_eq!(PoolDepth::new(1001), None);
    }

    #[test]
    fn control_and_format_characters_are_told_apart_from_the_rest() {
        for c in [
            '\0', '\u{1b}', '\t', '\u{7f}', '\u{200b}', '\u{feff}', '\u{202e}', '\u{ad}',
        ] {
            assert!(is_control_or_format(c), "{c:?}");
        }
        for c in ['a', ' ', 'é', '日', '\u{1F600}', '-', '\u{a0}'] {
            assert!(!is_control_or_format(c), "{c:?}");
        }
    }

    #[test]
    fn sizes_read_with_their_units_and_say_themselves_in_the_largest_whole_one() {
        let size = |text: &str| text.parse::<ByteSize>().map(ByteSize::bytes);
        assert_eq!(size("1024"), Ok(1024));
        assert_eq!(size("500M"), Ok(500 << 20));
        assert_eq!(size("2G"), Ok(2 << 30));
        assert_eq!(size("1GiB"), Ok(1 << 30));
        assert_eq!(size("3K"), Ok(3 << 10));
        assert_eq!(size("1T"), Ok(1 << 40));
        for bad in [
            "",
            "0",
            "0G",
            "G",
            "1.5G",
            "-1",
            "12X",
            "1GG",
            "99999999999T",
            "1KB",
            "1 G",
            " 1G",
            "1G ",
            "3kb",
            "3k",
            "1gib",
        ] {
            assert!(size(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            size("1KB"),
            Err(
                "KB is ambiguous (1000 or 1024 bytes?); write K or KiB: a size is a whole \
                 number of bytes, alone or followed by K, M, G or T (or KiB, MiB, GiB, TiB: \
                 1024 of the one before), such as 500M or 2G; got \"1KB\""
                    .to_owned()
            )
        );
        assert!(size("1 G")
            .unwrap_err()
            .starts_with("no space between the number and its unit: "));
        let said = |bytes: u64| ByteSize(bytes).to_string();
        assert_eq!(said(1 << 30), "1 GiB");
        assert_eq!(said(500 << 20), "500 MiB");
        assert_eq!(said(1536 << 10), "1536 KiB");
        assert_eq!(said(1500), "1500 bytes");
        assert_eq!(said(1), "1 byte");
        assert_eq!(ByteSize::default(), ByteSize::GIB);
    }
}
