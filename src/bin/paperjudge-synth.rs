//! `paperjudge-synth`: a deterministic generator of synthetic paperjudge studies, for
//! benchmarks and load tests.
//!
//! It writes a complete study into a directory, every byte a function of the seed (and the
//! counts): the same command twice gives byte-identical files.
//!
//! - `papers.csv`: `id,title,abstract,authors,year,url`; ids `P000001`, `P000002`, ...;
//!   titles of 6-12 words (some with commas and double quotes, so RFC 4180 quoting is
//!   exercised), abstracts of 120-250 words made from a built-in NLP/ML vocabulary,
//!   1-5 authors as `First Last; First Last`, years 1995-2024, urls `https://example.org/p/ID`.
//! - `recommendations.csv`: `model,target,rank,paper,score`, grouped by target, then model,
//!   then rank 1..list-len; a list never holds its target nor the same paper twice, and its
//!   scores strictly decrease with rank.
//! - `runs/<model>.run`: the same lists as TREC run files (`target Q0 paper rank score model`),
//!   one per model; as the scores strictly decrease, trec_eval's ordering (score descending,
//!   ties by docno descending) gives exactly the ranks written.
//! - `ratings.csv`: `target,paper,stars`: ratings of pooled pairs (the union of every model's
//!   top `--pool-depth`, default 8) of the first `--rated-targets` targets, `--ratings` in all,
//!   spread as evenly over those targets as their pools allow.
//!
//! Models are `model-1` ... `model-N`, from best to worst: every target has a hidden latent
//! relevance for each of its candidate papers (papers of the target's topic tend to be more
//! relevant), each model ranks the candidates by that relevance plus noise that grows with the
//! model's number, and stars are the latent relevance mapped to 1..5 plus a little noise. So
//! the ratings rank the models in a meaningful order: model-1 first, model-N last.
//!
//! Sizes (each count can be overridden):
//!
//! | size | papers | models | targets | list length | rated targets | ratings |
//! | ---- | ------ | ------ | ------- | ----------- | ------------- | ------- |
//! | `s`  | 2,000  | 8      | 65      | 20          | 65            | 1,300   |
//! | `l`  | 40,000 | 8      | 40,000 (every paper) | 20 | 5,000        | 100,000 |
//!
//! Size `l` has 6.4 million recommendation rows (about 230 MB of CSV plus as much again in run
//! files); writing it takes seconds in a release build.
//!
//! Run it with:
//!
//! ```text
//! cargo run --release --bin paperjudge-synth -- --size l --seed 1 --out /tmp/study-l
//! cargo run --release --bin paperjudge-synth -- --size s --seed 7 --out /tmp/study-s
//! cargo run --release --bin paperjudge-synth -- --seed 3 --out /tmp/tiny \
//!     --papers 30 --models 3 --targets 10 --list-len 5 --rated-targets 4 --ratings 25
//! ```
//!
//! `--size` defaults to `s` and `--seed` to 0. A count left to the preset shrinks to fit
//! explicit smaller ones (`--papers 10` gives 10 targets and lists of 9); an explicit count
//! that cannot fit is an error. If the pools hold fewer pairs than `--ratings`, every pooled
//! pair is rated and a warning says so. Files of a previous run in the same directory are
//! overwritten, but run files of models it no longer has are left in `runs/`.
//!
//! It ends with a one-line summary on stderr (counts, file sizes, elapsed time). Exit status
//! 0 on success, 2 on bad usage, 1 when a file cannot be written.
//!
//! This binary is standalone: it does not use the `paperjudge` library, so it keeps working
//! (and keeps producing the same bytes) whatever the library does.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, ValueEnum};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Largest number of papers: ids are `P` and six digits.
const MAX_PAPERS: usize = 999_999;
/// Largest number of models.
const MAX_MODELS: usize = 9_999;
/// Default number of top-ranked papers of every model that enter a target's pool.
const DEFAULT_POOL_DEPTH: usize = 8;

/// Independent random streams, one per part of the study, so that e.g. the paper texts do not
/// shift when the recommendation algorithm changes.
const STREAM_TOPICS: u64 = 1;
const STREAM_TEXT: u64 = 2;
const STREAM_TARGETS: u64 = 3;
const STREAM_RECOMMENDATIONS: u64 = 4;
const STREAM_RATINGS: u64 = 5;

#[derive(Parser, Debug)]
#[command(
    name = "paperjudge-synth",
    version,
    about = "Write a deterministic synthetic paperjudge study (papers, recommendations, TREC runs, ratings) into a directory."
)]
struct Args {
    /// Preset scale: `s` (2,000 papers, 65 targets) or `l` (40,000 papers, all of them targets).
    #[arg(long, value_enum, ignore_case = true, default_value_t = Size::S)]
    size: Size,
    /// Seed of every random choice: the same seed gives byte-identical files.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Directory to write into (created if missing; existing files of the same names are replaced).
    #[arg(long)]
    out: PathBuf,
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
    /// Total number of ratings (overrides the preset).
    #[arg(long)]
    ratings: Option<usize>,
    /// Number of top-ranked papers of every model that enter a target's pool.
    #[arg(long)]
    pool_depth: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Size {
    /// The scale of a real personal study: 2,000 papers, 8 models, 65 targets.
    S,
    /// A large study: 40,000 papers, 8 models, every paper a target.
    L,
}

/// The counts of one study, checked against each other.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Config {
    papers: usize,
    models: usize,
    targets: usize,
    list_len: usize,
    rated_targets: usize,
    ratings: usize,
    pool_depth: usize,
}

impl Config {
    /// The preset's counts with the given overrides. A preset count that does not fit is
    /// lowered to fit; an explicit count that does not fit is an error.
    fn resolve(args: &Args) -> Result<Config, String> {
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
            Some(n) if n > most_ratings => {
                return Err(format!(
                    "--ratings {n} is more than the {rated_targets} rated targets' pools can hold \
                     (at most {most_ratings} pairs)"
                ))
            }
            Some(n) => n,
            None => ratings.min(most_ratings),
        };
        Ok(Config {
            papers,
            models,
            targets,
            list_len,
            rated_targets,
            ratings,
            pool_depth,
        })
    }

    /// How many candidate papers every target draws; the models rank these.
    fn candidates(&self) -> usize {
        (3 * self.list_len).max(24).min(self.papers - 1)
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let config = match Config::resolve(&args) {
        Ok(config) => config,
        Err(message) => {
            eprintln!("paperjudge-synth: error: {message}");
            return ExitCode::from(2);
        }
    };
    let started = Instant::now();
    match write_study(&config, args.seed, &args.out) {
        Ok(summary) => {
            eprintln!(
                "paperjudge-synth: seed {}: {} papers (papers.csv {}), {} models x {} targets x {} = {} recommendations \
                 (recommendations.csv {}, runs/ {}), {} ratings over {} targets (ratings.csv {}) in {} in {:.1} s",
                args.seed,
                config.papers,
                megabytes(summary.papers_bytes),
                config.models,
                config.targets,
                config.list_len,
                summary.recommendations,
                megabytes(summary.recommendations_bytes),
                megabytes(summary.runs_bytes),
                summary.ratings,
                summary.rated_targets,
                megabytes(summary.ratings_bytes),
                args.out.display(),
                started.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!(
                "paperjudge-synth: error: writing {}: {error}",
                args.out.display()
            );
            ExitCode::from(1)
        }
    }
}

fn megabytes(bytes: u64) -> String {
    if bytes < 1_000_000 {
        format!("{:.1} kB", bytes as f64 / 1e3)
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

/// What was written.
#[derive(Debug, Default)]
struct Summary {
    recommendations: usize,
    ratings: usize,
    rated_targets: usize,
    papers_bytes: u64,
    recommendations_bytes: u64,
    runs_bytes: u64,
    ratings_bytes: u64,
}

/// Writes the whole study into `out`.
fn write_study(config: &Config, seed: u64, out: &Path) -> io::Result<Summary> {
    fs::create_dir_all(out.join("runs"))?;
    let mut summary = Summary::default();

    let topics = assign_topics(config.papers, seed);
    summary.papers_bytes = write_papers(&out.join("papers.csv"), &topics, seed)?;

    let targets = choose_targets(config, seed);
    let pools = write_recommendations(config, seed, &topics, &targets, out, &mut summary)?;

    let (ratings, rated_targets) = write_ratings(config, seed, &pools, &out.join("ratings.csv"))?;
    summary.ratings = ratings;
    summary.rated_targets = rated_targets;
    summary.ratings_bytes = fs::metadata(out.join("ratings.csv"))?.len();
    if ratings < config.ratings {
        eprintln!(
            "paperjudge-synth: warning: the pools hold only {ratings} pairs, so only {ratings} of {} ratings were written",
            config.ratings
        );
    }
    Ok(summary)
}

fn rng_for(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    rng
}

/// A roughly standard normal number (Irwin-Hall of four 16-bit uniforms): one draw, and
/// plain arithmetic only, so the result is the same on every platform.
fn gauss(rng: &mut ChaCha8Rng) -> f64 {
    let x = rng.next_u64();
    let sum = (x & 0xffff) + ((x >> 16) & 0xffff) + ((x >> 32) & 0xffff) + (x >> 48);
    ((sum as f64 + 2.0) / 65_536.0 - 2.0) * 1.732_050_807_568_877_2
}

/// A uniform number in [0, 1) from a 64-bit hash.
fn unit(x: u64) -> f64 {
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// SplitMix64's finaliser: a well-mixed hash of `x`.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

// ---------------------------------------------------------------------------------------
// Papers
// ---------------------------------------------------------------------------------------

/// Research topics; a paper belongs to one, and its title and abstract lean on its words.
const TOPICS: &[&str] = &[
    "parsing dependency treebank constituency parser syntax grammar arc-factored head-driven \
     transition-based",
    "translation decoder bilingual alignment reordering BLEU phrase-based back-translation \
     subword NMT",
    "summarization summary extractive abstractive salience redundancy headline compression \
     ROUGE highlight",
    "question answer reading comprehension passage retriever reader open-domain evidence \
     multi-hop",
    "sentiment polarity opinion aspect review emotion stance sarcasm subjectivity valence",
    "entity recognition extraction relation slot-filling mention typing coreference linking \
     knowledge-base",
    "dialogue conversation utterance turn-taking intent chatbot persona task-oriented \
     belief-state user-simulator",
    "speech acoustic phoneme prosody transcription spoken ASR waveform speaker pronunciation",
    "morphology inflection lemma stemming segmentation morpheme paradigm agglutinative affix \
     tokenizer",
    "semantic meaning compositional frame predicate logical-form AMR ontology word-sense \
     entailment",
    "retrieval ranking query relevance index reranking BM25 click-model search \
     dense-retrieval",
    "recommendation citation collaborative item preference cold-start scholarly \
     personalization implicit-feedback reader-profile",
    "topic LDA latent Dirichlet coherence clustering document mixture nonparametric LSA",
    "embedding word2vec vector distributional analogy similarity skip-gram GloVe fastText \
     sense-embedding",
    "language-model perplexity pretraining transformer autoregressive masked scaling prompt \
     instruction decoding",
    "generation text story data-to-text paraphrase style controllable fluency diversity \
     hallucination",
    "discourse coherence rhetorical argument connective narrative cohesion anaphora segment \
     essay",
    "image caption visual grounding video multimodal vision-language scene object region",
    "tweet social hashtag user-generated misinformation hate-speech rumor community online \
     moderation",
    "clinical biomedical patient medical drug protein radiology EHR diagnosis PubMed",
    "low-resource cross-lingual transfer zero-shot annotation-projection typology endangered \
     multilingual adaptation code-switching",
    "evaluation metric human-judgment agreement benchmark leaderboard reproducibility \
     significance NDCG crowdsourcing",
    "bias fairness gender stereotype debiasing toxicity privacy ethics demographic \
     accountability",
    "graph node edge knowledge-graph message-passing tree lattice hypergraph structure path",
];

const NOUNS: &str = "\
    model representation corpus dataset task method approach framework architecture encoder \
    attention layer feature classifier objective loss training inference baseline \
    performance accuracy annotation supervision context sequence token vocabulary sentence \
    paragraph word phrase span label network parameter distribution probability likelihood \
    estimator algorithm optimization gradient regularization generalization robustness \
    variance error analysis ablation experiment improvement score domain language user \
    system pipeline module component mechanism prior posterior sample instance example \
    finetuning knowledge memory state policy reward agent signal noise resource lexicon \
    schema template response output input prediction decision constraint heuristic beam \
    kernel matrix tensor dimension space subspace projection mapping function variable \
    factor interaction event role classification detection understanding reasoning \
    curriculum distillation ensemble calibration uncertainty sparsity efficiency latency \
    throughput budget supervisor teacher student vocabulary-size window history weighting";

const ADJECTIVES: &str = "\
    neural statistical probabilistic Bayesian discriminative generative supervised \
    unsupervised semi-supervised weakly-supervised large-scale efficient robust scalable \
    interpretable contextual hierarchical sparse dense joint incremental adaptive structured \
    end-to-end lightweight simple novel effective unified modular compositional fine-grained \
    coarse-grained domain-specific few-shot self-supervised contrastive adversarial \
    recurrent convolutional pretrained lexical syntactic pragmatic morphological temporal \
    causal explicit implicit global local deep shallow noisy balanced multi-task \
    character-level document-level sentence-level human-centred";

const VERBS: &str = "\
    improves outperforms learns captures combines leverages exploits predicts models encodes \
    aligns reduces increases achieves yields requires enables extends generalizes transfers \
    identifies extracts generates ranks retrieves estimates optimizes integrates represents \
    infers selects balances handles incorporates constrains matches reconstructs surpasses \
    simplifies stabilizes";

const METHOD_HEADS: &str = "\
    Graph Lex Syn Sem Meta Contra Poly Uni Cross Deep Hyper Proto Multi Auto Neuro Span Doc \
    Para";
const METHOD_TAILS: &str = "\
    BERT Net Former Align Parse Tag Sum QA Gen Rank Map Flow Walk Prompt Match Fuse";

const FIRST_NAMES: &str = "\
    Anna Ben Chen Daniel Elena Fatima Georg Hana Ivan Julia Kenji Laura Mehdi Nadia Oscar \
    Priya Qiang Rachel Sofia Tomás Uma Victor Wei Xin Yuki Zoë Ahmed Bruno Carla Dmitri \
    Emily Felix Grace Hugo Ines Jonas Kavya Lukas Maria Noah Olga Pablo Ravi Sara Thomas \
    Ulrike Valentina William Yara Benoît";

const LAST_NAMES: &str = "\
    Smith Müller Wang Li Zhang García Kim Nguyen Rossi Dubois Kowalski Ivanova Tanaka Sato \
    Patel Sharma Cohen Levi Johansson Nielsen Novak Silva Santos Costa Martin Bernard \
    Fischer Weber Schneider Brown Taylor Wilson Anderson Thompson Moore Clark Lewis Walker \
    Hall Young O'Brien Murphy Kelly Yılmaz Demir Haddad Khan Ali Okafor Mensah Søgaard \
    Crabbé";

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

/// Title templates: every one has 6 to 12 words.
const TITLE_TEMPLATES: &[&str] = &[
    "{A} {T} {N} for {A} {T} {N}",
    "{M}: {A} {N} for {T} {N}",
    "{M}: {A} {N} of {T} {N} with {A} {N}",
    "Towards {A} {T} {N} via {A} {N}",
    "Learning {A} {N} for {T} {N} from {A} {N}",
    "On the {N} of {A} {T} {N}",
    "{A} {N} and {A} {N} in {T} {N}",
    "{A} {T} {N} with {A} {N} and {T} {N}",
    "Revisiting {T} {N} in the Era of {A} {N}",
    "When Does {A} {N} Help {T} {N}?",
    "{A} {T} {N}: A Case Study of {T} {N}",
    "{T} {N}, {T} {N}, and {A} {N}",
    "\"{A}\" {N} Is Not All You Need for {T} {N}",
    "{A} {N} for {T}, {T}, and {T} {N}",
    "What Makes a Good {T} {N}? An Empirical {N}",
    "A {A} {N} of {T} {N} Across {K} Languages",
    "Rethinking \"{A} {N}\" in {A} {T} {N}",
    "{M}: Towards {A} and {A} {T} {N}",
];

/// Forced for the first paper, so that even a tiny study has a title with a comma and a
/// double quote.
const QUOTE_COMMA_TITLE: &str = "\"{A}\" {N}, {N}, and {N} for {T} {N}";

const SENTENCE_TEMPLATES: &[&str] = &[
    "we propose a {A} {N} for {T} {N} that {V} the {N} of {A} {T} {N}.",
    "existing {T} {N} often relies on {A} {N} and ignores the {N} of the {N}.",
    "in this paper we study the {N} of {A} {N} in {T} {N}.",
    "our {N} {V} a {A} {N} with {A} {T} {N}.",
    "experiments on the {M} benchmark show that the {N} {V} strong {N} by {X} points.",
    "we further show that {A} {N} {V} the {N} of {T} {N} across {K} settings.",
    "the {N} is trained with a {A} {N} on {A} {T} {N}.",
    "to address this {N}, we introduce {M}, a {A} {N} based on {A} {T} {N}.",
    "results indicate that {A} {T} {N} {V} {A} {N} in both {A} and {A} settings.",
    "we release our {N} and {N} to support future work on {T} {N}.",
    "a detailed {N} reveals that the {N} {V} {A} {N} rather than {A} {N}.",
    "compared with a {A} {N}, our {N} {V} {N} by {X} percent on average.",
    "this is particularly important for {A} {T} {N}, where {A} {N} is scarce.",
    "we also analyse the {N} of the {T} {N} and discuss its {N} for {A} {N}.",
    "finally, we demonstrate that the {N} {V} {T} {N} to {A} {N}.",
    "unlike prior work, the {A} {N} {V} {T} {N} without any {A} {N}.",
    "{T} {N} is a central problem in natural language processing.",
    "however, most {A} {N} {V} only {A} {N} and fail on {A} {T} {N}.",
    "we evaluate on {K} {T} datasets and report {A} gains over the {N}.",
    "the key idea is to treat {T} {N} as a {A} {N} over {A} {N}.",
];

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
struct TextGen {
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
    fn new() -> TextGen {
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
                push_uint(out, u64::from(tenths / 10));
                out.push('.');
                push_uint(out, u64::from(tenths % 10));
            }
            Kind::Count => push_uint(out, rng.random_range(2..=12)),
            Kind::Method => {
                out.push_str(pick(&self.method_heads, rng));
                out.push_str(pick(&self.method_tails, rng));
            }
        }
    }

    /// A title of 6-12 words in title case.
    fn title(&self, out: &mut String, first: bool, topic: usize, rng: &mut ChaCha8Rng) {
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
            match *piece {
                Piece::Literal(text) => {
                    out.push_str(text);
                    article_end = text.eq_ignore_ascii_case("a").then_some(out.len());
                }
                Piece::Slot { kind, pre, post } => {
                    out.push_str(pre);
                    let start = out.len();
                    self.push_word(out, kind, topic, rng);
                    title_case(out, start);
                    fix_article(out, article_end.filter(|_| pre.is_empty()), start);
                    out.push_str(post);
                    article_end = None;
                }
            }
        }
    }

    /// An abstract of 120-250 words and about 1,000-1,500 characters.
    fn abstract_text(&self, out: &mut String, topic: usize, rng: &mut ChaCha8Rng) {
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
                match *piece {
                    Piece::Literal(text) => {
                        out.push_str(text);
                        article_end = text.eq_ignore_ascii_case("a").then_some(out.len());
                    }
                    Piece::Slot { kind, pre, post } => {
                        out.push_str(pre);
                        let word = out.len();
                        self.push_word(out, kind, topic, rng);
                        fix_article(out, article_end.filter(|_| pre.is_empty()), word);
                        out.push_str(post);
                        article_end = None;
                    }
                }
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
    fn authors(&self, out: &mut String, rng: &mut ChaCha8Rng) {
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

fn push_uint(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut len = 0;
    let mut n = n;
    loop {
        digits[len] = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in digits[..len].iter().rev() {
        out.push(char::from(d));
    }
}

/// The topic of every paper.
fn assign_topics(papers: usize, seed: u64) -> Vec<u8> {
    let mut rng = rng_for(seed, STREAM_TOPICS);
    (0..papers)
        .map(|_| rng.random_range(0..TOPICS.len()) as u8)
        .collect()
}

/// Writes `papers.csv`; returns its size in bytes.
fn write_papers(path: &Path, topics: &[u8], seed: u64) -> io::Result<u64> {
    let mut rng = rng_for(seed, STREAM_TEXT);
    let text = TextGen::new();
    let mut csv = csv::WriterBuilder::new()
        .buffer_capacity(1 << 20)
        .from_writer(File::create(path)?);
    csv.write_record(["id", "title", "abstract", "authors", "year", "url"])?;
    let (mut id, mut title, mut abstract_text, mut authors, mut year, mut url) = (
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    );
    for (index, &topic) in topics.iter().enumerate() {
        let topic = usize::from(topic);
        id.clear();
        push_id(&mut id, index as u32);
        text.title(&mut title, index == 0, topic, &mut rng);
        text.abstract_text(&mut abstract_text, topic, &mut rng);
        text.authors(&mut authors, &mut rng);
        // More recent years are more common, as in any literature.
        let year_offset = rng.random_range(0..30u64).max(rng.random_range(0..30u64));
        year.clear();
        push_uint(&mut year, 1995 + year_offset);
        url.clear();
        url.push_str("https://example.org/p/");
        url.push_str(&id);
        csv.write_record([&id, &title, &abstract_text, &authors, &year, &url])?;
    }
    let file = csv.into_inner().map_err(|e| e.into_error())?;
    Ok(file.metadata()?.len())
}

/// `P` and the 1-based index in six digits.
fn push_id(out: &mut String, index: u32) {
    let mut bytes = Vec::with_capacity(7);
    push_id_bytes(&mut bytes, index);
    out.push_str(std::str::from_utf8(&bytes).expect("ids are ASCII"));
}

fn push_id_bytes(out: &mut Vec<u8>, index: u32) {
    let mut n = index + 1;
    let mut digits = [b'0'; 6];
    for digit in digits.iter_mut().rev() {
        *digit = b'0' + (n % 10) as u8;
        n /= 10;
    }
    out.push(b'P');
    out.extend_from_slice(&digits);
}

// ---------------------------------------------------------------------------------------
// Recommendations
// ---------------------------------------------------------------------------------------

/// The targets, as paper indices in ascending order.
fn choose_targets(config: &Config, seed: u64) -> Vec<u32> {
    if config.targets == config.papers {
        return (0..config.papers as u32).collect();
    }
    let mut rng = rng_for(seed, STREAM_TARGETS);
    let mut targets: Vec<u32> = rand::seq::index::sample(&mut rng, config.papers, config.targets)
        .into_iter()
        .map(|i| i as u32)
        .collect();
    targets.sort_unstable();
    targets
}

/// A candidate paper of a target with its hidden relevance in [0, 1].
#[derive(Clone, Copy, Debug)]
struct Candidate {
    paper: u32,
    relevance: f64,
}

/// The pooled pairs of the rated targets, with their hidden relevance.
#[derive(Debug, Default)]
struct Pools {
    /// The rated targets, in order.
    targets: Vec<u32>,
    /// `entries[offsets[i]..offsets[i + 1]]` is the pool of `targets[i]`, by paper index.
    offsets: Vec<usize>,
    entries: Vec<Candidate>,
}

/// The noise a model adds to the hidden relevance before ranking: model-1 has the least.
/// The correlation of a model's scores with the relevance falls evenly from 0.98 (model-1)
/// to 0.28 (the last model), so neighbouring models are about equally far apart.
fn model_noise(model: usize, models: usize) -> f64 {
    /// Roughly the standard deviation of the hidden relevance of a target's candidates.
    const RELEVANCE_SD: f64 = 0.28;
    let step = if models == 1 {
        0.0
    } else {
        model as f64 / (models - 1) as f64
    };
    let correlation = 0.98 - 0.70 * step;
    RELEVANCE_SD * (1.0 / (correlation * correlation) - 1.0).sqrt()
}

/// Maps a model's raw score onto (0, 1) in millionths.
fn score_micros(raw: f64) -> u32 {
    let squashed = 0.5 + raw / (2.0 * (1.0 + raw.abs()));
    (squashed * 1e6) as u32
}

/// Draws the candidate papers of target `target` into `candidates`.
struct CandidateDrawer<'a> {
    topics: &'a [u8],
    by_topic: Vec<Vec<u32>>,
    /// `mark[p] == stamp` when paper `p` is already drawn for the current target.
    mark: Vec<u32>,
    stamp: u32,
    /// Scratch for drawing most of the papers: all paper indices.
    all: Vec<u32>,
}

impl<'a> CandidateDrawer<'a> {
    fn new(topics: &'a [u8]) -> CandidateDrawer<'a> {
        let mut by_topic = vec![Vec::new(); TOPICS.len()];
        for (paper, &topic) in topics.iter().enumerate() {
            by_topic[usize::from(topic)].push(paper as u32);
        }
        CandidateDrawer {
            topics,
            by_topic,
            mark: vec![0; topics.len()],
            stamp: 0,
            all: Vec::new(),
        }
    }

    fn relevance(&self, target: u32, paper: u32, rng: &mut ChaCha8Rng) -> f64 {
        let u: f64 = rng.random();
        if self.topics[target as usize] == self.topics[paper as usize] {
            0.15 + 0.85 * u * u
        } else {
            0.3 * u * u
        }
    }

    fn draw(&mut self, target: u32, want: usize, rng: &mut ChaCha8Rng, out: &mut Vec<Candidate>) {
        out.clear();
        let papers = self.topics.len();
        if want * 2 > papers {
            // Most papers are wanted: a partial shuffle of all of them.
            self.all.clear();
            self.all.extend((0..papers as u32).filter(|&p| p != target));
            for i in 0..want {
                let j = rng.random_range(i..self.all.len());
                self.all.swap(i, j);
                let paper = self.all[i];
                let relevance = self.relevance(target, paper, rng);
                out.push(Candidate { paper, relevance });
            }
            return;
        }
        self.stamp += 1;
        self.mark[target as usize] = self.stamp;
        let same_topic = &self.by_topic[usize::from(self.topics[target as usize])];
        while out.len() < want {
            // About 60% from the target's topic, the rest from anywhere.
            let paper = if same_topic.len() > 1 && rng.random_ratio(3, 5) {
                same_topic[rng.random_range(0..same_topic.len())]
            } else {
                rng.random_range(0..papers as u32)
            };
            if self.mark[paper as usize] == self.stamp {
                continue;
            }
            self.mark[paper as usize] = self.stamp;
            let relevance = self.relevance(target, paper, rng);
            out.push(Candidate { paper, relevance });
        }
    }
}

/// Writes `recommendations.csv` and `runs/*.run`; returns the pools of the rated targets.
fn write_recommendations(
    config: &Config,
    seed: u64,
    topics: &[u8],
    targets: &[u32],
    out: &Path,
    summary: &mut Summary,
) -> io::Result<Pools> {
    let mut rng = rng_for(seed, STREAM_RECOMMENDATIONS);
    let mut drawer = CandidateDrawer::new(topics);

    let csv_path = out.join("recommendations.csv");
    let mut csv = BufWriter::with_capacity(4 << 20, File::create(&csv_path)?);
    csv.write_all(b"model,target,rank,paper,score\n")?;
    let run_capacity = ((8 << 20) / config.models).clamp(64 << 10, 1 << 20);
    let names: Vec<Vec<u8>> = (1..=config.models)
        .map(|m| format!("model-{m}").into_bytes())
        .collect();
    let mut run_paths = Vec::with_capacity(config.models);
    let mut runs = Vec::with_capacity(config.models);
    for name in &names {
        let path = out
            .join("runs")
            .join(format!("{}.run", String::from_utf8_lossy(name)));
        runs.push(BufWriter::with_capacity(run_capacity, File::create(&path)?));
        run_paths.push(path);
    }
    let noise: Vec<f64> = (0..config.models)
        .map(|m| model_noise(m, config.models))
        .collect();

    let want = config.candidates();
    let list_len = config.list_len;
    let mut candidates = Vec::with_capacity(want);
    let mut scored: Vec<(f64, u32)> = Vec::with_capacity(want);
    let mut in_pool: Vec<bool> = Vec::with_capacity(want);
    let mut csv_chunk: Vec<u8> = Vec::with_capacity(config.models * list_len * 40);
    let mut run_chunk: Vec<u8> = Vec::with_capacity(list_len * 48);
    let mut target_id = Vec::with_capacity(7);
    let mut paper_id = Vec::with_capacity(7);
    let mut rank_text = Vec::with_capacity(8);
    let mut score_text = Vec::with_capacity(8);
    let mut pools = Pools::default();
    pools.offsets.push(0);

    for (target_index, &target) in targets.iter().enumerate() {
        drawer.draw(target, want, &mut rng, &mut candidates);
        target_id.clear();
        push_id_bytes(&mut target_id, target);
        let pooled = target_index < config.rated_targets;
        in_pool.clear();
        in_pool.resize(candidates.len(), false);
        csv_chunk.clear();
        for (model, run) in runs.iter_mut().enumerate() {
            scored.clear();
            scored.extend(
                candidates
                    .iter()
                    .enumerate()
                    .map(|(i, c)| (c.relevance + noise[model] * gauss(&mut rng), i as u32)),
            );
            scored.sort_unstable_by(|a, b| {
                b.0.total_cmp(&a.0).then_with(|| {
                    candidates[a.1 as usize]
                        .paper
                        .cmp(&candidates[b.1 as usize].paper)
                })
            });
            run_chunk.clear();
            let mut previous = 0u32;
            for (rank0, &(raw, index)) in scored[..list_len].iter().enumerate() {
                // Strictly decreasing, and positive down to the last rank.
                let floor = (list_len - rank0) as u32;
                let mut micros = score_micros(raw).min(999_999);
                if rank0 > 0 {
                    micros = micros.min(previous - 1);
                }
                micros = micros.max(floor);
                previous = micros;

                if pooled && rank0 < config.pool_depth {
                    in_pool[index as usize] = true;
                }
                paper_id.clear();
                push_id_bytes(&mut paper_id, candidates[index as usize].paper);
                rank_text.clear();
                push_uint_bytes(&mut rank_text, rank0 as u64 + 1);
                score_text.clear();
                push_score(&mut score_text, micros);

                let name = &names[model];
                for part in [
                    &name[..],
                    b",",
                    &target_id,
                    b",",
                    &rank_text,
                    b",",
                    &paper_id,
                    b",",
                ] {
                    csv_chunk.extend_from_slice(part);
                }
                csv_chunk.extend_from_slice(&score_text);
                csv_chunk.push(b'\n');

                for part in [&target_id[..], b" Q0 ", &paper_id, b" ", &rank_text, b" "] {
                    run_chunk.extend_from_slice(part);
                }
                run_chunk.extend_from_slice(&score_text);
                run_chunk.push(b' ');
                run_chunk.extend_from_slice(name);
                run_chunk.push(b'\n');
            }
            run.write_all(&run_chunk)?;
        }
        csv.write_all(&csv_chunk)?;
        if pooled {
            pools.targets.push(target);
            let start = pools.entries.len();
            pools.entries.extend(
                candidates
                    .iter()
                    .zip(&in_pool)
                    .filter(|(_, &pooled)| pooled)
                    .map(|(c, _)| *c),
            );
            pools.entries[start..].sort_unstable_by_key(|c| c.paper);
            pools.offsets.push(pools.entries.len());
        }
    }

    summary.recommendations = targets.len() * config.models * list_len;
    summary.recommendations_bytes = finish(csv)?;
    for run in runs {
        summary.runs_bytes += finish(run)?;
    }
    Ok(pools)
}

/// Flushes `writer`; returns the size of its file.
fn finish(writer: BufWriter<File>) -> io::Result<u64> {
    let file = writer.into_inner().map_err(|e| e.into_error())?;
    Ok(file.metadata()?.len())
}

fn push_uint_bytes(out: &mut Vec<u8>, n: u64) {
    let mut text = String::new();
    push_uint(&mut text, n);
    out.extend_from_slice(text.as_bytes());
}

/// `micros` millionths as `0.dddddd`.
fn push_score(out: &mut Vec<u8>, micros: u32) {
    debug_assert!(micros < 1_000_000);
    let mut n = micros;
    let mut digits = [b'0'; 6];
    for digit in digits.iter_mut().rev() {
        *digit = b'0' + (n % 10) as u8;
        n /= 10;
    }
    out.extend_from_slice(b"0.");
    out.extend_from_slice(&digits);
}

// ---------------------------------------------------------------------------------------
// Ratings
// ---------------------------------------------------------------------------------------

/// How many ratings each pool gets: as even as the pool sizes allow, `total` in all
/// (or every pair, when the pools hold fewer).
fn quotas(sizes: &[usize], total: usize) -> Vec<usize> {
    let available: usize = sizes.iter().sum();
    let total = total.min(available);
    let max_size = sizes.iter().copied().max().unwrap_or(0);
    // The highest level whose capped sum stays within `total`.
    let (mut low, mut high) = (0, max_size);
    while low < high {
        let mid = (low + high).div_ceil(2);
        let sum: usize = sizes.iter().map(|&s| s.min(mid)).sum();
        if sum <= total {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    let mut quotas: Vec<usize> = sizes.iter().map(|&s| s.min(low)).collect();
    let mut left = total - quotas.iter().sum::<usize>();
    for (quota, &size) in quotas.iter_mut().zip(sizes) {
        if left == 0 {
            break;
        }
        if size > *quota {
            *quota += 1;
            left -= 1;
        }
    }
    quotas
}

/// The stars a rater gives to a pair: the hidden relevance on a 1..5 scale, plus a little
/// noise that depends on the pair alone.
fn stars(seed: u64, target: u32, paper: u32, relevance: f64) -> u8 {
    let h = mix(seed ^ mix((u64::from(target) << 32) | u64::from(paper)));
    let noise = (unit(h) + unit(mix(h)) + unit(mix(h ^ 1)) + unit(mix(h ^ 2)) - 2.0)
        * 1.732_050_807_568_877_2;
    let value = 1.0 + 4.0 * relevance + 0.35 * noise;
    (value + 0.5).floor().clamp(1.0, 5.0) as u8
}

/// Writes `ratings.csv`; returns the number of ratings and of targets with at least one.
fn write_ratings(
    config: &Config,
    seed: u64,
    pools: &Pools,
    path: &Path,
) -> io::Result<(usize, usize)> {
    let mut rng = rng_for(seed, STREAM_RATINGS);
    let sizes: Vec<usize> = pools.offsets.windows(2).map(|w| w[1] - w[0]).collect();
    let quotas = quotas(&sizes, config.ratings);
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    out.write_all(b"target,paper,stars\n")?;
    let mut line = Vec::with_capacity(32);
    let mut chosen: Vec<Candidate> = Vec::new();
    let (mut written, mut rated_targets) = (0, 0);
    for (i, &target) in pools.targets.iter().enumerate() {
        let pool = &pools.entries[pools.offsets[i]..pools.offsets[i + 1]];
        let quota = quotas[i];
        if quota == 0 {
            continue;
        }
        rated_targets += 1;
        // A random `quota` of the pool, in paper order.
        chosen.clear();
        chosen.extend_from_slice(pool);
        for k in 0..quota {
            let j = rng.random_range(k..chosen.len());
            chosen.swap(k, j);
        }
        chosen.truncate(quota);
        chosen.sort_unstable_by_key(|c| c.paper);
        for c in &chosen {
            line.clear();
            push_id_bytes(&mut line, target);
            line.push(b',');
            push_id_bytes(&mut line, c.paper);
            line.push(b',');
            line.push(b'0' + stars(seed, target, c.paper, c.relevance));
            line.push(b'\n');
            out.write_all(&line)?;
        }
        written += quota;
    }
    out.flush()?;
    Ok((written, rated_targets))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    fn args(extra: &[&str]) -> Args {
        let mut argv = vec!["paperjudge-synth", "--out", "unused"];
        argv.extend_from_slice(extra);
        Args::try_parse_from(argv).expect("valid arguments")
    }

    fn tiny() -> Config {
        Config::resolve(&args(&[
            "--papers",
            "40",
            "--models",
            "3",
            "--targets",
            "12",
            "--list-len",
            "6",
            "--rated-targets",
            "5",
            "--ratings",
            "37",
        ]))
        .expect("valid config")
    }

    /// A fresh directory under the system temp dir, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            let path = std::env::temp_dir().join(format!(
                "paperjudge-synth-test-{}-{name}",
                std::process::id()
            ));
            let _ = fs::remove_dir_all(&path);
            TempDir(path)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
        let mut reader = csv::Reader::from_path(path).expect("readable csv");
        let header = reader
            .headers()
            .expect("header")
            .iter()
            .map(str::to_owned)
            .collect();
        let rows = reader
            .records()
            .map(|r| r.expect("valid row").iter().map(str::to_owned).collect())
            .collect();
        (header, rows)
    }

    fn all_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut files = Vec::new();
        for name in ["papers.csv", "recommendations.csv", "ratings.csv"] {
            files.push((name.to_owned(), fs::read(dir.join(name)).expect("file")));
        }
        let mut runs: Vec<_> = fs::read_dir(dir.join("runs"))
            .expect("runs")
            .map(|e| e.expect("entry").path())
            .collect();
        runs.sort();
        for run in runs {
            let name = format!("runs/{}", run.file_name().unwrap().to_string_lossy());
            files.push((name, fs::read(&run).expect("run")));
        }
        files
    }

    #[test]
    fn presets_resolve() {
        let s = Config::resolve(&args(&["--size", "s"])).unwrap();
        assert_eq!(
            s,
            Config {
                papers: 2_000,
                models: 8,
                targets: 65,
                list_len: 20,
                rated_targets: 65,
                ratings: 1_300,
                pool_depth: 8
            }
        );
        let l = Config::resolve(&args(&["--size", "L"])).unwrap();
        assert_eq!(
            (l.papers, l.targets, l.rated_targets, l.ratings),
            (40_000, 40_000, 5_000, 100_000)
        );
        // Preset counts shrink to fit explicit small ones.
        let small = Config::resolve(&args(&["--size", "l", "--papers", "10"])).unwrap();
        assert_eq!(
            (small.targets, small.list_len, small.rated_targets),
            (10, 9, 10)
        );
        assert!(small.ratings <= 10 * 9);
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
        ] {
            assert!(Config::resolve(&args(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        let config = tiny();
        let (a, b, c) = (TempDir::new("a"), TempDir::new("b"), TempDir::new("c"));
        write_study(&config, 42, &a.0).unwrap();
        write_study(&config, 42, &b.0).unwrap();
        write_study(&config, 43, &c.0).unwrap();
        let (a, b, c) = (all_files(&a.0), all_files(&b.0), all_files(&c.0));
        assert_eq!(a.len(), 3 + 3);
        for ((name, bytes), (other_name, other_bytes)) in a.iter().zip(&b) {
            assert_eq!(name, other_name);
            assert!(bytes == other_bytes, "{name} differs under the same seed");
        }
        for ((name, bytes), (_, other_bytes)) in a.iter().zip(&c) {
            assert!(
                bytes != other_bytes,
                "{name} is the same under another seed"
            );
        }
    }

    #[test]
    fn tiny_study_is_consistent() {
        let config = tiny();
        let dir = TempDir::new("tiny");
        let summary = write_study(&config, 7, &dir.0).unwrap();
        assert_eq!(summary.ratings, 37);

        let (header, papers) = read_csv(&dir.0.join("papers.csv"));
        assert_eq!(
            header,
            ["id", "title", "abstract", "authors", "year", "url"]
        );
        assert_eq!(papers.len(), 40);
        assert_eq!(papers[0][0], "P000001");
        assert_eq!(papers[39][0], "P000040");
        assert!(papers[0][1].contains(',') && papers[0][1].contains('"'));
        for paper in &papers {
            let title_words = paper[1].split_whitespace().count();
            assert!((6..=12).contains(&title_words), "{:?}", paper[1]);
            let abstract_words = paper[2].split_whitespace().count();
            assert!((120..=250).contains(&abstract_words), "{abstract_words}");
            assert!(paper[2].ends_with('.'));
            let authors = paper[3].split("; ").count();
            assert!((1..=5).contains(&authors));
            assert!(paper[3].split("; ").all(|a| a.split(' ').count() == 2));
            let year: u32 = paper[4].parse().unwrap();
            assert!((1995..=2024).contains(&year));
            assert_eq!(paper[5], format!("https://example.org/p/{}", paper[0]));
        }
        let ids: HashSet<&str> = papers.iter().map(|p| p[0].as_str()).collect();

        let (header, recs) = read_csv(&dir.0.join("recommendations.csv"));
        assert_eq!(header, ["model", "target", "rank", "paper", "score"]);
        assert_eq!(recs.len(), 12 * 3 * 6);
        // (model, target, [(paper, score)]) in file order.
        type List = (String, String, Vec<(String, String)>);
        let mut lists: Vec<List> = Vec::new();
        for (i, row) in recs.iter().enumerate() {
            let rank: usize = row[2].parse().unwrap();
            assert_eq!(rank, i % 6 + 1);
            assert_eq!(row[0], format!("model-{}", (i / 6) % 3 + 1));
            assert!(ids.contains(row[1].as_str()) && ids.contains(row[3].as_str()));
            assert_ne!(row[1], row[3]);
            if rank == 1 {
                lists.push((row[0].clone(), row[1].clone(), Vec::new()));
            }
            lists
                .last_mut()
                .unwrap()
                .2
                .push((row[3].clone(), row[4].clone()));
        }
        let targets: Vec<&str> = lists.iter().step_by(3).map(|l| l.1.as_str()).collect();
        let mut sorted = targets.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(targets, sorted, "targets ascending and distinct");
        for (_, _, list) in &lists {
            let papers: HashSet<&str> = list.iter().map(|(p, _)| p.as_str()).collect();
            assert_eq!(papers.len(), list.len(), "no duplicate paper");
            let scores: Vec<f64> = list.iter().map(|(_, s)| s.parse().unwrap()).collect();
            assert!(scores.windows(2).all(|w| w[0] > w[1]), "{scores:?}");
            assert!(scores.iter().all(|&s| s > 0.0 && s < 1.0));
        }

        // Every run holds the model's lists, in the order trec_eval would sort them.
        for model in 1..=3 {
            let name = format!("model-{model}");
            let run = fs::read_to_string(dir.0.join("runs").join(format!("{name}.run"))).unwrap();
            let mut by_target: HashMap<String, Vec<(String, usize, String)>> = HashMap::new();
            for line in run.lines() {
                let f: Vec<&str> = line.split(' ').collect();
                assert_eq!(f.len(), 6);
                assert_eq!((f[1], f[5]), ("Q0", name.as_str()));
                by_target.entry(f[0].to_owned()).or_default().push((
                    f[2].to_owned(),
                    f[3].parse().unwrap(),
                    f[4].to_owned(),
                ));
            }
            assert_eq!(by_target.len(), 12);
            for (model_name, target, list) in lists.iter().filter(|l| l.0 == name) {
                let mut lines = by_target[target].clone();
                // trec_eval: score descending, then docno descending.
                lines.sort_by(|a, b| {
                    let (x, y): (f64, f64) = (a.2.parse().unwrap(), b.2.parse().unwrap());
                    y.total_cmp(&x).then_with(|| b.0.cmp(&a.0))
                });
                for (i, ((paper, rank, score), (csv_paper, csv_score))) in
                    lines.iter().zip(list).enumerate()
                {
                    assert_eq!(*rank, i + 1, "{model_name} {target}");
                    assert_eq!((paper, score), (csv_paper, csv_score));
                }
            }
        }

        // Ratings: pooled pairs (a model's top 8) of the first 5 targets, spread evenly.
        let (header, ratings) = read_csv(&dir.0.join("ratings.csv"));
        assert_eq!(header, ["target", "paper", "stars"]);
        assert_eq!(ratings.len(), 37);
        let rated_targets: Vec<&str> = targets[..5].to_vec();
        let mut per_target: HashMap<&str, usize> = HashMap::new();
        let mut pairs = HashSet::new();
        for row in &ratings {
            assert!(rated_targets.contains(&row[0].as_str()));
            let stars: u8 = row[2].parse().unwrap();
            assert!((1..=5).contains(&stars));
            assert!(
                pairs.insert((row[0].clone(), row[1].clone())),
                "no duplicate pair"
            );
            let pooled = lists
                .iter()
                .any(|(_, t, list)| t == &row[0] && list.iter().take(8).any(|(p, _)| p == &row[1]));
            assert!(pooled, "{row:?} is pooled");
            *per_target.entry(row[0].as_str()).or_default() += 1;
        }
        assert_eq!(per_target.len(), 5);
    }

    #[test]
    fn quotas_are_even_within_pool_sizes() {
        assert_eq!(quotas(&[10, 10, 10], 20), [7, 7, 6]);
        assert_eq!(quotas(&[2, 10, 10], 20), [2, 9, 9]);
        assert_eq!(quotas(&[2, 3], 20), [2, 3]);
        assert_eq!(quotas(&[5, 5], 0), [0, 0]);
        assert_eq!(quotas(&[], 5), Vec::<usize>::new());
    }

    /// NDCG@8 per model from the written ratings (unjudged = 0, ideal from the judged pairs).
    fn ndcg_by_model(dir: &Path, models: usize) -> Vec<f64> {
        let (_, ratings) = read_csv(&dir.join("ratings.csv"));
        let mut rel: HashMap<(String, String), f64> = HashMap::new();
        let mut ideal: HashMap<String, Vec<f64>> = HashMap::new();
        for row in ratings {
            let gain = row[2].parse::<f64>().unwrap() - 1.0;
            ideal.entry(row[0].clone()).or_default().push(gain);
            rel.insert((row[0].clone(), row[1].clone()), gain);
        }
        let dcg = |gains: &[f64]| -> f64 {
            gains
                .iter()
                .take(8)
                .enumerate()
                .map(|(i, g)| g / ((i + 2) as f64).log2())
                .sum()
        };
        let (_, recs) = read_csv(&dir.join("recommendations.csv"));
        let mut lists: HashMap<(String, String), Vec<f64>> = HashMap::new();
        for row in recs {
            if ideal.contains_key(&row[1]) {
                let gain = rel
                    .get(&(row[1].clone(), row[3].clone()))
                    .copied()
                    .unwrap_or(0.0);
                lists
                    .entry((row[0].clone(), row[1].clone()))
                    .or_default()
                    .push(gain);
            }
        }
        (1..=models)
            .map(|m| {
                let name = format!("model-{m}");
                let mut values = Vec::new();
                for (target, gains) in &ideal {
                    let mut best = gains.clone();
                    best.sort_by(|a, b| b.total_cmp(a));
                    if dcg(&best) > 0.0 {
                        let list = &lists[&(name.clone(), target.clone())];
                        values.push(dcg(list) / dcg(&best));
                    }
                }
                values.iter().sum::<f64>() / values.len() as f64
            })
            .collect()
    }

    #[test]
    fn ratings_rank_the_models_in_order() {
        let config = Config::resolve(&args(&["--size", "s"])).unwrap();
        let dir = TempDir::new("order");
        let summary = write_study(&config, 1, &dir.0).unwrap();
        assert_eq!(summary.ratings, 1_300);
        assert_eq!(summary.rated_targets, 65);
        let ndcg = ndcg_by_model(&dir.0, 8);
        assert!(ndcg[0] > ndcg[7] + 0.2, "{ndcg:?}");
        assert!(
            ndcg[0] > ndcg[3] && ndcg[3] > ndcg[7],
            "best, middle and worst in order: {ndcg:?}"
        );
    }
}
